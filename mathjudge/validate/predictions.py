"""Load a predictions file (JSONL, CSV or Parquet), or rows held in memory (an Arrow table or
row mappings), and validate it completely before scoring.

Every problem is located by file, line (or Parquet or in-memory row) and field, so one run of
`mathjudge validate` tells a submitter what to fix. The per-row contract is a pydantic model
per benchmark (the source of truth for the format); checks that span rows (duplicates, unknown
or missing items, inconsistent columns) follow; a row that breaks its model still has its item
checked. What is kept is bounded by what is shown: problems grouped by kind, each counted with
its first few (`report`, which also words the message), and valid rows as compact columns
(item index, run, line, values), so a file of millions of rows fits in memory.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import os
import stat
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import ValidationError

from mathjudge.base.config import env_number
from mathjudge.base.errors import Problem, ValidationFailed
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.request import PredictionRows, PredictionSource
from mathjudge.validate import columnar, records
from mathjudge.validate.report import Grouped, failure

MAX_BYTES_ENV = "MATHJUDGE_MAX_SUBMISSION_BYTES"
DEFAULT_MAX_BYTES = 1 << 30
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".parquet": "parquet"}
MAX_PROBLEMS = 50
MAX_UNKNOWN_COLUMNS = 20  # named one by one; a file's odd keys must not fill memory
UNKNOWN_SAMPLE = 1_000  # unknown item ids kept to tell whose items they are
UNKNOWN_ITEM = "unknown item_id ''"  # the kind of "unknown item_id 'x'", whatever x is
# Given item ids the dataset does not have, what they are (e.g. "the items of processbench").
WhoseItems = Callable[[list[str]], str | None]
_BATCH = 65_536


@dataclass(frozen=True)
class Predictions:
    """Validated predictions: one row per (item_id, run) unless the benchmark takes many
    (`one_row_per_run`), only the fields given. `sha256` identifies the content (a file's bytes;
    an in-memory table's Arrow IPC stream; rows' JSON lines)."""

    name: str  # the file, or the label of rows held in memory
    sha256: str
    table: pa.Table
    fields: tuple[str, ...]
    n_items: int
    n_expected: int
    # Each row's item as its position among the dataset's items, found while validating, so
    # that scoring need not look millions of ids up again.
    item_index: np.ndarray
    # A file's format (jsonl, csv, parquet) and bytes, as hashed and parsed (None in memory).
    format: str | None = None
    content: bytes | None = dataclasses.field(default=None, repr=False)

    @property
    def coverage(self) -> float:
        return self.n_items / self.n_expected if self.n_expected else 0.0

    @property
    def partial(self) -> bool:
        return self.n_items < self.n_expected

    @property
    def runs(self) -> int:
        return len(pc.unique(self.table.column("run")))


def max_bytes() -> int:
    """The size limit for a predictions file ($MATHJUDGE_MAX_SUBMISSION_BYTES, default 1 GiB)."""
    return env_number(
        MAX_BYTES_ENV, DEFAULT_MAX_BYTES, int, lambda n: n >= 1, "a positive whole number of bytes"
    )


def _check_file(path: Path) -> str:
    """The file's format; raises on a file that cannot be a submission."""
    name = str(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ValidationFailed([Problem(name, None, None, "file not found")]) from None
    except OSError as exc:
        raise ValidationFailed([Problem(name, None, None, f"cannot read ({exc})")]) from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "a FIFO, device or socket"
        raise ValidationFailed([Problem(name, None, None, f"not a regular file ({kind})")])
    fmt = _format(path)
    limit = max_bytes()
    if info.st_size > limit:
        message = f"file too large: {info.st_size} bytes > limit {limit} ({MAX_BYTES_ENV})"
        raise ValidationFailed([Problem(name, None, None, message)])
    return fmt


def _format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(sorted(FORMATS))
        raise ValidationFailed(
            [Problem(str(path), None, None, f"unknown format; use one of {known}")]
        )
    return fmt


def unknown_column(key: str, model: type[PredictionRow]) -> str:
    """What is said of a column the benchmark does not take: the field it most likely means
    (a misspelt field is never dropped silently) and the columns there are."""
    columns = list(model.model_fields)
    folded = {c.casefold(): c for c in columns}
    guess = folded.get(key.casefold()) or next(
        iter(difflib.get_close_matches(key, columns, n=1, cutoff=0.6)), None
    )
    hint = f" (did you mean {guess!r}?)" if guess else ""
    return f"unknown column{hint}; the columns are {', '.join(columns)}"


def _read(path: Path) -> bytes:
    """The whole predictions file, read once: what is hashed is what is parsed, even if the
    file changes meanwhile. The opened file is checked again (a FIFO or device swapped in
    after `_check_file`), and the read stops at the size the file states."""
    name, limit = str(path), max_bytes()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ValidationFailed([Problem(name, None, None, f"cannot read ({exc})")]) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValidationFailed([Problem(name, None, None, "not a regular file")])
        # No more than the size it states (a /proc file states 0 and may never end).
        data = handle.read(min(info.st_size, limit) + 1)
    if len(data) > limit:
        message = f"file too large: more than {limit} bytes ({MAX_BYTES_ENV})"
        raise ValidationFailed([Problem(name, None, None, message)])
    if len(data) > info.st_size:
        message = "grew while it was read (or holds more than its size says, as /proc files do)"
        raise ValidationFailed([Problem(name, None, None, message)])
    return data


KnownItems: TypeAlias = Sequence[str] | pa.Array | pa.ChunkedArray


def load_predictions(
    predictions: PredictionSource,
    model: type[PredictionRow],
    known_items: KnownItems,
    *,
    allow_partial: bool = False,
    data: bytes | None = None,
    whose_items: WhoseItems | None = None,
) -> Predictions:
    """Parse and validate `predictions` (a file, or rows in memory) against `model` and the
    dataset's `known_items` (its item ids, in order: a list, or the Arrow column as read,
    which a clean file never needs as Python strings). For a file, `data` is its content when
    the caller has read (and hashed) it already, parsed instead of reading the file, which then
    only names it and its format; else the file is read here, once: what is hashed is what is
    parsed. When most item ids are unknown, `whose_items` says whose they are, first in the
    message.

    Raises ValidationFailed naming the problems; returns only a fully valid submission.
    """
    known = _known_array(known_items)
    if isinstance(predictions, PredictionRows):
        return _load_rows(predictions, model, known, allow_partial, whose_items)
    path = predictions
    if data is None:
        fmt = _check_file(path)
        data = _read(path)
    else:
        fmt = _format(path)
        limit = max_bytes()
        if len(data) > limit:
            message = f"file too large: {len(data)} bytes > limit {limit} ({MAX_BYTES_ENV})"
            raise ValidationFailed([Problem(str(path), None, None, message)])
    digest = hashlib.sha256(data).hexdigest()
    fast = columnar.accept(data, fmt, model, known, allow_partial=allow_partial)
    if fast is not None:
        found = _accepted(str(path), digest, fast, len(known))
    else:
        checker = _RowChecker(str(path), model, known.to_pylist(), fmt, whose_items)
        checker.run(_records(str(path), data, fmt, model, checker))
        found = _checked(str(path), digest, checker, allow_partial)
    return replace(found, format=fmt, content=data)


def _known_array(known_items: KnownItems) -> pa.Array:
    if isinstance(known_items, pa.ChunkedArray):
        known_items = known_items.combine_chunks()
    if isinstance(known_items, pa.Array):
        return known_items.cast(pa.string())
    return pa.array(known_items, pa.string())


def _load_rows(
    given: PredictionRows,
    model: type[PredictionRow],
    known: pa.Array,
    allow_partial: bool,
    whose_items: WhoseItems | None,
) -> Predictions:
    """Rows in memory, read where they are: a table through the columnar path first, as a
    Parquet file would be; row mappings row by row."""
    rows, name = given.rows, given.label
    if isinstance(rows, pa.Table):
        sha256 = _table_sha256(rows)
        wanted = [n for n in rows.column_names if n in model.model_fields]
        if len(set(rows.column_names)) == len(rows.column_names):
            fast = columnar.accept_table(
                rows.select(wanted),
                rows.column_names,
                model,
                known,
                allow_partial=allow_partial,
            )
            if fast is not None:
                return _accepted(name, sha256, fast, len(known))
        wanted_set = set(model.model_fields)
        checker = _RowChecker(name, model, known.to_pylist(), "parquet", whose_items)
        checker.run(records.table_rows(name, rows, wanted_set, checker.report, checker.note_extra))
        return _checked(name, sha256, checker, allow_partial)
    checker = _RowChecker(name, model, known.to_pylist(), "parquet", whose_items)
    checker.run((i, dict(r) if isinstance(r, Mapping) else r) for i, r in enumerate(rows, 1))
    return _checked(name, _rows_sha256(rows), checker, allow_partial)


def _accepted(name: str, sha256: str, fast: columnar.Accepted, n_expected: int) -> Predictions:
    return Predictions(
        name=name,
        sha256=sha256,
        table=fast.table,
        fields=fast.fields,
        n_items=fast.n_items,
        n_expected=n_expected,
        item_index=fast.item_index,
    )


def _checked(name: str, sha256: str, checker: _RowChecker, allow_partial: bool) -> Predictions:
    table, fields, n_items = checker.result(allow_partial)
    return Predictions(
        name=name,
        sha256=sha256,
        table=table,
        fields=fields,
        n_items=n_items,
        n_expected=len(checker.known_items),
        item_index=checker.rows.item_index(),
    )


def _table_sha256(table: pa.Table) -> str:
    """The table's content as an Arrow IPC stream (schema and values), hashed."""
    digest = hashlib.sha256()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    digest.update(sink.getvalue())
    return digest.hexdigest()


def _rows_sha256(rows: Sequence[Any]) -> str:
    """The rows as JSON lines, hashed (a value JSON cannot hold is hashed by its repr)."""
    digest = hashlib.sha256()
    for row in rows:
        record = dict(row) if isinstance(row, Mapping) else row
        line = json.dumps(record, ensure_ascii=False, default=repr) + "\n"
        digest.update(line.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _records(
    name: str, data: bytes, fmt: str, model: type[PredictionRow], checker: _RowChecker
) -> Iterator[tuple[int, Any]]:
    if fmt == "jsonl":
        return records.jsonl(name, data, checker.report)
    if fmt == "csv":
        return records.csv_rows(
            name, data, set(model.model_fields), checker.report, checker.note_extra
        )
    wanted = set(model.model_fields)
    return records.parquet_rows(name, data, wanted, checker.report, checker.note_extra)


class _Capped:
    """Problems of one kind in line order: the first MAX_PROBLEMS kept, the rest counted."""

    def __init__(self) -> None:
        self.kept: list[Problem] = []
        self.more = 0

    @property
    def full(self) -> bool:
        return len(self.kept) >= MAX_PROBLEMS

    def add(self, problem: Problem) -> None:
        if len(self.kept) < MAX_PROBLEMS:
            self.kept.append(problem)
        else:
            self.more += 1


class _RowChecker:
    """One pass over the records: per-row validation, then the checks across rows."""

    def __init__(
        self,
        name: str,
        model: type[PredictionRow],
        known_items: list[str],
        fmt: str,
        whose_items: WhoseItems | None = None,
    ) -> None:
        self.name, self.model = name, model
        self.whose_items = whose_items
        self.unit = "row" if fmt == "parquet" else "line"
        self.strict = fmt != "csv"  # CSV cells are text; typed formats must carry the types
        self.known_items = known_items
        self.index = {item: i for i, item in enumerate(known_items)}
        self.fields = model.prediction_fields()
        # Fields every row must give alike; the per-row optional ones are given where any row has.
        self.uniform = tuple(f for f in self.fields if f not in model.per_row_optional)
        self.optional_given: set[str] = set()
        self.model_fields = set(model.model_fields)  # a class property that is slow per row
        self.rows = _Columns(model, self.fields)
        # Columns the model does not take -> the first line naming them (None: a Parquet
        # column); each is an error, with the field it most likely means.
        self.unknown: dict[str, int | None] = {}
        self.header_line = 1 if fmt == "csv" else None
        self.row_problems = Grouped()  # by kind, in line order as they come
        self.file_problems: list[Problem] = []
        # Items named by any row, valid or not (an item with a bad row is not "missing"), and
        # the rows naming an item the dataset does not have, with the first of those ids.
        self.mentioned: set[int] = set()
        self.named_rows = 0
        self.unknown_rows = 0
        self.unknown_sample: list[str] = []
        # Field signature -> row count and its first lines; rows with / without a run.
        self.presence: Counter[frozenset[str]] = Counter()
        self.presence_lines: dict[frozenset[str], list[int]] = {}
        self.run_given = Counter[bool]()
        self.run_lines: dict[bool, list[int]] = {True: [], False: []}
        # Where many rows per run are allowed: first line of each (item, run)'s "nothing
        # found" row, and of its first other row.
        self.nothing: dict[tuple[str, int | None], int] = {}
        self.something: dict[tuple[str, int | None], int] = {}

    def report(self, problem: Problem) -> None:
        if problem.line is None:
            self.file_problems.append(problem)
        else:
            self.row_problems.add(problem)

    def note_extra(self, column: str) -> None:
        """A column of the CSV header or Parquet schema that the model does not take."""
        if len(self.unknown) < MAX_UNKNOWN_COLUMNS:
            self.unknown.setdefault(column, self.header_line)

    def run(self, source: Iterator[tuple[int, Any]]) -> None:
        for line, record in source:
            self._one(line, record)

    def _one(self, line: int, record: Any) -> None:
        name, unit, model = self.name, self.unit, self.model
        if not isinstance(record, dict):
            self.report(Problem(name, line, None, "each record must be an object", unit))
            return
        if len(self.unknown) < MAX_UNKNOWN_COLUMNS:
            for key in record:
                if key not in self.model_fields:
                    self.unknown.setdefault(key, line)
        try:
            row = model.model_validate(record, strict=self.strict)
        except ValidationError as exc:
            for err in exc.errors(include_url=False):
                field = ".".join(str(part) for part in err["loc"]) or None
                if self.row_problems.wants(field, err["msg"]):
                    self.report(_row_problem(name, line, field, err, unit))
                else:  # counted only: formatting them costs most of the time
                    self.row_problems.count(field, err["msg"])
            item_id = record.get("item_id")
            if isinstance(item_id, str) and item_id:  # its item is checked all the same
                self._item(item_id, line)
            return
        item = self._item(row.item_id, line)
        if item is None:
            return
        if not model.one_row_per_run:
            clash = _nothing_clash(row, line, unit, self.nothing, self.something)
            if clash:
                self.report(Problem(name, line, clash[0], clash[1], unit))
                return
        given = frozenset(f for f in self.uniform if getattr(row, f) is not None)
        self.presence[given] += 1
        _first_lines(self.presence_lines.setdefault(given, []), line)
        has_run = row.run is not None
        self.run_given[has_run] += 1
        _first_lines(self.run_lines[has_run], line)
        self.optional_given.update(f for f in model.per_row_optional if getattr(row, f) is not None)
        self.rows.add(line, item, row)

    def _item(self, item_id: str, line: int) -> int | None:
        """The index of the known item `item_id`, or None, reporting an unknown one."""
        self.named_rows += 1
        item = self.index.get(item_id)
        if item is not None:
            self.mentioned.add(item)
            return item
        self.unknown_rows += 1
        if len(self.unknown_sample) < UNKNOWN_SAMPLE:
            self.unknown_sample.append(item_id)
        if self.row_problems.wants("item_id", UNKNOWN_ITEM):  # formatted only when kept
            message = f"unknown item_id {records.shown(item_id)}"
            self.report(Problem(self.name, line, "item_id", message, self.unit))
        else:
            self.row_problems.count("item_id", UNKNOWN_ITEM)
        return None

    def _whose(self) -> list[str]:
        """What most rows' item ids are, when most are not this dataset's: said first."""
        if not self.unknown_rows or self.unknown_rows * 2 < self.named_rows:
            return []
        found = self.whose_items(self.unknown_sample) if self.whose_items else None
        share = f"{self.unknown_rows} of the {self.named_rows} rows name items"
        if found:
            return [f"{share} this benchmark's dataset does not have; {found}"]
        example = ", ".join(records.shown(i) for i in self.unknown_sample[:3])
        return [
            f"{share} this benchmark's dataset does not have (e.g. {example}): is the file "
            "for another benchmark, or made on another version of the dataset?"
        ]

    def result(self, allow_partial: bool) -> tuple[pa.Table, tuple[str, ...], int]:
        """The validated table, the fields given and the items answered; raises on problems."""
        name = self.name
        found = self.row_problems
        capped = (
            [self.rows.duplicates(name, self.unit, self.known_items)]
            if (self.model.one_row_per_run)
            else []
        )
        for group in [*capped, *self._consistency()]:
            for problem in group.kept:
                found.add(problem)
            if group.more:
                last = group.kept[-1]
                found.count(last.field, last.message, group.more)
        columns = self._unknown_columns()
        file_level = list(self.file_problems)
        if not self.rows.count and not found.total and not columns.total and not file_level:
            file_level.append(Problem(name, None, None, "no predictions in file"))
        missing = [item for i, item in enumerate(self.known_items) if i not in self.mentioned]
        if missing and self.named_rows and not allow_partial:
            listed = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
            file_level.append(
                Problem(
                    name,
                    None,
                    "item_id",
                    f"{len(missing)} item(s) have no prediction: {listed} "
                    "(use --allow-partial to score the answered items only)",
                )
            )
        if found.total or columns.total or file_level:
            raise failure(found, file_level, hints=self._whose(), first=columns)
        submitted = self.rows.items()
        usual = next(iter(self.presence))
        given = tuple(f for f in self.fields if f in usual | self.optional_given)
        return self.rows.table(given, self.known_items), given, len(submitted)

    def _unknown_columns(self) -> Grouped:
        found = Grouped()
        for key, line in self.unknown.items():
            field = records.printable_name(key)
            found.add(Problem(self.name, line, field, unknown_column(key, self.model), self.unit))
        return found

    def _consistency(self) -> list[_Capped]:
        """Every row must give the same prediction fields, and runs must be all-or-nothing:
        the odd rows out are named (not the many that agree)."""
        out = []
        if len(self.presence) > 1:
            usual = self.presence.most_common(1)[0][0]
            which = ", ".join(sorted(usual)) or "none"
            odd = _Capped()
            for given, count in self.presence.items():
                if given == usual:
                    continue
                differ = ",".join(sorted(usual - given) or sorted(given - usual))
                lines = self.presence_lines[given]
                for line in lines:
                    message = f"fields differ from most rows (which give {which})"
                    odd.add(Problem(self.name, line, differ, message, self.unit))
                odd.more += count - len(lines)
            out.append(odd)
        if self.run_given[True] and self.run_given[False]:
            odd = _Capped()
            minority = self.run_given[True] < self.run_given[False]
            message = (
                "a run given here, but most rows give none: give a run on every row or none"
                if minority
                else "missing: other rows give a run"
            )
            lines = self.run_lines[minority]
            for line in lines:
                odd.add(Problem(self.name, line, "run", message, self.unit))
            odd.more += self.run_given[minority] - len(lines)
            out.append(odd)
        return out


def _first_lines(lines: list[int], line: int) -> None:
    if len(lines) < MAX_PROBLEMS:
        lines.append(line)


class _Columns:
    """Valid rows as compact columns: item index into the known items, run (-1: none), line,
    and each prediction field's values, moved into Arrow every _BATCH rows."""

    def __init__(self, model: type[PredictionRow], fields: tuple[str, ...]) -> None:
        self.model, self.fields = model, fields
        self.item = array("q")
        self.run = array("q")
        self.line = array("q")
        self.pending: dict[str, list[Any]] = {f: [] for f in fields}
        self.chunks: dict[str, list[pa.Array]] = {f: [] for f in fields}
        self.count = 0

    def add(self, line: int, item: int, row: PredictionRow) -> None:
        self.item.append(item)
        self.run.append(-1 if row.run is None else row.run)
        self.line.append(line)
        for field in self.fields:
            self.pending[field].append(getattr(row, field))
        self.count += 1
        if self.count % _BATCH == 0:
            self._flush()

    def _flush(self) -> None:
        for field, values in self.pending.items():
            if values:
                self.chunks[field].append(pa.array(values, self.model.arrow_types[field]))
                values.clear()

    def items(self) -> set[int]:
        return set(np.unique(self.item_index()).tolist())

    def item_index(self) -> np.ndarray:
        return np.frombuffer(self.item, dtype=np.int64)

    def duplicates(self, name: str, unit: str, known: list[str]) -> _Capped:
        """Rows repeating an earlier row's (item_id, run), each naming the first one."""
        found = _Capped()
        if not self.count:
            return found
        items = np.frombuffer(self.item, dtype=np.int64)
        runs = np.frombuffer(self.run, dtype=np.int64)
        lines = np.frombuffer(self.line, dtype=np.int64)
        keys = (runs + 1) * len(known) + items
        order = np.argsort(keys, kind="stable")  # rows of a key stay in line order
        ordered = keys[order]
        repeat = np.flatnonzero(ordered[1:] == ordered[:-1]) + 1
        if not len(repeat):
            return found
        starts = np.r_[True, ordered[1:] != ordered[:-1]]
        first_of = np.maximum.accumulate(np.where(starts, np.arange(len(ordered)), 0))
        repeat_lines = lines[order[repeat]]
        for i in repeat[np.argsort(repeat_lines, kind="stable")[:MAX_PROBLEMS]]:
            first = order[first_of[i]]
            run = "" if runs[first] < 0 else f" run {runs[first]}"
            item = records.shown(known[items[first]])
            message = f"duplicate {item}{run} (first on {unit} {lines[first]})"
            found.add(Problem(name, int(lines[order[i]]), "item_id", message, unit))
        found.more = max(len(repeat) - MAX_PROBLEMS, 0)
        return found

    def table(self, given: tuple[str, ...], known: list[str]) -> pa.Table:
        self._flush()
        items = pa.array(np.frombuffer(self.item, dtype=np.int64))
        runs = np.frombuffer(self.run, dtype=np.int64)
        columns: dict[str, Any] = {
            "item_id": pa.array(known, pa.string()).take(items),
            "run": pa.array(np.maximum(runs, 0).astype(np.int32)),
        }
        for field in given:
            columns[field] = pa.chunked_array(
                self.chunks[field], self.model.arrow_types[field]
            ).combine_chunks()
        return pa.table(columns)


def _row_problem(name: str, line: int, field: str | None, err: Any, unit: str) -> Problem:
    value = err.get("input")
    value_text = "" if isinstance(value, dict) else f" (got {records.shown(value)})"
    return Problem(name, line, field, f"{err['msg']}{value_text}", unit)


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
