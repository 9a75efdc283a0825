"""A judge's details file (`X.details.jsonl`, as `mathjudge judge run` writes beside `X.jsonl`):
one JSON object per line with `item_id`, optionally `run`, and the judge's own fields (a
rationale, an extracted answer...). Read as untrusted: bounded size, safe JSON, displayable
text, bounded rows, characters and paragraphs per item (what one item view shows), every
problem located by file, line and field."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from mathjudge.base import safejson, sidefiles
from mathjudge.base.display import (
    MAX_ITEM_DETAIL_CHARS,
    MAX_ITEM_DETAIL_PARAGRAPHS,
    MAX_ITEM_DETAIL_ROWS,
    meta_problem,
    paragraphs,
    shown_text,
)
from mathjudge.base.errors import Problem, ValidationFailed
from mathjudge.spec.prediction import RUN_MAX

MAX_BYTES = 64 << 20
MAX_PROBLEMS = 50


def read_details(path: Path, item_ids: set[str]) -> list[dict[str, Any]]:
    """The rows of a details file whose items are all among `item_ids`."""
    return parse_details(sidefiles.read_bytes(path, MAX_BYTES, "details file"), str(path), item_ids)


def parse_details(data: bytes, where: str, item_ids: set[str]) -> list[dict[str, Any]]:
    """The rows of the details file whose bytes are `data` (named `where` in messages)."""
    rows, problems = [], []
    totals = _PerItem()
    for number, raw in enumerate(data.removeprefix(b"\xef\xbb\xbf").split(b"\n"), start=1):
        if not raw.strip():
            continue
        problem = None
        try:
            row = safejson.loads(raw)
        except safejson.JsonProblem as exc:
            problem = Problem(where, number, exc.field, exc.message)
        else:
            problem = _check(row, item_ids, where, number) or totals.add(row, where, number)
        if problem is not None:
            problems.append(problem)
            if len(problems) >= MAX_PROBLEMS:
                break
            continue
        rows.append(row)
    if problems:
        raise ValidationFailed(problems)
    return rows


def _check(row: Any, item_ids: set[str], file: str, line: int) -> Problem | None:
    if not isinstance(row, dict):
        return Problem(file, line, None, "a details row must be a JSON object")
    item = row.get("item_id")
    if not isinstance(item, str):
        return Problem(file, line, "item_id", "missing or not a string")
    if item not in item_ids:
        return Problem(file, line, "item_id", f"{item[:80]!r} is not an item of the predictions")
    run = row.get("run")
    if run is not None and (
        not isinstance(run, int) or isinstance(run, bool) or not 0 <= run <= RUN_MAX
    ):
        return Problem(file, line, "run", f"must be a whole number from 0 to {RUN_MAX}")
    found = meta_problem({k: v for k, v in row.items() if k not in ("item_id", "run")})
    if found is not None:
        return Problem(file, line, None, f"{found[0]} {found[1]}")
    return None


class _PerItem:
    """What the rows read so far give each item, against the bounds of one item view; an item
    past them is reported once."""

    def __init__(self) -> None:
        self.rows: Counter[str] = Counter()
        self.chars: Counter[str] = Counter()
        self.paragraphs: Counter[str] = Counter()
        self.reported: set[str] = set()

    def add(self, row: dict[str, Any], file: str, line: int) -> Problem | None:
        """The problem with adding this (checked) row to its item's totals, or None."""
        item = row["item_id"]
        if item in self.reported:
            return None
        problem = self._past(row, item, file, line)
        if problem is not None:
            self.reported.add(item)
        return problem

    def _past(self, row: dict[str, Any], item: str, file: str, line: int) -> Problem | None:
        self.rows[item] += 1
        if self.rows[item] > MAX_ITEM_DETAIL_ROWS:
            why = f"has more than {MAX_ITEM_DETAIL_ROWS} details rows (one per run)"
            return Problem(file, line, "item_id", f"item {item[:80]!r} {why}")
        for key, value in row.items():
            if key in ("item_id", "run"):
                continue
            text = shown_text(value)
            self.chars[item] += len(text)
            self.paragraphs[item] += paragraphs(text)
            if self.chars[item] > MAX_ITEM_DETAIL_CHARS:
                why = f"pass {MAX_ITEM_DETAIL_CHARS:,} characters"
            elif self.paragraphs[item] > MAX_ITEM_DETAIL_PARAGRAPHS:
                why = f"pass {MAX_ITEM_DETAIL_PARAGRAPHS:,} paragraphs (texts split at blank lines)"
            else:
                continue
            return Problem(file, line, key, f"the details of item {item[:80]!r} {why}")
        return None
