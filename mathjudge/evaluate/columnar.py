"""Whole-file, vectorised acceptance of clean submissions.

Validating row by row through pydantic costs seconds per million rows. Most files are clean, so
they are first read in one go with Arrow and checked with column operations. This path only
ever *accepts*: on anything it cannot prove valid (a type it does not handle, a null, a value
out of range, a duplicate, an unknown or missing item, a parse error) it returns None and the
row-by-row validator runs, producing the exact, located messages. Every check here is at least
as strict as the pydantic model's, so a file accepted here would be accepted there too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import annotated_types
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from mathjudge.spec.prediction import PredictionRow


@dataclass(frozen=True)
class Accepted:
    table: pa.Table  # item_id, run (0 when absent), then the given prediction fields
    fields: tuple[str, ...]
    n_items: int
    ignored_columns: tuple[str, ...]


def _read(path: Path, fmt: str) -> pa.Table | None:
    try:
        if fmt == "jsonl":
            return pa_json.read_json(path)
        if fmt == "csv":
            return pa_csv.read_csv(path)
        return pq.read_table(path)
    except (pa.ArrowException, OSError, ValueError):
        return None


def _given(column: pa.ChunkedArray) -> bool:
    return not pa.types.is_null(column.type)


def _numeric_ok(column: pa.ChunkedArray, model: type[PredictionRow], name: str) -> bool:
    kind = column.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return False
    if pa.types.is_floating(kind) and not pc.all(pc.is_finite(column)).as_py():
        return False
    bounds = pc.min_max(column).as_py()
    low, high = bounds["min"], bounds["max"]
    for rule in model.model_fields[name].metadata:
        if isinstance(rule, annotated_types.Ge) and not low >= rule.ge:
            return False
        if isinstance(rule, annotated_types.Gt) and not low > rule.gt:
            return False
        if isinstance(rule, annotated_types.Le) and not high <= rule.le:
            return False
        if isinstance(rule, annotated_types.Lt) and not high < rule.lt:
            return False
    return True


def _field_ok(column: pa.ChunkedArray, model: type[PredictionRow], name: str) -> bool:
    if column.null_count:
        return False
    expected = model.arrow_types[name]
    if pa.types.is_floating(expected):
        return _numeric_ok(column, model, name)
    if pa.types.is_boolean(expected):
        return pa.types.is_boolean(column.type)
    return False  # other field types (lists, strings) are left to the row validator


def accept(
    path: Path,
    fmt: str,
    model: type[PredictionRow],
    known_items: pa.Array,
    *,
    allow_partial: bool,
) -> Accepted | None:
    table = _read(path, fmt)
    if table is None or table.num_rows == 0 or "item_id" not in table.column_names:
        return None
    ids = table.column("item_id")
    if not pa.types.is_string(ids.type) or ids.null_count:
        return None
    if pc.min(pc.utf8_length(ids)).as_py() < 1:
        return None
    if not pc.all(pc.is_in(ids, value_set=known_items)).as_py():
        return None

    columns = {"item_id": ids}
    if "run" in table.column_names and _given(table.column("run")):
        run = table.column("run")
        if not pa.types.is_integer(run.type) or run.null_count or pc.min(run).as_py() < 0:
            return None
        columns["run"] = run.cast(pa.int32())
    else:
        columns["run"] = pa.chunked_array([pa.array([0] * table.num_rows, pa.int32())])

    fields = tuple(
        name
        for name in model.prediction_fields()
        if name in table.column_names and _given(table.column(name))
    )
    if model.requires_one_of and not set(fields) & set(model.requires_one_of):
        return None
    for name in fields:
        if not _field_ok(table.column(name), model, name):
            return None
        columns[name] = table.column(name).cast(model.arrow_types[name])

    out = pa.table(columns)
    if out.group_by(["item_id", "run"]).aggregate([]).num_rows != out.num_rows:
        return None  # duplicates
    n_items = pc.count_distinct(ids).as_py()
    if n_items < len(known_items) and not allow_partial:
        return None
    ignored = sorted(set(table.column_names) - set(model.model_fields))
    return Accepted(out, fields, n_items, tuple(ignored))
