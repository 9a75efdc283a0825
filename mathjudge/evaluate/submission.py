"""Load a predictions file (JSONL, CSV or Parquet) and validate it completely before scoring.

Every problem is collected with its file, line (or Parquet row) and field, so one run of
`mathjudge validate` tells a submitter everything to fix. The per-row contract is a pydantic
model per benchmark (the source of truth for the format); checks that span rows (duplicates,
unknown or missing items, inconsistent columns) follow.
"""

from __future__ import annotations

import csv
import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import ValidationError

from mathjudge.dataio.sources import sha256_file
from mathjudge.errors import Problem, ValidationFailed
from mathjudge.evaluate import columnar
from mathjudge.spec.prediction import PredictionRow

MAX_BYTES_ENV = "MATHJUDGE_MAX_SUBMISSION_BYTES"
DEFAULT_MAX_BYTES = 1 << 30
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet"}


@dataclass(frozen=True)
class Submission:
    """A validated predictions file: one row per (item_id, run) unless the benchmark takes many
    (`one_row_per_run`), only the fields given."""

    path: Path
    sha256: str
    table: pa.Table
    fields: tuple[str, ...]
    n_items: int
    n_expected: int
    ignored_columns: tuple[str, ...]

    @property
    def coverage(self) -> float:
        return self.n_items / self.n_expected if self.n_expected else 0.0

    @property
    def partial(self) -> bool:
        return self.n_items < self.n_expected

    @property
    def runs(self) -> int:
        return len(set(self.table.column("run").to_pylist()))


def _format_of(path: Path) -> str | None:
    return FORMATS.get(path.suffix.lower())


def _records(path: Path, fmt: str, problems: list[Problem]) -> Iterator[tuple[int, Any]]:
    """Yield (line or row number, raw record); unparseable input becomes a Problem."""
    name = str(path)
    if fmt == "jsonl":
        with path.open(encoding="utf-8", errors="strict") as handle:
            try:
                for lineno, line in enumerate(handle, start=1):
                    if not line.strip():
                        continue
                    try:
                        yield lineno, json.loads(line)
                    except json.JSONDecodeError as exc:
                        problems.append(Problem(name, lineno, None, f"not valid JSON ({exc.msg})"))
            except UnicodeDecodeError as exc:
                problems.append(Problem(name, None, None, f"not UTF-8 text ({exc.reason})"))
    elif fmt == "csv":
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            try:
                if not reader.fieldnames or "item_id" not in reader.fieldnames:
                    problems.append(Problem(name, 1, "item_id", "CSV header has no item_id column"))
                    return
                start = reader.line_num + 1
                for record in reader:
                    if None in record:
                        problems.append(
                            Problem(name, start, None, "more values than header columns")
                        )
                    else:
                        yield start, {k: v for k, v in record.items() if v not in ("", None)}
                    start = reader.line_num + 1
            except (csv.Error, UnicodeDecodeError) as exc:
                problems.append(
                    Problem(name, reader.line_num, None, f"not parseable as CSV ({exc})")
                )
    else:
        try:
            table = pq.read_table(path)
        except (pa.ArrowException, OSError) as exc:
            problems.append(Problem(name, None, None, f"not parseable as Parquet ({exc})"))
            return
        yield from enumerate(table.to_pylist(), start=1)


def _row_problems(name: str, line: int, exc: ValidationError, unit: str) -> list[Problem]:
    out = []
    for err in exc.errors(include_url=False):
        field = ".".join(str(part) for part in err["loc"]) or None
        value = err.get("input")
        shown = "" if isinstance(value, dict) else f" (got {value!r:.60})"
        out.append(Problem(name, line, field, f"{err['msg']}{shown}", unit))
    return out


