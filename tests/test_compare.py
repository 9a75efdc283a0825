"""Paired comparison on the real StepMathBench: identities, pairing checked by hand against
per-problem differences, store and files agreeing, and every refusal; and on a four-paper
ArxivMathGradingBench, compared on per-paper match counts, against hand-computed differences."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from test_arxivmath_metrics import write_papers

from conftest import write_jsonl
from mathjudge import store as store
from mathjudge.base.errors import MathJudgeError
from mathjudge.cli import main
from mathjudge.scoring.compare import compare
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.scoring.paired import Comparison, Difference

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


def same_row(s: Difference, f: Difference) -> bool:
    """Labels, flags, counts and missing values equal; floats equal to 1e-12 relative."""
    for x, y in zip(dataclasses.astuple(s), dataclasses.astuple(f), strict=True):
        if isinstance(x, float) and isinstance(y, float):
            if x != pytest.approx(y, rel=1e-12):
                return False
        elif x != y or type(x) is not type(y):
            return False
    return True


@pytest.mark.slow  # seconds of work: the full suite runs it
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
        assert same_row(s, f), (s, f)
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


@pytest.fixture(scope="module")
def errors_store(
    datasets_dir: Path, tmp_path_factory: pytest.TempPathFactory, stepmath_rows: list[dict]
) -> Path:
    """One store of judges `compare` must refuse (the tests only read it), beside `gold.jsonl`,
    which is also the name of a stored judge."""
    tmp_path = tmp_path_factory.mktemp("errors")
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
    datasets_dir: Path, errors_store: Path, a: str, message: str
) -> None:
    a = str(errors_store.parent / "gold.jsonl") if a == "FILE" else a
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
    with pytest.raises(MathJudgeError, match="--bootstrap 0: use 1 to 100,000 resamples"):
        compare(BENCH, calc_path, calc_path, **{**options, "n_boot": 0})


ARXIV = "arxivmathgradingbench"
Q1, Q2, Q3, Q4 = "2502.00001v1", "2502.00002v1", "2502.00003v1", "2502.00004v1"
ARXIV_PAPERS = {
    Q1: ["Theorem 1"],
    Q2: ["Lemma 2", "Theorem 3"],
    Q3: ["Proposition 4"],
    Q4: ["Corollary 5"],
}


def located(runs: list[dict[str, list[str]]]) -> list[dict]:
    """Rows of several runs; an empty list is the paper's no-error row."""
    return [
        {"item_id": item, "run": run, "location": location}
        for run, per_paper in enumerate(runs)
        for item, locations in per_paper.items()
        for location in locations or [None]
    ]


# Per paper (tp, fn, fp) at k=1 and k=2:
#   A: Q1 (1,0,0) (1,0,0); Q2 (1,1,1) (2,0,1); Q3 (0,1,0) (0,1,1); Q4 (1,0,0) (1,0,0)
#   B: Q1 (0,1,1) (1,0,1); Q2 (0,2,0) (1,1,0); Q3 (1,0,0) (1,0,0); Q4 (0,1,0) (0,1,0)
JUDGE_A = [
    {Q1: ["Theorem 1"], Q2: ["Lemma 2", "Lemma 7"], Q3: [], Q4: ["Corollary 5"]},
    {Q1: [], Q2: ["Theorem 3"], Q3: ["Proposition 9"], Q4: []},
]
JUDGE_B = [
    {Q1: ["Theorem 2"], Q2: [], Q3: ["Proposition 4"], Q4: []},
    {Q1: ["Theorem 1"], Q2: ["Lemma 2"], Q3: [], Q4: []},
]
# Sums (tp, fn, fp, fully found) over the four papers:
#   k=2: A (4, 1, 2, 3), B (3, 2, 1, 2); k=1: A (3, 2, 1, 2), B (1, 4, 1, 1)
ARXIV_EXPECTED = {
    ("overall", "all"): {
        "f1": (8 / 11, 6 / 9),
        "precision": (4 / 6, 3 / 4),
        "recall": (4 / 5, 3 / 5),
        "coverage": (3 / 4, 2 / 4),
        "false_errors_per_paper": (2 / 4, 1 / 4),
    },
    ("k", "k=1"): {
        "f1": (6 / 9, 2 / 7),
        "precision": (3 / 4, 1 / 2),
        "recall": (3 / 5, 1 / 5),
        "coverage": (2 / 4, 1 / 4),
        "false_errors_per_paper": (1 / 4, 1 / 4),
    },
}
ARXIV_EXPECTED[("k", "k=2")] = ARXIV_EXPECTED[("overall", "all")]


@pytest.fixture(scope="module")
def arxiv_datasets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_papers(tmp_path_factory.mktemp("arxiv-compare"), ARXIV_PAPERS)


def arxiv_compare(a: str | Path, b: str | Path, datasets: Path, db: Path, **kwargs) -> Comparison:
    return compare(ARXIV, a, b, store=db, datasets_dir=datasets, n_boot=200, **kwargs)


