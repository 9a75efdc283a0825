"""Raw records of a predictions file (its bytes, read once) or of an in-memory table, one at
a time, for the row validator.

Each reader yields (line or Parquet row number, record dict) and reports what it cannot read as
a located `Problem` instead: bytes that are not UTF-8 (with line and column), JSON that is not
an object, nested too deep, with a key given twice or an unpaired surrogate escape, a CSV header
that names a column twice, a Parquet value that does not convert. A UTF-8 byte order mark is
accepted at the start of a JSONL or CSV file, as Arrow's readers accept it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mathjudge.base import safejson
from mathjudge.base.arrowbytes import arrow_input
from mathjudge.base.errors import Problem
from mathjudge.validate import precheck

MAX_LINE_BYTES = 16 << 20
BATCH_ROWS = 65_536
Report = Callable[[Problem], None]


def shown(value: Any, width: int = 60) -> str:
    """A value as it may appear in a message: repr (so control characters are escaped), cut."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def jsonl(name: str, data: bytes, report: Report) -> Iterator[tuple[int, Any]]:
    with io.BytesIO(data) as handle:
        lineno = 0
        while raw := handle.readline(MAX_LINE_BYTES + 1):
            lineno += 1
            if len(raw) > MAX_LINE_BYTES:
                report(Problem(name, lineno, None, f"line longer than {MAX_LINE_BYTES} bytes"))
                while raw and not raw.endswith(b"\n"):
                    raw = handle.readline(MAX_LINE_BYTES + 1)
                continue
            if lineno == 1 and raw.startswith(precheck.BOM):
                raw = raw[len(precheck.BOM) :]
            if not raw.strip():
                continue
            try:
                yield lineno, safejson.loads(raw)
            except safejson.JsonProblem as exc:
                report(Problem(name, lineno, exc.field, exc.message))


def printable_name(key: str) -> str:
    """A column or key name as it may appear in a message or a note."""
    return key if key.isprintable() and len(key) <= 60 else shown(key)


def csv_rows(
    name: str, data: bytes, wanted: set[str], report: Report, unknown: Callable[[str], None]
) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows as {column: cell} without empty cells (an empty cell is a value not given); header
    columns not `wanted` are named to `unknown` (their cells are read too, and checked)."""
    bad = precheck.invalid_utf8(data)
    if bad is not None:  # a CSV record may span lines: nothing after a bad byte is trusted
        report(Problem(name, bad.line, None, str(bad)))
        return
    with io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader, [])
            if "item_id" not in header:
                report(Problem(name, 1, "item_id", "CSV header has no item_id column"))
                return
            twice = sorted({h for h in header if header.count(h) > 1})
            if twice:
                for column in twice:
                    problem = "column named twice in the header"
                    report(Problem(name, 1, printable_name(column), problem))
                return
            for column in header:
                if column not in wanted:
                    unknown(column)
            start = reader.line_num + 1
            for record in reader:
                if len(record) > len(header):
                    report(Problem(name, start, None, "more values than header columns"))
                else:
                    yield start, {k: v for k, v in zip(header, record, strict=False) if v != ""}
                start = reader.line_num + 1
        except csv.Error as exc:
            report(Problem(name, reader.line_num, None, f"not parseable as CSV ({exc})"))


def parquet_rows(
    name: str, data: bytes, wanted: set[str], report: Report, unknown: Callable[[str], None]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Rows with only the `wanted` columns (the others are named to `unknown`, never read)."""
    try:
        parquet = pq.ParquetFile(arrow_input(data))
        names = parquet.schema_arrow.names
    except UnicodeDecodeError as exc:
        report(Problem(name, None, None, f"a column name is not UTF-8 text ({exc.reason})", "row"))
        return
    except (pa.ArrowException, OSError, ValueError) as exc:
        report(Problem(name, None, None, f"not parseable as Parquet ({exc})", "row"))
        return

    def batches(columns: list[str]) -> Iterator[pa.RecordBatch]:
        found: Iterator[pa.RecordBatch] = parquet.iter_batches(
            batch_size=BATCH_ROWS, columns=columns
        )
        return found

    yield from _batch_rows(name, names, batches, wanted, report, unknown, "Parquet")


def table_rows(
    name: str,
    table: pa.Table,
    wanted: set[str],
    report: Report,
    unknown: Callable[[str], None],
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows of an in-memory Arrow table named `name`, as `parquet_rows` gives a file's."""

    def batches(columns: list[str]) -> Iterator[pa.RecordBatch]:
        picked = table.select([table.column_names.index(c) for c in columns])
        return iter(picked.to_batches(max_chunksize=BATCH_ROWS))

    yield from _batch_rows(name, table.column_names, batches, wanted, report, unknown, "a table")


def _batch_rows(
    name: str,
    names: list[str],
    batches: Callable[[list[str]], Iterator[pa.RecordBatch]],
    wanted: set[str],
    report: Report,
    unknown: Callable[[str], None],
    kind: str,
) -> Iterator[tuple[int, dict[str, Any]]]:
    row = 0
    try:
        twice = sorted({n for n in names if names.count(n) > 1})
        for column in twice:
            report(Problem(name, None, printable_name(column), "column named twice", "row"))
        if twice:
            return
        for column in names:
            if column not in wanted:
                unknown(column)
        columns = [n for n in names if n in wanted]
        if not columns:
            report(Problem(name, None, "item_id", "no item_id column", "row"))
            return
        for batch in batches(columns):
            values = {
                column: _values(batch.column(column), row, name, column, report)
                for column in columns
            }
            for i in range(batch.num_rows):
                record = {c: v[i] for c, v in values.items()}
                if not any(v is _UNREADABLE for v in record.values()):
                    yield row + i + 1, record
            row += batch.num_rows
    except (pa.ArrowException, OSError, ValueError) as exc:  # UnicodeDecodeError: a name
        report(Problem(name, row + 1 if row else None, None, f"not parseable as {kind} ({exc})",
                       "row"))  # fmt: skip


_UNREADABLE = object()
_CONVERSION_ERRORS = (pa.ArrowException, ValueError, OverflowError, TypeError, ImportError)


def _values(column: pa.Array, offset: int, name: str, field: str, report: Report) -> list[Any]:
    """Python values of one column of a batch; a value that does not convert (text that is not
    UTF-8, a date out of range) is reported on its row and marks that row unreadable."""
    if pa.types.is_float16(column.type):  # Python has no half floats; widening is exact
        column = column.cast(pa.float64())
    try:
        values: list[Any] = column.to_pylist()
        return values
    except _CONVERSION_ERRORS:
        pass
    out: list[Any] = []
    for i in range(len(column)):
        try:
            out.append(column[i].as_py())
        except _CONVERSION_ERRORS as exc:
            problem = f"value not readable ({str(exc)[:100]})"
            report(Problem(name, offset + i + 1, field, problem, "row"))
            out.append(_UNREADABLE)
    return out
