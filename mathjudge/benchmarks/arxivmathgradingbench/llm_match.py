"""The inclusive `llm` matcher for ArxivMathGradingBench: a model decides whether a predicted
error location lies within a ground-truth location ("eq. (4) in the proof of Theorem 2.1" lies
within "Theorem 2.1"), reading the paper when its text is at hand.

Decisions are cached like every model call. A failed or unparseable call leaves its pair
undecided (None) and is kept in `failures` with its reason: never counted as a non-match.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Unpack

from mathjudge.benchmarks.arxivmathgradingbench.locations import Location
from mathjudge.benchmarks.arxivmathgradingbench.matching import (
    MatchPair,
    PaperContext,
    PredictedLocation,
)
from mathjudge.llm.answers import final_choice
from mathjudge.llm.client import ClientOptions, LlmClient, Progress
from mathjudge.llm.params import DETERMINISTIC as DEFAULT_PARAMS
from mathjudge.llm.request import LlmRequest
from mathjudge.llm.usage import LlmStats
from mathjudge.prompts import load_prompt

PROMPT_NAME = "location_match"
PaperText = Callable[[PaperContext], str | None]


@dataclass(frozen=True)
class MatchDecision:
    item_id: str  # the paper's item id
    predicted: str
    truth: str
    matched: bool | None  # None: undecided, see `failure`
    failure: str | None = None
    answers: tuple[str, ...] = ()


class LlmMatcher:
    """Implements `matching.Matcher`. `paper_text(context)` may return the
    paper's text (the version with the error); it is cut to `max_paper_chars`. `options` go
    to `LlmClient`; sampling defaults to temperature 0."""

    name = "llm"

    def __init__(
        self,
        model: str,
        cache_dir: Path | str,
        *,
        paper_text: PaperText | None = None,
        max_paper_chars: int = 200_000,
        parse_attempts: int = 3,
        **options: Unpack[ClientOptions],
    ) -> None:
        options.setdefault("params", DEFAULT_PARAMS)
        self.client = LlmClient(model, cache_dir=cache_dir, **options)
        self.prompt = load_prompt(PROMPT_NAME)
        self.paper_text = paper_text
        self.max_paper_chars = max_paper_chars
        self.parse_attempts = parse_attempts
        self.failures: list[MatchDecision] = []  # every undecided pair so far, for the report

    @property
    def prompt_sha256(self) -> str:
        return self.prompt.sha256

    @property
    def stats(self) -> LlmStats:
        return self.client.stats

    def match_many(self, pairs: list[MatchPair]) -> list[bool | None]:
        """One decision per pair, in order: True, False, or None when undecided."""
        return [decision.matched for decision in self.decide_many(pairs)]

    def decide_many(
        self, pairs: Sequence[MatchPair], *, progress: Progress | None = None
    ) -> list[MatchDecision]:
        """Decisions with their answers and failures; identical questions are asked once."""
        contexts = dict.fromkeys(context for _, _, context in pairs)
        papers = {context: self._paper(context) for context in contexts}
        groups: dict[tuple[str, str], list[int]] = {}
        for index, (predicted, truth, context) in enumerate(pairs):
            question = self._question(predicted, truth, context.item_id, papers[context])
            groups.setdefault(question, []).append(index)
        jobs = [
            (LlmRequest(item, [{"role": "user", "content": text}]), parse_match)
            for item, text in groups
        ]
        replies = self.client.run_parsed_batch(
            jobs, attempts=self.parse_attempts, progress=progress
        )
        decisions: dict[int, MatchDecision] = {}
        for reply, indices in zip(replies, groups.values(), strict=True):
            for index in indices:
                predicted, truth, context = pairs[index]
                decisions[index] = MatchDecision(
                    context.item_id,
                    predicted.location.text,
                    truth.text,
                    reply.value,
                    reply.failure,
                    reply.answers,
                )
        ordered = [decisions[index] for index in range(len(pairs))]
        self.failures += [d for d in ordered if d.failure is not None]
        return ordered

    def _paper(self, context: PaperContext) -> str:
        paper = (self.paper_text(context) if self.paper_text else None) or ""
        if len(paper) > self.max_paper_chars:
            paper = paper[: self.max_paper_chars] + "\n[... the rest of the paper is left out]"
        return paper

    def _question(
        self, predicted: PredictedLocation, truth: Location, item_id: str, paper: str
    ) -> tuple[str, str]:
        """A name for the pair (in errors and logs) and the prompt asking about it."""
        text = self.prompt.fill(
            truth=truth.text,
            predicted=predicted.location.text,
            description=predicted.description or "(no description given)",
            paper_text=paper or "(not available)",
        )
        return f"{item_id} [{predicted.location.text!r} within {truth.text!r}]", text


def parse_match(answer: str) -> bool:
    return final_choice(answer, "MATCH", ("yes", "no")) == "yes"
