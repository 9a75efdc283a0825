"""Constant baselines: judges that give every item the same answer.

They show what a benchmark's label balance alone earns: a constant's correlation is undefined
(reported as n/a) and one verdict class goes unpredicted, which keeps the leaderboard honest
about what "no signal" looks like.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

FULL_MARKS = 10.0


def full_marks(rows: Iterable[Mapping[str, Any]], _ctx: object = None) -> list[dict[str, Any]]:
    """StepMathBench: 10/10 and a correct final answer for every solution."""
    return [{"item_id": r["item_id"], "score": FULL_MARKS, "answer_correct": True} for r in rows]


def always_incorrect(
    rows: Iterable[Mapping[str, Any]], _ctx: object = None
) -> list[dict[str, Any]]:
    """Verdict benchmarks: every solution judged incorrect (the majority class of OPC)."""
    return [{"item_id": r["item_id"], "verdict": False} for r in rows]
