"""Reading result tables transcribed from papers (the shared `reported/` folder, CSV).

Each benchmark's `reported.py` turns its paper's tables into `Evaluation`s with these
helpers; `document.reported` merges them and imports them into the store. Every imported row
can never be mistaken for a reproduced result:
- `source` is "reported", with a citation (paper title, arXiv id, table);
- the judge is the paper's label ("o3 (Ref+MS)"); the setting (context, prompt, backbone...)
  goes to `meta`, with the table and the CSV line it came from;
- dataset_version and content_hash are "reported": the paper scored its own copy of the data,
  so no build of ours applies;
- values are converted to the store's natural units (fractions, score points); CIs only where
  the paper prints them; no bootstrap and no item predictions.
`sha256` hashes the CSV file and the row index and `created` is fixed per paper, so
importing the same files again replaces the same submissions.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Collection
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from mathjudge import __version__
from mathjudge.base import sidefiles
from mathjudge.base.display import MAX_JUDGE_NAME, meta_problem, text_problem
from mathjudge.base.errors import MathJudgeError, Problem
from mathjudge.spec.benchmark import Paper
from mathjudge.spec.results import Evaluation, Score

SOURCE = "reported"
# What a printed cell may hold, as powers of ten: far beyond any paper's table, and well within
# a float (1e999999 was stored as infinity) and the decimal context (1e9999999 overflowed it).
MIN_EXPONENT, MAX_EXPONENT = -30, 9


@dataclass(frozen=True)
class PrintedScore(Score):
    """A score read from a paper's cell, remembering the cell as printed and the scale it was
    divided by: what "our value, rounded as the paper prints it, is the paper's" needs (the
    number alone loses trailing zeros: 70.0 and 70 print different precisions)."""

    printed: str = field(default="", compare=False)
    scale: int = field(default=1, compare=False)


def printed_key(score: Score) -> str:
    """The key of a score in a reported result's `meta["printed"]`."""
    return "/".join(where(score))


@dataclass(frozen=True)
class Row:
    """One CSV record and where it is, so that every error names file, line and column."""

    path: Path
    line: int
    index: int  # 0-based among the data rows
    file_sha256: str
    cells: dict[str, str]

    def error(self, column: str | None, message: str) -> MathJudgeError:
        return MathJudgeError(str(Problem(str(self.path), self.line, column, message)))

    def text(self, column: str, allowed: Collection[str] | None = None) -> str:
        value = self.cells[column].strip()
        if allowed is not None and value not in allowed:
            raise self.error(column, f"unknown value {value!r}; expected one of {sorted(allowed)}")
        return value

    def number(self, column: str) -> Decimal | None:
        """The cell as printed (exact decimal, so 72.6 / 100 stores as 0.726); None if empty."""
        cell = self.cells[column].strip()
        if not cell:
            return None
        try:
            value = Decimal(cell)
        except InvalidOperation:
            raise self.error(column, f"{cell!r} is not a number") from None
        if not value.is_finite():
            raise self.error(column, f"{cell!r} is not a finite number")
        if value and not MIN_EXPONENT <= value.adjusted() < MAX_EXPONENT:
            raise self.error(
                column,
                f"{cell[:40]!r} is out of range: a printed value lies between "
                f"1e{MIN_EXPONENT} and 1e{MAX_EXPONENT} in magnitude (or is 0)",
            )
        return value

    @property
    def sha256(self) -> str:
        return hashlib.sha256(f"{self.file_sha256}:{self.index}".encode()).hexdigest()

    @property
    def origin(self) -> str:
        return f"{self.path.name}:{self.line}"


def read_rows(path: Path, columns: tuple[str, ...]) -> list[Row]:
    """The data rows of a transcribed CSV whose header must be exactly `columns` (any order)."""
    data = sidefiles.read_bytes(path, sidefiles.TABLE_MAX_BYTES, "reported table")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise MathJudgeError(f"{path}:{line}: not UTF-8 ({exc.reason})") from exc
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip() for h in next(reader, [])]
    for column in header:
        if column not in columns or header.count(column) > 1:
            problem = "unknown column" if column not in columns else "duplicate column"
            raise MathJudgeError(str(Problem(str(path), 1, column, problem)))
    for column in columns:
        if column not in header:
            raise MathJudgeError(str(Problem(str(path), 1, column, "missing column")))
    file_sha = hashlib.sha256(data).hexdigest()
    rows: list[Row] = []
    start = reader.line_num + 1
    for record in reader:
        if record:
            if len(record) != len(header):
                message = f"{len(record)} cells, the header has {len(header)}"
                raise MathJudgeError(str(Problem(str(path), start, None, message)))
            rows.append(
                Row(path, start, len(rows), file_sha, dict(zip(header, record, strict=True)))
            )
        start = reader.line_num + 1
    return rows


