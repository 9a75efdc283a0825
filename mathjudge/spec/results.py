"""The evaluation result: what was scored, how, and the long-format score rows.

Written as JSON (atomically) and into the results store; the JSON layout is the one in
DESIGN.md, with nulls where a metric is undefined (e.g. correlation of a constant predictor).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True)
class Score:
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


@dataclass(frozen=True)
class EvaluationResult:
    benchmark: str
    dataset_version: str
    content_hash: str
    judge: str
    submission_sha256: str
    n_items: int
    n_expected: int
    coverage: float
    partial: bool
    runs: int
    runs_agg: str
    fields: tuple[str, ...]
    bootstrap: dict[str, Any]
    meta: dict[str, Any]
    mathjudge_version: str
    scores: tuple[Score, ...]
    created: str = field(compare=False)  # ISO 8601 with offset
    source: str = "reproduced"
    citation: str | None = None
    extras: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # One row per item (runs combined), kept in the store for paired comparisons; not in JSON.
    predictions: pa.Table | None = field(default=None, compare=False, repr=False)
    # The scored dataset's facts, for the store; not in JSON.
    dataset: DatasetSnapshot | None = field(default=None, compare=False, repr=False)

    @property
    def submission_id(self) -> str:
        """Same benchmark data, judge, file, meta and scoring options -> same id (a plain
        re-evaluation replaces the stored result). A different meta is a new version of the
        submission, stored beside the old one, never a silent replacement of it."""
        key = json.dumps(
            [
                self.benchmark,
                self.content_hash,
                self.judge,
                self.submission_sha256,
                self.runs_agg,
                self.bootstrap,
                self.meta,
            ],
            sort_keys=True,
        )
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        data = asdict(replace(self, predictions=None, dataset=None))
        del data["predictions"], data["dataset"]
        data["fields"] = list(self.fields)
        data["submission_id"] = self.submission_id
        return data
