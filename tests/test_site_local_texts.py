"""A local-only dataset (JudgeBench: no license upstream) on the site: a build meant for
publishing leaves its texts and the judges' details out and says why, keeping ids, labels and
every judge's call; `--include-local-texts` (a site that stays on this machine) keeps them."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.benchmarks.judgebench import build as judgebench
from mathjudge.benchmarks.judgebench.outputs import import_outputs
from mathjudge.cli import main
from mathjudge.dataio.writer import write_dataset
from mathjudge.scoring.evaluator import evaluate_file

O1 = "o1-mini (Arena-Hard judge)"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, mirror: Path) -> Path:
    tmp = tmp_path_factory.mktemp("local-texts")
    datasets, store = tmp / "datasets", tmp / "results.duckdb"
    write_dataset(judgebench.build(mirror), datasets)
    (judge,) = [j for j in import_outputs("judgebench", mirror) if j.judge == O1]
    path = tmp / "o1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in judge.rows), encoding="utf-8")
    result = evaluate_file("judgebench", path, O1, datasets_dir=datasets, n_boot=20)
    # stored as `repo sync` stores a folder with a details file
    results_store.save_synced(store, "submissions/judgebench/o1", "key", result, judge.details)
    return store


def _payloads(folder: Path, prefix: str) -> list[dict]:
    out = []
    for script in sorted(folder.glob(f"{prefix}-*.js")):
        text = script.read_text(encoding="utf-8")
        out.append(json.loads(text[text.index(",") + 1 : text.rindex(")")]))
    return out


def _build(store: Path, out: Path, *flags: str) -> Path:
    result = CliRunner().invoke(
        main, ["site", "build", "--store", str(store), "--out", str(out), *flags]
    )
    assert result.exit_code == 0, result.output
    return out


def test_a_published_build_leaves_local_only_texts_out_and_says_why(
    store: Path, tmp_path: Path, mirror: Path
) -> None:
    site = _build(store, tmp_path / "site")
    reason = registry.get("judgebench").local_only
    assert reason and "no license" in reason
    doc = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    (bench,) = doc["benchmarks"]
    items = bench["items"]
    assert items["withheld"] == reason and items["texts"] == [] and items["details"] is None
    # The items file: ids, the category filter and the gold label, not the question or answers.
    table = pq.read_table(site / "data" / items["items"])
    assert {"item_id", "category", "a_better"} <= set(table.column_names)
    assert not {"question", "response_a", "response_b"} & set(table.column_names)
    # The item pages' data: every text empty, no details; every call there.
    folder = site / "data" / items["pages"]
    assert all(
        entry["texts"] == [] and entry["details"] == [] and entry["start"] == ""
        for chunk in _payloads(folder, "text")
        for entry in chunk.values()
    )
    assert (
        sum(
            c is not None
            for block in _payloads(folder, "calls")
            for _, cells in block["judges"]
            for c in cells
        )
        == 350
    )
    # No byte of a question or of o1-mini's reasoning anywhere on the site.
    upstream = (
        mirror / "judgebench" / "data" / "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
    )
    question = json.loads(upstream.read_text(encoding="utf-8").splitlines()[0])["question"][:60]
    (judge,) = [j for j in import_outputs("judgebench", mirror) if j.judge == O1]
    reasoning = judge.details[0]["game 1, A shown first"]
    assert len(reasoning) > 60
    needles = [question.encode(), json.dumps(question)[1:-1].encode()]
    needles += [reasoning[:60].encode(), json.dumps(reasoning[:60])[1:-1].encode()]
    leaked = [
        p.relative_to(site).as_posix()
        for p in site.rglob("*")
        if p.is_file() and p.suffix != ".parquet" and any(n in p.read_bytes() for n in needles)
    ]
    assert leaked == []
    for page in ("items/judgebench/index.html", "items/judgebench/item.html"):
        text = (site / page).read_text(encoding="utf-8")
        assert "Texts not redistributed:" in text and "no license" in text


def test_a_local_build_keeps_them(store: Path, tmp_path: Path) -> None:
    site = _build(store, tmp_path / "site", "--include-local-texts")
    doc = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    (bench,) = doc["benchmarks"]
    items = bench["items"]
    assert items["withheld"] is None and items["details"] == "judgebench_details.parquet"
    assert {"question", "response_a", "response_b"} <= set(items["texts"])
    chunks = _payloads(site / "data" / items["pages"], "text")
    entries = [entry for chunk in chunks for entry in chunk.values()]
    assert all(entry["texts"][0] for entry in entries) and len(entries) == 350
    assert sum(bool(entry["details"]) for entry in entries) == 350  # o1-mini's reasoning
    assert "Texts not redistributed" not in (site / "items/judgebench/item.html").read_text()
