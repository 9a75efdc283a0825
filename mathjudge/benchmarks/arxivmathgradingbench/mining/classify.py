"""Stage 2 of the arXiv mining pipeline: a model labels each revision comment that survived the
regex stage as a `major` or `minor` error correction, or `none` (not an error correction, such
as "corrected typos in the proof of Theorem 3"). The pipeline keeps major and minor.

Answers are read strictly: the reply must end with `LABEL: major|minor|none`. An unparseable
answer is asked again (up to `parse_attempts` answers), then recorded as a failure with its
reason and raw answer, never dropped and never counted as `none`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Unpack

from mathjudge.base.errors import MathJudgeError
from mathjudge.llm.answers import final_choice
from mathjudge.llm.client import ClientOptions, LlmClient, ParsedReply, Progress
from mathjudge.llm.params import DETERMINISTIC
from mathjudge.llm.request import LlmRequest
from mathjudge.prompts import Prompt, load_prompt

PROMPT_NAME = "arxiv_classify"
LABELS: tuple[str, ...] = ("major", "minor", "none")
KEPT = frozenset({"major", "minor"})
DEFAULT_PARAMS = DETERMINISTIC

Label = Literal["major", "minor", "none"]
RecordLike = Mapping[str, Any] | object  # a mapping, or an object with those attributes


@dataclass(frozen=True)
class Classification:
    """One record's outcome: a label, or the failure that stands in for it."""

    item_id: str  # <arxiv_id>v<version>
    label: str | None
    failure: str | None = None
    answers: tuple[str, ...] = ()  # every answer received, the deciding one last

    @property
    def kept(self) -> bool:
        return self.label in KEPT

    def to_json(self) -> dict[str, Any]:
        return {
            "item_id": self.item_id,
            "label": self.label,
            "failure": self.failure,
            "answer": self.answers[-1] if self.answers else None,
            "answers": len(self.answers),
        }


@dataclass(frozen=True)
class ClassifyReport:
    """Per-record results in input order, with what the manifest and funnel need."""

    model: str
    prompt_sha256: str
    results: list[Classification]
    usage: dict[str, Any]  # `LlmStats.summary()`
    usage_line: str  # `LlmStats.describe()`, for the end of a CLI run

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys((*LABELS, "failed"), 0)
        for result in self.results:
            counts[result.label or "failed"] += 1
        return counts

    @property
    def failures(self) -> list[Classification]:
        return [r for r in self.results if r.failure is not None]

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "prompt": PROMPT_NAME,
            "prompt_sha256": self.prompt_sha256,
            "counts": self.counts,
            "usage": self.usage,
            "results": [r.to_json() for r in self.results],
        }


def classify(
    records: Iterable[RecordLike],
    *,
    model: str,
    cache_dir: Path | str,
    parse_attempts: int = 3,
    progress: Progress | None = None,
    **options: Unpack[ClientOptions],
) -> ClassifyReport:
    """Labels every record (a mapping or object with arxiv_id, version, comment and optionally
    title); `options` go to `LlmClient` (concurrency, api_base, api_key, params, timeout,
    retry). Sampling defaults to temperature 0; pass `params` to change it."""
    prompt = load_prompt(PROMPT_NAME)
    options.setdefault("params", DEFAULT_PARAMS)
    client = LlmClient(model, cache_dir=cache_dir, **options)
    jobs = [(comment_request(record, prompt)[0], parse_label) for record in records]
    replies = client.run_parsed_batch(jobs, attempts=parse_attempts, progress=progress)
    return ClassifyReport(
        model=model,
        prompt_sha256=prompt.sha256,
        results=[_classification(reply) for reply in replies],
        usage=client.stats.summary(),
        usage_line=client.stats.describe(),
    )


def parse_label(answer: str) -> str:
    return final_choice(answer, "LABEL", LABELS)


def comment_request(record: RecordLike, prompt: Prompt) -> tuple[LlmRequest, str]:
    """The request asking `prompt` about a record's revision comment, and that comment as the
    model sees it (whitespace collapsed: Kaggle records keep hard line breaks)."""
    item_id = record_id(record)
    comment = " ".join(str(record_value(record, "comment") or "").split())
    if not comment:
        raise MathJudgeError(f"{item_id}: the record has no revision comment")
    title = " ".join(str(record_value(record, "title") or "(no title)").split())
    text = prompt.fill(paper=f"arXiv:{item_id}", title=title, comment=comment)
    return LlmRequest(item_id, [{"role": "user", "content": text}]), comment


def record_id(record: RecordLike) -> str:
    """`<arxiv_id>v<version>`, whether the version is given as 2 or "v2"."""
    version = str(record_value(record, "version")).removeprefix("v")
    return f"{record_value(record, 'arxiv_id')}v{version}"


def record_value(record: RecordLike, name: str) -> Any:
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)


def _classification(reply: ParsedReply[str]) -> Classification:
    return Classification(reply.item_id, reply.value, reply.failure, reply.answers)
