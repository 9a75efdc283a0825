"""MR-MATH: the builder on the real ReasonEval files, every scoring rule of the authors on small
cases worked out by hand, the exact bootstrap of AUC, the importer of the twelve published
evaluators, and agreement of all 12 x 8 values with an independent re-implementation of the
authors' rules on the raw upstream files."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import numpy as np
import pytest
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks.mrmath import build, metrics, outputs
from mathjudge.benchmarks.published import write_all
from mathjudge.cli import main
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import Build, CardInfo, Table, write_dataset
from mathjudge.document.ranks import rank_benchmark
from mathjudge.scoring.compare import compare
from mathjudge.scoring.engine import cluster_statistics, combined_predictions
from mathjudge.scoring.evaluator import evaluate_file, scored_items, validate_file
from mathjudge.scoring.tables import connect
from mathjudge.store import read
from mathjudge.validate.predictions import load_predictions

BENCH = "mrmath"
RAW = (
    "https://raw.githubusercontent.com/GAIR-NLP/ReasonEval/6c91c7a16e2b0e12ebc89685207cd091fb411478"
)


# ---- the real build ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(mirror: Path) -> Build:
    return build.build(mirror)


@pytest.fixture(scope="module")
def real_datasets(built: Build, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mrmath")
    write_dataset(built, out)
    return out


@pytest.fixture(scope="module")
def imported(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("mrmath-outputs")
    done = write_all(outputs.import_outputs(BENCH, mirror), folder)
    return {d.slug: d.predictions for d in done}


def test_source_is_pinned() -> None:
    assert build.SOURCE.revision == "6c91c7a16e2b0e12ebc89685207cd091fb411478"
    urls = {f.path: f.url for f in outputs.SOURCE.files}
    assert urls[build.INVALID_FILE] == f"{RAW}/dataset/mr-math_invalid_errors.json"
    assert (
        urls["eval_results/mr-math_redundant_errors/gpt4_eval_results.json"]
        == f"{RAW}/eval_results/mr-math_redundant_errors/gpt4_eval_results.json"
    )
    assert len(outputs.SOURCE.files) == 2 + 24


def test_real_build_counts(built: Build) -> None:
    (table,) = built.tables
    rows = table.rows
    assert (table.config, len(rows)) == ("solutions", 459)
    invalid = [r for r in rows if r["set"] == "invalid"]
    redundant = [r for r in rows if r["set"] == "redundant"]
    assert (len(invalid), len(redundant)) == (159, 300)
    assert [r["item_id"] for r in invalid[:2]] == ["invalid-0", "invalid-1"]
    assert redundant[-1]["item_id"] == "redundant-299"
    assert sum(not r["solution_label"] for r in invalid) == 83
    assert sum(not r["solution_label"] for r in redundant) == 150
    assert sum(r["n_steps"] for r in redundant) == 2995
    assert sum(r["n_steps"] for r in invalid) == 1078
    assert sum(r["n_lines"] for r in invalid) == 1721
    labels = [x for r in redundant for x in r["step_labels"]]
    assert (labels.count(1), labels.count(0)) == (2642, 353)
    assert len({r["problem_id"] for r in invalid}) == 129
    assert len({r["problem_id"] for r in redundant}) == 227
    # SOURCE.md's example: id 3, wrong, first error step 2, 6 steps of [1,1,1,1,6,1] lines
    row = invalid[3]
    assert (row["first_error_step"], row["n_steps"], row["n_lines"]) == (2, 6, 11)
    assert row["step_labels"] == [1, 0, None, None, None, None]
    assert all(r["step_labels"] == [1] * r["n_steps"] for r in invalid if r["solution_label"])


def test_build_is_local_only(mirror: Path, tmp_path: Path) -> None:
    assert registry.get(BENCH).local_only is not None
    result = CliRunner().invoke(
        main,
        [
            "build",
            BENCH,
            "--source-dir",
            str(mirror),
            "--out",
            str(tmp_path),
            "--push-to-hub",
            "x/y",
        ],
    )
    assert result.exit_code == 1
    assert "no license" in result.output and "--push-to-hub refuses it" in result.output
    assert not (tmp_path / BENCH).exists()


def test_card_states_license_and_fields(built: Build) -> None:
    body = built.card_body
    assert "None stated upstream" in body and "ask the authors before redistributing" in body
    assert "159 solutions" in body and "83 of them" in body
    assert "redundant 0: 353, redundant 1: 2642" in body


def _write_upstream(folder: Path, invalid: list[dict], redundant: list[dict]) -> dict[str, Path]:
    files = {build.INVALID_FILE: folder / "inv.json", build.REDUNDANT_FILE: folder / "red.json"}
    write_jsonl(files[build.INVALID_FILE], invalid)
    write_jsonl(files[build.REDUNDANT_FILE], redundant)
    return files


def _inv(i: int, q: str, steps: list[list[str]], first: int | str) -> dict:
    return {
        "id": i,
        "question": q,
        "ground_truth_answer": "1",
        "generator": "Abel13B-001",
        "model_output": "\n".join(x for s in steps for x in s),
        "model_output_step_format": steps,
        "model_output_answer_correctness": "correct",
        "model_output_solution_correctness": "correct" if first == "N/A" else "wrong",
        "model_output_solution_first_error_step": first,
    }


def _red(i: int, q: str, ratings: list[int]) -> dict:
    return {
        "id": i,
        "question": q,
        "ground_truth_answer": "2",
        "generator": "GPT-4 (PRM800K)",
        "model_output_step_format": [[f"step {k}"] for k in range(len(ratings))],
        "rating": ratings,
    }


def test_builder_rejects_inconsistent_rows(tmp_path: Path) -> None:
    files = _write_upstream(
        tmp_path,
        [_inv(0, "Q", [["a"], ["b"]], 3), _inv(5, "Q", [["a"]], "N/A")],
        [_red(0, "R", [1, 2]), _red(1, "R", [1])],
    )
    with pytest.raises(ValidationFailed) as err:
        build.solutions(files)
    text = str(err.value)
    assert "inv.json:1 [model_output_solution_first_error_step]: step 3 of 2 steps" in text
    assert "inv.json:2 [id]: 5 is not the line index 1" in text
    assert "red.json:1 [rating]: must be a list of 0/1" in text
    assert "red.json:2" not in text


# ---- a small dataset, every rule by hand ------------------------------------------------------

# Invalid set: gold solution labels and evaluated step labels
#   invalid-0 (Q1) correct, 3 steps   -> steps [1, 1, 1]
#   invalid-1 (Q1) wrong at step 2    -> steps [1, 0, -, -]
#   invalid-2 (Q2) wrong at step 1    -> steps [0, -]
#   invalid-3 (Q2) correct, 2 steps   -> steps [1, 1]
# Redundant set: ratings
#   redundant-0 (Q3) [1, 0, 1] negative; redundant-1 (Q3) [1, 1] positive;
#   redundant-2 (Q4) [0, 1] negative
SMALL_INVALID = [
    _inv(0, "Q1", [["1. a"], ["2. b"], ["3. c"]], "N/A"),
    _inv(1, "Q1", [["1. a"], ["2. b", "b'"], ["3. c"], ["4. d"]], 2),
    _inv(2, "Q2", [["1. a"], ["2. b"]], 1),
    _inv(3, "Q2", [["1. a"], ["2. b"]], "N/A"),
]
SMALL_REDUNDANT = [_red(0, "Q3", [1, 0, 1]), _red(1, "Q3", [1, 1]), _red(2, "Q4", [0, 1])]

# A judge's predictions (None = no prediction) and scores.
JUDGE = {
    "invalid-0": (True, 0.9, [True, False, None], [0.8, 0.6, 0.3]),
    "invalid-1": (False, 0.4, [True, False, True, True], [0.7, 0.2, 0.9, 0.1]),
    "invalid-2": (False, 0.4, [True, None], [0.6, 0.5]),
    "invalid-3": (None, 0.4, [True, True], [0.6, 0.2]),
    "redundant-0": (False, 0.1, [True, False, False], [0.5, 0.1, 0.4]),
    "redundant-1": (True, 0.1, [True, None], [0.3, 0.6]),
    "redundant-2": (True, 0.3, [False, True], [0.3, 0.9]),
}
EXPECTED = {
    # solutions: tp 1 (inv-0), tn 2 (inv-1, inv-2); inv-3 positive unpredicted -> FN.
    # F1+ = 2/(1+2+2-2) = 2/3, F1- = 4/(2+2+2-1) = 4/5
    "invalid_solution_macro_f1": (2 / 3 + 4 / 5) / 2,
    # evaluated steps: P 6, N 2; tp 4 (inv-0 s1, inv-1 s1, inv-3 s1 s2), tn 1 (inv-1 s2);
    # inv-0 s2 (false) and s3 (none) are FN, inv-2 s1 is FP; inv-1 s3, s4 are not evaluated.
    # F1+ = 8/(4+6+2-1) = 8/11, F1- = 2/(1+2+6-4) = 2/5
    "invalid_step_macro_f1": (8 / 11 + 2 / 5) / 2,
    # positives {0.9, 0.4} vs negatives {0.4, 0.4}: 1 + 1 + 1/2 + 1/2 of 4 pairs
    "invalid_solution_auc": 3 / 4,
    # positives {0.8, 0.6, 0.3, 0.7, 0.6, 0.2} vs negatives {0.2 (inv-1 s2), 0.6 (inv-2 s1)}:
    # against 0.2: 5 wins + a tie = 5.5; against 0.6: 0.8, 0.7 win, two ties = 3; of 12 pairs
    "invalid_step_auc": 8.5 / 12,
    # P 1, N 2; tp 1 (red-1), tn 1 (red-0); red-2 is FP. F1+ = 2/(1+1+2-1) = F1- = 2/3
    "redundant_solution_macro_f1": 2 / 3,
    # steps: P 5, N 2; tp 3 (red-0 s1, red-1 s1, red-2 s2), tn 2 (red-0 s2, red-2 s1);
    # red-0 s3 is FN, red-1 s2 (none) is FN. F1+ = 6/(3+5+2-2) = 3/4, F1- = 4/(2+2+5-3) = 2/3
    "redundant_step_macro_f1": (3 / 4 + 2 / 3) / 2,
    # positive {0.1} vs negatives {0.1, 0.3}: 1/2 + 0 of 2 pairs
    "redundant_solution_auc": 1 / 4,
    # positives {0.5, 0.4, 0.3, 0.6, 0.9} vs negatives {0.1, 0.3}: 5 + 4.5 of 10 pairs
    "redundant_step_auc": 9.5 / 10,
}


def small_build(folder: Path) -> Build:
    rows = build.solutions(_write_upstream(folder, SMALL_INVALID, SMALL_REDUNDANT))
    return Build(
        benchmark=BENCH,
        version="test",
        tables=(Table("solutions", "test", build.FEATURES, rows),),
        card_info=CardInfo("MR-MATH test", "unknown", ("en",), ("text-classification",)),
        card_body="test",
        sources=(),
    )


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("small-mrmath")
    write_dataset(small_build(folder), folder / "datasets")
    return folder / "datasets"


def judge_rows(fields: tuple[str, ...] = metrics.SCORED_FIELDS) -> list[dict]:
    names = ("solution_pred", "solution_score", "step_preds", "step_scores")
    return [
        {"item_id": item} | {n: v for n, v in zip(names, values, strict=True) if n in fields}
        for item, values in JUDGE.items()
    ]


def overall(result) -> dict[str, float | None]:
    return {s.metric: s.value for s in result.scores if s.scope == "overall"}


def test_every_rule_by_hand(small: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", judge_rows())
    result = evaluate_file(BENCH, path, "j", datasets_dir=small, n_boot=200)
    got = overall(result)
    assert set(got) == set(EXPECTED)
    for metric, value in EXPECTED.items():
        assert got[metric] == pytest.approx(value, abs=1e-12), metric
    assert next(iter(got)) == "invalid_step_macro_f1"  # the headline comes first
    assert all(s.n == 7 for s in result.scores)


def test_fields_decide_which_metrics_exist(small: Path, tmp_path: Path) -> None:
    binary = write_jsonl(tmp_path / "b.jsonl", judge_rows(("solution_pred", "step_preds")))
    got = overall(evaluate_file(BENCH, binary, "j", datasets_dir=small, n_boot=20))
    assert sorted(got) == sorted(k for k in EXPECTED if k.endswith("macro_f1"))
    scores = write_jsonl(tmp_path / "s.jsonl", judge_rows(("solution_score",)))
    got = overall(evaluate_file(BENCH, scores, "j", datasets_dir=small, n_boot=20))
    assert got == pytest.approx(
        {k: EXPECTED[k] for k in ("invalid_solution_auc", "redundant_solution_auc")}
    )


def test_runs_vote_per_step_and_average_scores(small: Path, tmp_path: Path) -> None:
    """Two runs: a step whose votes cancel has no prediction; scores are averaged."""
    rows = []
    for run in (0, 1):
        for row in judge_rows():
            row = dict(row, run=run)
            if row["item_id"] == "invalid-3" and run == 1:
                # run 0 says [T, T], run 1 [F, T]: step 1 ties -> no prediction (an FN)
                row["step_preds"] = [False, True]
                row["step_scores"] = [0.0, 0.2]  # means: [0.3, 0.2]
            rows.append(row)
    path = write_jsonl(tmp_path / "runs.jsonl", rows)
    got = overall(evaluate_file(BENCH, path, "j", datasets_dir=small, n_boot=20))
    # invalid steps: tp 3 now; F1+ = 6/(3+6+2-1) = 3/5, F1- = 2/(1+2+6-3) = 1/3
    assert got["invalid_step_macro_f1"] == pytest.approx((3 / 5 + 1 / 3) / 2)
    # inv-3 s1 drops from 0.6 to 0.3: it still beats the negative 0.2, but its tie (1/2) with
    # the negative 0.6 becomes a loss: 8 of 12 pairs
    assert got["invalid_step_auc"] == pytest.approx(8 / 12)
    assert got["redundant_step_macro_f1"] == pytest.approx(EXPECTED["redundant_step_macro_f1"])


def test_step_lists_must_match_the_steps(small: Path, tmp_path: Path) -> None:
    rows = judge_rows()
    rows[1]["step_preds"] = [True, True]  # invalid-1 has 4 steps
    path = write_jsonl(tmp_path / "short.jsonl", rows)
    with pytest.raises(MathJudgeError, match=r"invalid-1 \(step_preds: 2 for 4 steps\)"):
        evaluate_file(BENCH, path, "j", datasets_dir=small, n_boot=20)


def test_validation_names_line_and_field(small: Path, tmp_path: Path) -> None:
    rows = judge_rows()
    rows[2]["step_scores"] = [0.1, "high"]
    rows[4] = {"item_id": "redundant-0", "raw_verdict": "Absent"}
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(ValidationFailed) as err:
        validate_file(BENCH, path, small)
    text = str(err.value)
    assert "bad.jsonl:3 [step_scores.1]" in text
    assert "bad.jsonl:5" in text and "give at least one of" in text


def test_bootstrap_replicate_is_the_exact_pooled_auc(small: Path, tmp_path: Path) -> None:
    """A replicate with questions drawn w times scores exactly the AUC of the pooled units of
    the resampled questions, computed here by brute force."""
    path = write_jsonl(tmp_path / "p.jsonl", judge_rows())
    dataset = open_dataset(BENCH, small)
    sub = load_predictions(path, metrics.Prediction, dataset.item_ids("solutions"))
    fields = metrics.SCORED_FIELDS
    scorer = registry.scorer(BENCH)
    tables = connect(scored_items(registry.get(BENCH), scorer, dataset), scorer)
    con = tables.con
    preds = combined_predictions(con, sub.table, scorer, fields, "mean", {})
    stats = cluster_statistics(tables, scorer, fields, preds)
    clusters = [
        c for (c,) in con.execute("SELECT cluster FROM cluster_index ORDER BY ci").fetchall()
    ]
    items = con.execute("SELECT item_id, problem_id, set, step_labels FROM items").fetchall()
    con.close()
    weights = np.array([2.0, 0.0, 3.0, 1.0])  # per cluster, in ci order
    value = stats.metrics(scorer, fields, weights @ stats.matrix)
    for set_name in ("invalid", "redundant"):
        pos, neg = [], []
        for item, cluster, s, labels in items:
            if s != set_name:
                continue
            w = int(weights[clusters.index(cluster)])
            for g, score in zip(labels, JUDGE[item][3], strict=True):
                if g is not None:
                    (pos if g == 1 else neg).extend([score] * w)
        credit = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
        expected = credit / (len(pos) * len(neg))
        assert value[f"{set_name}_step_auc"][0] == pytest.approx(expected, abs=1e-12)
    assert len(clusters) == 4


# ---- the importer's rules ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        ("Correct", True),
        ("correct", True),
        ("Wrong", False),
        ("wrong", False),
        ("**Correct**", None),
        ("Wrong.", None),
        ("Incorrect", None),
        ("", None),
    ],
)
def test_invalid_set_verdicts_count_only_exact_words(verdict: str, expected: bool | None) -> None:
    assert outputs.verdict_solution("invalid", verdict) is expected


def test_redundant_set_verdicts() -> None:
    assert outputs.verdict_solution("redundant", "Absent") is True
    assert outputs.verdict_solution("redundant", "present") is False
    assert outputs.verdict_solution("redundant", "Present.") is None
    assert outputs.verdict_solution("redundant", "Neutral steps **are present**.") is None


def test_invalid_set_error_step_rules() -> None:
    T, F = True, False
    steps = outputs.verdict_steps
    assert steps("invalid", "Wrong", "Step 3", 5) == [T, T, F, None, None]
    assert steps("invalid", "Correct", "3", 4) == [T, T, T, T]  # Correct: every step positive
    assert steps("invalid", "Wrong", "7", 5) == [T] * 5  # j beyond the last step
    assert steps("invalid", "Wrong", "0", 3) == [T] * 3  # j must be >= 1
    assert steps("invalid", "Wrong", "N/A", 3) == [T] * 3  # no integer
    assert steps("invalid", "**Correct**", "Step 2", 3) == [T, F, None]  # not exactly Correct
    assert steps("invalid", "Wrong.", "Steps 2 and 4", 5) == [T, F, None, None, None]  # first


def test_redundant_set_step_numbers() -> None:
    T, F = True, False
    steps = outputs.verdict_steps
    assert steps("redundant", "Absent", "Steps 2, 4.", 5) == [T, F, T, F, T]  # verdict ignored
    assert steps("redundant", "Present", "N/A", 3) == [T, T, T]
    assert steps("redundant", "Present", "1, 9", 3) == [F, T, T]  # 9 is beyond the steps


def test_threshold_equality() -> None:
    assert outputs.solution_pred(0.5, 0.5) is None  # solution level: no prediction
    assert outputs.step_pred(0.5, 0.5) is False  # step level: negative
    assert outputs.solution_pred(0.5000001, 0.5) is True
    assert outputs.solution_pred(-0.15, -0.15) is None
    assert outputs.step_pred(-0.15, -0.15) is False
    assert outputs.step_pred(-0.1499, -0.15) is True


def test_line_scores_and_step_minimum() -> None:
    reasoneval = outputs.EVALUATORS[-3]
    assert reasoneval.key == "reasoneval_llemma-34b"
    assert outputs.line_value(reasoneval, "invalid", [0.25, 0.25, 0.5]) == 0.75
    assert outputs.line_value(reasoneval, "redundant", [0.25, 0.25, 0.5]) == -0.25
    assert outputs.step_scores([0.9, 0.2, 0.7, 0.4], [["a"], ["b", "c"], ["d"]]) == [0.9, 0.2, 0.4]


def _evaluator(key: str) -> outputs.Evaluator:
    return next(e for e in outputs.EVALUATORS if e.key == key)


def test_converting_small_output_files_by_hand(small: Path, tmp_path: Path) -> None:
    """GPT verdicts with decoration and a Math-Shepherd score equal to the threshold, converted
    and scored: every number below is worked out by hand."""
    items = build.solutions(_write_upstream(tmp_path, SMALL_INVALID, SMALL_REDUNDANT))
    gpt = [
        {"id": 0, "correctness_pred": "**Correct**", "error_step_pred": "N/A"},  # none; steps T
        {"id": 1, "correctness_pred": "Wrong", "error_step_pred": "Step 2"},  # F; [T, F, -, -]
        {"id": 2, "correctness_pred": "Wrong.", "error_step_pred": "9"},  # none; j > 2: [T, T]
        {"id": 3, "correctness_pred": "correct", "error_step_pred": "N/A"},  # T; [T, T]
    ]
    gpt_red = [
        {"id": 0, "correctness_pred": "Present", "error_step_pred": "2"},  # F; [T, F, T]
        {"id": 1, "correctness_pred": "Absent", "error_step_pred": "Step 1"},  # T; [F, T]
        {"id": 2, "correctness_pred": "", "error_step_pred": "N/A"},  # none; [T, T]
    ]
    ms = [
        {"id": 0, "scores": [0.9, 0.5, 0.7]},  # step 2 == 0.5: negative; solution min 0.5: none
        {"id": 1, "scores": [0.8, 0.6, 0.3, 0.9, 0.9]},  # steps [0.8, 0.3, 0.9, 0.9]
        {"id": 2, "scores": [0.2, 0.9]},
        {"id": 3, "scores": [0.6, 0.7]},
    ]
    ms_red = [
        {"id": 0, "scores": [0.7, 0.4, 0.6]},
        {"id": 1, "scores": [0.8, 0.9]},
        {"id": 2, "scores": [0.3, 0.7]},
    ]
    files = {}
    for key, inv, red in (("gpt4", gpt, gpt_red), ("math-shepherd_mistral-7b", ms, ms_red)):
        for set_name, rows in (("invalid", inv), ("redundant", red)):
            path = tmp_path / f"{key}-{set_name}.json"
            write_jsonl(path, rows)
            files[outputs.output_path(_evaluator(key), set_name)] = path
    converted = {
        key: outputs.convert(_evaluator(key), items, files)
        for key in ("gpt4", "math-shepherd_mistral-7b")
    }
    gpt_rows = {r["item_id"]: r for r in converted["gpt4"].rows}
    assert gpt_rows["invalid-0"]["solution_pred"] is None
    assert gpt_rows["invalid-2"]["step_preds"] == [True, True]
    assert gpt_rows["invalid-0"]["raw_verdict"] == "**Correct**"
    ms_rows = {r["item_id"]: r for r in converted["math-shepherd_mistral-7b"].rows}
    assert ms_rows["invalid-0"]["step_preds"] == [True, False, True]
    assert ms_rows["invalid-0"]["solution_pred"] is None
    assert ms_rows["invalid-1"]["step_scores"] == [0.8, 0.3, 0.9, 0.9]
    assert converted["math-shepherd_mistral-7b"].meta["thresholds"] == {
        "invalid": 0.5,
        "redundant": 0.5,
    }

    done = {d.slug: d for d in write_all(converted.values(), tmp_path / "subs")}
    got = overall(
        evaluate_file(BENCH, done["gpt4"].predictions, "g", datasets_dir=small, n_boot=20)
    )
    # invalid solutions: P 2 (inv-0, inv-3), N 2; tp 1 (inv-3), tn 1 (inv-1)
    # F1+ = 2/(1+2+2-1) = 1/2 = F1-
    assert got["invalid_solution_macro_f1"] == pytest.approx(0.5)
    # invalid steps: P 6, N 2; tp 6 (all positives), tn 1 (inv-1 s2); inv-2 s1 FP
    # F1+ = 12/(6+6+2-1) = 12/13, F1- = 2/(1+2+6-6) = 2/3
    assert got["invalid_step_macro_f1"] == pytest.approx((12 / 13 + 2 / 3) / 2)
    # redundant solutions: P 1 (red-1), N 2; tp 1, tn 1; red-2 none -> FP
    # F1+ = 2/(1+1+2-1) = 2/3, F1- = 2/(1+2+1-1) = 2/3
    assert got["redundant_solution_macro_f1"] == pytest.approx(2 / 3)
    # redundant steps: P 5, N 2. red-0 [1,0,1] vs [T,F,T]: tp 2, tn 1; red-1 [1,1] vs [F,T]:
    #   tp 1, FN 1; red-2 [0,1] vs [T,T]: FP 1, tp 1. So tp 4, tn 1
    # F1+ = 8/(4+5+2-1) = 4/5, F1- = 2/(1+2+5-4) = 1/2
    assert got["redundant_step_macro_f1"] == pytest.approx((4 / 5 + 1 / 2) / 2)

    ms_got = overall(
        evaluate_file(
            BENCH, done["math-shepherd_mistral-7b"].predictions, "m", datasets_dir=small, n_boot=20
        )
    )
    # invalid solutions (min over lines): inv-0 0.5 (none, FN), inv-1 0.3 (tn), inv-2 0.2 (tn),
    # inv-3 0.6 (tp). F1+ = 2/(1+2+2-2) = 2/3, F1- = 4/(2+2+2-1) = 4/5
    assert ms_got["invalid_solution_macro_f1"] == pytest.approx((2 / 3 + 4 / 5) / 2)
    # invalid steps: positives inv-0 [0.9, 0.5, 0.7], inv-1 s1 0.8, inv-3 [0.6, 0.7]; negatives
    # inv-1 s2 0.3, inv-2 s1 0.2. Predictions: 0.5 -> F (FN); others T: tp 5, tn 2
    # F1+ = 10/(5+6+2-2) = 10/11, F1- = 4/(2+2+6-5) = 4/5
    assert ms_got["invalid_step_macro_f1"] == pytest.approx((10 / 11 + 4 / 5) / 2)
    assert ms_got["invalid_step_auc"] == pytest.approx(1.0)
    # solution AUC: positives {0.5, 0.6} vs negatives {0.3, 0.2}: all 4 pairs won
    assert ms_got["invalid_solution_auc"] == pytest.approx(1.0)
    # redundant steps: positives 0.7, 0.6 (red-0), 0.8, 0.9 (red-1), 0.7 (red-2); negatives
    # 0.4 (red-0 s2), 0.3 (red-2 s1): all won. Solutions min: red-0 0.4, red-1 0.8, red-2 0.3
    assert ms_got["redundant_step_auc"] == pytest.approx(1.0)
    assert ms_got["redundant_solution_auc"] == pytest.approx(1.0)


def test_output_rows_must_align_with_the_dataset(tmp_path: Path) -> None:
    items = build.solutions(_write_upstream(tmp_path, SMALL_INVALID, SMALL_REDUNDANT))
    ms = _evaluator("math-shepherd_mistral-7b")
    files = {
        outputs.output_path(ms, "invalid"): write_jsonl(
            tmp_path / "i.json",
            [
                {"id": 0, "scores": [0.1, 0.2, 0.3]},
                {"id": 2, "scores": [0.1] * 5},
                {"id": 2, "scores": [0.1]},
                {"id": 3, "scores": [0.1, 0.2]},
            ],
        ),
        outputs.output_path(ms, "redundant"): write_jsonl(tmp_path / "r.json", []),
    }
    with pytest.raises(ValidationFailed) as err:
        outputs.convert(ms, items, files)
    text = str(err.value)
    assert "i.json:2 [id]: 2 != 1" in text
    assert "i.json:3 [scores]: 1 line scores for 2 lines" in text
    assert "r.json: 0 rows, 3 expected" in text


# ---- the published evaluators on the real data ------------------------------------------------


def _authors_rules(mirror: Path, key: str) -> dict[str, float]:
    """An independent re-implementation of the authors' scoring, straight from the raw files
    (macro-F1 with missing predictions as errors; AUC with ties 1/2 via Mann-Whitney U)."""
    root = mirror / "mr-math"

    def lines(path: str) -> list[dict]:
        with (root / path).open(encoding="utf-8") as handle:
            return [json.loads(x) for x in handle]

    def f1(tp: int, p: int, n: int, tn: int) -> float:
        f_pos = 2 * tp / (tp + p + n - tn)
        f_neg = 2 * tn / (tn + n + p - tp)
        return (f_pos + f_neg) / 2

    def auc(pos: list[float], neg: list[float]) -> float:
        from scipy.stats import mannwhitneyu  # here: a second of import, for this test only

        return mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg))

    thresholds = {"invalid": 0.5, "redundant": -0.15 if key.startswith("reasoneval") else 0.5}
    if key.startswith("roscoe"):
        thresholds = {"invalid": 0.025, "redundant": 0.025}
    out = {}
    for s in ("invalid", "redundant"):
        data = lines(f"dataset/mr-math_{s}_errors.json")
        res = lines(f"eval_results/mr-math_{s}_errors/{key}_eval_results.json")
        sol_gold, step_gold, sol_pred, sol_score, step_pred, step_score = [], [], [], [], [], []
        for d, r in zip(data, res, strict=True):
            steps = d["model_output_step_format"]
            if s == "invalid":
                g = d["model_output_solution_correctness"] == "correct"
                k = None if g else d["model_output_solution_first_error_step"]
                gold_steps = [1] * len(steps) if g else [1] * (k - 1) + [0]
            else:
                g = 0 not in d["rating"]
                gold_steps = d["rating"]
            sol_gold.append(g)
            step_gold.extend(gold_steps)
            if key.startswith("gpt"):
                words = (
                    ("Correct", "correct", "Wrong", "wrong")
                    if s == "invalid"
                    else ("Absent", "absent", "Present", "present")
                )
                v = r["correctness_pred"]
                sol_pred.append(None if v not in words else v in words[:2])
                if s == "invalid":
                    if v in ("Correct", "correct"):
                        preds = [1] * len(steps)
                    else:
                        found = re.findall(r"\d+", r["error_step_pred"])
                        j = int(found[0]) if found else 0
                        preds = [1] * (j - 1) + [0] if 1 <= j <= len(steps) else [1] * len(steps)
                        preds += [None] * (len(steps) - len(preds))
                else:
                    marked = {int(x) for x in re.findall(r"\d+", r["error_step_pred"])}
                    preds = [0 if i + 1 in marked else 1 for i in range(len(steps))]
                step_pred.extend(preds[: len(gold_steps)])
                continue
            t = thresholds[s]
            if key.startswith("roscoe"):
                score = r["scores"]
            else:
                values = r["scores"]
                if key.startswith("reasoneval"):
                    values = [x[1] + x[2] if s == "invalid" else -x[1] for x in values]
                per_step, start = [], 0
                for step in steps:
                    per_step.append(min(values[start : start + len(step)]))
                    start += len(step)
                score = min(values)
                step_pred.extend([1 if x > t else 0 for x in per_step[: len(gold_steps)]])
                step_score.extend(per_step[: len(gold_steps)])
            sol_score.append(score)
            sol_pred.append(None if score == t else score > t)
        p, n = sum(sol_gold), len(sol_gold) - sum(sol_gold)
        tp = sum(1 for g, x in zip(sol_gold, sol_pred, strict=True) if g and x is True)
        tn = sum(1 for g, x in zip(sol_gold, sol_pred, strict=True) if not g and x is False)
        out[f"{s}_solution_macro_f1"] = f1(tp, p, n, tn)
        if step_pred:
            p, n = step_gold.count(1), step_gold.count(0)
            tp = sum(1 for g, x in zip(step_gold, step_pred, strict=True) if g == 1 and x == 1)
            tn = sum(1 for g, x in zip(step_gold, step_pred, strict=True) if g == 0 and x == 0)
            out[f"{s}_step_macro_f1"] = f1(tp, p, n, tn)
        if sol_score:
            out[f"{s}_solution_auc"] = auc(
                [x for x, g in zip(sol_score, sol_gold, strict=True) if g],
                [x for x, g in zip(sol_score, sol_gold, strict=True) if not g],
            )
        if step_score:
            out[f"{s}_step_auc"] = auc(
                [x for x, g in zip(step_score, step_gold, strict=True) if g == 1],
                [x for x, g in zip(step_score, step_gold, strict=True) if g == 0],
            )
    return out


def test_all_twelve_evaluators_agree_with_the_authors_rules(
    mirror: Path, real_datasets: Path, imported: dict[str, Path]
) -> None:
    assert sorted(imported) == sorted(e.key for e in outputs.EVALUATORS)
    widths = {"verdict": 4, "line scores": 8, "solution score": 4}
    for evaluator in outputs.EVALUATORS:
        got = overall(
            evaluate_file(
                BENCH,
                imported[evaluator.key],
                evaluator.judge,
                datasets_dir=real_datasets,
                n_boot=1,
            )
        )
        expected = _authors_rules(mirror, evaluator.key)
        assert len(got) == widths[evaluator.kind], evaluator.key
        assert got == pytest.approx(expected, abs=1e-12), evaluator.key


def test_importer_round_trip_through_validate_and_the_cli(
    mirror: Path, real_datasets: Path, tmp_path: Path
) -> None:
    out = tmp_path / "subs"
    result = CliRunner().invoke(main, ["import-outputs", BENCH, str(mirror), "--out", str(out)])
    assert result.exit_code == 0, result.output
    predictions = [p for p in out.glob("*.jsonl") if ".details." not in p.name]
    assert len(predictions) == 12 and len(list(out.glob("*.meta.json"))) == 12
    # The verdict evaluators' whole responses (their step-by-step evaluation) are kept as details.
    assert sorted(p.name for p in out.glob("*.details.jsonl")) == [
        "gpt3_5_turbo.details.jsonl",
        "gpt4.details.jsonl",
    ]
    first = json.loads((out / "gpt4.details.jsonl").read_text().splitlines()[0])
    upstream = json.loads(
        (mirror / "mr-math" / "eval_results" / "mr-math_invalid_errors" / "gpt4_eval_results.json")
        .read_text()
        .splitlines()[0]
    )
    assert first["response"] == upstream["response"].strip()
    assert first["response"].startswith("Step-by-step Evaluation:")
    meta = json.loads((out / "reasoneval_llemma-34b.meta.json").read_text())
    assert meta["thresholds"] == {"invalid": 0.5, "redundant": -0.15}
    assert meta["source"]["commit"] == build.SOURCE.revision
    assert meta["source"]["files"][0] == {
        "path": "eval_results/mr-math_invalid_errors/reasoneval_llemma-34b_eval_results.json",
        "sha256": "4f7f280db246c735e2ee2c3947bec7476344cca20f398c151583782cd5021852",
    }
    sub = validate_file(BENCH, out / "gpt4.jsonl", real_datasets)
    assert (sub.n_items, sub.fields) == (
        459,
        ("solution_pred", "step_preds", "raw_verdict", "raw_error_steps"),
    )
    sub = validate_file(BENCH, out / "roscoe-sa.jsonl", real_datasets)
    assert sub.fields == ("solution_pred", "solution_score")
    missing = CliRunner().invoke(main, ["import-outputs", BENCH, str(tmp_path), "--out", str(out)])
    assert missing.exit_code == 1 and "mr-math/" in missing.output


def test_store_ranks_and_compare(
    real_datasets: Path, imported: dict[str, Path], tmp_path: Path
) -> None:
    """Per-item step counts are stored (step scores are not), so judges are ranked on the
    headline from the store, and compared from the store as from their files."""
    store = tmp_path / "results.duckdb"
    results = {
        key: evaluate_file(BENCH, imported[key], key, datasets_dir=real_datasets, n_boot=200)
        for key in ("gpt4", "reasoneval_llemma-34b", "math-shepherd_mistral-7b", "roscoe-sa")
    }
    ids = results_store.save_many(store, list(results.values()))
    with duckdb.connect(str(store), read_only=True) as con:
        stored = read.stored_predictions(con, ids[1])
        assert sorted(stored) == ["solution_pred", "solution_score", "step_tn", "step_tp"]
        subs = [s for s in read.latest_submissions(con) if s.benchmark == BENCH]
        assert sorted(s.id for s in subs) == sorted(ids)
        ranked = rank_benchmark(registry.get(BENCH), subs, con)
    assert ranked.status == "ranked" and ranked.metric == "invalid_step_macro_f1"
    assert ids[3] not in ranked.judges  # ROSCOE gives no step predictions
    values = {sid: j.value for sid, j in ranked.judges.items()}
    for sid, r in zip(ids[:3], results.values(), strict=False):
        assert values[sid] == pytest.approx(overall(r)["invalid_step_macro_f1"])
    best = ranked.judges[ids[1]]
    assert (best.rank, best.group) == (1, 1)

    from_store = compare(
        BENCH, "reasoneval_llemma-34b", "gpt4", store=store, datasets_dir=real_datasets, n_boot=200
    )
    from_files = compare(
        BENCH,
        imported["reasoneval_llemma-34b"],
        imported["gpt4"],
        store=store,
        datasets_dir=real_datasets,
        n_boot=200,
    )
    rows_store = {r.metric: r for r in from_store.rows}
    rows_files = {r.metric: r for r in from_files.rows}
    assert (
        sorted(rows_store)
        == sorted(rows_files)
        == sorted(k for k in EXPECTED if k.endswith("macro_f1"))
    )
    for metric, row in rows_files.items():
        assert row.diff == pytest.approx(rows_store[metric].diff, abs=1e-12)
    # two score judges from their files also compare on step-level AUC
    scores = compare(
        BENCH,
        imported["reasoneval_llemma-34b"],
        imported["math-shepherd_mistral-7b"],
        store=store,
        datasets_dir=real_datasets,
        n_boot=200,
    )
    auc = next(r for r in scores.rows if r.metric == "invalid_step_auc")
    a = overall(results["reasoneval_llemma-34b"])["invalid_step_auc"]
    b = overall(results["math-shepherd_mistral-7b"])["invalid_step_auc"]
    assert auc.diff == pytest.approx(a - b)
