"""Solution length as a judge: a deterministic, model-free baseline for ranking benchmarks.

Longer candidate solutions often carry more of the argument, so length alone ranks some correct
candidates above wrong ones; a judge that cannot beat it has learned little about correctness.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


def solution_length(rows: Iterable[Mapping[str, Any]], _ctx: object = None) -> list[dict[str, Any]]:
    """ExpertMath-style: each candidate's score is its number of whitespace-separated tokens."""
    return [{"item_id": r["item_id"], "score": float(len(r["solution"].split()))} for r in rows]
