"""What every reference judge is: a name, its prompt files, and an
async `judge(case, ask)` that returns prediction fields or raises `JudgeFailure`.

A judge that combines its own runs (e.g. a pessimistic union) says so (`combines_runs`) and
merges them in `combine_runs(fields_per_run) -> fields`; the runner then writes one row per
item. A judge may tally its own details for meta.json (`report`). `JudgeBase` gives every judge
the defaults of both (runs kept apart, nothing to report). Which benchmarks a judge applies to
is declared by each benchmark's spec (`Judging.judges`).

`Ask` is the judge's only way to a model: it binds one item and one run index to the shared
`LlmClient`, so every call is bounded, retried, cached by content hash (the run index salts
the key, so run k of an ensemble replays run k) and counted the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

from mathjudge.prompts import load_prompt
from mathjudge.spec.cases import Case, Target

if TYPE_CHECKING:  # litellm, under the client, takes seconds to import: rule judges never do
    from mathjudge.llm.client import LlmClient

T = TypeVar("T")
Fields = dict[str, Any]


class JudgeFailure(Exception):
    """No judgment for this item and run; the message says why (recorded, counted, shown)."""


@dataclass(frozen=True)
class Ask:
    """Cached, parsed model calls for one (item, run). `attempts` answers per call at most."""

    client: LlmClient
    item_id: str
    run: int
    attempts: int = 3

    async def __call__(
        self, messages: Sequence[Mapping[str, str]], parse: Callable[[str], T], *, step: str
    ) -> T:
        """The parsed answer, or `JudgeFailure` naming the step and the reason."""
        from mathjudge.llm.request import LlmRequest

        reply = await self.client.complete_parsed(
            LlmRequest(self.item_id, list(messages), self.run), parse, attempts=self.attempts
        )
        if not reply.ok:
            raise JudgeFailure(f"{step}: {reply.failure}")
        return reply.value  # type: ignore[return-value]


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


class Judge(Protocol):
    """A reference judge. `prompts` lists the prompt files it may send (recorded with hashes in
    meta.json); `uses_model` is False for rule-based judges, which need no --model."""

    name: ClassVar[str]
    uses_model: ClassVar[bool]
    combines_runs: ClassVar[bool]  # True: `combine_runs` merges an item's runs into one row

    @property
    def prompts(self) -> tuple[str, ...]: ...

    def params(self) -> dict[str, Any]:
        """The judge's own settings, recorded in meta.json."""
        ...

    def applies(self, case: Case) -> bool:
        """Whether the judge is defined for this item (others get no row, by design)."""
        ...

    async def judge(self, case: Case, target: Target, ask: Ask | None) -> Fields: ...

    def combine_runs(self, runs: list[Fields | None]) -> Fields:
        """One item's runs (None where a run failed) as one prediction, or `JudgeFailure`;
        called only where `combines_runs`."""
        ...

    def report(self, details: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        """The judge's own tallies over its details rows (empty: nothing to report)."""
        ...


class JudgeBase:
    """The defaults of a judge's optional capabilities: runs kept apart, nothing to report."""

    combines_runs: ClassVar[bool] = False

    def combine_runs(self, runs: list[Fields | None]) -> Fields:
        raise NotImplementedError(f"{type(self).__name__} keeps its runs apart")

    def report(self, details: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        return {}


def prompt_hashes(names: Sequence[str]) -> dict[str, str]:
    """File name -> sha256 for meta.json."""
    return {f"{name}.md": load_prompt(name).sha256 for name in names}


def or_none(text: str | None) -> str:
    """Reference material shown to a model; absent material is said to be absent."""
    return text if text else "(not provided)"
