"""Lines of an arXiv metadata file that stage 1 cannot read, found by line number.

DuckDB reads the files in one streaming pass and stops at the first line it cannot parse, with
a message that names a line number of its own counting and suggests reader options this CLI
does not have. Only when that happens are the files scanned here, line by line: a line that is
not a JSON object is skipped (and reported with its number, as the run goes on); a value DuckDB
cannot convert (a date that is not one) stops the run with the lines that hold it, since the
line cannot be read but its paper must not silently vanish from the funnel.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mathjudge.base.escaping import printable

SHOWN = 10
# DuckDB's own advice ("Try setting 'ignore_errors' ...") names options of its reader.
_DUCKDB_ADVICE = re.compile(r"\s*(Try |Consider |HINT:|LINE \d+:).*", re.DOTALL)
_QUOTED = re.compile(r"\"((?:[^\"\\]|\\.)*)\"|'((?:[^'\\]|\\.)*)'")


def _lines(path: Path, gzipped: bool) -> Iterator[tuple[int, bytes]]:
    with gzip.open(path, "rb") if gzipped else path.open("rb") as handle:
        yield from enumerate(handle, start=1)


def not_objects(path: Path, gzipped: bool) -> list[tuple[int, str]]:
    """(line number, why) of every non-blank line that is not one JSON object."""
    found = []
    for number, raw in _lines(path, gzipped):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            found.append((number, f"not JSON ({printable(str(exc))[:80]})"))
            continue
        if not isinstance(value, dict):
            found.append((number, f"a JSON {type(value).__name__}, not an object"))
    return found


def duckdb_reason(exc: BaseException) -> str:
    """The first line of a DuckDB error, without the reader options it suggests."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return printable(_DUCKDB_ADVICE.sub("", first)).strip()


def lines_holding(path: Path, gzipped: bool, exc: BaseException) -> list[int]:
    """The lines holding a value the DuckDB error quotes (e.g. the date it could not cast)."""
    quoted = [a or b for a, b in _QUOTED.findall(duckdb_reason(exc))]
    if not quoted:
        return []
    out = []
    for number, raw in _lines(path, gzipped):
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if any(q in _texts(value) for q in quoted):
            out.append(number)
            if len(out) >= SHOWN:
                break
    return out


def _texts(value: Any) -> set[str]:
    """Every string value (not key) of a JSON value, nested ones included."""
    out: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.add(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return out
