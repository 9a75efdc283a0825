"""The constant baseline: every solution gets full marks and a correct final answer.

It is the judge that accepts everything. Its avg_score and overlap show what a benchmark's label
balance alone gives, and its correlation is undefined (reported as n/a), which keeps the
leaderboard honest about what "no signal" looks like.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

FULL_MARKS = 10.0


def judge(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"item_id": r["item_id"], "score": FULL_MARKS, "answer_correct": True} for r in rows]
