"""Token, cost and outcome accounting for model calls, so every run can say what it spent."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

UNKNOWN = "unknown"


@dataclass(frozen=True)
class Usage:
    """Tokens of one answer and its price in USD; `cost_usd` is None when litellm's cost map
    does not know the model (a local server, a model newer than the map)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Usage:
        cost = data.get("cost_usd")
        return cls(
            prompt_tokens=int(data.get("prompt_tokens") or 0),
            completion_tokens=int(data.get("completion_tokens") or 0),
            cost_usd=None if cost is None else float(cost),
        )


@dataclass
class UsageTotals:
    """Sums over answers; a total cost exists only when every answer had a known price."""

    answers: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    known_cost_usd: float = 0.0
    unpriced: int = 0

    def add(self, usage: Usage) -> None:
        self.answers += 1
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        if usage.cost_usd is None:
            self.unpriced += 1
        else:
            self.known_cost_usd += usage.cost_usd

    @property
    def cost_usd(self) -> float | str:
        return UNKNOWN if self.unpriced else round(self.known_cost_usd, 8)


@dataclass
class LlmStats:
    """What one client did in this process: requests, cache use, retries, failures and usage.

    `spent` covers answers fetched now (what this run cost); `replayed` covers answers served
    from the cache (what they cost when first fetched), so both a re-run's price (zero) and the
    full price of its results can be shown.
    """

    requests: int = 0  # HTTP attempts sent, retries included
    retries: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    call_failures: int = 0  # calls given up after every retry, or not retryable
    invalid_answers: int = 0  # answers a parser rejected (each one, retried or not)
    parse_failures: int = 0  # items given up because no answer could be parsed
    spent: UsageTotals = field(default_factory=UsageTotals)
    replayed: UsageTotals = field(default_factory=UsageTotals)

    def summary(self) -> dict[str, Any]:
        """Flat JSON-ready counts, for reports, meta.json and manifests."""
        return {
            "requests": self.requests,
            "retries": self.retries,
            "cache_hits": self.cache_hits,
            "cache_misses": self.cache_misses,
            "call_failures": self.call_failures,
            "invalid_answers": self.invalid_answers,
            "parse_failures": self.parse_failures,
            "tokens_in": self.spent.prompt_tokens,
            "tokens_out": self.spent.completion_tokens,
            "cost_usd": self.spent.cost_usd,
            "cached_tokens_in": self.replayed.prompt_tokens,
            "cached_tokens_out": self.replayed.completion_tokens,
            "cached_cost_usd": self.replayed.cost_usd,
        }

    def describe(self) -> str:
        """One line for the end of a CLI run."""
        cost = self.spent.cost_usd
        shown = f"${cost:.6f}" if isinstance(cost, float) else cost
        return (
            f"{self.cache_misses} new call(s), {self.cache_hits} from cache, "
            f"{self.retries} retr{'y' if self.retries == 1 else 'ies'}, "
            f"{self.call_failures} failed call(s), {self.parse_failures} unparseable; "
            f"tokens {self.spent.prompt_tokens:,} in / {self.spent.completion_tokens:,} out; "
            f"cost {shown}"
        )
