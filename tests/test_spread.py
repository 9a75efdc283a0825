"""Per-run scores computed many runs per query equal those of scoring each run on its own."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import write_jsonl
from mathjudge.scoring import spread
from mathjudge.scoring.evaluator import evaluate_file


def run_scores(result) -> dict[tuple[str, str, str], tuple[float | None, int]]:
    return {
        (s.scope, s.subset, s.metric): (s.value, s.n)
        for s in result.scores
        if s.scope in ("run", "run_spread")
    }


def test_batched_runs_equal_one_run_at_a_time(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    rows = [
        {
            "item_id": r["uid"],
            "run": run,
            "score": min(10.0, max(0.0, r["gold_score"] + rng.gauss(0, 2))),
            "answer_correct": rng.random() < 0.6,
        }
        for run in (0, 3, 7, 8, 12)
        for r in stepmath_rows
        if rng.random() < 0.9  # runs cover different items
    ]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    monkeypatch.setattr(spread, "RUNS_PER_QUERY", 2)  # three batches: 2 + 2 + 1 runs
    batched = evaluate_file(
        "stepmathbench", path, "j", datasets_dir=datasets_dir, n_boot=5, allow_partial=True
    )
    monkeypatch.setattr(spread, "batched", lambda scorer: False)
    single = evaluate_file(
        "stepmathbench", path, "j", datasets_dir=datasets_dir, n_boot=5, allow_partial=True
    )
    got, expected = run_scores(batched), run_scores(single)
    assert {k[1] for k in got if k[0] == "run"} == {f"run={r}" for r in (0, 3, 7, 8, 12)}
    assert got == expected  # exactly: the same sums in the same order
