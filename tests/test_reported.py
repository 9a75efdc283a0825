"""Results transcribed from the papers: counts, unit conversions against the CSV cells, and
an import that is idempotent, labelled "reported" everywhere, and strict about its input."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from mathjudge.base.errors import MathJudgeError
from mathjudge.document.reported import import_reported, load_reported
from mathjudge.spec.results import Evaluation, Score


@pytest.fixture(scope="module")
def reported(mirror: Path) -> Path:
    return mirror / "reported"


@pytest.fixture(scope="module")
def results(reported: Path) -> list[Evaluation]:
    return load_reported(reported)


def find(results: list[Evaluation], bench: str, judge: str, table: str) -> Evaluation:
    (hit,) = [
        r for r in results if (r.benchmark, r.judge, r.meta["tables"][0]) == (bench, judge, table)
    ]
    return hit


def score(result: Evaluation, scope: str, subset: str, metric: str) -> Score:
    (hit,) = [s for s in result.scores if (s.scope, s.subset, s.metric) == (scope, subset, metric)]
    return hit


def values(result: Evaluation, scope: str, subset: str) -> dict[str, float | None]:
    return {s.metric: s.value for s in result.scores if (s.scope, s.subset) == (scope, subset)}


def store_counts(db: Path) -> tuple[int, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        subs = con.execute("SELECT count(*) FROM submissions").fetchone()[0]
        scores = con.execute("SELECT count(*) FROM scores").fetchone()[0]
    return subs, scores


def test_counts_per_benchmark_and_table(results: list[Evaluation]) -> None:
    assert Counter(r.benchmark for r in results) == {
        "stepmathbench": 27,  # 18 + 13 rows, minus 3 Gold rows and Table 4's reprint
        "proofbench": 44,
        "proofbench_bon": 2,  # two selectors; the oracle and "% gap closed" are not judges
        "mumath": 40,  # 20 judges x (CoT, AutoCoT)
        "expertmath": 8,  # LLM-Judge and CBU x 3 backbones, GenRM, RM: Table 2's prose numbers
        "judgebench": 33,  # Tables 1 and 2: 14 judges each, Table 3: 5 reward models
        "processbench": 44,  # 25 judges (Table 3), 2 (Table 9's greedy decoding), 17 PRM settings
        "rewardmath": 13,  # the 13 judges whose RewardMATH accuracies arXiv:2510.13501 quotes
        "realmistake": 12,  # the simple-prompt table's judges; its random and human columns are not
    }
    first_table = Counter((r.benchmark, r.meta["tables"][0]) for r in results)
    assert first_table["stepmathbench", "Table 3"] == 16
    assert first_table["stepmathbench", "Table 4"] == 11
    # Tables 2, 5 and 10 reprint Table 1 rows: 9-3, 5-2 and 3-1 new evaluations; Table 3's
    # per-generator MAEs join their Table 1 evaluators.
    assert {t: first_table["proofbench", t] for t in ("Table 1", "Table 2", "Table 3")} == {
        "Table 1": 24,
        "Table 2": 6,
        "Table 3": 0,
    }
    assert {t: first_table["proofbench", t] for t in ("Table 4", "Table 5", "Table 6")} == {
        "Table 4": 3,
        "Table 5": 3,
        "Table 6": 6,
    }
    assert first_table["proofbench", "Table 10"] == 2
    assert {t: first_table["judgebench", t] for t in ("Table 1", "Table 2", "Table 3")} == {
        "Table 1": 14,
        "Table 2": 14,
        "Table 3": 5,
    }
    assert not any(
        "Table 9" in r.meta["tables"] for r in results if r.benchmark == "proofbench"
    )  # ProofBench's home-vs-cross table is not imported (ProcessBench's Table 9 is)
    assert not any(r.judge.startswith("Gold") or r.judge == "Human oracle" for r in results)


def test_every_result_is_labelled_reported(results: list[Evaluation]) -> None:
    arxiv = {
        "stepmathbench": "arXiv:2503.10105",
        "proofbench": "arXiv:2510.13888",
        "proofbench_bon": "arXiv:2510.13888",
        "mumath": "arXiv:2412.03205",
        "expertmath": "arXiv:2602.06291",
        "judgebench": "arXiv:2410.12784",
        "processbench": "arXiv:2412.06559",
        "rewardmath": "arXiv:2510.13501",  # the paper quoting RewardMATH's numbers
        "realmistake": "arXiv:2404.03602",
    }
    created = {
        "stepmathbench": "2025-03-01T00:00:00+00:00",
        "proofbench": "2025-10-01T00:00:00+00:00",
        "proofbench_bon": "2025-10-01T00:00:00+00:00",
        "mumath": "2024-12-01T00:00:00+00:00",
        "expertmath": "2026-02-01T00:00:00+00:00",
        "judgebench": "2024-10-01T00:00:00+00:00",
        "processbench": "2024-12-01T00:00:00+00:00",
        "rewardmath": "2025-10-01T00:00:00+00:00",
        "realmistake": "2024-04-01T00:00:00+00:00",
    }
    for r in results:
        assert r.source == "reported"
        assert r.citation and arxiv[r.benchmark] in r.citation
        assert all(t in r.citation for t in r.meta["tables"])
        assert r.dataset_version == r.content_hash == "reported"
        assert r.bootstrap == {} and r.predictions is None
        assert r.created == created[r.benchmark]  # fixed, so re-imports store the same rows
    assert len({r.id for r in results}) == len(results)


def test_stepmathbench_units(results: list[Evaluation]) -> None:
    rule_em = find(results, "stepmathbench", "RuleEM", "Table 3")
    # Final-answer block: AvgS, Corr, MSE and OR are all x100 of 0/1 quantities.
    assert values(rule_em, "type", "Calculation") == {
        "answer_avg_score": 0.390,
        "answer_corr": 0.726,
        "answer_mse": 0.146,
        "answer_overlap": 0.854,
        "answer_gold_avg_score": 0.501,  # from the block's Gold row (50.1)
    }
    assert values(rule_em, "overall", "all") == {}  # "-" in the paper
    assert (rule_em.n_items, rule_em.n_expected, rule_em.coverage) == (725, 1000, 0.725)
    assert rule_em.partial and rule_em.fields == ("answer_correct",)

    gpt4o = find(results, "stepmathbench", "GPT-4oV2", "Table 3")
    # Process block: AvgS is the 0-10 score x10, MSE is in points^2 as printed.
    assert values(gpt4o, "overall", "all") == {
        "avg_score": 7.34,
        "corr": 0.702,
        "mse": 8.0,
        "overlap": 0.369,
        "gold_avg_score": 6.48,
    }
    assert values(gpt4o, "type", "Open-ended")["overlap"] == 0.24
    assert score(gpt4o, "type", "Proof", "mse").n == 250
    assert gpt4o.meta["backbone"] == "GPT-4o" and gpt4o.meta["prompt_version"] == "V2"
    assert all(s.ci_low is None and s.ci_high is None for s in gpt4o.scores)

    ablation = find(results, "stepmathbench", "StepMathAgent + Sim,Com,For", "Table 4")
    assert ablation.meta["external_modules"] == "Simplicity+Completeness+Format"
    assert values(ablation, "type", "Open-ended")["avg_score"] == 6.16

    agent = find(results, "stepmathbench", "StepMathAgent", "Table 3")
    assert agent.meta["tables"] == ["Table 3", "Table 4"]
    assert agent.meta["external_modules"] == "none"


def test_proofbench_scores(results: list[Evaluation]) -> None:
    o3 = find(results, "proofbench", "o3 (Ref+MS)", "Table 1")
    mae = score(o3, "overall", "all", "mae")
    assert (mae.value, mae.ci_low, mae.ci_high, mae.n) == (0.964, 0.844, 1.084, 435)
    wta1 = score(o3, "overall", "all", "wta1")
    assert (wta1.value, wta1.ci_low, wta1.ci_high) == (0.765, 0.722, 0.808)
    tau = score(o3, "overall", "all", "kendall_tau_b")
    assert (tau.value, tau.ci_low, tau.ci_high) == (0.502, None, None)
    assert score(o3, "overall", "all", "bias").value == -0.008
    assert "does not say" in o3.meta["ci"]
    # Reprinted in Tables 2 (as Norm), 5 (single pass) and 10 (original scheme), and broken
    # down by generator in Table 3: one evaluation.
    assert o3.meta["tables"] == ["Table 1", "Table 2", "Table 3", "Table 5", "Table 10"]
    assert o3.meta["instruction"] == "Norm" and o3.meta["marking_scheme"] == "Original"

    gemini = find(results, "proofbench", "Gemini (Ref+MS)", "Table 1")
    assert gemini.meta["tables"] == ["Table 1", "Table 2", "Table 3"]
    assert values(gemini, "generator", "DeepSeek-R1-0528") == {"mae": 1.183}
    assert values(gemini, "generator", "gemini-2.5-pro") == {"mae": 1.616}
    assert values(gemini, "generator", "o3") == {"mae": 1.225}
    assert score(gemini, "generator", "o3", "mae").n == 145
    assert values(gemini, "overall", "all")["mae"] == 1.342

    median = find(results, "proofbench", "o3 ×5 (median)", "Table 4")
    assert (median.runs, median.runs_agg, median.meta["runs_agg"]) == (5, "median", "median")
    assert values(median, "overall", "all")["mae"] == 0.926
    std = score(median, "run_spread", "std", "wta1")
    assert (std.value, std.n) == (0.01126, 5)
    assert values(median, "run_spread", "mean")["rmse"] == 1.265

    staged = find(results, "proofbench", "o3+o4-mini (Binary+Errors -> Fine-Grained)", "Table 5")
    assert staged.meta["model"] == "o3 + o4-mini"
    assert values(staged, "overall", "all")["wta1"] == 0.714


def test_proofbench_best_of_n(results: list[Evaluation]) -> None:
    grader = find(
        results,
        "proofbench_bon",
        "ProofGrader (median of 5 o3 runs, Ref+MS)",
        "best-of-n in the prose (abstract, §1, §4.1)",
    )
    assert values(grader, "bon", "n=16") == {"bon_score": 4.14, "bon_oracle": 4.62}
    # n = 16 is the whole pool, which reproduced results also report as overall.
    assert values(grader, "overall", "all") == {"bon_score": 4.14, "bon_oracle": 4.62}
    assert score(grader, "bon", "n=16", "bon_score").n == 464  # 29 problems x 16 proofs
    assert grader.meta["where"].startswith("Abstract")
    binary = [r for r in results if r.judge.startswith("Binary evaluator")]
    assert [values(r, "bon", "n=16")["bon_score"] for r in binary] == [2.48]


def test_mumath_scores(results: list[Evaluation]) -> None:
    o1 = find(results, "mumath", "o1", "Table 5")
    assert values(o1, "overall", "all") == {
        "macro_f1": 0.901,
        "tpr": 0.914,
        "tnr": 0.886,
        "ppv": 0.900,
        "npv": 0.902,
        "inconclusive_rate": 0.001,  # Table 7, CoT column
    }
    assert values(o1, "author_model", "Llama-3.1 8B") == {"macro_f1": 0.944}
    assert o1.meta["prompt"] == "CoT" and o1.meta["judge_version"] == "o1-2024-12-17"
    assert o1.meta["tables"] == ["Table 5", "Table 7"]

    auto = find(results, "mumath", "Llama-3.1 70B (AutoCoT)", "Table 5")
    assert values(auto, "overall", "all") == {"macro_f1": 0.682, "inconclusive_rate": 0.05}
    assert auto.meta["judge_as_printed"] == "Llama-3.1-70B"


def test_reimport_replaces_idempotently(
    reported: Path, results: list[Evaluation], tmp_path: Path
) -> None:
    folder = tmp_path / "reported"
    shutil.copytree(reported, folder)
    db = tmp_path / "results.duckdb"
    assert import_reported(folder, db) == len(results)
    first = store_counts(db)
    assert first == (len(results), sum(len(r.scores) for r in results))
    assert import_reported(folder, db) == len(results)
    assert store_counts(db) == first
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT source, citation, dataset_version FROM submissions").fetchall()
    assert {(source, dataset) for source, _, dataset in rows} == {("reported", "reported")}
    assert all(citation and "arXiv:" in citation for _, citation, _ in rows)

    # A corrected cell changes the file's hash, hence the submission ids: the earlier rows go.
    path = folder / "proofbench_table6_reflection.csv"
    path.write_text(path.read_text().replace("1.746,1.107", "1.746,1.108"), encoding="utf-8")
    import_reported(folder, db)
    assert store_counts(db) == first
    with duckdb.connect(str(db), read_only=True) as con:
        maes = con.execute(
            """SELECT value FROM scores JOIN submissions ON id = submission_id
               WHERE judge = 'o3 (reflection pipeline, Initial (A))' AND metric = 'mae'"""
        ).fetchall()
    assert maes == [(1.108,)]


@pytest.mark.parametrize(
    ("name", "old", "new", "where"),
    [
        ("proofbench_table1_context.csv", "1.273,0.16,0.964", "1.273,0.16,O.964", ":2 [mae]"),
        ("stepmathbench_table3.csv", "all_mse", "all_mse2", ":1 [all_mse2]"),
        ("mumath_table5.csv", "90.1,90.2,91.4", "90.1,90.2,nan", ":21 [tpr_cot]"),
        # stored as infinity, then the judge dropped at the next build
        ("mumath_table5.csv", "90.1,90.2,91.4", "90.1,90.2,1e999999", ":21 [tpr_cot]"),
        # a decimal.Overflow traceback
        ("mumath_table5.csv", "90.1,90.2,91.4", "90.1,90.2,1e9999999", ":21 [tpr_cot]"),
        ("mumath_table5.csv", "90.1,90.2,91.4", "90.1,90.2,-1e-999999", ":21 [tpr_cot]"),
        ("proofbench_table3_per_generator.csv", "o3,Ref+MS,R1", "o5,Ref+MS,R1", ":2 [evaluator]"),
        ("mumath_table7_inconclusive.csv", "o3-mini,o3-mini", "o4-mini,o3-mini", ":21 [judge]"),
    ],
)
def test_malformed_csv_names_file_line_and_column(
    reported: Path, tmp_path: Path, name: str, old: str, new: str, where: str
) -> None:
    folder = tmp_path / "reported"
    shutil.copytree(reported, folder)
    path = folder / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    db = tmp_path / "results.duckdb"
    with pytest.raises(MathJudgeError) as err:
        import_reported(folder, db)
    assert f"{path}{where}" in str(err.value)
    assert not db.exists()  # nothing is written unless every file is valid


@pytest.mark.parametrize(
    ("name", "old", "new", "message"),
    [
        # two Table 1 rows would both be "gpt-4o (Ref)" with different values
        ("proofbench_table1_context.csv", "gpt-4o,None", "gpt-4o,Ref", "two results under"),
        # Table 3 would give o3 two MAEs on R1 proofs
        ("proofbench_table3_per_generator.csv", "o3,Ref+MS,Gemini", "o3,Ref+MS,R1", "twice"),
    ],
)
def test_one_result_per_judge(
    reported: Path, tmp_path: Path, name: str, old: str, new: str, message: str
) -> None:
    """The site shows one submission per (benchmark, judge): a name clash must not hide one."""
    folder = tmp_path / "reported"
    shutil.copytree(reported, folder)
    path = folder / name
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    with pytest.raises(MathJudgeError, match=message):
        load_reported(folder)


def test_expertmath_scores(results: list[Evaluation]) -> None:
    """The CBU paper's prose numbers (percent) as our metrics' units."""
    found = {r.judge: values(r, "overall", "all") for r in results if r.benchmark == "expertmath"}
    assert found["CBU (GPT-OSS-120B)"] == pytest.approx(
        {"acc_at_1": 0.7627, "auc": 0.7963, "recall_at_5": 0.8304, "human_win": 0.8286}
    )
    assert found["LLM-Judge (GPT-OSS-120B)"]["human_win"] == pytest.approx(0.4857)
    assert found["LLM-Judge (GPT-OSS-20B)"] == pytest.approx({"auc": 0.69})
    assert found["RM (AceMath-72B-RM)"] == pytest.approx({"auc": 0.2075})
    cbu = next(r for r in results if r.judge == "CBU (Qwen3-235B-A22B)")
    assert cbu.citation.endswith("arXiv:2602.06291, Table 2") and cbu.source == "reported"
