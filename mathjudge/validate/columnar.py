"""Whole-file, vectorised acceptance of clean submissions.

Validating row by row through pydantic costs seconds per million rows. Most files are clean, so
they are first read in one go with Arrow and checked with column operations. This path only
ever *accepts*: on anything it cannot prove valid (a type it does not handle, a null, a value
out of range, a duplicate, an unknown column or item, a missing item, a parse error) it returns
None and the
row-by-row validator runs, producing the exact, located messages. Every check here is at least
as strict as the pydantic model's, so a file accepted here would be accepted there too.
"""

from __future__ import annotations

from dataclasses import dataclass

import annotated_types
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.json as pa_json
import pyarrow.parquet as pq

from mathjudge.base.arrowbytes import arrow_input
from mathjudge.spec.prediction import RUN_MAX, PredictionRow
from mathjudge.validate import precheck

PARSE_PIECE = 64 << 20  # bytes of a JSON lines file parsed at once


@dataclass(frozen=True)
class Accepted:
    table: pa.Table  # item_id, run (0 when absent), then the given prediction fields
    fields: tuple[str, ...]
    n_items: int
    item_index: np.ndarray  # each row's position among the known items


def _read(data: bytes, fmt: str, model: type[PredictionRow]) -> tuple[pa.Table, list[str]] | None:
    """The file's bytes as a table and its column names, or None where the row validator must
    look at them. Arrow only ever parses a text file the pre-checks call plain (see
    `precheck`), and of a Parquet file only the model's columns."""
    try:
        if fmt == "jsonl":
            table = _read_jsonl(data, model)
            if table is None:
                return None
            names = table.column_names
        elif fmt == "csv":
            if precheck.invalid_utf8(data) is not None:
                return None
            # Only an empty cell is missing: "NaN", "N/A" or "NULL" are values, and wrong ones.
            convert = pa_csv.ConvertOptions(null_values=[""], strings_can_be_null=True)
            table = pa_csv.read_csv(arrow_input(data), convert_options=convert)
            names = table.column_names
        else:
            parquet = pq.ParquetFile(arrow_input(data))
            names = parquet.schema_arrow.names
            if len(set(names)) != len(names):
                return None
            table = parquet.read(columns=[n for n in names if n in model.model_fields])
    except (pa.ArrowException, OSError, ValueError):  # UnicodeDecodeError: a column name
        return None
    return (table, names) if len(set(names)) == len(names) else None


def _read_jsonl(data: bytes, model: type[PredictionRow]) -> pa.Table | None:
    lines = precheck.plain_json_lines(data)
    if not lines:
        return None
    # Declared types make Arrow refuse a wrong type instead of inferring one from a block.
    known = [("item_id", pa.string()), ("run", pa.int64())] + [
        (name, kind)
        for name, kind in model.arrow_types.items()
        if pa.types.is_floating(kind) or pa.types.is_boolean(kind)
    ]
    options = pa_json.ParseOptions(
        explicit_schema=pa.schema(known), unexpected_field_behavior="infer"
    )
    # A piece at a time: Arrow needs its own copy of the bytes it parses (see `arrow_input`),
    # and a copy of a whole file of a gigabyte would double the memory validation takes.
    tables = [
        pa_json.read_json(arrow_input(piece), parse_options=options)
        for piece in precheck.line_pieces(data, PARSE_PIECE)
    ]
    if any(t.schema != tables[0].schema for t in tables[1:]):
        return None  # a field the model does not know, typed apart in two pieces
    table = pa.concat_tables(tables)
    # Arrow reads `{...} {...}` on one line as two rows; the row validator refuses it.
    return table if table.num_rows == lines else None


def _given(column: pa.ChunkedArray) -> bool:
    """A column with a value in some row; all-null is "not given", as row by row."""
    return bool(column.null_count < len(column))


def _numeric_ok(column: pa.ChunkedArray, model: type[PredictionRow], name: str) -> bool:
    kind = column.type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        return False
    if pa.types.is_float16(kind):  # no compute kernels for half floats; widening is exact
        column = column.cast(pa.float64())
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
        return bool(pa.types.is_boolean(column.type))
    return False  # other field types (lists, strings) are left to the row validator


def _has_duplicates(item: np.ndarray, run: pa.ChunkedArray, n_known: int) -> bool:
    """Whether an (item, run) pair repeats: within one run, an item counted twice; across
    runs, one integer key per row, sorted (a hash grouping of 10 million string keys takes
    gigabytes)."""
    runs = run.to_numpy()
    if len(runs) and runs.min() == runs.max():
        return bool(np.bincount(item, minlength=n_known).max(initial=0) > 1)
    keys = runs.astype(np.int64) * n_known + item
    keys.sort()
    return bool((keys[1:] == keys[:-1]).any())


def accept(
    data: bytes,
    fmt: str,
    model: type[PredictionRow],
    known_items: pa.Array,
    *,
    allow_partial: bool,
) -> Accepted | None:
    """The file whose bytes are `data`, if this path can prove it valid (see the module
    note)."""
    read = _read(data, fmt, model)
    if read is None:
        return None
    table, names = read
    return accept_table(table, names, model, known_items, allow_partial=allow_partial)


def accept_table(
    table: pa.Table,
    names: list[str],
    model: type[PredictionRow],
    known_items: pa.Array,
    *,
    allow_partial: bool,
) -> Accepted | None:
    """The checks of `accept` on a table already read (`names`: every column the source has,
    the table may hold only the model's)."""
    if len(set(names)) != len(names):
        return None
    if table.num_rows == 0 or "item_id" not in table.column_names:
        return None
    if not set(names) <= set(model.model_fields):  # an unknown column is an error, located there
        return None
    ids = table.column("item_id")
    if pa.types.is_large_string(ids.type):  # e.g. from a DataFrame of Arrow-backed strings
        ids = ids.cast(pa.string())
    if not pa.types.is_string(ids.type) or ids.null_count:
        return None
    if pc.min(pc.utf8_length(ids)).as_py() < 1:
        return None
    position = pc.index_in(ids, value_set=known_items)  # null: an unknown item
    if position.null_count:
        return None
    item = position.to_numpy().astype(np.int64)

    columns = {"item_id": ids}
    if "run" in table.column_names and _given(table.column("run")):
        run = table.column("run")
        if not pa.types.is_integer(run.type) or run.null_count:
            return None
        bounds = pc.min_max(run).as_py()
        if bounds["min"] < 0 or bounds["max"] > RUN_MAX:
            return None
        columns["run"] = run.cast(pa.int32())
    else:
        columns["run"] = pa.chunked_array([pa.array(np.zeros(table.num_rows, np.int32))])

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
    if _has_duplicates(item, out.column("run"), len(known_items)):
        return None
    n_items = int(np.count_nonzero(np.bincount(item, minlength=len(known_items))))
    if n_items < len(known_items) and not allow_partial:
        return None
    return Accepted(out, fields, n_items, item)
