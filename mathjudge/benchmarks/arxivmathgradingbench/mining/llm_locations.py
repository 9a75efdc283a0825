"""Stage 3 fallback: a model lists the error locations a revision comment names, for comments
in which the regex finds no labelled result.

The reply must end with `LOCATIONS: [..]`, a JSON array of strings (empty when the comment names
no place). A location whose label does not occur in the comment ("Theorem 7" when the comment
never says 7) is rejected as invented, and the model is asked again; after `parse_attempts`
answers the record is a recorded failure, not an empty list.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Unpack

from mathjudge.benchmarks.arxivmathgradingbench.locations import parse_location
from mathjudge.benchmarks.arxivmathgradingbench.mining.classify import RecordLike, comment_request
from mathjudge.llm.answers import AnswerError, final_field
from mathjudge.llm.client import ClientOptions, LlmClient, Progress
from mathjudge.llm.params import DETERMINISTIC as DEFAULT_PARAMS
from mathjudge.llm.request import LlmRequest
from mathjudge.prompts import load_prompt

PROMPT_NAME = "arxiv_locations"


@dataclass(frozen=True)
class LocationExtraction:
    """The locations one comment names (possibly none), or the failure that stands in for
    them."""

    item_id: str
    locations: tuple[str, ...] | None
    failure: str | None = None
    answers: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "locations": None if self.locations is None else list(self.locations),
            "failure": self.failure,
            "answer": self.answers[-1] if self.answers else None,
            "answers": len(self.answers),
        }


@dataclass(frozen=True)
class LocationsReport:
    model: str
    prompt_sha256: str
    results: list[LocationExtraction]  # in input order
    usage: dict[str, Any]  # `LlmStats.summary()`
    usage_line: str  # `LlmStats.describe()`

    @property
    def failures(self) -> list[LocationExtraction]:
        return [r for r in self.results if r.failure is not None]


def extract_locations(
    records: Iterable[RecordLike],
    *,
    model: str,
    cache_dir: Path | str,
    parse_attempts: int = 3,
    progress: Progress | None = None,
    **options: Unpack[ClientOptions],
) -> LocationsReport:
    """Asks for the error locations of every record (arxiv_id, version, comment, title);
    `options` go to `LlmClient`. Sampling defaults to temperature 0."""
    prompt = load_prompt(PROMPT_NAME)
    jobs: list[tuple[LlmRequest, Callable[[str], tuple[str, ...]]]] = []
    for record in records:
        request, comment = comment_request(record, prompt)
        jobs.append((request, partial(parse_locations_answer, comment=comment)))
    options.setdefault("params", DEFAULT_PARAMS)
    client = LlmClient(model, cache_dir=cache_dir, **options)
    replies = client.run_parsed_batch(jobs, attempts=parse_attempts, progress=progress)
    results = [LocationExtraction(r.item_id, r.value, r.failure, r.answers) for r in replies]
    return LocationsReport(
        model, prompt.sha256, results, client.stats.summary(), client.stats.describe()
    )


def parse_locations_answer(answer: str, *, comment: str) -> tuple[str, ...]:
    """The distinct locations of the final `LOCATIONS:` line, each checked against `comment`."""
    value = final_field(answer, "LOCATIONS")
    try:
        items = json.loads(value)
    except json.JSONDecodeError as exc:
        raise AnswerError(f"the LOCATIONS line is not a JSON array ({exc.msg})") from None
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise AnswerError("the LOCATIONS line must be a JSON array of strings")
    locations = tuple(dict.fromkeys(" ".join(item.split()) for item in items if item.strip()))
    for location in locations:
        label = parse_location(location).label
        if label is not None and not re.search(rf"(?<![\w.]){re.escape(label)}(?!\.?\w)", comment):
            raise AnswerError(f"{location!r} is not named in the comment (no {label!r} there)")
    return locations
