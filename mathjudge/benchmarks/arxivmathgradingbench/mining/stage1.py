"""Stage 1 of the arXiv filter: cheap, recall-oriented tests on the metadata, run by DuckDB
straight over the input files.

One streaming pass: each record gets the number of filters it passes in order (math category,
date window, revised, correction words, a named formal result), and a GROUP BY on that number
gives the funnel, a few dropped records per filter and the survivors at once. Nothing but the
survivors reaches Python, and DuckDB parses only the JSON fields the filters use.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable
from mathjudge.benchmarks.arxivmathgradingbench.mining import badlines
from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import (
    SIGNATURES,
    InputFile,
    Normalisation,
    Record,
    clean_sql,
    normalisation,
    sql_string,
)

if TYPE_CHECKING:
    import duckdb

# The Pseudo-Formalization paper's recall-oriented correction pattern and its formal results.
CORRECTION = r"correct|errat|error|fix|mistake|bug|flaw|wrong|revised|amendment"
FORMAL_RESULT = r"lemma|theorem|proposition"
# A comment that says it belongs to a later version, for records whose version number is 1.
REVISION = r"\bv\d+\b|\bversions?\s+\d|previous version|earlier version|new version|revis|updated"
CATEGORY_PREFIX = "math."
FILTERS = ("math_category", "date_window", "revised", "correction", "formal_result")
EXAMPLES = 3


@dataclass(frozen=True)
class Patterns:
    """Case-insensitive RE2 patterns (DuckDB's regular expressions), searched in the comment."""

    correction: str = CORRECTION
    formal_result: str = FORMAL_RESULT
    revision: str = REVISION
    category_prefix: str = CATEGORY_PREFIX

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


DEFAULT_PATTERNS = Patterns()


@dataclass(frozen=True)
class FunnelStep:
    """How many records are left after a filter, and a few it dropped (as read)."""

    name: str
    kept: int
    dropped_examples: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class Stage1Result:
    read: int
    steps: tuple[FunnelStep, ...]  # one per FILTERS entry, then "unique" (arxiv_id, version)
    survivors: tuple[Record, ...]  # sorted by (arxiv_id, version); abstracts are not read
    skipped: tuple[str, ...] = ()  # "file:line: why" of lines that are not JSON objects


def _matches(text: str, pattern: str) -> str:
    return f"regexp_matches({text}, {sql_string(pattern)}, 'i')"


def _tests(
    norm: Normalisation, patterns: Patterns, since: dt.date | None, until: dt.date | None
) -> list[str]:
    """One SQL condition per filter, over a file's raw columns; a NULL field fails its test."""
    fields, cats, prefix = norm.fields, norm.categories_text, patterns.category_prefix
    comment, date = f"coalesce({fields['comment']}, '')", fields["date"]
    first, later = sql_string(prefix), sql_string(" " + prefix)
    bounds = [
        f"{date} >= DATE '{since}'" if since else "",
        f"{date} <= DATE '{until}'" if until else "",
    ]
    tests = [
        f"starts_with({cats}, {first}) OR contains({cats}, {later})",  # the first or a later one
        " AND ".join(b for b in bounds if b) or "true",
        f"{fields['version']} > 1 OR {_matches(comment, patterns.revision)}",
        _matches(comment, patterns.correction),
        _matches(comment, patterns.formal_result),
    ]
    return [f"coalesce({test}, false)" for test in tests]


def _staged(
    index: int, source: InputFile, patterns: Patterns, since: dt.date | None, until: dt.date | None
) -> str:
    """Per record of one file: how many filters it passed, a cheap example of it, and the
    normalised record only when it passed them all (CASE evaluates its branch for those rows
    only, so the text of the other records is never cleaned)."""
    norm = normalisation(source, abstract=False)
    tests = _tests(norm, patterns, since, until)
    passed = " ".join(f"WHEN NOT {test} THEN {i}" for i, test in enumerate(tests))
    kept = [f for f in norm.fields if f != "abstract"]
    record = ", ".join(f"'{f}': {norm.fields[f]}" for f in kept)
    f = norm.fields
    return f"""
        SELECT passed, {{'arxiv_id': {f["arxiv_id"]}, 'version': {f["version"]},
                         'comment': {norm.comment_column}, 'input': {index}}} AS example,
               CASE WHEN passed = {len(tests)} THEN {{{record}, 'input': {index}}} END AS survivor
        FROM (SELECT *, CASE {passed} ELSE {len(tests)} END AS passed FROM {norm.table})"""


def stage1_sql(
    inputs: Sequence[InputFile], patterns: Patterns, since: dt.date | None, until: dt.date | None
) -> str:
    union = " UNION ALL ".join(
        _staged(i, source, patterns, since, until) for i, source in enumerate(inputs)
    )
    return f"""
    SELECT passed, count(*) AS n,
           list_transform(
               arg_min(example, row(example.arxiv_id, example.version, example.input), {EXAMPLES}),
               lambda e: {{'arxiv_id': e.arxiv_id, 'version': e.version,
                           'comment': {clean_sql("e.comment")}}}),
           list(survivor) FILTER (WHERE survivor IS NOT NULL)
    FROM ({union}) GROUP BY passed"""


def check_patterns(con: duckdb.DuckDBPyConnection, patterns: Patterns) -> None:
    import duckdb

    for name, pattern in patterns.as_dict().items():
        if name == "category_prefix":
            continue
        try:
            con.execute("SELECT regexp_matches('', ?, 'i')", [pattern])
        except duckdb.Error as exc:
            raise MathJudgeError(f"pattern {name} = {pattern!r} is not valid RE2: {exc}") from exc


def _unique(rows: list[dict[str, Any]]) -> tuple[list[Record], list[dict[str, Any]]]:
    """One record per (arxiv_id, version): the one with a license (a Kaggle or Atom record
    over a listing line), else the earliest input's. Returns the records and the duplicates."""
    rows = sorted(
        rows, key=lambda r: (r["arxiv_id"], r["version"], r["license"] is None, r["input"])
    )
    kept: dict[tuple[str, int], Record] = {}
    duplicates = []
    for row in rows:
        key = (row.pop("arxiv_id"), row.pop("version"))
        row.pop("input")
        if key in kept:
            duplicates.append({"arxiv_id": key[0], "version": key[1], "comment": row["comment"]})
            continue
        kept[key] = Record.from_row(
            {"arxiv_id": key[0], "version": key[1], "abstract": None, **row}
        )
    return list(kept.values()), duplicates


def run_stage1(
    inputs: Sequence[InputFile],
    *,
    since: dt.date | None = None,
    until: dt.date | None = None,
    patterns: Patterns = DEFAULT_PATTERNS,
) -> Stage1Result:
    """The survivors of every filter over all `inputs`, and the funnel. The window is inclusive
    on the version date; None leaves that side open."""
    import duckdb  # here, not at module level: the CLI imports this module for its defaults

    if not inputs:
        raise MathJudgeError("no input files")
    if since and until and since > until:
        raise MathJudgeError(f"the window is empty: --since {since} is after --until {until}")
    skipped: list[str] = []
    with duckdb.connect() as con:
        check_patterns(con, patterns)
        try:
            groups = con.execute(stage1_sql(inputs, patterns, since, until)).fetchall()
        except duckdb.Error as exc:
            inputs, skipped = _skipping_unreadable(inputs, exc)
            try:
                groups = con.execute(stage1_sql(inputs, patterns, since, until)).fetchall()
            except duckdb.Error as again:
                raise MathJudgeError(_unreadable(inputs, again)) from None
    counts = {passed: n for passed, n, _, _ in groups}
    examples = {passed: ex for passed, _, ex, _ in groups}
    survivors: list[Any] = next(
        (rows for passed, _, _, rows in groups if passed == len(FILTERS)), []
    )
    records, duplicates = _unique(survivors or [])
    steps = [
        FunnelStep(
            name,
            sum(n for passed, n in counts.items() if passed > i),
            tuple(examples.get(i, ())),
        )
        for i, name in enumerate(FILTERS)
    ]
    steps.append(FunnelStep("unique", len(records), tuple(duplicates[:EXAMPLES])))
    # DuckDB reads each skipped line as a row of nulls (which the first filter drops).
    read = sum(counts.values()) - len(skipped)
    return Stage1Result(read, tuple(steps), tuple(records), tuple(skipped))


def _skipping_unreadable(
    inputs: Sequence[InputFile], exc: Exception
) -> tuple[list[InputFile], list[str]]:
    """The inputs again, those with lines that are not JSON objects set to skip them, and
    those lines ("file:line: why"); raises with exact advice when there are none, so the
    error was something else."""
    skipped, out = [], []
    for source in inputs:
        bad = badlines.not_objects(source.path, source.gzipped)
        skipped += [f"{printable(str(source.path))}:{line}: {why}" for line, why in bad]
        out.append(replace(source, skip_unreadable=True) if bad else source)
    if not skipped:
        raise MathJudgeError(_unreadable(inputs, exc)) from None
    return out, skipped


def _unreadable(inputs: Sequence[InputFile], exc: Exception) -> str:
    """Why stage 1 stopped, with the lines that hold the value DuckDB could not read."""
    reason = badlines.duckdb_reason(exc)
    where = []
    for source in inputs:
        lines = badlines.lines_holding(source.path, source.gzipped, exc)
        where += [f"{printable(str(source.path))}:{n}" for n in lines]
    found = f" (on {', '.join(where)})" if where else ""
    names = ", ".join(printable(str(i.path)) for i in inputs)
    formats = "; ".join(
        f"{fmt}: {', '.join(sorted(SIGNATURES[fmt]))}" for fmt in sorted({i.format for i in inputs})
    )
    return (
        f"stage 1 could not read {names}: {reason}{found}. Every line must be one JSON object "
        f"of arXiv metadata with the keys of its format ({formats}), dates and versions "
        "written as that format writes them; fix or remove the line and run again"
    )
