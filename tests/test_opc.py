"""Open Proof Corpus: the builder on the real test file from the shared mirror, the problem and
proof cut out of the judge prompt, and the corpus's own LLM judge scored as a submission."""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path

import datasets
import pyarrow.parquet as pq
import pytest

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.opc import build as opc
from mathjudge.benchmarks.opc import corpus as opc_corpus
from mathjudge.dataio.writer import Build, content_hash, write_dataset
from mathjudge.scoring.evaluator import evaluate_file

RAW_URL = "https://raw.githubusercontent.com/insait-institute/open-proof-corpus"


@pytest.fixture(scope="module")
def corpus(mirror: Path) -> Path:
    return mirror / "open-proof-corpus"


@pytest.fixture(scope="module")
def raw(corpus: Path) -> list[dict]:
    return pq.read_table(corpus / "test_discrete_long.parquet").to_pylist()


@pytest.fixture(scope="module")
def built(mirror: Path) -> Build:
    return opc.build(mirror)


@pytest.fixture(scope="module")
def datasets_dir(built: Build, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("datasets")
    write_dataset(built, out)
    return out


def test_source_is_pinned_to_the_commit() -> None:
    (spec,) = opc.SOURCE.files
    assert opc.SOURCE.revision == "f51794e53d8ef2ae2e7f9a0be49809040f2a8f9c"
    assert spec.url == f"{RAW_URL}/{opc.SOURCE.revision}/data/train/discrete/long/test.parquet"
    assert spec.sha256 == "fafe2b7048f9c57181d5bf3539c086b399462f4d61533dd9c4f6b42a14cfecdf"


def test_rows_counts_and_ids(built: Build, raw: list[dict]) -> None:
    (table,) = built.tables
    rows = table.rows
    assert (table.config, table.split, len(rows)) == ("judgments", "test", 434)
    assert [r["item_id"] for r in rows] == [f"{r['problem_id']}::{r['model_id']}" for r in raw]
    assert len({r["item_id"] for r in rows}) == 434
    assert len({r["problem_id"] for r in rows}) == 98
    assert Counter(r["label"] for r in rows) == {False: 273, True: 161}
    assert Counter(r["author_model"] for r in rows) == {
        "openai/o4-mini--high": 98,
        "gemini/gemini-pro-2.5": 95,
        "qwen/qwen3_235b_a22b": 95,
        "openai/o3": 94,
        "xai/grok-3-mini-high": 52,
    }
    for row, up in zip(rows, raw, strict=True):
        assert row["label"] is (up["reward_model"]["ground_truth"] == "correct")
        assert (row["competition"], row["year"]) == (
            up["metadata"]["competition"],
            up["metadata"]["year"],
        )
        assert row["reference_solutions"] == [s["solution"] for s in up["solutions"]]
        assert [p["title"] for p in row["grading_scheme"]] == ["Correctness"]
        assert row["problem"].strip() and row["proof"].strip()
        # the prompt is exactly: instructions, problem header, problem, proof header, proof
        assert up["prompt"][0]["content"].endswith(
            opc.PROBLEM_HEADER + row["problem"] + opc.PROOF_HEADER + row["proof"]
        )
    assert built.checks["labels"] == {"correct": 161, "incorrect": 273}


def test_cut_text_matches_the_corpus_json_records(built: Build, corpus: Path) -> None:
    """The corpus also publishes BMOSL and USAMO problems as JSON with each author's solution:
    the problem and proof cut from the prompt must equal them exactly."""
    records = {
        record["problem_id"]: record
        for path in sorted((corpus / "solved_proof_verification").rglob("*.json"))
        for record in [json.loads(path.read_text(encoding="utf-8"))]
    }
    compared = 0
    for row in built.tables[0].rows:
        record = records.get(row["problem_id"])
        if record is None:
            continue
        (attempt,) = [a for a in record["attempts"] if a["model_id"] == row["author_model"]]
        assert row["problem"] == record["problem"], row["item_id"]
        assert row["proof"] == attempt["solution"], row["item_id"]
        compared += 1
    assert compared == 102


def test_dataset_loads_and_build_is_deterministic(
    built: Build, datasets_dir: Path, mirror: Path, tmp_path: Path
) -> None:
    loaded = datasets.load_dataset(
        str(datasets_dir / "opc"), "judgments", split="test", cache_dir=str(tmp_path / "hf")
    )
    assert loaded.features == opc.FEATURES
    assert loaded[0] == built.tables[0].rows[0]
    assert content_hash(opc.build(mirror).tables) == content_hash(built.tables)
    manifest = json.loads((datasets_dir / "opc" / "manifest.json").read_text())
    (source,) = manifest["sources"]
    assert (source["repo"], source["revision"]) == (opc.SOURCE.repo, opc.SOURCE.revision)
    card = (datasets_dir / "opc" / "README.md").read_text(encoding="utf-8")
    assert "LICENSE.md` is Apache-2.0" in card and "says MIT" in card


def one_message(problem: str, proof: str, before: str = "Grade this.\n") -> list[dict]:
    content = f"{before}{opc.PROBLEM_HEADER}{problem}{opc.PROOF_HEADER}{proof}"
    return [{"role": "user", "content": content}]


def test_split_prompt() -> None:
    assert opc.split_prompt(one_message("Show $x$.", "Proof.\n\n### Note\n")) == (
        "Show $x$.",
        "Proof.\n\n### Note\n",
    )
    message = one_message("P", "Q")[0]
    bad = {
        "the prompt is not a single user message": [message, message],
        "not a single user message": [{**message, "role": "system"}],
        "has 0 '### Problem Statement:' headers": [{**message, "content": "no headers"}],
        "has 2 '### Model Solution:' headers": one_message("P", "Q" + opc.PROOF_HEADER + "R"),
        "proof section comes before": [
            {"role": "user", "content": f"{opc.PROOF_HEADER}Q{opc.PROBLEM_HEADER}P"}
        ],
        "section is empty": one_message("P", " \n"),
    }
    for reason, prompt in bad.items():
        with pytest.raises(ValueError, match=reason):
            opc.split_prompt(prompt)


def test_inconsistent_rows_are_all_named(raw: list[dict]) -> None:
    rows = copy.deepcopy(raw[:6])
    rows[1]["reward_model"]["ground_truth"] = "partially correct"
    rows[2]["prompt"] = rows[2]["prompt"] * 2
    del rows[3]["metadata"]
    rows[5]["model_id"] = rows[4]["model_id"]
    rows[5]["problem_id"] = rows[4]["problem_id"]
    with pytest.raises(MathJudgeError) as exc:
        opc.judgments(rows)
    ids = [f"{r['problem_id']}::{r['model_id']}" for r in rows]
    assert str(exc.value).splitlines() == [
        "test_discrete_long.parquet is inconsistent:",
        f"  row 2 ({ids[1]}): reward_model.ground_truth is 'partially correct', not 'correct' "
        "or 'incorrect'",
        f"  row 3 ({ids[2]}): the prompt is not a single user message",
        f"  row 4 ({ids[3]}): missing field 'metadata'",
        f"  {ids[4]}: 2 rows share this item id",
        f"  {rows[4]['problem_id']}: the prompts state the problem in 2 different ways",
    ]


def confusion(result) -> dict[tuple[str, str], int]:
    return {
        (r["label"], r["verdict"]): r["n"]
        for r in result.extras["confusion"]
        if r["scope"] == "overall"
    }


def test_corpus_llm_judge(datasets_dir: Path, mirror: Path, tmp_path: Path, raw: list) -> None:
    items = pq.read_table(datasets_dir / "opc" / "data/judgments/test-00000-of-00001.parquet")
    preds = opc_corpus.judge(items.to_pylist(), source_dir=mirror)
    assert len(preds) == 311 == sum(r["llm_judgment"] is not None for r in raw)
    path = write_jsonl(tmp_path / "corpus.jsonl", preds)
    with pytest.raises(MathJudgeError, match="123 item"):
        evaluate_file("opc", path, "OPC corpus judge", datasets_dir=datasets_dir)
    result = evaluate_file(
        "opc", path, "OPC corpus judge", datasets_dir=datasets_dir, allow_partial=True, n_boot=200
    )
    assert (result.partial, result.n_items, result.n_expected) == (True, 311, 434)
    # "correct" is the positive class: 30 TP, 1 FP, 71 FN, 209 TN on the judged rows.
    assert confusion(result) == {
        ("correct", "correct"): 30,
        ("incorrect", "correct"): 1,
        ("correct", "incorrect"): 71,
        ("incorrect", "incorrect"): 209,
    }
    got = {(s.scope, s.subset, s.metric): s for s in result.scores}
    expected = {
        "tpr": 30 / 101,
        "tnr": 209 / 210,
        "ppv": 30 / 31,
        "npv": 209 / 280,
        # F1 correct = 2*30/(31+101); F1 incorrect = 2*209/(280+210)
        "macro_f1": (60 / 132 + 418 / 490) / 2,
        "inconclusive_rate": 0.0,
    }
    for metric, value in expected.items():
        score = got[("overall", "all", metric)]
        assert score.value == pytest.approx(value, abs=1e-12), metric
        assert score.n == 311
        assert score.ci_low <= score.value <= score.ci_high
    assert {s for (sc, s, _) in got if sc == "author_model"} == {
        "openai/o4-mini--high",
        "gemini/gemini-pro-2.5",
        "qwen/qwen3_235b_a22b",
        "openai/o3",
        "xai/grok-3-mini-high",
    }


def test_always_incorrect_baseline(datasets_dir: Path, tmp_path: Path, built: Build) -> None:
    rows = [{"item_id": r["item_id"], "verdict": False} for r in built.tables[0].rows]
    result = evaluate_file(
        "opc",
        write_jsonl(tmp_path / "p.jsonl", rows),
        "never",
        datasets_dir=datasets_dir,
        n_boot=50,
    )
    got = {(s.metric): s.value for s in result.scores if s.scope == "overall"}
    assert got == {
        "tpr": 0.0,
        "tnr": 1.0,
        "ppv": None,
        "npv": pytest.approx(273 / 434),
        # F1 correct = 0/(0+161) = 0; F1 incorrect = 2*273/(434+273)
        "macro_f1": pytest.approx(273 / 707),
        "inconclusive_rate": 0.0,
    }
