"""Scorings share one in-memory DuckDB database per process, each on a cursor of its own
(mathjudge/scoring/tables.py): scorings at once never see each other's tables."""

from __future__ import annotations

import json
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from conftest import write_jsonl
from mathjudge.scoring.evaluator import evaluate_file

N_BOOT = 200


def judge_file(path: Path, stepmath_rows: list[dict], seed: int) -> Path:
    """A noisy judge of every StepMathBench item, in its own order."""
    rng = random.Random(seed)
    rows = [
        {
            "item_id": r["uid"],
            "score": min(10.0, max(0.0, r["gold_score"] + rng.choice((-3, 0, 2)))),
        }
        for r in rng.sample(stepmath_rows, len(stepmath_rows))
    ]
    return write_jsonl(path, rows)


def scores(path: Path, datasets_dir: Path) -> list[tuple]:
    result = evaluate_file("stepmathbench", path, "j", datasets_dir=datasets_dir, n_boot=N_BOOT)
    return sorted(
        (s.scope, s.subset, s.metric, s.value, s.ci_low, s.ci_high, s.n) for s in result.scores
    )


def test_scorings_at_once_on_threads_equal_one_by_one(
    datasets_dir: Path, stepmath_rows: list[dict], tmp_path: Path
) -> None:
    files = [judge_file(tmp_path / f"j{k}.jsonl", stepmath_rows, seed=k) for k in range(2)]
    one_by_one = [scores(f, datasets_dir) for f in files]
    assert json.dumps(one_by_one[0]) != json.dumps(one_by_one[1])  # two judges, two results
    with ThreadPoolExecutor(4) as pool:
        at_once = list(pool.map(lambda f: scores(f, datasets_dir), files * 2))
    assert at_once == one_by_one * 2
