"""ProcessBench: the build (the authors' commit and the Hub layout, downloaded from a stand-in),
the relabelled math-688, the paper's measures on hand-computed cases, the baselines against
independent counts, and the paper's tables as reported results."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from huggingface_hub import constants
from standins import HubSnapshotStandIn, NetworkGuard

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks import constant
from mathjudge.benchmarks.processbench import build as processbench
from mathjudge.benchmarks.processbench import reported
from mathjudge.dataio.writer import Build, CardInfo, Table, content_hash, write_dataset
from mathjudge.scoring.evaluator import evaluate_file

FIXTURE = Path(__file__).parent / "fixtures" / "processbench"
PAPER_COUNTS = {
    "gsm8k": (207, 193),
    "math": (594, 406),
    "olympiadbench": (661, 339),
    "omnimath": (759, 241),
}


@pytest.fixture(scope="module")
def built(mirror: Path) -> Build:
    return processbench.build(mirror)


@pytest.fixture(scope="module")
def real_datasets(built: Build, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("processbench")
    write_dataset(built, out)
    return out


def test_real_build_matches_the_paper_counts(built: Build) -> None:
    (table,) = built.tables
    assert len(table.rows) == 3400
    for subset, (errors, correct) in PAPER_COUNTS.items():
        rows = [r for r in table.rows if r["subset_name"] == subset]
        assert Counter(r["has_error"] for r in rows) == {True: errors, False: correct}
    # Solutions of one problem share a cluster (OlympiadBench: 561 problems for 1,000 rows).
    assert len({r["problem_id"] for r in table.rows if r["subset_name"] == "olympiadbench"}) == 561


def test_math_688_keeps_the_released_label(built: Build, mirror: Path) -> None:
    """The fork's copy differs from the release in math-688's label only (2 -> 0); the build
    keeps the release's, on which the paper's numbers were computed, and says so."""
    ours = {r["item_id"]: r["label"] for r in built.tables[0].rows}
    fork = json.loads(
        (mirror / "processbench" / "ljxzs-jjlzs-fork/code/dataset/math.json").read_text()
    )
    differs = {r["id"]: (ours[r["id"]], r["label"]) for r in fork if ours[r["id"]] != r["label"]}
    assert differs == {"math-688": (2, 0)}
    assert built.checks["math-688_label"] == 2
    assert "`math-688` carries label\n**2** here" in built.card_body


def test_hub_layout_and_download(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from_folder = processbench.build(FIXTURE)
    assert Counter(r["subset_name"] for r in from_folder.tables[0].rows) == {
        "gsm8k": 3, "math": 3, "olympiadbench": 2, "omnimath": 2,
    }  # fmt: skip
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "token"))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    guard = NetworkGuard(monkeypatch)
    with HubSnapshotStandIn("Qwen/ProcessBench", FIXTURE) as hub:
        monkeypatch.setattr(constants, "ENDPOINT", hub.url)
        monkeypatch.setattr(
            constants,
            "HUGGINGFACE_CO_URL_TEMPLATE",
            hub.url + "/{repo_id}/resolve/{revision}/{filename}",
        )
        downloaded = processbench.build(None)
    assert guard.attempts == [] and hub.unhandled == []
    assert content_hash(downloaded.tables) == content_hash(from_folder.tables)
    ((source, _),) = downloaded.sources
    assert (source.repo, source.revision) == ("Qwen/ProcessBench", hub.commit)


def test_builder_refuses_a_label_past_the_steps(tmp_path: Path) -> None:
    for path in FIXTURE.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    rows = json.loads((FIXTURE / "math.json").read_text())
    rows[1]["label"] = 3  # three steps: 0..2
    (tmp_path / "math.json").write_text(json.dumps(rows))
    with pytest.raises(MathJudgeError, match=r"math row 1 \[label\]: 3 is not -1 or a step index"):
        processbench.build(tmp_path)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """GSM8K: erroneous (labels 1, 2) and correct (-1, -1); MATH: erroneous (0), correct (-1)."""
    labels = {"gsm8k": [1, 2, -1, -1], "math": [0, -1]}
    rows = [
        {
            "item_id": f"{s}-{i}",
            "subset_name": s,
            "problem_id": f"{s}-p{i}",
            "generator": "g",
            "problem": "p",
            "steps": ["a", "b", "c"],
            "n_steps": 3,
            "final_answer_correct": label == -1,
            "label": label,
            "has_error": label != -1,
        }
        for s, ls in labels.items()
        for i, label in enumerate(ls)
    ]
    out = tmp_path_factory.mktemp("tiny")
    write_dataset(
        Build(
            benchmark="processbench",
            version="test",
            tables=(Table("solutions", "test", processbench.FEATURES, rows),),
            card_info=CardInfo("tiny", "mit", ("en",), ()),
            card_body="tiny",
            sources=(),
        ),
        out,
    )
    return out


def test_accuracies_and_harmonic_f1_by_hand(tiny: Path, tmp_path: Path) -> None:
    """GSM8K predicted 1 (right), 0 (wrong), -1 (right), 2 (wrong): error 1/2, correct 1/2, F1
    1/2. MATH: no answer on the erroneous one (wrong), -1 on the correct one: error 0, correct
    1, F1 0 (a harmonic mean with a 0). Overall, means of the subsets: F1 1/4, error 1/4,
    correct 3/4; no answer 1/6."""
    preds = {"gsm8k-0": 1, "gsm8k-1": 0, "gsm8k-2": -1, "gsm8k-3": 2, "math-0": None, "math-1": -1}
    path = write_jsonl(
        tmp_path / "p.jsonl", [{"item_id": k, "error_step": v} for k, v in preds.items()]
    )
    result = evaluate_file("processbench", path, "j", datasets_dir=tiny, n_boot=20)
    got = {(s.scope, s.subset, s.metric): s.value for s in result.scores}
    assert got[("subset_name", "gsm8k", "f1")] == 0.5
    assert got[("subset_name", "math", "f1")] == 0.0
    assert got[("subset_name", "math", "correct_accuracy")] == 1.0
    assert got[("overall", "all", "f1")] == 0.25
    assert got[("overall", "all", "error_accuracy")] == 0.25
    assert got[("overall", "all", "correct_accuracy")] == 0.75
    assert got[("overall", "all", "no_answer_rate")] == pytest.approx(1 / 6)
    with pytest.raises(ValidationFailed, match=r"p\.jsonl:1 \[error_step\]"):
        bad = write_jsonl(tmp_path / "p.jsonl", [{"item_id": "gsm8k-0", "error_step": -3}])
        evaluate_file("processbench", bad, "j", datasets_dir=tiny, allow_partial=True)


def test_baselines_against_independent_counts(
    built: Build, real_datasets: Path, tmp_path: Path
) -> None:
    rows = built.tables[0].rows
    first = write_jsonl(tmp_path / "first.jsonl", constant.first_paragraph(rows))
    result = evaluate_file("processbench", first, "j", datasets_dir=real_datasets, n_boot=20)
    got = {(s.scope, s.subset, s.metric): s.value for s in result.scores}
    for subset, (errors, _) in PAPER_COUNTS.items():
        at_zero = sum(r["label"] == 0 for r in rows if r["subset_name"] == subset)
        assert got[("subset_name", subset, "error_accuracy")] == pytest.approx(at_zero / errors)
        assert got[("subset_name", subset, "correct_accuracy")] == 0
    none = write_jsonl(tmp_path / "none.jsonl", constant.no_error(rows))
    result = evaluate_file("processbench", none, "j", datasets_dir=real_datasets, n_boot=20)
    overall = {s.metric: s.value for s in result.scores if s.scope == "overall"}
    assert (overall["f1"], overall["error_accuracy"], overall["correct_accuracy"]) == (0, 0, 1)


def test_the_paper_tables_as_reported_results(mirror: Path) -> None:
    results = {r.judge: r for r in reported.load(mirror / "reported")}
    assert len(results) == 25 + 2 + 17
    o1 = {(s.scope, s.subset, s.metric): s.value for s in results["o1-mini"].scores}
    assert o1[("overall", "all", "f1")] == 0.879
    assert o1[("subset_name", "gsm8k", "f1")] == 0.932
    assert results["o1-mini"].meta["tables"] == ["Table 3", "Table 5", "Table 7"]
    # Tables 5 and 7 add the accuracies; their F1 cells are Table 3's, kept once.
    assert len(results["o1-mini"].scores) == 1 + 4 + 8
    greedy = results["QwQ-32B-Preview (greedy)"]
    assert greedy.meta["tables"] == ["Table 9"] and greedy.meta["setting"].endswith(
        "greedy decoding"
    )
    assert "Skywork-PRM-7B (respective thresholds)" in results
    assert all(r.source == "reported" and r.citation for r in results.values())


def test_a_folder_of_neither_layout_is_refused_at_once(tmp_path: Path) -> None:
    (tmp_path / "unrelated.txt").write_text("not a dataset")
    with pytest.raises(MathJudgeError) as exc:
        processbench.build(tmp_path)
    message = str(exc.value)
    assert "no Qwen/ProcessBench snapshot" in message
    assert "nor the files of QwenLM/ProcessBench at 2f2fd8ae590a (dataset/gsm8k.json" in message
