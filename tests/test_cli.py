"""The command line end to end: exit codes, messages, JSON output, and the demo."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from conftest import DemoRun, write_jsonl
from mathjudge.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mathjudge", *args], capture_output=True, text=True
    )


def test_evaluate_writes_json_and_store(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    preds = write_jsonl(
        tmp_path / "p.jsonl", [{"item_id": r["uid"], "score": 6} for r in stepmath_rows]
    )
    out, db = tmp_path / "out.json", tmp_path / "r.duckdb"
    result = CliRunner().invoke(
        main,
        [
            "evaluate",
            "stepmathbench",
            str(preds),
            "--judge",
            "sixes",
            "--datasets",
            str(datasets_dir),
            "--json",
            str(out),
            "--store",
            str(db),
            "--bootstrap",
            "100",
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "saved as submission" in result.output
    data = json.loads(out.read_text())
    assert data["judge"] == "sixes" and data["n_items"] == 1000 and data["coverage"] == 1.0
    assert data["bootstrap"]["B"] == 100 and data["bootstrap"]["seed"] == 2
    assert data["content_hash"].startswith("sha256:")
    overall = {s["metric"]: s for s in data["scores"] if s["scope"] == "overall"}
    assert overall["avg_score"]["value"] == 6.0 and overall["corr"]["value"] is None
    assert set(overall["mse"]) == {"scope", "subset", "metric", "value", "ci_low", "ci_high", "n"}


@pytest.mark.slow
def test_bad_input_exits_1_and_leaves_store_unchanged(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    db = tmp_path / "r.duckdb"
    good = write_jsonl(
        tmp_path / "good.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )
    common = ["--datasets", str(datasets_dir), "--store", str(db), "--bootstrap", "10", "--quiet"]
    assert run("evaluate", "stepmathbench", str(good), "--judge", "ok", *common).returncode == 0
    before = db.read_bytes()

    cases = {
        "malformed.jsonl": (
            '{"item_id": "stepmath-1", "score": 5}\n{"item_id": \n',
            "malformed.jsonl:2: not valid JSON",
        ),
        "unknown.jsonl": (
            '{"item_id": "stepmath-0", "score": 5}\n',
            "unknown.jsonl:1 [item_id]: unknown item_id 'stepmath-0'",
        ),
        "dup.jsonl": (
            '{"item_id": "stepmath-1", "score": 5}\n{"item_id": "stepmath-1", "score": 4}\n',
            "dup.jsonl:2 [item_id]: duplicate 'stepmath-1' (first on line 1)",
        ),
        "range.jsonl": (
            '{"item_id": "stepmath-1", "score": 70}\n',
            "range.jsonl:1 [score]: Input should be less than or equal to 10",
        ),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        proc = run(
            "evaluate",
            "stepmathbench",
            str(tmp_path / name),
            "--judge",
            "bad",
            "--allow-partial",
            *common,
        )
        assert proc.returncode == 1, proc.stderr
        assert message in proc.stderr
        assert "Traceback" not in proc.stderr
        assert db.read_bytes() == before


@pytest.mark.slow
def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run("evaluate", "nosuchbench", "x.jsonl", "--judge", "j").returncode == 2
    assert run("evaluate", "stepmathbench", "x.jsonl").returncode == 2  # --judge missing


@pytest.mark.slow
def test_missing_dataset_is_explained(tmp_path: Path) -> None:
    proc = run("validate", "stepmathbench", "x.jsonl", "--datasets", str(tmp_path))
    assert proc.returncode == 1
    assert "mathjudge build stepmathbench" in proc.stderr


def test_build_and_validate_commands(
    mirror: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    proc = run("build", "stepmathbench", "--source-dir", str(mirror), "--out", str(tmp_path / "ds"))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ds" / "stepmathbench" / "manifest.json").is_file()
    preds = write_jsonl(
        tmp_path / "p.jsonl",
        [{"item_id": r["uid"], "answer_correct": True} for r in stepmath_rows[:5]],
    )
    proc = run(
        "validate",
        "stepmathbench",
        str(preds),
        "--datasets",
        str(tmp_path / "ds"),
        "--allow-partial",
    )
    assert proc.returncode == 0, proc.stderr
    assert "5/1000 items (0.5%)" in proc.stdout


def test_demo_from_a_clean_folder(
    demo_run: DemoRun, mirror: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, env = demo_run.folder, demo_run.env
    assert "open the leaderboard: file://" in demo_run.stdout
    assert "built 11 dataset(s), scored 134 submission(s) (0 unchanged" in demo_run.stdout
    assert "; 0 baseline(s) kept from an earlier run" in demo_run.stdout
    stamps = sorted((folder / "predictions").glob("*/*.inputs.json"))
    baselines = {p: p.with_name(p.name.replace(".inputs.json", ".jsonl")) for p in stamps}
    assert len(baselines) == 33 and all(p.is_file() for p in baselines.values())
    written = {p: p.stat().st_mtime_ns for p in baselines.values()}
    # Run again, it scores nothing and says so (it used to say it evaluated them all), and
    # keeps every baseline's predictions: nothing they are computed from has changed.
    again = subprocess.run(
        [sys.executable, "-m", "mathjudge", "demo", "--quiet"],
        cwd=folder, capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "scored 0 submission(s) (134 unchanged, scored before)" in again.stdout
    assert "; 33 baseline(s) kept from an earlier run" in again.stdout
    assert {p: p.stat().st_mtime_ns for p in baselines.values()} == written
    assert (folder / "site" / "index.html").is_file()
    published = (
        "mrmath",
        "judgebench",
        "judgebench_claude",
        "rewardmath",
        "rewardmath_pairwise",
        "rewardbench_math",
        "mathcheck_gsm",
        "mathcheck_gsm_process",
        "realmistake",
    )
    with duckdb.connect(str(folder / "results.duckdb"), read_only=True) as con:
        rows = con.execute(
            "SELECT benchmark, judge, partial, coverage FROM submissions WHERE source = 'reproduced' "
            "AND benchmark NOT IN (SELECT unnest(?)) ORDER BY ALL",
            [list(published)],
        ).fetchall()
        # the judge outputs the papers publish, each a complete submission but ReaLMistake's
        # three self-consistency judges (published for 50 of the 300 responses)
        imported = con.execute(
            "SELECT benchmark, count(*), bool_and(NOT partial) FROM submissions "
            "WHERE source = 'reproduced' AND benchmark IN (SELECT unnest(?)) "
            "AND meta->>'kind' <> 'baseline' GROUP BY ALL ORDER BY ALL",
            [list(published)],
        ).fetchall()
        # the shortcut baselines of those boards, computed from the items
        shortcuts = con.execute(
            "SELECT benchmark, count(*) FROM submissions WHERE source = 'reproduced' "
            "AND benchmark IN (SELECT unnest(?)) AND meta->>'kind' = 'baseline' "
            "GROUP BY ALL ORDER BY ALL",
            [list(published)],
        ).fetchall()
        reported = dict(
            con.execute(
                "SELECT benchmark, count(*) FROM submissions WHERE source = 'reported' GROUP BY ALL"
            ).fetchall()
        )
    assert rows == [
        ("expertmath", "Solution length", False, 1.0),  # on the shipped example package
        ("opc", "Constant (always correct)", False, 1.0),
        ("opc", "Constant (always incorrect)", False, 1.0),
        ("opc", "OPC LLM judge (from the corpus)", True, 311 / 434),
        ("processbench", "Constant (first paragraph wrong)", False, 1.0),
        ("processbench", "Constant (no error)", False, 1.0),
        ("stepmathbench", "Answer equivalence (math-verify)", True, 0.719),
        ("stepmathbench", "Constant (full marks)", False, 1.0),
        ("stepmathbench", "RuleEM (final-answer match)", True, 0.725),
    ]
    assert reported == {
        "stepmathbench": 27,
        "proofbench": 44,
        "proofbench_bon": 2,
        "mumath": 40,
        "expertmath": 8,
        "judgebench": 33,
        "rewardmath": 13,
        "processbench": 44,
        "realmistake": 12,
    }
    assert imported == [
        ("judgebench", 6, True),
        ("judgebench_claude", 1, True),
        ("mathcheck_gsm", 5, True),
        ("mathcheck_gsm_process", 5, True),
        ("mrmath", 12, True),
        ("realmistake", 28, False),
        ("rewardbench_math", 13, True),
        ("rewardmath", 22, True),
        ("rewardmath_pairwise", 9, True),
    ]
    assert shortcuts == [
        ("judgebench", 4),
        ("judgebench_claude", 4),
        ("mathcheck_gsm", 2),
        ("mathcheck_gsm_process", 2),
        ("mrmath", 2),
        ("realmistake", 2),
        ("rewardbench_math", 2),
        ("rewardmath", 2),
        ("rewardmath_pairwise", 4),
    ]
    # Every imported judge says what kind it is and where its outputs are published; the
    # demo's own baselines say they are baselines or rules.
    with duckdb.connect(str(folder / "results.duckdb"), read_only=True) as con:
        metas = con.execute(
            "SELECT benchmark, judge, meta FROM submissions WHERE source = 'reproduced'"
        ).fetchall()
    for benchmark, judge, meta in metas:
        meta = json.loads(meta)
        assert meta["kind"] in (
            "llm_judge",
            "reward_model",
            "process_reward_model",
            "rule",
            "baseline",
        )
        published_judge = (
            benchmark in published and meta["kind"] != "baseline"
        ) or judge.startswith("OPC LLM judge")
        assert meta.get("converted_from", "").startswith("https://github.com/") == published_judge
    for page in (
        "stepmathbench",
        "opc",
        "proofbench",
        "mumath",
        "expertmath",
        "processbench",
        *published,
    ):
        assert (folder / "site" / f"{page}.html").is_file()
    # No page or data file names the folder the demo was built in (or the mirror it read).
    leaked = [
        str(path.relative_to(folder))
        for path in (folder / "site").rglob("*")
        if path.is_file()
        and (str(folder).encode() in path.read_bytes() or str(mirror).encode() in path.read_bytes())
    ]
    assert leaked == []
    _reproduce_from_files(folder, mirror, monkeypatch)
    funnel = json.loads((folder / "arxiv-filter" / "funnel.json").read_text())
    assert funnel["steps"][0]["count"] == 13131  # every listing row read
    survivors = next(s["count"] for s in funnel["steps"] if s["name"] == "unique")
    candidates = pq.read_table(folder / "arxiv-filter" / "candidates.parquet")
    assert candidates.num_rows == survivors > 0


TIME = re.compile(rb"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(\+00:00| UTC)?")
# The document's fingerprint hashes the store's rows, submission times included.
FINGERPRINT = re.compile(rb'"fingerprint": ?"[0-9a-f]{64}"')


def _comparable(data: bytes) -> bytes:
    return FINGERPRINT.sub(b"<fingerprint>", TIME.sub(b"<time>", data))


def _reproduce_from_files(demo: Path, mirror: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mathjudge submit` of every judge the demo submitted into a new, empty leaderboard
    repository, then `mathjudge repo sync`: the same site, file for file; only the
    submission times differ (each submission is dated when it was submitted). A second sync
    scores nothing. The commands run in this process: the demo above is the test of a process
    started from a clean folder, and 83 more processes would each import the scoring stack."""
    repo = demo / "example"
    repo.mkdir()
    monkeypatch.chdir(repo)

    def cli(*args: str) -> str:
        done = CliRunner().invoke(main, list(args))
        assert done.exit_code == 0 and done.exception is None, (args, done.output)
        return done.stdout

    folders = sorted((demo / "leaderboard" / "submissions").glob("*/*"))
    assert len(folders) == 134
    for folder in folders:
        record = json.loads((folder / "submission.json").read_text())
        (predictions,) = folder.glob("predictions.*")
        args = ["submit", folder.parent.name, str(predictions), "--meta", str(folder / "meta.yaml"),
                "--to", ".", "--slug", folder.name, "--runs-agg", record["options"]["runs_agg"],
                "--datasets", str(demo / "datasets")]  # fmt: skip
        if (folder / "details.jsonl").is_file():
            args += ["--details", str(folder / "details.jsonl")]
        if record["options"]["allow_partial"]:
            args.append("--allow-partial")
        assert ": new (version 1)" in cli(*args)
    sync = ["repo", "sync", ".", "--store", "results.duckdb", "--out", "site",
            "--datasets", str(demo / "datasets"), "--reported", str(mirror / "reported"),
            "--include-local-texts", "--quiet"]  # fmt: skip
    assert "134 submission(s) scored, 0 unchanged, 0 removed" in cli(*sync)
    ours, theirs = demo / "site", repo / "site"
    files = sorted(p.relative_to(ours) for p in ours.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(theirs) for p in theirs.rglob("*") if p.is_file())
    differ = [
        f for f in files
        if _comparable((ours / f).read_bytes()) != _comparable((theirs / f).read_bytes())
    ]  # fmt: skip
    assert differ == [] and len(files) > 200
    assert "0 submission(s) scored, 134 unchanged, 0 removed" in cli(*sync)


@pytest.mark.slow
def test_compare_command(datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]) -> None:
    gold = write_jsonl(
        tmp_path / "gold.jsonl",
        [{"item_id": r["uid"], "score": r["gold_score"]} for r in stepmath_rows],
    )
    flat = write_jsonl(
        tmp_path / "flat.jsonl",
        [{"item_id": r["uid"], "score": 5.5 + (i % 2)} for i, r in enumerate(stepmath_rows)],
    )
    out = tmp_path / "cmp.json"
    proc = run(
        "compare",
        "stepmathbench",
        str(gold),
        str(flat),
        "--datasets",
        str(datasets_dir),
        "--bootstrap",
        "200",
        "--json",
        str(out),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    corr = next(r for r in data["rows"] if (r["scope"], r["metric"]) == ("overall", "corr"))
    assert corr["diff"] > 0 and corr["ci_low"] > 0