def test_arxiv_two_judges_hand_computed(arxiv_datasets: Path, tmp_path: Path) -> None:
    path_a = write_jsonl(tmp_path / "a.jsonl", located(JUDGE_A))
    path_b = write_jsonl(tmp_path / "b.jsonl", located(JUDGE_B))
    result = arxiv_compare(path_a, path_b, arxiv_datasets, tmp_path / "none.duckdb")
    assert (result.n_shared_items, result.n_shared_problems, result.unit) == (4, 4, "item_id")
    assert result.fields == ("location",)
    assert result.options == {"matcher": "strict", "match_model": ""}
    got = by_key(result)
    assert list(got) == [(*g, m) for g in ARXIV_EXPECTED for m in ARXIV_EXPECTED[g]]
    for group, metrics in ARXIV_EXPECTED.items():
        for metric, (a_value, b_value) in metrics.items():
            row = got[(*group, metric)]
            assert row.a_value == pytest.approx(a_value, abs=1e-12), (group, metric)
            assert row.b_value == pytest.approx(b_value, abs=1e-12), (group, metric)
            assert row.diff == pytest.approx(a_value - b_value, abs=1e-12), (group, metric)
            assert row.n_items == 4
            assert row.ci_low <= row.ci_high and 0 < row.p_value <= 1
    # Equal false errors at k=1 (one each, on different papers): the difference is 0, but
    # the resamples move it both ways.
    fe = got[("k", "k=1", "false_errors_per_paper")]
    assert fe.diff == 0 and fe.ci_low < 0 < fe.ci_high and fe.p_value == 1
    table = result.format_table()
    assert "paired on 4 shared items of 4 problems; fields: location; matcher: strict" in table
    assert result.to_json()["bootstrap"]["options"] == {"matcher": "strict", "match_model": ""}


def test_arxiv_a_judge_against_itself(arxiv_datasets: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "a.jsonl", located(JUDGE_A))
    result = arxiv_compare(path, path, arxiv_datasets, tmp_path / "none.duckdb")
    assert len(result.rows) == 3 * 5  # overall, k=1, k=2
    for r in result.rows:
        assert (r.diff, r.ci_low, r.ci_high, r.p_value, r.p_is_bound) == (0, 0, 0, 1, False), r


def test_arxiv_pairs_answered_papers_and_own_runs(arxiv_datasets: Path, tmp_path: Path) -> None:
    # C is A without Q4, so only Q1-Q3 are paired: A's counts there (3, 1, 2; Q1, Q2 fully
    # found) against B's (3, 1, 1; Q1, Q3 fully found).
    path_c = write_jsonl(tmp_path / "c.jsonl", [r for r in located(JUDGE_A) if r["item_id"] != Q4])
    path_b = write_jsonl(tmp_path / "b.jsonl", located(JUDGE_B))
    result = arxiv_compare(path_c, path_b, arxiv_datasets, tmp_path / "none.duckdb")
    assert (result.n_shared_items, result.a.n_items, result.b.n_items) == (3, 3, 4)
    got = by_key(result)
    assert got[("overall", "all", "precision")].diff == pytest.approx(3 / 5 - 3 / 4)
    assert got[("overall", "all", "recall")].diff == 0
    assert got[("overall", "all", "coverage")].diff == 0
    assert got[("overall", "all", "false_errors_per_paper")].diff == pytest.approx(1 / 3)
    # B's first run only: each side at its own k = n (A at k=2, B at k=1); k rows would pair
    # different poolings, so only `overall` is compared.
    first_run = write_jsonl(tmp_path / "b1.jsonl", located(JUDGE_B[:1]))
    result = arxiv_compare(tmp_path / "c.jsonl", first_run, arxiv_datasets, tmp_path / "x.duckdb")
    assert {r.scope for r in result.rows} == {"overall"}
    # B at k=1 on Q1-Q3: tp 1, fn 3, fp 1 -> recall 1/4
    assert by_key(result)[("overall", "all", "recall")].b_value == pytest.approx(1 / 4)


@pytest.mark.slow  # seconds of work: the full suite runs it
def test_arxiv_store_compares_like_files(arxiv_datasets: Path, tmp_path: Path) -> None:
    paths = {
        "A": write_jsonl(tmp_path / "a.jsonl", located(JUDGE_A)),
        "B": write_jsonl(tmp_path / "b.jsonl", located(JUDGE_B)),
        "C": write_jsonl(tmp_path / "c.jsonl", [r for r in located(JUDGE_A) if r["item_id"] != Q4]),
    }
    db = tmp_path / "results.duckdb"
    scored = {}
    for judge, path in paths.items():
        result = evaluate_file(
            ARXIV, path, judge, datasets_dir=arxiv_datasets, n_boot=10, allow_partial=True
        )
        store.save(db, result)
        scored[judge] = {(s.scope, s.subset, s.metric): s.value for s in result.scores}
    for a, b in (("A", "B"), ("C", "B"), ("B", "C")):
        from_files = arxiv_compare(paths[a], paths[b], arxiv_datasets, db)
        overall = [r for r in from_files.rows if r.scope == "overall"]
        for a_ref, b_ref in ((a, b), (a, paths[b]), (paths[a], b)):
            mixed = arxiv_compare(a_ref, b_ref, arxiv_datasets, db)
            assert mixed.rows == tuple(overall), (a_ref, b_ref)
            assert mixed.n_shared_items == from_files.n_shared_items
    # On all four papers a stored judge is compared on what `evaluate` scored.
    for r in arxiv_compare("A", "B", arxiv_datasets, db).rows:
        assert r.a_value == pytest.approx(scored["A"][(r.scope, r.subset, r.metric)], abs=1e-12)
        assert r.b_value == pytest.approx(scored["B"][(r.scope, r.subset, r.metric)], abs=1e-12)
    stored_c = arxiv_compare("C", "A", arxiv_datasets, db)
    assert (stored_c.a.origin, stored_c.a.n_items, stored_c.n_shared_items) == ("store", 3, 3)
    # A stored judge is compared only with the matcher it was scored with.
    with pytest.raises(MathJudgeError, match="scored with matcher='strict', match_model=''"):
        arxiv_compare("A", "B", arxiv_datasets, db, options={"matcher": "llm"})
    cli = CliRunner().invoke(
        main,
        [
            *("compare", ARXIV, "A", "B", "--matcher", "llm", "--store", str(db)),
            *("--datasets", str(arxiv_datasets), "--quiet"),
        ],
    )
    assert cli.exit_code == 1 and "not matcher='llm'" in cli.output, cli.output
