"""The leaderboard as a repository: `mathjudge submit` writes checked submission folders,
`mathjudge repo sync` scores only what is new or changed, drops what was removed, and
renders a site that is a function of the repository's files alone.

On the real StepMathBench; expected values come from the files (checksums by hashlib, scores
from a direct `evaluate_file` of the same predictions), not from the code under test.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge.api import publish_site
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.cli import main
from mathjudge.repo.folder import find_folders, read_meta
from mathjudge.repo.submit import submit
from mathjudge.repo.sync import check, needed_datasets, sync
from mathjudge.scoring.evaluator import evaluate_file

META = {
    "judge": "Plus one",
    "model": "none",
    "organization": "Test Lab",
    "link": "https://example.org/plus-one",
    "date": "2025-06-01",
    "config": {"rule": "gold score plus one, at most 10"},
    "open_weights": None,
    "license": "CC0-1.0",
    "contact": "lab@example.org",
}
B = 40


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _meta(folder: Path, **changes: Any) -> Path:
    path = folder / f"meta-{len(list(folder.glob('meta-*')))}.yaml"
    path.write_text(yaml.safe_dump({**META, **changes}), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path: Path, stepmath_rows: list[dict]) -> dict[str, Path]:
    rows = [{"item_id": r["uid"], "score": min(10, r["gold_score"] + 1)} for r in stepmath_rows]
    exact = [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in stepmath_rows]
    preds = write_jsonl(tmp_path / "plus-one.jsonl", rows)
    details = [
        {"item_id": r["uid"], "rationale": f"gold {r['gold_score']} + 1"} for r in stepmath_rows[:3]
    ]
    write_jsonl(tmp_path / "plus-one.details.jsonl", details)  # found beside the predictions
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    return {
        "preds": preds,
        "exact": write_jsonl(tmp_path / "exact.jsonl", exact),
        "meta": _meta(tmp_path),
        "repo": repo,
        "tmp": tmp_path,
    }


def test_submit_writes_a_checked_folder_and_versions_changes(
    files: dict[str, Path], datasets_dir: Path
) -> None:
    repo = files["repo"]
    done = submit("stepmathbench", files["preds"], files["meta"], repo,
                  datasets_dir=datasets_dir, now="2025-06-02T10:00:00+00:00")  # fmt: skip
    folder = repo / "submissions" / "stepmathbench" / "plus-one"
    assert (done.folder, done.status, done.version, done.details) == (folder, "new", 1, 3)
    assert sorted(p.name for p in folder.iterdir()) == [
        "details.jsonl", "meta.yaml", "predictions.jsonl", "submission.json",
    ]  # fmt: skip
    record = json.loads((folder / "submission.json").read_text())
    assert record["files"] == {
        name: _sha(folder / name) for name in ("predictions.jsonl", "meta.yaml", "details.jsonl")
    }
    assert record["files"]["predictions.jsonl"] == _sha(files["preds"])  # copied byte for byte
    assert (record["version"], record["submitted"], record["history"]) == (
        1, "2025-06-02T10:00:00+00:00", [],
    )  # fmt: skip
    assert read_meta(folder / "meta.yaml").model_dump(mode="json")["license"] == "CC0-1.0"
    # The same files again change nothing.
    again = submit("stepmathbench", files["preds"], files["meta"], repo, datasets_dir=datasets_dir)
    assert (again.status, again.version) == ("unchanged", 1)
    assert json.loads((folder / "submission.json").read_text()) == record
    # Another meta is a new version, not a silent replacement: the old checksums are kept.
    changed = _meta(files["tmp"], config={"rule": "gold plus one", "prompt_version": 2})
    new = submit("stepmathbench", files["preds"], changed, repo, datasets_dir=datasets_dir,
                 now="2025-07-01T00:00:00+00:00")  # fmt: skip
    assert (new.status, new.version) == ("new version", 2)
    second = json.loads((folder / "submission.json").read_text())
    assert second["history"] == [
        {k: record[k] for k in ("version", "submitted", "files", "options")}
    ]
    assert second["files"]["meta.yaml"] != record["files"]["meta.yaml"]
    assert second["files"]["predictions.jsonl"] == record["files"]["predictions.jsonl"]


def test_submit_refuses_bad_input_and_writes_nothing(
    files: dict[str, Path], datasets_dir: Path
) -> None:
    repo, tmp = files["repo"], files["tmp"]

    def refused(meta: Path, match: str, preds: Path | None = None) -> None:
        with pytest.raises(MathJudgeError, match=match):
            submit("stepmathbench", preds or files["preds"], meta, repo, datasets_dir=datasets_dir)
        assert list((repo / "submissions").iterdir()) == []

    no_license = tmp / "no-license.yaml"
    no_license.write_text(yaml.safe_dump({k: v for k, v in META.items() if k != "license"}))
    refused(no_license, r"no-license\.yaml \[license\]: missing \(a required field\)")
    refused(_meta(tmp, link="example.org"), r"\[link\]: String should match pattern")
    refused(_meta(tmp, temperature=0), r"\[temperature\]: not a field of the meta")
    refused(_meta(tmp, config=None), "give the prompt or the config")
    refused(_meta(tmp, judge="bad\u202ename"), r"\[judge\]: .*U\+202E \(right-to-left override\)")
    broken = tmp / "broken.yaml"
    broken.write_text("judge: [unclosed\n")
    refused(broken, r"broken\.yaml:\d+: not valid YAML")
    bad = write_jsonl(tmp / "bad.jsonl", [{"item_id": "stepmath-1", "score": 11}])
    with pytest.raises(ValidationFailed, match=r"bad\.jsonl:1"):
        submit("stepmathbench", bad, files["meta"], repo, datasets_dir=datasets_dir)
    # A details row for an item the predictions do not cover, located by file, line and field.
    write_jsonl(tmp / "exact.details.jsonl", [{"item_id": "stepmath-1"}, {"item_id": "nope"}])
    with pytest.raises(ValidationFailed, match=r"exact\.details\.jsonl:2 \[item_id\]"):
        submit("stepmathbench", files["exact"], files["meta"], repo, datasets_dir=datasets_dir)
    assert list((repo / "submissions").iterdir()) == []


def _store_rows(store: Path) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(store), read_only=True) as con:
        return con.execute(
            "SELECT judge, CAST(created AS VARCHAR), json_extract_string(meta, '$.license') "
            "FROM submissions ORDER BY judge"
        ).fetchall()


def test_sync_scores_only_what_changed_and_drops_what_was_removed(
    files: dict[str, Path], datasets_dir: Path
) -> None:
    repo, tmp = files["repo"], files["tmp"]
    store = tmp / "results.duckdb"
    submit("stepmathbench", files["preds"], files["meta"], repo, datasets_dir=datasets_dir,
           now="2025-06-02T10:00:00+00:00")  # fmt: skip
    exact_meta = _meta(tmp, judge="Exact copy", license="CC-BY-4.0")
    submit("stepmathbench", files["exact"], exact_meta, repo, datasets_dir=datasets_dir,
           now="2025-06-03T10:00:00+00:00")  # fmt: skip
    first = sync(repo, store, datasets_dir, n_boot=B)
    assert first.evaluated == ["stepmathbench/exact-copy", "stepmathbench/plus-one"]
    assert (first.unchanged, first.removed) == ([], [])
    # Dated by the submission, not by when it was scored.
    assert _store_rows(store) == [
        ("Exact copy", "2025-06-03 10:00:00", "CC-BY-4.0"),
        ("Plus one", "2025-06-02 10:00:00", "CC0-1.0"),
    ]
    # The stored scores are exactly those of evaluating the file directly.
    direct = evaluate_file("stepmathbench", files["preds"], "Plus one",
                           datasets_dir=datasets_dir, n_boot=B, meta=read_meta(files["meta"]).stored())  # fmt: skip
    with duckdb.connect(str(store), read_only=True) as con:
        (sid,) = con.execute("SELECT id FROM submissions WHERE judge = 'Plus one'").fetchone()
        mse = con.execute(
            "SELECT value FROM scores WHERE submission_id = ? AND scope = 'overall' "
            "AND metric = 'mse'", [sid],
        ).fetchone()[0]  # fmt: skip
        details = con.execute(
            "SELECT item_id, CAST(details AS VARCHAR) FROM item_details ORDER BY item_id"
        ).fetchall()
    assert sid == direct.id
    assert mse == next(s.value for s in direct.scores if (s.scope, s.metric) == ("overall", "mse"))
    assert [d[0] for d in details] == ["stepmath-1", "stepmath-2", "stepmath-3"]
    # Nothing changed: nothing scored.
    again = sync(repo, store, datasets_dir, n_boot=B)
    assert (again.evaluated, again.removed) == ([], [])
    assert again.unchanged == first.evaluated
    # A new version of one, and the other removed.
    submit("stepmathbench", files["preds"], _meta(tmp, license="MIT"), repo,
           datasets_dir=datasets_dir, now="2025-08-01T00:00:00+00:00")  # fmt: skip
    shutil.rmtree(repo / "submissions" / "stepmathbench" / "exact-copy")
    third = sync(repo, store, datasets_dir, n_boot=B)
    assert (third.evaluated, third.removed) == (
        ["stepmathbench/plus-one"],
        ["stepmathbench/exact-copy"],
    )
    assert _store_rows(store) == [("Plus one", "2025-08-01 00:00:00", "MIT")]


@pytest.mark.slow
def test_the_site_is_a_function_of_the_repository(
    files: dict[str, Path], datasets_dir: Path
) -> None:
    """Two stores synced from the same files at different times render identical sites."""
    repo, tmp = files["repo"], files["tmp"]
    submit("stepmathbench", files["preds"], files["meta"], repo, datasets_dir=datasets_dir)
    sites = []
    for name in ("a", "b"):
        (tmp / name).mkdir()
        sync(repo, tmp / name / "results.duckdb", datasets_dir, n_boot=B)
        sites.append(publish_site(tmp / name / "results.duckdb", tmp / name / "site").parent)
    a, b = sites
    pages = sorted(p.relative_to(a) for p in a.rglob("*") if p.is_file())
    assert pages == sorted(p.relative_to(b) for p in b.rglob("*") if p.is_file())
    assert len(pages) > 50 and Path("data/items/stepmathbench/index.js") in pages
    assert [p for p in pages if (a / p).read_bytes() != (b / p).read_bytes()] == []


def test_tampered_or_odd_folders_are_refused(files: dict[str, Path], datasets_dir: Path) -> None:
    repo = files["repo"]
    submit("stepmathbench", files["preds"], files["meta"], repo, datasets_dir=datasets_dir)
    folder = repo / "submissions" / "stepmathbench" / "plus-one"
    assert [f.name for f in find_folders(repo)] == ["stepmathbench/plus-one"]
    with (folder / "predictions.jsonl").open("a") as handle:
        handle.write('{"item_id": "stepmath-1", "score": 0, "run": 1}\n')
    with pytest.raises(MathJudgeError, match=r"predictions\.jsonl: its sha256 differs"):
        find_folders(repo)
    shutil.copy(files["preds"], folder / "predictions.jsonl")
    (folder / "notes.txt").write_text("hi")
    with pytest.raises(MathJudgeError, match=r"not listed: notes\.txt"):
        find_folders(repo)
    (folder / "notes.txt").unlink()
    (repo / "submissions" / "nobench").mkdir()
    with pytest.raises(MathJudgeError, match="'nobench' is not a benchmark"):
        find_folders(repo)


def test_check_scores_the_folders_a_pull_request_changes(
    files: dict[str, Path], datasets_dir: Path
) -> None:
    repo, tmp = files["repo"], files["tmp"]
    submit("stepmathbench", files["preds"], files["meta"], repo, datasets_dir=datasets_dir)
    submit("stepmathbench", files["exact"], _meta(tmp, judge="Exact copy"), repo,
           datasets_dir=datasets_dir)  # fmt: skip
    changed = ["submissions/stepmathbench/exact-copy/meta.yaml",
               "submissions/stepmathbench/gone/predictions.jsonl"]  # fmt: skip
    ((folder, result),) = check(repo, datasets_dir, changed, n_boot=B)
    assert folder.name == "stepmathbench/exact-copy" and result.judge == "Exact copy"
    assert next(s.value for s in result.scores if (s.scope, s.metric) == ("overall", "mse")) == 0
    assert needed_datasets(repo) == ["stepmathbench"]
    assert needed_datasets(repo, changed) == ["stepmathbench"]
    assert check(repo, datasets_dir, [], n_boot=B) == []  # an empty list names nothing
    # A path outside submissions/ is refused, not ignored (the contract of --paths-from).
    with pytest.raises(MathJudgeError, match=r"'README\.md': not a path under submissions/"):
        check(repo, datasets_dir, [*changed, "README.md"], n_boot=B)
    assert not (tmp / "results.duckdb").exists()  # nothing written


@pytest.mark.slow
def test_cli_submit_sync_and_check(files: dict[str, Path], datasets_dir: Path) -> None:
    runner = CliRunner()
    repo, tmp = files["repo"], files["tmp"]
    data = ["--datasets", str(datasets_dir)]
    done = runner.invoke(main, ["submit", "stepmathbench", str(files["preds"]), "--meta",
                                str(files["meta"]), "--to", str(repo), *data])  # fmt: skip
    assert done.exit_code == 0, done.output
    assert "new (version 1); 1000/1000 items (100.0%), fields: score, 3 details rows" in done.output
    bad = runner.invoke(main, ["submit", "stepmathbench", str(files["preds"]), "--meta",
                               str(_meta(tmp, link="nope")), "--to", str(repo), *data])  # fmt: skip
    assert bad.exit_code == 1 and "[link]" in bad.output and "Traceback" not in bad.output
    store, out = tmp / "r.duckdb", tmp / "site"
    args = ["repo", "sync", str(repo), "--store", str(store), "--out", str(out),
            "--bootstrap", str(B), "--quiet", *data]  # fmt: skip
    synced = runner.invoke(main, args)
    assert synced.exit_code == 0, synced.output
    assert "1 submission(s) scored, 0 unchanged, 0 removed" in synced.output
    assert (out / "index.html").is_file() and "Plus one" in (out / "index.html").read_text()
    assert "0 submission(s) scored, 1 unchanged" in runner.invoke(main, args).output
    checked = runner.invoke(main, ["repo", "check", str(repo), "--bootstrap", "20", *data])
    assert checked.exit_code == 0, checked.output
    assert "stepmathbench/plus-one: Plus one (version 1)" in checked.output
    assert "repository valid; 1 submission(s) scored" in checked.output
    listed = runner.invoke(main, ["repo", "datasets", str(repo)])
    assert listed.output == "stepmathbench\n"
