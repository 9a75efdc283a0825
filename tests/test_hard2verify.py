"""Hard2Verify: the builder on a synthetic file in the upstream (decrypted) schema, its strict
checks and local-only rule, and the step/proof metrics with the pessimistic union over runs,
against counts worked out by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks.hard2verify import build as builder
from mathjudge.cli import main
from mathjudge.dataio.writer import write_dataset
from mathjudge.scoring.evaluator import evaluate_file

FIXTURE = Path(__file__).parent / "fixtures" / "hard2verify"
BENCH = "hard2verify"

# Human labels in the fixture (1 = correct): 16 steps, 4 incorrect; h2v-0001/3/5 are incorrect.
#   0001 [1,1,0,0]  0002 [1,1,1]  0003 [0,1]  0004 [1,1,1]  0005 [1,0,1,1]
RUNS = {
    0: {
        "h2v-0001": [1, 0, 1, 0],
        "h2v-0002": [1, 1, 1],
        "h2v-0003": [1, 1],
        "h2v-0004": [1, 1, 0],
        "h2v-0005": [1, 0, 1, 1],
    },
    1: {
        "h2v-0001": [1, 1, 0, 1],
        "h2v-0002": [0, 1, 1],
        "h2v-0003": [0, 1],
        "h2v-0004": [1, 1, 1],
        "h2v-0005": [1, 1, 1, 1],
    },
}
# k = 1 (run 0): steps tp 2 (0001#3, 0005#1), fp 2 (0001#1, 0004#2), fn 2 (0001#2, 0003#0), tn 10;
#   responses flagged 0001, 0004, 0005: tp 2, fp 1, fn 1 (0003), tn 1 (0002).
# k = 2 (union): steps flagged 0001{1,2,3}, 0002{0}, 0003{0}, 0004{2}, 0005{1}: tp 4, fp 3, fn 0,
#   tn 9; every response flagged: tp 3, fp 2, fn 0, tn 0.
K1 = {
    "step_precision": 2 / 4,
    "step_recall": 2 / 4,
    "step_tnr": 10 / 12,
    "step_balanced_f1": 5 / 8,
    "proof_precision": 2 / 3,
    "proof_recall": 2 / 3,
    "proof_tnr": 1 / 2,
    "proof_balanced_f1": 4 / 7,
}
K2 = {
    "step_precision": 4 / 7,
    "step_recall": 1.0,
    "step_tnr": 9 / 12,
    "step_balanced_f1": 6 / 7,
    "proof_precision": 3 / 5,
    "proof_recall": 1.0,
    "proof_tnr": 0.0,
    "proof_balanced_f1": 0.0,
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("h2v")
    write_dataset(builder.build(FIXTURE), out)
    return out


def evaluate(datasets_dir: Path, tmp: Path, rows: list[dict], **kwargs):
    path = write_jsonl(tmp / "preds.jsonl", rows)
    return evaluate_file(BENCH, path, "judge", datasets_dir=datasets_dir, n_boot=200, **kwargs)


def values(result) -> dict[tuple[str, str, str], float | None]:
    return {(s.scope, s.subset, s.metric): s.value for s in result.scores}


def test_pessimistic_union_over_runs_matches_hand_counts(built: Path, tmp_path: Path) -> None:
    rows = [
        {"item_id": item, "run": run, "step_labels": labels}
        for run, items in RUNS.items()
        for item, labels in items.items()
    ]
    result = evaluate(built, tmp_path, rows)
    got = values(result)
    for metric, expected in K1.items():
        assert got[("k", "k=1", metric)] == pytest.approx(expected), metric
    for metric, expected in K2.items():
        assert got[("k", "k=2", metric)] == pytest.approx(expected), metric
        assert got[("overall", "all", metric)] == pytest.approx(expected), metric
    assert result.runs_agg == "pessimistic union"
    assert result.to_json()["bootstrap"]["unit"] == "problem_id"


def test_single_run_is_k1(built: Path, tmp_path: Path) -> None:
    rows = [{"item_id": item, "step_labels": labels} for item, labels in RUNS[0].items()]
    got = values(evaluate(built, tmp_path, rows))
    for metric, expected in K1.items():
        assert got[("overall", "all", metric)] == pytest.approx(expected), metric


def test_perfect_judge_and_undefined_precision(built: Path, tmp_path: Path) -> None:
    rows_in = [json.loads(line) for line in (FIXTURE / "hard2verify_decrypted.jsonl").open()]
    perfect = [{"item_id": r["unique_id"], "step_labels": r["human_labels"]} for r in rows_in]
    got = values(evaluate(built, tmp_path, perfect))
    assert all(got[("overall", "all", m)] == 1.0 for m in K1)
    lenient = [
        {"item_id": r["unique_id"], "step_labels": [1] * len(r["human_labels"])} for r in rows_in
    ]
    got = values(evaluate(built, tmp_path, lenient))
    assert got[("overall", "all", "step_precision")] is None  # nothing flagged
    assert got[("overall", "all", "step_recall")] == 0.0
    assert got[("overall", "all", "step_tnr")] == 1.0
    assert got[("overall", "all", "step_balanced_f1")] == 0.0


def test_wrong_number_of_labels_is_rejected(built: Path, tmp_path: Path) -> None:
    rows = [{"item_id": item, "step_labels": labels} for item, labels in RUNS[0].items()]
    rows[2]["step_labels"] = [1, 1, 1]
    with pytest.raises(MathJudgeError, match=r"h2v-0003 \(run 0: 3 labels, 2 steps\)"):
        evaluate(built, tmp_path, rows)


def test_label_outside_0_1_fails_validation(built: Path, tmp_path: Path) -> None:
    rows = [{"item_id": item, "step_labels": labels} for item, labels in RUNS[0].items()]
    rows[1]["step_labels"] = [1, 2, 1]
    with pytest.raises(ValidationFailed) as exc:
        evaluate(built, tmp_path, rows)
    assert any(p.line == 2 and "step_labels" in (p.field or "") for p in exc.value.problems)


def test_built_dataset(built: Path) -> None:
    ds = datasets.load_dataset(str(built / BENCH), "responses", split="test")
    assert ds["item_id"] == [f"h2v-000{i}" for i in range(1, 6)]
    assert ds["human_labels"][0] == [1, 1, 0, 0]
    assert ds["first_error_idx"] == [2, None, 0, None, 1]
    assert ds["response_correct"] == [False, True, False, True, False]
    assert len(set(ds["problem_id"])) == 3
    card = (built / BENCH / "README.md").read_text()
    assert "Do not redistribute" in card and "cc-by-nc-4.0" in card
    manifest = json.loads((built / BENCH / "manifest.json").read_text())
    assert manifest["checks"]["redistribution"].startswith("local only")


def test_json_list_file_is_read_too(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (FIXTURE / "hard2verify_decrypted.jsonl").open()]
    (tmp_path / "h2v.json").write_text(json.dumps(rows), encoding="utf-8")
    assert len(builder.build(tmp_path).tables[0].rows) == 5


def test_bad_rows_are_all_reported(tmp_path: Path) -> None:
    lines = (FIXTURE / "hard2verify_decrypted.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    rows[0]["human_labels"] = [1, 1, 0]  # 3 labels, 4 steps
    rows[1]["human_labels_first_error_idx"] = 0  # all labels are 1
    rows[2]["human_labels"] = [0, 2]
    rows[4]["unique_id"] = rows[3]["unique_id"]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(ValidationFailed) as exc:
        builder.build(tmp_path)
    found = [str(p) for p in exc.value.problems]
    assert found == [
        f"{path}:1 [human_labels]: 3 labels for 4 steps",
        f"{path}:2 [human_labels_first_error_idx]: 0 contradicts human_labels (first 0 at None)",
        f"{path}:3 [human_labels]: must be a list of 0/1 (1 = step correct)",
        f"{path}:5 [unique_id]: duplicate 'h2v-0004' (also {path}:4)",
    ]


def test_no_file_explains_how_to_get_one(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    with pytest.raises(MathJudgeError, match="decrypt it with the authors' tool"):
        builder.build(tmp_path)


def test_push_to_hub_is_refused_before_building(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(FIXTURE, source)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main,
        ["build", BENCH, "--source-dir", str(source), "--out", str(out), "--push-to-hub", "me/h2v"],
    )
    assert result.exit_code == 1
    assert (
        "may not be redistributed" in result.output and "--push-to-hub refuses it" in result.output
    )
    assert not out.exists()
    local = CliRunner().invoke(
        main, ["build", BENCH, "--source-dir", str(source), "--out", str(out)]
    )
    assert local.exit_code == 0, local.output


def test_paired_comparison_of_two_judges(built: Path, tmp_path: Path) -> None:
    """Run 0 as judge A, run 1 as judge B. B (computed by hand like K1): steps flagged
    0001#2, 0002#0, 0003#0: tp 2, fp 1, fn 2, tn 11; responses flagged 0001, 0002, 0003:
    tp 2, fp 1, fn 1, tn 1."""
    from mathjudge.scoring.compare import compare

    files = []
    for run in (0, 1):
        rows = [{"item_id": i, "step_labels": labels} for i, labels in RUNS[run].items()]
        files.append(write_jsonl(tmp_path / f"judge{run}.jsonl", rows))
    b = {"step_precision": 2 / 3, "step_recall": 2 / 4, "proof_precision": 2 / 3}
    result = compare(
        BENCH, files[0], files[1], store=tmp_path / "none.duckdb", datasets_dir=built, n_boot=300
    )
    rows = {r.metric: r for r in result.rows if r.scope == "overall"}
    for metric, expected_b in b.items():
        assert rows[metric].a_value == pytest.approx(K1[metric])
        assert rows[metric].b_value == pytest.approx(expected_b)
        assert rows[metric].diff == pytest.approx(K1[metric] - expected_b)
    same = compare(
        BENCH, files[0], files[0], store=tmp_path / "none.duckdb", datasets_dir=built, n_boot=300
    )
    assert all(r.diff in (0.0, None) for r in same.rows)
    assert all((r.ci_low, r.ci_high) == (0.0, 0.0) for r in same.rows if r.diff is not None)