def cell_score(
    row: Row,
    column: str,
    where: tuple[str, str, int],
    metric: str,
    scale: int = 1,
    margin: str | None = None,
) -> list[Score]:
    """The cell as a score in natural units (cell / scale), with value -/+ the printed margin
    as its interval when `margin` names a column; no row for an empty cell."""
    value = row.number(column)
    if value is None:
        return []
    scope, subset, n = where
    half = row.number(margin) if margin else None
    low, high = (None, None) if half is None else ((value - half) / scale, (value + half) / scale)
    return [
        PrintedScore(
            scope,
            subset,
            metric,
            float(value / scale),
            None if low is None else float(low),
            None if high is None else float(high),
            n,
            printed=row.cells[column].strip(),
            scale=scale,
        )
    ]


def result(
    benchmark: str,
    paper: Paper,
    n_expected: int,
    tables: list[str],
    rows: list[Row],
    judge: str,
    scores: list[Score],
    meta: dict[str, Any],
    fields: tuple[str, ...],
    *,
    n_items: int | None = None,
    runs: int = 1,
    runs_agg: str = "mean",
) -> Evaluation:
    """One reported result: `n_expected` is the number of items the paper scored."""
    if not scores:
        raise rows[0].error(None, "the row gives no values")
    # The same checks as `--judge` and `--meta`: these names and texts reach every page.
    judge_problem = text_problem(judge, MAX_JUDGE_NAME)
    if judge_problem:
        raise rows[0].error("judge", f"the judge name {judge_problem}")
    meta_found = meta_problem(meta)
    if meta_found:
        what, problem = meta_found
        raise rows[0].error(None, f"meta: {what} {problem}")
    if len({where(s) for s in scores}) < len(scores):
        origins = ", ".join(r.origin for r in rows)
        raise MathJudgeError(f"{origins}: the same score given twice for {judge!r}")
    n = n_expected if n_items is None else n_items
    return Evaluation(
        benchmark=benchmark,
        dataset_version=SOURCE,
        content_hash=SOURCE,
        judge=judge,
        sha256=rows[0].sha256,
        n_items=n,
        n_expected=n_expected,
        coverage=n / n_expected,
        partial=n < n_expected,
        runs=runs,
        runs_agg=runs_agg,
        fields=fields,
        bootstrap={},
        meta={
            **{k: v for k, v in meta.items() if v != ""},
            "tables": tables,
            "transcribed_from": [r.origin for r in rows],
            "printed": printed_cells(scores),
        },
        mathjudge_version=__version__,
        scores=tuple(scores),
        created=paper.created,
        source=SOURCE,
        citation=paper.cite(tables),
    )


def where(score: Score) -> tuple[str, str, str]:
    return score.scope, score.subset, score.metric


def printed_cells(scores: list[Score] | tuple[Score, ...]) -> dict[str, dict[str, Any]]:
    """`meta["printed"]`: each score's cell as printed and its scale, by `printed_key`."""
    return {
        printed_key(s): {"text": s.printed, "scale": s.scale}
        for s in scores
        if isinstance(s, PrintedScore)
    }


def unique_judges(rows: list[Row]) -> dict[str, Row]:
    """Rows by their `judge` cell, which must be set and unique."""
    out: dict[str, Row] = {}
    for row in rows:
        name = row.text("judge")
        if not name or name in out:
            raise row.error("judge", f"empty or repeated judge name {name!r}")
        out[name] = row
    return out


def integer(row: Row, column: str) -> int:
    """A positive whole number cell."""
    value = row.number(column)
    if value is None or value != value.to_integral_value() or value < 1:
        raise row.error(column, "expected a positive integer")
    return int(value)
