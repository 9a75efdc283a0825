"""The records of a scored submission, one type per concept from the evaluator to the site.

`Score` is one value with its 95% CI and n; `Submission` is one judge's scored predictions for
one benchmark: what `evaluate` returns (as an `Evaluation`, which also carries what only the
run has), what the results store keeps and `store.read` returns, and what the leaderboard
document shows (as `spec.document.BoardSubmission`, which adds what the site needs).
`Evaluation.to_json` is the JSON layout of DESIGN.md, with nulls where a metric is undefined
(e.g. correlation of a constant predictor).

Plain frozen dataclasses, so that scoring builds them without pydantic; the document validates
them as pydantic dataclasses (`__pydantic_config__`), strictly, when it is read back.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict

if TYPE_CHECKING:
    import pyarrow as pa

STRICT = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class Score:
    __pydantic_config__ = STRICT

    scope: str
    subset: str
    metric: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


@dataclass(frozen=True)
class DatasetSnapshot:
    """The facts of the dataset a result was scored on, kept in the store beside it so that
    ranking, comparisons and the site never need the built dataset again."""

    name: str
    version: str
    content_hash: str
    items_config: str
    items: pa.Table  # the items config, every column
    card: str
    manifest: dict[str, Any]

    def items_parquet(self) -> bytes:
        import pyarrow as pa
        import pyarrow.parquet as pq

        sink = pa.BufferOutputStream()
        pq.write_table(self.items, sink, compression="zstd")
        data: bytes = sink.getvalue().to_pybytes()
        return data


def submission_id(
    benchmark: str,
    content_hash: str,
    judge: str,
    sha256: str,
    runs_agg: str,
    bootstrap: dict[str, Any],
    meta: dict[str, Any],
) -> str:
    """Same benchmark data, judge, file, meta and scoring options -> same id (a plain
    re-evaluation replaces the stored result). A different meta is a new version of the
    submission, stored beside the old one, never a silent replacement of it."""
    key = json.dumps(
        [benchmark, content_hash, judge, sha256, runs_agg, bootstrap, meta], sort_keys=True
    )
    return hashlib.sha256(key.encode()).hexdigest()[:16]


@dataclass(frozen=True, kw_only=True)
class Submission:
    """One judge's scored predictions for one benchmark (see the module's docstring)."""

    __pydantic_config__ = STRICT

    id: str  # `submission_id` of the facts below, when it was scored
    benchmark: str
    dataset_version: str
    content_hash: str
    judge: str
    meta: dict[str, Any]
    sha256: str  # of the predictions as submitted
    created: str  # ISO 8601 with its UTC offset
    partial: bool
    coverage: float
    n_items: int
    runs: int
    runs_agg: str
    fields: tuple[str, ...]
    bootstrap: dict[str, Any]
    mathjudge_version: str
    scores: tuple[Score, ...]
    source: str = "reproduced"  # or "reported": transcribed from a paper
    citation: str | None = None
    # Benchmark-specific tables (e.g. ProofBench's confusion matrix) for plots.
    extras: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """The record's own fields, shallowly (a subclass's additions left out)."""
        return {f.name: getattr(self, f.name) for f in fields(Submission)}


@dataclass(frozen=True)
class SubmittedFile:
    """A predictions file as submitted: its format (jsonl, csv, parquet) and its bytes (the
    ones its sha256 names and the evaluation parsed), gzip-compressed: a predictions file
    shrinks about tenfold, which is what the evaluation holds while it scores and what the
    store copies."""

    format: str
    gzipped: bytes = field(repr=False)


@dataclass(frozen=True, kw_only=True)
class Evaluation(Submission):
    """A submission as `evaluate` returns it: the record, and what only the run has. Its `id`
    is derived from its facts (`submission_id`), never given."""

    id: str = field(init=False)
    n_expected: int  # the items of the dataset config
    # One row per item (runs combined), kept in the store for paired comparisons; not in JSON.
    predictions: pa.Table | None = field(default=None, compare=False, repr=False)
    # The scored dataset's facts, for the store; not in JSON.
    dataset: DatasetSnapshot | None = field(default=None, compare=False, repr=False)
    # The predictions file as submitted, kept in the store so a site can publish it to be
    # scored again (None for rows scored from memory); not in JSON.
    submitted: SubmittedFile | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "id",
            submission_id(
                self.benchmark,
                self.content_hash,
                self.judge,
                self.sha256,
                self.runs_agg,
                self.bootstrap,
                self.meta,
            ),
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON layout of DESIGN.md (`submission_id`, `submission_sha256`, `n_expected`)."""
        data = asdict(replace(self, predictions=None, dataset=None, submitted=None))
        del data["predictions"], data["dataset"], data["submitted"]
        data["submission_id"] = data.pop("id")
        data["submission_sha256"] = data.pop("sha256")
        data["fields"] = list(self.fields)
        return data
