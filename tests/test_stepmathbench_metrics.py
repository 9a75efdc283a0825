"""StepMathBench metrics against hand-computed values, scipy, and the paper's Gold rows."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from conftest import write_jsonl
from mathjudge.benchmarks.stepmathbench.build import PROBLEM_FEATURES, SOLUTION_FEATURES
from mathjudge.dataio.writer import Build, CardInfo, Table, write_dataset
from mathjudge.scoring.evaluator import evaluate_file

# Four solutions of two problems. P1 = items a, b (Calculation, level 1);
# P2 = items c, d (Proof, level 2); generators alternate g1, g2.
ITEMS = [
    ("a", "P1", "g1", "Calculation", 1, 10, 1),
    ("b", "P1", "g2", "Calculation", 1, 6, 0),
    ("c", "P2", "g1", "Proof", 2, 0, 0),
    ("d", "P2", "g2", "Proof", 2, 4, 1),
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = [
        {
            "item_id": i,
            "problem_id": p,
            "generator": g,
            "question": "q",
            "constraint": None,
            "answers": None,
            "model_output": "o",
            "steps": ["s"],
            "step_labels": [0],
            "type": t,
            "level": lv,
            "category": [],
            "gold_score": gs,
            "gold_score_01": g01,
        }
        for i, p, g, t, lv, gs, g01 in ITEMS
    ]
    build = Build(
        benchmark="stepmathbench",
        version="test",
        tables=(
            Table("solutions", "test", SOLUTION_FEATURES, rows),
            Table("problems", "test", PROBLEM_FEATURES, []),
        ),
        card_info=CardInfo("tiny", "unknown", ("en",), ()),
        card_body="tiny",
        sources=(),
    )
    out = tmp_path_factory.mktemp("tiny")
    write_dataset(build, out)
    return out


def scores_of(result) -> dict[tuple[str, str, str], float | None]:
    return {(s.scope, s.subset, s.metric): s.value for s in result.scores}


# Each case: predictions per item (a, b, c, d) and expected values worked out by hand.
CASES = [
    pytest.param(
        {"score": [8, 6, 2, 4]},
        {
            ("overall", "all", "avg_score"): 5.0,
            ("overall", "all", "gold_avg_score"): 5.0,
            # errors 2,0,2,0 -> (4+0+4+0)/4
            ("overall", "all", "mse"): 2.0,
            ("overall", "all", "overlap"): 0.5,
            # deviations p (3,1,-3,-1), g (5,1,-5,-1): 32 / sqrt(20 * 52)
            ("overall", "all", "corr"): 32 / math.sqrt(1040),
            ("type", "Calculation", "avg_score"): 7.0,
            ("type", "Calculation", "corr"): 1.0,
            ("type", "Proof", "mse"): 2.0,
            ("generator", "g2", "overlap"): 1.0,
            ("generator", "g1", "avg_score"): 5.0,
            ("level", "2", "overlap"): 0.5,
        },
        id="close-judge",
    ),
    pytest.param(
        {"score": [0, 4, 10, 6]},
        # p dev (-5,-1,5,1), g dev (5,1,-5,-1): perfectly anti-correlated
        {
            ("overall", "all", "corr"): -1.0,
            ("overall", "all", "mse"): (100 + 4 + 100 + 4) / 4,
            ("overall", "all", "overlap"): 0.0,
        },
        id="reversed-judge",
    ),
    pytest.param(
        {"score": [10, 10, 10, 10]},
        {
            ("overall", "all", "corr"): None,
            ("overall", "all", "avg_score"): 10.0,
            ("overall", "all", "mse"): (0 + 16 + 100 + 36) / 4,
            ("overall", "all", "overlap"): 0.25,
        },
        id="constant-judge-has-no-correlation",
    ),
    pytest.param(
        {"answer_correct": [True, False, True, True]},
        # p (1,0,1,1) vs g (1,0,0,1): one mismatch; cov 0.5, var_p 0.75, var_g 1 -> 1/sqrt(3)
        {
            ("overall", "all", "answer_avg_score"): 0.75,
            ("overall", "all", "answer_mse"): 0.25,
            ("overall", "all", "answer_overlap"): 0.75,
            ("overall", "all", "answer_corr"): 1 / math.sqrt(3),
            ("overall", "all", "answer_gold_avg_score"): 0.5,
        },
        id="answer-verdicts",
    ),
]


@pytest.mark.parametrize(("preds", "expected"), CASES)
def test_hand_computed(tiny: Path, tmp_path: Path, preds: dict, expected: dict) -> None:
    rows = [
        {"item_id": item[0], **{k: v[i] for k, v in preds.items()}} for i, item in enumerate(ITEMS)
    ]
    result = evaluate_file(
        "stepmathbench", write_jsonl(tmp_path / "p.jsonl", rows), "j", datasets_dir=tiny, n_boot=20
    )
    got = scores_of(result)
    for key, value in expected.items():
        assert got[key] == (None if value is None else pytest.approx(value, abs=1e-12)), key
    assert not any(m.startswith("answer_") for _, _, m in got) or "answer_correct" in preds


@pytest.mark.parametrize(
    ("runs", "how", "expected"),
    [
        ([7, 7, 3], "mean", 17 / 3),
        ([7, 7, 3], "median", 7.0),
        ([7, 7, 3], "majority", 7.0),
        ([2, 5], "median", 3.5),
        ([2, 5], "majority", 2.0),  # tie -> lower median of the tied values
        ([1, 6, 4], "majority", 4.0),  # three-way tie -> the middle one
        ([9, 1, 1, 9, 5], "majority", 1.0),
    ],
)
def test_runs_are_ensembled(
    tiny: Path, tmp_path: Path, runs: list[float], how: str, expected: float
) -> None:
    rows = [{"item_id": "a", "score": s, "run": r} for r, s in enumerate(runs)]
    rows += [{"item_id": i[0], "score": i[5], "run": 0} for i in ITEMS[1:]]
    result = evaluate_file(
        "stepmathbench",
        write_jsonl(tmp_path / "p.jsonl", rows),
        "j",
        datasets_dir=tiny,
        runs_agg=how,
        n_boot=10,
    )
    # Only item a (P1, g1) differs from gold; g1 holds a and c, and c is exact.
    assert scores_of(result)[("generator", "g1", "avg_score")] == pytest.approx((expected + 0) / 2)


def test_boolean_runs_vote_with_ties_to_false(tiny: Path, tmp_path: Path) -> None:
    votes = {"a": [True, False], "b": [True, True, False], "c": [False], "d": [True, False, False]}
    rows = [
        {"item_id": i, "answer_correct": v, "run": r}
        for i, vs in votes.items()
        for r, v in enumerate(vs)
    ]
    result = evaluate_file(
        "stepmathbench", write_jsonl(tmp_path / "p.jsonl", rows), "j", datasets_dir=tiny, n_boot=10
    )
    assert scores_of(result)[("overall", "all", "answer_avg_score")] == 0.25  # only b is true
    assert result.runs == 3


def gold_file(tmp_path: Path, rows: list[dict]) -> Path:
    return write_jsonl(
        tmp_path / "gold.jsonl",
        [
            {
                "item_id": r["uid"],
                "score": r["gold_score"],
                "answer_correct": bool(r["gold_score_01"]),
            }
            for r in rows
        ],
    )


def test_gold_reproduces_paper_table3(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    """StepMathAgent Table 3, Gold rows: AvgS 64.8/62.0/74.2/52.8 (process) and
    55.2/50.1/71.2/44.0 (final answer) for All/Calculation/Proof/Open-ended."""
    result = evaluate_file(
        "stepmathbench",
        gold_file(tmp_path, stepmath_rows),
        "Gold",
        datasets_dir=datasets_dir,
        n_boot=50,
    )
    got = scores_of(result)
    subsets = [
        ("overall", "all"),
        ("type", "Calculation"),
        ("type", "Proof"),
        ("type", "Open-ended"),
    ]
    assert [round(got[(*s, "avg_score")] * 10, 1) for s in subsets] == [64.8, 62.0, 74.2, 52.8]
    assert [round(got[(*s, "answer_avg_score")] * 100, 1) for s in subsets] == [
        55.2,
        50.1,
        71.2,
        44.0,
    ]
    for s in subsets:
        assert (got[(*s, "corr")], got[(*s, "mse")], got[(*s, "overlap")]) == (1.0, 0.0, 1.0)


def noisy_judge(rows: list[dict], seed: int = 7) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [
        {
            "item_id": r["uid"],
            "score": float(np.clip(r["gold_score"] + rng.integers(-3, 4), 0, 10)),
            "answer_correct": bool(r["gold_score_01"]) != (rng.random() < 0.2),
        }
        for r in rows
    ]


def test_agrees_with_scipy_on_real_data(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    from scipy import stats  # here: a second of import, for this test only

    preds = noisy_judge(stepmath_rows)
    result = evaluate_file(
        "stepmathbench",
        write_jsonl(tmp_path / "p.jsonl", preds),
        "noisy",
        datasets_dir=datasets_dir,
        n_boot=20,
    )
    got = scores_of(result)
    for key, subset in [
        ("type", "Proof"),
        ("generator", "o1-mini"),
        ("level", "3"),
        ("overall", "all"),
    ]:
        rows = [
            (p, r)
            for p, r in zip(preds, stepmath_rows, strict=True)
            if subset == "all" or str(r["model" if key == "generator" else key]) == subset
        ]
        p = np.array([x["score"] for x, _ in rows])
        g = np.array([r["gold_score"] for _, r in rows])
        assert got[(key, subset, "corr")] == pytest.approx(
            stats.pearsonr(p, g).statistic, abs=1e-12
        )
        assert got[(key, subset, "mse")] == pytest.approx(np.mean((p - g) ** 2), abs=1e-12)
        assert got[(key, subset, "overlap")] == pytest.approx(np.mean(p == g), abs=1e-12)
        a = np.array([x["answer_correct"] for x, _ in rows], dtype=float)
        g01 = np.array([r["gold_score_01"] for _, r in rows], dtype=float)
        assert got[(key, subset, "answer_corr")] == pytest.approx(
            stats.pearsonr(a, g01).statistic, abs=1e-12
        )


def test_bootstrap_is_seeded_and_clustered_by_problem(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", noisy_judge(stepmath_rows))

    def run(seed: int) -> dict:
        result = evaluate_file(
            "stepmathbench", path, "j", datasets_dir=datasets_dir, n_boot=2000, seed=seed
        )
        return {(s.scope, s.subset, s.metric): s for s in result.scores}

    first, again, other = run(2), run(2), run(3)
    assert first == again
    overall = first[("overall", "all", "avg_score")]
    assert overall != other[("overall", "all", "avg_score")]
    assert overall.ci_low < overall.value < overall.ci_high

    # Every problem has 5 solutions, so the mean score is the mean of 200 problem means and the
    # problem-level bootstrap SE is sd(problem means)/sqrt(200). A row-level bootstrap would
    # ignore the within-problem correlation and come out narrower.
    preds = {p["item_id"]: p["score"] for p in noisy_judge(stepmath_rows)}
    by_problem: dict[str, list[float]] = {}
    for r in stepmath_rows:
        by_problem.setdefault(r["id"], []).append(preds[r["uid"]])
    means = np.array([np.mean(v) for v in by_problem.values()])
    se_cluster = means.std(ddof=0) / math.sqrt(len(means))
    se_rows = np.std(list(preds.values())) / math.sqrt(len(preds))
    half_width = (overall.ci_high - overall.ci_low) / 2
    assert half_width / (1.96 * se_cluster) == pytest.approx(1.0, abs=0.1)
    assert half_width > 1.2 * 1.96 * se_rows


def test_partial_submission_scores_answered_items(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    calc = [r for r in stepmath_rows if r["type"] == "Calculation"]
    rows = [{"item_id": r["uid"], "answer_correct": bool(r["gold_score_01"])} for r in calc]
    result = evaluate_file(
        "stepmathbench",
        write_jsonl(tmp_path / "p.jsonl", rows),
        "calc only",
        datasets_dir=datasets_dir,
        allow_partial=True,
        n_boot=20,
    )
    assert (result.partial, result.coverage, result.n_items) == (True, 0.725, 725)
    got = {(s.scope, s.subset, s.metric): s for s in result.scores}
    assert got[("overall", "all", "answer_overlap")].n == 725
    assert round(got[("overall", "all", "answer_avg_score")].value * 100, 1) == 50.1
    assert ("type", "Proof", "answer_overlap") not in got


def test_single_runs_and_their_spread(tiny: Path, tmp_path: Path) -> None:
    """Two runs: run 0 scores (8, 6, 2, 4), run 1 scores (10, 6, 0, 4) = gold exactly."""
    run0, run1 = [8, 6, 2, 4], [10, 6, 0, 4]
    rows = [
        {"item_id": item[0], "score": s, "run": r}
        for r, scores in enumerate((run0, run1))
        for item, s in zip(ITEMS, scores, strict=True)
    ]
    result = evaluate_file(
        "stepmathbench", write_jsonl(tmp_path / "p.jsonl", rows), "j", datasets_dir=tiny, n_boot=10
    )
    got = scores_of(result)
    assert got[("run", "run=0", "mse")] == 2.0 and got[("run", "run=1", "mse")] == 0.0
    assert got[("run_spread", "mean", "mse")] == 1.0
    assert got[("run_spread", "std", "mse")] == pytest.approx(math.sqrt(2))  # sample std of (2, 0)
    assert got[("run_spread", "mean", "overlap")] == 0.75
    # The ensemble (mean of runs: 9, 6, 1, 4) is what the main scopes report.
    assert got[("overall", "all", "mse")] == pytest.approx((1 + 0 + 1 + 0) / 4)
