"""Side files are read bounded (regular files only, a size limit, nothing read first), and
judge names and meta pass one display check whichever way they come in; the site shows meta
as a bounded summary with the whole meta as a download."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge import store as store
from mathjudge.api import publish_site
from mathjudge.base.display import summary
from mathjudge.cli import main
from mathjudge.scoring.evaluator import evaluate_file

RLO = "\u202e"  # right-to-left override


@pytest.fixture(scope="module")
def predictions(stepmath_rows: list[dict], tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("preds") / "p.jsonl"
    return write_jsonl(path, [{"item_id": r["uid"], "score": 5} for r in stepmath_rows])


def evaluate(datasets_dir: Path, predictions: Path, tmp_path: Path, *extra: str):
    db = tmp_path / "r.duckdb"
    args = ["evaluate", "stepmathbench", str(predictions), "--datasets", str(datasets_dir)]
    result = CliRunner().invoke(
        main, [*args, "--store", str(db), "--bootstrap", "5", "--quiet", *extra]
    )
    return result, db


@pytest.mark.parametrize("kind", ["device", "fifo", "too big"])
def test_meta_that_is_not_a_small_regular_file_is_refused_unread(
    datasets_dir: Path, predictions: Path, tmp_path: Path, kind: str
) -> None:
    meta = tmp_path / "meta.json"
    expected = "the meta file is not a regular file"
    if kind == "device":
        meta = Path("/dev/zero")  # read whole, it never ends
    elif kind == "fifo":
        os.mkfifo(meta)  # read, it waits for a writer forever
    else:
        meta.write_text('{"x": "' + "a" * (1 << 20) + '"}')
        expected = f"the meta file has {(1 << 20) + 9} bytes, more than the 1048576 allowed"
    result, db = evaluate(datasets_dir, predictions, tmp_path, "--judge", "j", "--meta", str(meta))
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert f"error: {meta}: {expected}" in result.output
    assert not db.exists()


@pytest.mark.parametrize(
    ("judge", "problem"),
    [
        ("x" * 10_000, "the judge name is longer than 200 characters (10000)"),
        (f"good{RLO}evil", "contains U+202E (right-to-left override)"),
        ("nul\x00name", "contains U+0000 (a control or unassigned character)"),
        ("two\nlines", "contains U+000A (a control or unassigned character)"),
    ],
)
def test_judge_names_from_the_command_line(
    datasets_dir: Path, predictions: Path, tmp_path: Path, judge: str, problem: str
) -> None:
    result, db = evaluate(datasets_dir, predictions, tmp_path, "--judge", judge)
    assert result.exit_code == 1 and "error: --judge: " in result.output
    assert problem in result.output and not db.exists()


@pytest.mark.parametrize(
    ("meta", "problem"),
    [
        ({"model": f"gpt{RLO}4"}, "meta: the value at model contains U+202E (right-to-left"),
        (
            {"notes": {"deep": ["ok", "bad\x00"]}},
            "meta: the value at notes.deep[1] contains U+0000",
        ),
        ({"k" * 101: 1}, "meta: a key at the top level is longer than 100 characters (101)"),
        ({"prompt": "p" * 10_001}, "meta: the value at prompt is longer than 10000 characters"),
        ([1, 2], "meta must be a JSON object"),
    ],
)
def test_meta_texts_from_the_meta_file(
    datasets_dir: Path, predictions: Path, tmp_path: Path, meta: object, problem: str
) -> None:
    path = tmp_path / "meta.json"
    path.write_text(json.dumps(meta))
    result, db = evaluate(datasets_dir, predictions, tmp_path, "--judge", "j", "--meta", str(path))
    assert result.exit_code == 1, result.output
    assert f"error: {path}: {problem}" in result.output and not db.exists()


def test_meta_allows_newlines_and_tabs_in_texts(
    datasets_dir: Path, predictions: Path, tmp_path: Path
) -> None:
    path = tmp_path / "meta.json"
    path.write_text(json.dumps({"prompt": "Judge the proof.\n\tBe strict.", "temperature": 0}))
    result, _ = evaluate(datasets_dir, predictions, tmp_path, "--judge", "j", "--meta", str(path))
    assert result.exit_code == 0, result.output


def test_meta_file_with_a_key_twice_is_refused(
    datasets_dir: Path, predictions: Path, tmp_path: Path
) -> None:
    path = tmp_path / "meta.json"
    path.write_text('{\n  "model": "a",\n  "model": "b"\n}\n')
    result, _ = evaluate(datasets_dir, predictions, tmp_path, "--judge", "j", "--meta", str(path))
    assert result.exit_code == 1
    assert f"error: {path} [model]: key given twice in one object" in result.output


def test_reported_tables_pass_the_same_checks(mirror: Path, tmp_path: Path) -> None:
    folder = tmp_path / "reported"
    shutil.copytree(mirror / "reported", folder)
    table = folder / "stepmathbench_table3.csv"
    lines = table.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = "x" * 10_000 + lines[2][lines[2].index(",") :]
    table.write_text("".join(lines), encoding="utf-8")
    db = tmp_path / "r.duckdb"
    result = CliRunner().invoke(
        main, ["reported", "import", "--source-dir", str(tmp_path), "--store", str(db)]
    )
    assert result.exit_code == 1
    assert (
        f"error: {table}:3 [judge]: the judge name is longer than 200 characters (10000)"
        in result.output
    )
    assert not db.exists()
    lines[2] = f"GPT{RLO}-4oV1" + lines[2][lines[2].index(",") :]
    table.write_text("".join(lines), encoding="utf-8")
    result = CliRunner().invoke(
        main, ["reported", "import", "--source-dir", str(tmp_path), "--store", str(db)]
    )
    assert result.exit_code == 1 and f"{table}:3 [judge]: the judge name contains U+202E" in (
        result.output
    )


@pytest.mark.slow
def test_the_site_shows_a_bounded_summary_and_links_the_whole_meta(
    datasets_dir: Path, predictions: Path, tmp_path: Path
) -> None:
    meta = {f"key{i:02d}": "v" * 5_000 for i in range(30)} | {"nested": {"a": [1, 2, 3]}}
    result = evaluate_file(
        "stepmathbench", predictions, "big meta", datasets_dir=datasets_dir, n_boot=5, meta=meta
    )
    db = tmp_path / "r.duckdb"
    sid = store.save(db, result)
    site = tmp_path / "site"
    publish_site(db, site)
    doc = json.loads((site / "data" / "leaderboard.json").read_text())
    (sub,) = doc["benchmarks"][0]["submissions"]
    assert sub["meta_file"] == f"meta/{sid}.json"
    assert list(sub["meta"]) == [f"key{i:02d}" for i in range(20)]  # 20 of 31, sorted
    assert all(value == "v" * 200 + "…" for value in sub["meta"].values())
    assert json.loads((site / "data" / "meta" / f"{sid}.json").read_text()) == meta
    assert len(json.dumps(sub["meta"])) < 5_000  # 20 x 200 characters, not 31 x 5,000
    assert (site / "data" / "leaderboard.json").stat().st_size < 100_000  # not 155,000 of meta
    page = (site / "stepmathbench.html").read_text()
    assert f'href="data/meta/{sid}.json"' in page and "v" * 201 not in page


def test_the_summary_replaces_what_an_older_store_let_through() -> None:
    assert summary({f"a{RLO}b": f"x\x00y{RLO}", "n": 3}) == {
        "a\ufffdb": "x\ufffdy\ufffd",
        "n": "3",
    }
