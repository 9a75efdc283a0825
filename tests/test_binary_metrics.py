"""Binary verdict metrics (mumath, opc) against values worked out by hand, the `verdict` row
contract, and how runs with null verdicts are combined."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import write_jsonl
from mathjudge import registry
from mathjudge.base.errors import ValidationFailed
from mathjudge.benchmarks import verdict_metrics as binary
from mathjudge.benchmarks.mumath.build import FEATURES
from mathjudge.dataio.writer import Build, CardInfo, Table, write_dataset
from mathjudge.scoring.evaluator import evaluate_file, validate_file

# Seven solutions of four problems by three authors; label True = the solution is correct.
ITEMS = [
    ("a", "P1", "m1", True),
    ("b", "P1", "m1", False),
    ("c", "P2", "m1", True),
    ("d", "P2", "m2", False),
    ("e", "P3", "m2", True),
    ("f", "P3", "m2", False),
    ("g", "P4", "m3", True),
]
METRICS = ["macro_f1", "tpr", "tnr", "ppv", "npv", "inconclusive_rate"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = [
        {
            "item_id": item,
            "problem_id": problem,
            "problem_statement": f"statement of {problem}",
            "golden_answer": "42",
            "author_model": author,
            "model_output": "a solution",
            "label": label,
        }
        for item, problem, author, label in ITEMS
    ]
    build = Build(
        benchmark="mumath",
        version="test",
        tables=(Table("judgments", "test", FEATURES, rows),),
        card_info=CardInfo("tiny", "mit", ("en",), ()),
        card_body="tiny",
        sources=(),
    )
    out = tmp_path_factory.mktemp("tiny")
    write_dataset(build, out)
    return out


def verdict_file(path: Path, verdicts: list[bool | None]) -> Path:
    rows = [{"item_id": item[0], "verdict": v} for item, v in zip(ITEMS, verdicts, strict=True)]
    return write_jsonl(path, rows)


def scores_of(result) -> dict[tuple[str, str, str], float | None]:
    return {(s.scope, s.subset, s.metric): s.value for s in result.scores}


T, F, N = True, False, None

# Per class, F1 = 2*hits / (predicted + actual) = 2TP / (2TP + FP + FN), where a null verdict
# of a correct solution is one of that class's misses (FN) and a false positive of neither.
CASES = [
    pytest.param(
        [T, T, F, F, N, F, T],
        {
            # actual: 4 correct (a c e g), 3 incorrect (b d f)
            # "correct" said for a b g (2 right), "incorrect" for c d f (2 right), null for e
            "overall": {
                "tpr": 2 / 4,
                "tnr": 2 / 3,
                "ppv": 2 / 3,
                "npv": 2 / 3,
                # F1 correct = 2*2/(3+4) = 4/7; F1 incorrect = 2*2/(3+3) = 2/3
                "macro_f1": (4 / 7 + 2 / 3) / 2,
                "inconclusive_rate": 1 / 7,
            },
            # m1: a b c, labels T F T, verdicts T T F: tp 1 of 2, tn 0 of 1
            "m1": {
                "tpr": 1 / 2,
                "tnr": 0.0,
                "ppv": 1 / 2,
                "npv": 0.0,
                # F1 correct = 2*1/(2+2); F1 incorrect = 0/(1+1)
                "macro_f1": (1 / 2 + 0) / 2,
                "inconclusive_rate": 0.0,
            },
            # m2: d e f, labels F T F, verdicts F null F: no "correct" verdict -> ppv undefined
            "m2": {
                "tpr": 0.0,
                "tnr": 1.0,
                "ppv": None,
                "npv": 1.0,
                # F1 correct = 0/(0+1) = 0; F1 incorrect = 2*2/(2+2) = 1
                "macro_f1": 0.5,
                "inconclusive_rate": 1 / 3,
            },
            # m3: g only, label T, verdict T: no incorrect solution and no "incorrect" verdict,
            # so tnr, npv and the incorrect class's F1 (0/0) are undefined, and so is macro F1
            "m3": {
                "tpr": 1.0,
                "tnr": None,
                "ppv": 1.0,
                "npv": None,
                "macro_f1": None,
                "inconclusive_rate": 0.0,
            },
        },
        id="mixed-with-a-null",
    ),
    pytest.param(
        [N] * 7,
        {
            "overall": {
                "tpr": 0.0,
                "tnr": 0.0,
                "ppv": None,
                "npv": None,
                # both F1 = 0/(0 + actual) = 0
                "macro_f1": 0.0,
                "inconclusive_rate": 1.0,
            },
        },
        id="all-null",
    ),
    pytest.param(
        [T] * 7,
        {
            "overall": {
                "tpr": 1.0,
                "tnr": 0.0,
                "ppv": 4 / 7,
                "npv": None,
                # F1 correct = 2*4/(7+4) = 8/11; F1 incorrect = 0/(0+3) = 0
                "macro_f1": (8 / 11 + 0) / 2,
                "inconclusive_rate": 0.0,
            },
        },
        id="always-correct",
    ),
    pytest.param(
        [item[3] for item in ITEMS],
        {"overall": dict.fromkeys(METRICS, 1.0) | {"inconclusive_rate": 0.0}},
        id="perfect",
    ),
]


@pytest.mark.parametrize(("verdicts", "expected"), CASES)
def test_hand_computed(tiny: Path, tmp_path: Path, verdicts: list, expected: dict) -> None:
    result = evaluate_file(
        "mumath", verdict_file(tmp_path / "p.jsonl", verdicts), "j", datasets_dir=tiny, n_boot=20
    )
    got = scores_of(result)
    for subset, values in expected.items():
        scope = "overall" if subset == "overall" else "author_model"
        subset_key = "all" if subset == "overall" else subset
        assert [m for (sc, su, m) in got if (sc, su) == (scope, subset_key)] == METRICS
        for metric, value in values.items():
            want = None if value is None else pytest.approx(value, abs=1e-12)
            assert got[(scope, subset_key, metric)] == want, (subset, metric)


def test_confusion_matrix_counts_nulls_apart(tiny: Path, tmp_path: Path) -> None:
    result = evaluate_file(
        "mumath",
        verdict_file(tmp_path / "p.jsonl", [T, T, F, F, N, F, T]),
        "j",
        datasets_dir=tiny,
        n_boot=10,
    )
    overall = {
        (r["label"], r["verdict"]): r["n"]
        for r in result.extras["confusion"]
        if r["scope"] == "overall"
    }
    assert overall == {
        ("correct", "correct"): 2,
        ("correct", "incorrect"): 1,
        ("correct", "inconclusive"): 1,
        ("incorrect", "correct"): 1,
        ("incorrect", "incorrect"): 2,
    }


def test_bootstrap_is_over_problems_and_seeded_4(tiny: Path, tmp_path: Path) -> None:
    path = verdict_file(tmp_path / "p.jsonl", [T, T, F, F, N, F, T])
    result = evaluate_file("mumath", path, "j", datasets_dir=tiny, n_boot=200)
    assert result.bootstrap["seed"] == 4 and result.bootstrap["unit"] == "problem_id"
    again = evaluate_file("mumath", path, "j", datasets_dir=tiny, n_boot=200)
    assert result.scores == again.scores
    tpr = next(s for s in result.scores if (s.scope, s.metric) == ("overall", "tpr"))
    assert tpr.ci_low <= tpr.value <= tpr.ci_high


@pytest.mark.parametrize("bench", ["mumath", "opc"])
def test_both_benchmarks_share_the_contract(bench: str) -> None:
    spec = registry.get(bench)
    scorer = registry.scorer(spec.name)
    assert scorer.prediction is binary.Prediction
    assert spec.seed == 4
    assert (scorer.cluster, scorer.scopes) == ("problem_id", {"author_model": "author_model"})
    assert scorer.metric_names(("verdict",)) == METRICS


# Runs of one item and the combined verdict under mean / median / majority. As votes
# (+1 true, -1 false, 0 null): mean and median take the sign, majority the most frequent
# verdict with ties to the lower (false < null < true).
RUNS = {
    "a": ([T, F], (N, N, F)),
    "b": ([T, T, F], (T, T, T)),
    "c": ([T, N], (T, T, N)),
    "d": ([N, N], (N, N, N)),
    "e": ([F, N, T], (N, N, N)),
    "f": ([F], (F, F, F)),
    "g": ([T, F, F, N], (F, F, F)),
}


@pytest.mark.parametrize(("how", "column"), [("mean", 0), ("median", 1), ("majority", 2)])
def test_runs_with_null_verdicts(tiny: Path, tmp_path: Path, how: str, column: int) -> None:
    rows = [
        {"item_id": item, "verdict": v, "run": r}
        for item, (runs, _) in RUNS.items()
        for r, v in enumerate(runs)
    ]
    result = evaluate_file(
        "mumath",
        write_jsonl(tmp_path / "p.jsonl", rows),
        "j",
        datasets_dir=tiny,
        runs_agg=how,
        n_boot=10,
    )
    votes = dict(
        zip(
            result.predictions.column("item_id").to_pylist(),
            result.predictions.column("verdict").to_pylist(),
            strict=True,
        )
    )
    combined = {item: None if v == 0 else v > 0 for item, v in votes.items()}
    assert combined == {item: expected[column] for item, (_, expected) in RUNS.items()}
    nulls = sum(expected[column] is None for _, expected in RUNS.values())
    assert scores_of(result)[("overall", "all", "inconclusive_rate")] == pytest.approx(nulls / 7)
    assert result.runs == 4


def problems_of(exc: pytest.ExceptionInfo[ValidationFailed]) -> list[str]:
    return [f"{p.line} {p.field}: {p.message}" for p in exc.value.problems]


def test_verdict_must_be_a_json_boolean_or_null(tiny: Path, tmp_path: Path) -> None:
    lines = [
        {"item_id": "a", "verdict": True},
        {"item_id": "b", "verdict": "yes"},
        {"item_id": "c", "verdict": None},
        {"item_id": "d", "verdict": 1},
        {"item_id": "e"},
        {"item_id": "f", "verdict": "false"},
        {"item_id": "g", "verdict": False},
    ]
    path = write_jsonl(tmp_path / "p.jsonl", lines)
    with pytest.raises(ValidationFailed) as exc:
        validate_file("mumath", path, tiny)
    # Each bad row's item has a row (a bad one): none is also said to have no prediction.
    assert problems_of(exc) == [
        "2 verdict: Input should be a valid boolean (got 'yes')",
        "4 verdict: Input should be a valid boolean (got 1)",
        "6 verdict: Input should be a valid boolean (got 'false')",
        "5 verdict: Field required",
    ]


def test_null_verdicts_are_accepted_in_jsonl_and_parquet(tiny: Path, tmp_path: Path) -> None:
    verdicts = [T, N, F, N, T, F, N]
    jsonl = verdict_file(tmp_path / "p.jsonl", verdicts)
    parquet = tmp_path / "p.parquet"
    pq.write_table(
        pa.table({"item_id": [i[0] for i in ITEMS], "verdict": pa.array(verdicts, pa.bool_())}),
        parquet,
    )
    for path in (jsonl, parquet):
        submission = validate_file("mumath", path, tiny)
        assert submission.fields == ("verdict",)
        assert submission.table.column("verdict").to_pylist() == [1, 0, -1, 0, 1, -1, 0]
    assert json.loads(jsonl.read_text().splitlines()[1]) == {"item_id": "b", "verdict": None}


def test_csv_takes_text_booleans(tiny: Path, tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(
        "item_id,verdict\n" + "".join(f"{i[0]},{str(i[3]).lower()}\n" for i in ITEMS),
        encoding="utf-8",
    )
    result = evaluate_file("mumath", path, "j", datasets_dir=tiny, n_boot=10)
    assert scores_of(result)[("overall", "all", "macro_f1")] == 1.0


def test_partial_submission_scores_only_answered_items(tiny: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"item_id": "a", "verdict": True}])
    with pytest.raises(ValidationFailed, match="6 item"):
        validate_file("mumath", path, tiny)
    result = evaluate_file("mumath", path, "j", datasets_dir=tiny, allow_partial=True, n_boot=10)
    got = scores_of(result)
    assert (result.partial, result.n_items) == (True, 1)
    assert (got[("overall", "all", "tpr")], got[("overall", "all", "tnr")]) == (1.0, None)
    assert not math.isnan(result.coverage) and result.coverage == pytest.approx(1 / 7)


def test_a_file_without_verdicts_is_rejected(tiny: Path, tmp_path: Path) -> None:
    """Every row must carry the key, even when the file is otherwise clean."""
    path = write_jsonl(tmp_path / "p.jsonl", [{"item_id": i[0]} for i in ITEMS])
    with pytest.raises(ValidationFailed) as exc:
        validate_file("mumath", path, tiny)
    assert problems_of(exc) == [f"{n} verdict: Field required" for n in range(1, 4)]
    assert f"{path}:1 [verdict]: Field required; the same on 7 lines: 1, 2, 3, ..." in str(
        exc.value
    )
