"""Paired comparison on the real StepMathBench: identities, pairing checked by hand against
per-problem differences, store and files agreeing, and every refusal."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import write_jsonl
from mathjudge.errors import MathJudgeError
from mathjudge.evaluate import store
from mathjudge.evaluate.compare import Comparison, Difference, compare
from mathjudge.evaluate.evaluator import evaluate_file

BENCH = "stepmathbench"


def gold(rows: list[dict]) -> list[dict]:
    return [
        {"item_id": r["uid"], "score": r["gold_score"], "answer_correct": bool(r["gold_score_01"])}
        for r in rows
    ]


def noisy(rows: list[dict], seed: int = 7, top: float = 10) -> list[dict]:
    """Gold plus noise, with fractional scores so that sums are not exact integers."""
    rng = np.random.default_rng(seed)
    return [
        {
            "item_id": r["uid"],
            "score": float(np.clip(r["gold_score"] + rng.integers(-3, 4) + 0.37, 0, top)),
            "answer_correct": bool(r["gold_score_01"]) != (rng.random() < 0.2),
        }
        for r in rows
    ]


def by_key(result: Comparison) -> dict[tuple[str, str, str], Difference]:
    return {(r.scope, r.subset, r.metric): r for r in result.rows}


def test_a_judge_against_itself(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    path = write_jsonl(tmp_path / "noisy.jsonl", noisy(stepmath_rows))
    result = compare(
        BENCH, path, path, store=tmp_path / "none.duckdb", datasets_dir=datasets_dir, n_boot=300
    )
    assert (result.n_shared_items, result.n_shared_problems) == (1000, 200)
    assert (result.n_boot, result.seed, result.fields) == (300, 2, ("score", "answer_correct"))
    assert result.rows[0].scope == "overall" and result.rows[0].metric == "avg_score"
    assert {r.scope for r in result.rows} == {"overall", "type", "generator", "level"}
    assert all(r.diff is not None for r in result.rows)
    for r in result.rows:
        assert (r.diff, r.ci_low, r.ci_high, r.p_value, r.p_is_bound) == (0, 0, 0, 1, False), r
        assert r.a_value == r.b_value


def test_gold_beats_a_noisy_judge(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    result = compare(
        BENCH,
        write_jsonl(tmp_path / "gold.jsonl", gold(stepmath_rows)),
        write_jsonl(tmp_path / "noisy.jsonl", noisy(stepmath_rows)),
        store=tmp_path / "none.duckdb",
        datasets_dir=datasets_dir,
        n_boot=500,
    )
    got = by_key(result)
    for metric in ("corr", "answer_corr", "overlap"):
        row = got[("overall", "all", metric)]
        assert row.a_value == 1.0 and row.diff == pytest.approx(1.0 - row.b_value)
        assert 0 < row.ci_low < row.diff < row.ci_high
        # No replicate reaches 0: p is reported as below the resolution 2/B, never as 0.
        assert (row.p_value, row.p_is_bound) == (2 / 500, True)
    mse = got[("overall", "all", "mse")]
    assert mse.ci_high < 0 and mse.p_is_bound
    gold_mean = got[("overall", "all", "gold_avg_score")]
    assert (gold_mean.diff, gold_mean.p_value) == (0, 1)
    table = result.format_table()
    assert "1000 shared items of 200 problems" in table and "<0.004" in table
    assert table.index("\noverall ") < table.index("\ntype ") < table.index("\nlevel ")


def test_paired_bootstrap_matches_per_problem_differences(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    """Judge B = judge A + a small per-item offset. The overall avg_score difference is the
    mean of the 200 per-problem mean differences (5 solutions each), so its problem-level
    bootstrap SE is sd(problem differences)/sqrt(200); the unpaired SE would be
    sqrt(se_A^2 + se_B^2), far larger since A and B move together."""
    preds_a = noisy(stepmath_rows, top=9)
    rng = np.random.default_rng(11)
    preds_b = [{**p, "score": p["score"] + rng.choice([0, 0.5, 1])} for p in preds_a]
    result = compare(
        BENCH,
        write_jsonl(tmp_path / "a.jsonl", preds_a),
        write_jsonl(tmp_path / "b.jsonl", preds_b),
        store=tmp_path / "none.duckdb",
        datasets_dir=datasets_dir,
        n_boot=2000,
    )
    row = by_key(result)[("overall", "all", "avg_score")]

    problems: dict[str, list[tuple[float, float]]] = {}
    for r, a, b in zip(stepmath_rows, preds_a, preds_b, strict=True):
        problems.setdefault(r["id"], []).append((a["score"], b["score"]))
    means = np.array([np.mean(v, axis=0) for v in problems.values()])  # (200, 2): A and B
    n = len(means)
    assert row.diff == pytest.approx(means[:, 0].mean() - means[:, 1].mean(), abs=1e-12)
    se_paired = (means[:, 0] - means[:, 1]).std() / math.sqrt(n)
    se_unpaired = math.sqrt(means[:, 0].var() / n + means[:, 1].var() / n)
    half_width = (row.ci_high - row.ci_low) / 2
    assert half_width / (1.96 * se_paired) == pytest.approx(1.0, abs=0.1)
    assert half_width < 0.2 * 1.96 * se_unpaired
    assert row.ci_high < 0 and row.p_is_bound


def test_store_judges_compare_like_their_files(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    # Two runs per item, combined by the mean in both paths.
    runs = [{**p, "run": r} for r in (0, 1) for p in noisy(stepmath_rows, seed=r)]
    path_a = write_jsonl(tmp_path / "runs.jsonl", runs)
    path_b = write_jsonl(tmp_path / "gold.jsonl", gold(stepmath_rows))
    db = tmp_path / "results.duckdb"
    saved = {}
    for judge, path in (("two runs", path_a), ("gold", path_b)):
        result = evaluate_file(BENCH, path, judge, datasets_dir=datasets_dir, n_boot=20)
        saved[judge] = (store.save(db, result), result)
    options = {"store": db, "datasets_dir": datasets_dir, "n_boot": 200}
    from_store = compare(BENCH, "two runs", "gold", **options)
    from_files = compare(BENCH, path_a, path_b, **options)
    assert (from_store.a.origin, from_store.a.ref) == ("store", saved["two runs"][0])
    assert (from_files.b.origin, from_files.b.label) == ("file", str(path_b))
    assert len(from_store.rows) == len(from_files.rows)
    for s, f in zip(from_store.rows, from_files.rows, strict=True):
        assert dataclasses.astuple(s) == pytest.approx(dataclasses.astuple(f), rel=1e-12)
    # What is compared is what `evaluate` scored.
    scored = {(s.scope, s.subset, s.metric): s.value for s in saved["two runs"][1].scores}
    for r in from_store.rows:
        assert r.a_value == pytest.approx(scored[(r.scope, r.subset, r.metric)], rel=1e-12)
    # A submission id names a judge too.
    by_id = compare(BENCH, saved["two runs"][0], "gold", **options)
    assert by_id.rows == from_store.rows
    assert from_store.to_json()["shared"] == {"items": 1000, "problems": 200}


def test_only_shared_items_are_compared(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    calc = [
        p
        for p, r in zip(gold(stepmath_rows), stepmath_rows, strict=True)
        if r["type"] == "Calculation"
    ]
    result = compare(
        BENCH,
        write_jsonl(tmp_path / "calc.jsonl", calc),
        write_jsonl(tmp_path / "noisy.jsonl", noisy(stepmath_rows)),
        store=tmp_path / "none.duckdb",
        datasets_dir=datasets_dir,
        n_boot=50,
    )
    assert (result.n_shared_items, result.n_shared_problems) == (725, 145)
    assert (result.a.n_items, result.b.n_items) == (725, 1000)
    assert {r.subset for r in result.rows if r.scope == "type"} == {"Calculation"}
    overall = by_key(result)[("overall", "all", "avg_score")]
    shared = [
        p["score"]
        for p, r in zip(noisy(stepmath_rows), stepmath_rows, strict=True)
        if r["type"] == "Calculation"
    ]
    assert overall.b_value == pytest.approx(np.mean(shared), abs=1e-12)
    assert overall.n_items == 725


@pytest.fixture
def errors_store(datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]) -> Path:
    result = evaluate_file(
        BENCH,
        write_jsonl(tmp_path / "gold.jsonl", gold(stepmath_rows)),
        "gold",
        datasets_dir=datasets_dir,
        n_boot=10,
    )
    db = tmp_path / "results.duckdb"
    store.save(db, result)
    store.save(
        db,
        dataclasses.replace(
            result, judge="paper", source="reported", citation="a paper", predictions=None
        ),
    )
    store.save(db, dataclasses.replace(result, judge="stale", content_hash="0" * 64))
    # Same judge, same creation time, different scoring options: no single latest submission.
    store.save(db, dataclasses.replace(result, judge="twice", runs_agg="median"))
    store.save(db, dataclasses.replace(result, judge="twice"))
    store.save(db, dataclasses.replace(result, judge=str(tmp_path / "gold.jsonl")))
    return db


@pytest.mark.parametrize(
    ("a", "message"),
    [
        ("nobody", "no judge of stepmathbench by that name .*judges: "),
        ("paper", "reported result copied from a paper"),
        ("stale", "content_hash 0{64}, but the built dataset"),
        ("twice", "several latest submissions saved at the same time"),
        ("FILE", "is both a predictions file and a judge"),
    ],
)
def test_refuses_judges_it_cannot_pair(
    datasets_dir: Path, tmp_path: Path, errors_store: Path, a: str, message: str
) -> None:
    a = str(tmp_path / "gold.jsonl") if a == "FILE" else a
    with pytest.raises(MathJudgeError, match=message):
        compare(BENCH, a, "gold", store=errors_store, datasets_dir=datasets_dir, n_boot=10)


def test_refuses_what_has_nothing_in_common(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    rows = gold(stepmath_rows)
    calc = [p for p, r in zip(rows, stepmath_rows, strict=True) if r["type"] == "Calculation"]
    other = [p for p, r in zip(rows, stepmath_rows, strict=True) if r["type"] != "Calculation"]
    options = {"store": tmp_path / "none.duckdb", "datasets_dir": datasets_dir, "n_boot": 10}
    calc_path = write_jsonl(tmp_path / "calc.jsonl", calc)
    with pytest.raises(MathJudgeError, match="no item in common"):
        compare(BENCH, calc_path, write_jsonl(tmp_path / "other.jsonl", other), **options)
    scores = write_jsonl(
        tmp_path / "s.jsonl", [{"item_id": p["item_id"], "score": p["score"]} for p in rows]
    )
    answers = write_jsonl(
        tmp_path / "v.jsonl",
        [{"item_id": p["item_id"], "answer_correct": p["answer_correct"]} for p in rows],
    )
    with pytest.raises(
        MathJudgeError, match="nothing to compare: A gives score, B gives answer_correct"
    ):
        compare(BENCH, scores, answers, **options)
    with pytest.raises(MathJudgeError, match="no such predictions file, and no results store"):
        compare(BENCH, "gold", calc_path, **options)
    with pytest.raises(MathJudgeError, match="bootstrap must be at least 1"):
        compare(BENCH, calc_path, calc_path, **{**options, "n_boot": 0})
