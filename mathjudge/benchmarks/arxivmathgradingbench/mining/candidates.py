"""What became of each stage-1 survivor: the `Candidate` record every later stage updates,
the funnel `Step`s, and `candidates.parquet`, so a run can be audited paper by paper."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mathjudge.base.atomic import atomic_path
from mathjudge.benchmarks.arxivmathgradingbench.build import is_permissive, normalize_license
from mathjudge.benchmarks.arxivmathgradingbench.locations import Location
from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import Record
from mathjudge.benchmarks.arxivmathgradingbench.mining.stage1 import EXAMPLES
from mathjudge.dataio.writer import PARQUET_OPTIONS

UNRECOGNISED_LICENSE = "unrecognised"


def license_id(raw: str | None) -> str:
    """The builder's license id; a spelling the builder refuses is `unrecognised` here, which
    is simply not permissive (mined metadata is not ours to vet row by row)."""
    try:
        return normalize_license(raw)
    except ValueError:
        return UNRECOGNISED_LICENSE


permissive = is_permissive  # CC0, public domain, CC BY or CC BY-SA


@dataclass
class Candidate:
    """A stage-1 survivor and what became of it. `status` says where it stopped (`kept` for a
    row of the split); `stage_reached` is the last stage that looked at it."""

    record: Record
    license: str
    license_raw: str | None = None  # as the input (or the license lookup) stated it
    license_source: str | None = None  # "input", "oai-pmh", or None when nothing stated one
    stage_reached: int = 1
    status: str = "stage1"
    classification: str | None = None
    classification_failure: str | None = None
    locations: list[Location] = field(default_factory=list)
    locations_source: str | None = None
    locations_failure: str | None = None

    @classmethod
    def of(cls, record: Record) -> Candidate:
        source = "input" if record.license else None
        return cls(record, license_id(record.license), record.license, source)

    def set_looked_up_license(self, raw: str | None) -> None:
        self.license_raw, self.license = raw, license_id(raw)
        self.license_source = "oai-pmh" if raw else None

    @property
    def item_id(self) -> str | None:
        """The erroneous version, the one before the correcting one (None before v2)."""
        version = self.record.version
        return f"{self.record.arxiv_id}v{version - 1}" if version > 1 else None

    def row(self) -> dict[str, Any]:
        r = self.record
        return {
            "item_id": self.item_id,
            "arxiv_id": r.arxiv_id,
            "version": r.version,
            "date": r.date,
            "title": r.title,
            "comment": r.comment,
            "primary_category": r.primary_category,
            "categories": list(r.categories),
            "license_raw": self.license_raw,
            "license": self.license,
            "license_source": self.license_source,
            "source_format": r.source_format,
            "stage_reached": self.stage_reached,
            "status": self.status,
            "classification": self.classification,
            "classification_failure": self.classification_failure,
            "error_locations": [loc.text for loc in self.locations] or None,
            "locations_source": self.locations_source,
            "locations_failure": self.locations_failure,
        }

    def example(self) -> dict[str, Any]:
        r = self.record
        return {"arxiv_id": r.arxiv_id, "version": r.version, "comment": r.comment}


CANDIDATE_SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("arxiv_id", pa.string()),
        ("version", pa.int32()),
        ("date", pa.date32()),
        ("title", pa.string()),
        ("comment", pa.string()),
        ("primary_category", pa.string()),
        ("categories", pa.list_(pa.string())),
        ("license_raw", pa.string()),
        ("license", pa.string()),
        ("license_source", pa.string()),
        ("source_format", pa.string()),
        ("stage_reached", pa.int8()),
        ("status", pa.string()),
        ("classification", pa.string()),
        ("classification_failure", pa.string()),
        ("error_locations", pa.list_(pa.string())),
        ("locations_source", pa.string()),
        ("locations_failure", pa.string()),
    ]
)


@dataclass(frozen=True)
class Step:
    """One line of the funnel: how many candidates are left after it (None: not run)."""

    stage: int
    name: str
    count: int | None
    dropped_examples: tuple[dict[str, Any], ...] = ()
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"stage": self.stage, "name": self.name, "count": self.count}
        if self.dropped_examples:
            out["dropped_examples"] = list(self.dropped_examples)
        if self.note:
            out["note"] = self.note
        return out


def narrow(
    steps: list[Step],
    stage: int,
    name: str,
    live: list[Candidate],
    keep: Callable[[Candidate], bool],
    status: str,
) -> list[Candidate]:
    """The candidates `keep` accepts; the others stop with `status`. Adds the funnel step."""
    kept, dropped = [], []
    for cand in live:
        cand.stage_reached = stage
        if keep(cand):
            kept.append(cand)
        else:
            cand.status = status
            dropped.append(cand)
    steps.append(Step(stage, name, len(kept), tuple(c.example() for c in dropped[:EXAMPLES])))
    return kept


def write_candidates(candidates: list[Candidate], path: Path) -> list[dict[str, Any]]:
    rows = [c.row() for c in candidates]
    with atomic_path(path) as tmp:
        pq.write_table(pa.Table.from_pylist(rows, schema=CANDIDATE_SCHEMA), tmp, **PARQUET_OPTIONS)
    return rows
