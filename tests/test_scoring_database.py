"""Scorings share one in-memory DuckDB database per process, each on a cursor of its own
(mathjudge/scoring/tables.py): scorings at once never see each other's tables, and they leave
nothing in the database nor change its settings."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pyarrow as pa

from conftest import write_jsonl
from mathjudge.scoring import tables
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
    assert one_by_one[0] != one_by_one[1]  # two judges, two results
    with ThreadPoolExecutor(4) as pool:
        at_once = list(pool.map(lambda f: scores(f, datasets_dir), files * 2))
    assert at_once == one_by_one * 2


def test_a_scoring_leaves_the_shared_database_as_it_found_it(
    datasets_dir: Path, stepmath_rows: list[dict], tmp_path: Path
) -> None:
    """What scoring and the scorers' hooks create is TEMP, on their own cursor, and they set
    no database-wide setting: a table or a SET left behind would reach the next scoring."""
    scores(judge_file(tmp_path / "j.jsonl", stepmath_rows, seed=3), datasets_dir)
    look = tables._shared_cursor()
    left = look.execute(
        "SELECT table_name FROM duckdb_tables() WHERE NOT temporary "
        "UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT temporary AND NOT internal"
    ).fetchall()
    assert left == []
    settings = "SELECT name, value FROM duckdb_settings() WHERE scope = 'GLOBAL' ORDER BY name"
    with duckdb.connect() as fresh:
        assert look.execute(settings).fetchall() == fresh.execute(settings).fetchall()
    look.close()


def test_two_scorings_cursors_see_only_their_own_tables() -> None:
    first, second = tables._shared_cursor(), tables._shared_cursor()
    first.register("items", pa.table({"x": [1, 2]}))
    first.execute("CREATE TEMP TABLE cluster_index AS SELECT 1 AS ci")
    second.register("items", pa.table({"x": [5]}))
    second.execute("CREATE TEMP TABLE cluster_index AS SELECT 2 AS ci")
    assert first.execute("SELECT sum(x) FROM items").fetchall() == [(3,)]
    assert second.execute(
        "SELECT sum(x), (SELECT ci FROM cluster_index) FROM items"
    ).fetchall() == [(5, 2)]
    first.close()
    second.close()
