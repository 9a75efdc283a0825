"""A judge's details file (`X.details.jsonl`, as `mathjudge judge run` writes beside `X.jsonl`):
one JSON object per line with `item_id`, optionally `run`, and the judge's own fields (a
rationale, an extracted answer...). Read as untrusted: bounded size, safe JSON, displayable
text, every problem located by file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mathjudge.base import safejson, sidefiles
from mathjudge.base.display import meta_problem
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
    for number, raw in enumerate(data.removeprefix(b"\xef\xbb\xbf").split(b"\n"), start=1):
        if not raw.strip():
            continue
        problem = None
        try:
            row = safejson.loads(raw)
        except safejson.JsonProblem as exc:
            problem = Problem(where, number, exc.field, exc.message)
        else:
            problem = _check(row, item_ids, where, number)
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