def load_submission(
    path: Path,
    model: type[PredictionRow],
    known_items: list[str],
    *,
    allow_partial: bool = False,
) -> Submission:
    """Parse and validate `path` against `model` and the dataset's `known_items`.

    Raises ValidationFailed listing every problem; returns only a fully valid submission.
    """
    name = str(path)
    if not path.is_file():
        raise ValidationFailed([Problem(name, None, None, "file not found")])
    fmt = _format_of(path)
    if fmt is None:
        raise ValidationFailed(
            [Problem(name, None, None, f"unknown format; use one of {', '.join(sorted(FORMATS))}")]
        )
    limit = int(os.environ.get(MAX_BYTES_ENV, DEFAULT_MAX_BYTES))
    size = path.stat().st_size
    if size > limit:
        raise ValidationFailed(
            [
                Problem(
                    name,
                    None,
                    None,
                    f"file too large: {size} bytes > limit {limit} ({MAX_BYTES_ENV})",
                )
            ]
        )

    fast = columnar.accept(
        path, fmt, model, pa.array(known_items, pa.string()), allow_partial=allow_partial
    )
    if fast is not None:
        return Submission(
            path=path,
            sha256=sha256_file(path),
            table=fast.table,
            fields=fast.fields,
            n_items=fast.n_items,
            n_expected=len(known_items),
            ignored_columns=fast.ignored_columns,
        )

    unit = "row" if fmt == "parquet" else "line"
    strict = fmt != "csv"  # CSV cells are text; typed formats must carry the right types
    fields = model.prediction_fields()
    # Fields every row must give alike; the per-row optional ones are given where any row has.
    uniform = tuple(f for f in fields if f not in model.per_row_optional)
    optional_given: set[str] = set()
    model_fields = set(model.model_fields)  # a class property that is slow to read per row
    known = set(known_items)
    problems: list[Problem] = []
    rows: list[tuple[int, PredictionRow]] = []
    extra: Counter[str] = Counter()
    presence: Counter[frozenset[str]] = Counter()
    seen: dict[tuple[str, int | None], int] = {}
    # Where many rows per run are allowed: first line of each (item, run)'s "nothing found"
    # row, and of its first other row.
    nothing: dict[tuple[str, int | None], int] = {}
    something: dict[tuple[str, int | None], int] = {}

    for line, record in _records(path, fmt, problems):
        if not isinstance(record, dict):
            problems.append(Problem(name, line, None, "each record must be an object", unit))
            continue
        try:
            row = model.model_validate(record, strict=strict)
        except ValidationError as exc:
            problems.extend(_row_problems(name, line, exc, unit))
            continue
        extra.update(k for k in record if k not in model_fields)
        key = (row.item_id, row.run)
        if model.one_row_per_run:
            if key in seen:
                run = "" if row.run is None else f" run {row.run}"
                problems.append(
                    Problem(
                        name,
                        line,
                        "item_id",
                        f"duplicate {row.item_id!r}{run} (first on {unit} {seen[key]})",
                        unit,
                    )
                )
                continue
            seen[key] = line
        if row.item_id not in known:
            problems.append(
                Problem(name, line, "item_id", f"unknown item_id {row.item_id!r}", unit)
            )
            continue
        if not model.one_row_per_run:
            clash = _nothing_clash(row, line, unit, nothing, something)
            if clash:
                problems.append(Problem(name, line, clash[0], clash[1], unit))
                continue
        presence[frozenset(f for f in uniform if getattr(row, f) is not None)] += 1
        optional_given.update(f for f in model.per_row_optional if getattr(row, f) is not None)
        rows.append((line, row))

    if not rows and not problems:
        problems.append(Problem(name, None, None, "no predictions in file"))
    problems += _consistency_problems(name, rows, presence, unit)
    submitted = {row.item_id for _, row in rows}
    missing = [item for item in known_items if item not in submitted]
    if missing and rows and not allow_partial:
        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        problems.append(
            Problem(
                name,
                None,
                "item_id",
                f"{len(missing)} item(s) have no prediction: {shown} "
                "(use --allow-partial to score the answered items only)",
            )
        )
    if problems:
        located = sorted((p for p in problems if p.line is not None), key=lambda p: p.line or 0)
        raise ValidationFailed(located + [p for p in problems if p.line is None])

    given = tuple(f for f in fields if f in next(iter(presence)) | optional_given)
    columns: dict[str, pa.Array] = {
        "item_id": pa.array([r.item_id for _, r in rows], pa.string()),
        "run": pa.array([r.run or 0 for _, r in rows], pa.int32()),
    }
    for field in given:
        columns[field] = pa.array([getattr(r, field) for _, r in rows], model.arrow_types[field])
    return Submission(
        path=path,
        sha256=sha256_file(path),
        table=pa.table(columns),
        fields=given,
        n_items=len(submitted),
        n_expected=len(known),
        ignored_columns=tuple(sorted(extra)),
    )


def _nothing_clash(
    row: PredictionRow,
    line: int,
    unit: str,
    nothing: dict[tuple[str, int | None], int],
    something: dict[tuple[str, int | None], int],
) -> tuple[str, str] | None:
    """(field, message) if `row` contradicts an earlier row of its (item, run): a run that
    reports nothing found must say so once and give no predictions; else record the row."""
    key = (row.item_id, row.run)
    run = "" if row.run is None else f" run {row.run}"
    field = row.prediction_fields()[0]
    if row.reports_nothing():
        if key in nothing:
            return field, (
                f"duplicate no-error row for {row.item_id!r}{run} (first on {unit} {nothing[key]})"
            )
        if key in something:
            return field, (
                f"no-error row for {row.item_id!r}{run}, which gives a prediction on "
                f"{unit} {something[key]}: a run either reports no error or lists its errors"
            )
        nothing[key] = line
    else:
        if key in nothing:
            return field, (
                f"a prediction for {row.item_id!r}{run}, which {unit} {nothing[key]} reports "
                "as having no error: a run either reports no error or lists its errors"
            )
        something.setdefault(key, line)
    return None


def _consistency_problems(
    name: str,
    rows: list[tuple[int, PredictionRow]],
    presence: Counter[frozenset[str]],
    unit: str,
) -> list[Problem]:
    """Every row must give the same prediction fields, and runs must be all-or-nothing."""
    problems = []
    if len(presence) > 1:
        usual = presence.most_common(1)[0][0]
        for line, row in rows:
            given = {f for f in usual | set().union(*presence) if getattr(row, f) is not None}
            if given != usual:
                lacking = sorted(usual - given) or sorted(given - usual)
                problems.append(
                    Problem(
                        name,
                        line,
                        ",".join(lacking),
                        f"fields differ from most rows (which give {', '.join(sorted(usual))})",
                        unit,
                    )
                )
    with_run = sum(1 for _, r in rows if r.run is not None)
    if 0 < with_run < len(rows):
        for line, row in rows:
            if row.run is None:
                problems.append(Problem(name, line, "run", "missing: other rows give a run", unit))
    return problems
