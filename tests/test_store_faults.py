"""Faults end in a message, never a traceback, and leave nothing partial: a full disk while
the store, `--json`, a dataset or the site is written; a store of another schema version, an
empty or foreign DuckDB file; a sync killed midway (it resumes); a stored row the site cannot
render (left out and reported); and a maintainer can take results out of the store.

The full disk is a small tmpfs where this process may mount one (as root, as in CI); elsewhere
each command runs with a file size limit (RLIMIT_FSIZE), whose EFBIG fails writes the way a
full disk's ENOSPC does. Every assertion below holds under either.
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from conftest import write_jsonl
from mathjudge import store as results_store
from mathjudge.base.errors import MathJudgeError
from mathjudge.cli import main
from mathjudge.repo import sync as sync_module
from mathjudge.repo.submit import submit
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.store import read

B = "5"
FULL = "the disk is full"


@dataclass
class SmallDisk:
    """A folder on a tmpfs of `size` bytes, or else (not `mounted`) a folder whose commands
    run with their file size limited to `limit` bytes (see the module note)."""

    path: Path
    limit: int
    mounted: bool

    def run(self, *args: str) -> subprocess.CompletedProcess:
        limit = None if self.mounted else self.limit

        def limited() -> None:
            if limit is not None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        return subprocess.run([sys.executable, "-m", "mathjudge", *args], capture_output=True,
                              text=True, preexec_fn=limited, timeout=300)  # fmt: skip


def _mount(path: Path, size: int) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True)  # fmt: skip
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[..., SmallDisk]]:
    mounts: list[Path] = []

    def make(size: int, limit: int | None = None) -> SmallDisk:
        path = tmp_path / f"disk-{uuid.uuid4().hex[:8]}"
        path.mkdir()
        mounted = _mount(path, size)
        if mounted:
            mounts.append(path)
        return SmallDisk(path, size if limit is None else limit, mounted)

    yield make
    for path in mounts:
        subprocess.run(["umount", str(path)], check=False)


def full_disk_message(done: subprocess.CompletedProcess) -> str:
    out = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in out, out
    assert FULL in out and "no transaction is active" not in out, out
    return out


@pytest.fixture(scope="module")
def preds(stepmath_rows: list[dict], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("preds") / "p.jsonl"
    return write_jsonl(path, [{"item_id": r["uid"], "score": 5} for r in stepmath_rows])


@pytest.fixture(scope="module")
def one_result(preds: Path, datasets_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one result (copied by the tests that change it)."""
    path = tmp_path_factory.mktemp("store") / "results.duckdb"
    results_store.save(path, evaluate_file("stepmathbench", preds, "first",
                                           datasets_dir=datasets_dir, n_boot=int(B)))  # fmt: skip
    return path


def evaluate_args(preds: Path, datasets: Path, store: Path, *extra: str) -> list[str]:
    return ["evaluate", "stepmathbench", str(preds), "--judge", "second", "--store", str(store),
            "--bootstrap", B, "--quiet", "--datasets", str(datasets), *extra]  # fmt: skip


def judges(store: Path) -> list[str]:
    with duckdb.connect(str(store), read_only=True) as con:
        return [
            r[0] for r in con.execute("SELECT judge FROM submissions ORDER BY judge").fetchall()
        ]


# --- 9. a full disk ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_full_disk_under_a_new_store_leaves_no_store_and_no_json(
    small_disk, preds: Path, datasets_dir: Path, tmp_path: Path
) -> None:
    """The failed COMMIT ended DuckDB's transaction, and the ROLLBACK after it said "cannot
    rollback - no transaction is active", hiding the full disk."""
    disk = small_disk(300 << 10)
    store, out = disk.path / "results.duckdb", tmp_path / "out.json"
    done = disk.run(*evaluate_args(preds, datasets_dir, store, "--json", str(out)))
    assert f"{store}: could not write to the results store: {FULL}" in full_disk_message(done)
    assert sorted(disk.path.iterdir()) == [] and not out.exists()


@pytest.mark.slow
def test_a_full_disk_under_an_existing_store_keeps_it_as_it_was(
    small_disk, preds: Path, datasets_dir: Path, one_result: Path
) -> None:
    disk = small_disk(one_result.stat().st_size + (1 << 20), limit=20 << 10)
    store = disk.path / "results.duckdb"
    shutil.copy(one_result, store)
    if disk.mounted:  # fill what is left, so the next write meets a full disk
        with (disk.path / "filler").open("wb") as filler, suppress(OSError):
            while True:
                filler.write(b"\0" * (16 << 10))
                filler.flush()
    done = disk.run(*evaluate_args(preds, datasets_dir, store))
    full_disk_message(done)
    assert judges(store) == ["first"]


@pytest.mark.slow
def test_a_full_disk_under_json_stores_nothing(
    small_disk, preds: Path, datasets_dir: Path, one_result: Path, tmp_path: Path
) -> None:
    """With a little more room the result was stored, then `--json` failed with an OSError
    traceback: a store holding a result its JSON never claimed."""
    disk = small_disk(4 << 10)
    store = tmp_path / "results.duckdb"
    shutil.copy(one_result, store)
    out = disk.path / "out.json"
    full_disk_message(disk.run(*evaluate_args(preds, datasets_dir, store, "--json", str(out))))
    assert judges(store) == ["first"]
    assert list(disk.path.iterdir()) == []


@pytest.mark.slow
def test_a_full_disk_under_the_site_leaves_no_site(small_disk, one_result: Path) -> None:
    """(Under a file size limit instead of a tmpfs, the store's own write meets it first.)"""
    disk = small_disk(1 << 20, limit=20 << 10)
    store = disk.path.parent / "store.duckdb"
    shutil.copy(one_result, store)
    site = disk.path / "site"
    full_disk_message(disk.run("site", "build", "--store", str(store), "--out", str(site)))
    assert list(disk.path.iterdir()) == []


def test_a_full_disk_under_a_dataset_build_leaves_no_dataset(small_disk, mirror: Path) -> None:
    disk = small_disk(200 << 10)
    out = disk.path / "datasets"
    done = disk.run("build", "stepmathbench", "--source-dir", str(mirror), "--out", str(out))
    full_disk_message(done)
    assert not (out / "stepmathbench").exists()
    assert not out.exists() or list(out.iterdir()) == []


# --- 9. the store's schema, checked on open ------------------------------------------------------


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def refused(result: Result, text: str) -> None:
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert text in result.output, result.output


@pytest.fixture
def evaluate_into(preds: Path, datasets_dir: Path):
    return lambda store: cli(*evaluate_args(preds, datasets_dir, store))


def test_an_empty_duckdb_file_is_no_store(
    evaluate_into, datasets_dir: Path, tmp_path: Path
) -> None:
    """`site build` on one leaked "Need a DataFrame with at least one column"."""
    store = tmp_path / "empty.duckdb"
    duckdb.connect(str(store)).close()
    expected = f"{store}: an empty DuckDB database, not a mathjudge results store"
    refused(cli("site", "build", "--store", str(store), "--out", str(tmp_path / "s")),
            expected)  # fmt: skip
    refused(cli("compare", "stepmathbench", "a", "b", "--store", str(store), "--datasets",
                str(datasets_dir)), expected)  # fmt: skip
    refused(evaluate_into(store), expected)
    refused(cli("results", "remove", "a", "--store", str(store), "--yes"), expected)
    with duckdb.connect(str(store), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == (0,)


def test_a_foreign_duckdb_database_is_never_written(evaluate_into, tmp_path: Path) -> None:
    """`evaluate` wrote mathjudge's tables into an unrelated database."""
    store = tmp_path / "shop.duckdb"
    with duckdb.connect(str(store)) as con:
        con.execute("CREATE TABLE customers (id INTEGER, name VARCHAR)")
    refused(evaluate_into(store), "a DuckDB database of other tables (customers), not a mathjudge")
    with duckdb.connect(str(store), read_only=True) as con:
        assert [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()] \
            == ["customers"]  # fmt: skip


def _label(store: Path, version: str) -> None:
    with duckdb.connect(str(store)) as con:
        con.execute("UPDATE store_info SET value = ? WHERE key = 'schema_version'", [version])


def _version(store: Path) -> str:
    with duckdb.connect(str(store), read_only=True) as con:
        return con.execute("SELECT value FROM store_info").fetchone()[0]


def test_a_newer_store_is_refused_and_left_as_it_is(
    evaluate_into, one_result: Path, tmp_path: Path
) -> None:
    """A store labelled 99 was silently relabelled to the current version."""
    store = tmp_path / "r.duckdb"
    shutil.copy(one_result, store)
    _label(store, "99")
    refused(evaluate_into(store), "a results store of schema 99, written by a newer mathjudge")
    refused(cli("site", "build", "--store", str(store), "--out", str(tmp_path / "s")),
            "schema 99")  # fmt: skip
    assert _version(store) == "99" and judges(store) == ["first"]


def _schema_1(store: Path) -> None:
    """What a store of schema 1 looked like: no extras column, no later tables."""
    with duckdb.connect(str(store)) as con:
        for table in ("item_details", "repository", "documents", "datasets", "submitted_files"):
            con.execute(f"DROP TABLE {table}")
        con.execute("ALTER TABLE submissions DROP COLUMN extras")
    _label(store, "1")


def test_an_older_store_is_brought_up_to_date_and_kept(
    evaluate_into, one_result: Path, tmp_path: Path
) -> None:
    """A store of an older schema got a raw binder error, and was relabelled all the same."""
    store = tmp_path / "r.duckdb"
    shutil.copy(one_result, store)
    _schema_1(store)
    done = evaluate_into(store)
    assert done.exit_code == 0, done.output
    assert _version(store) == "4"
    assert judges(store) == ["first", "second"]


def test_an_upgrade_is_one_transaction(
    one_result: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade that fails halfway leaves the store as it was, at its old version."""
    from mathjudge.store import schema

    store = tmp_path / "r.duckdb"
    shutil.copy(one_result, store)
    _schema_1(store)
    monkeypatch.setattr(schema, "UPGRADES", (*schema.UPGRADES, "SELECT * FROM no_such_table"))
    with (
        pytest.raises(MathJudgeError, match="could not prepare the results store"),
        read.reading(store) as con,
    ):
        con.execute("SELECT 1")
    assert _version(store) == "1"
    with duckdb.connect(str(store), read_only=True) as con:
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        columns = {r[0] for r in con.execute("DESCRIBE submissions").fetchall()}
    assert "repository" not in tables and "extras" not in columns


# --- 9. a sync killed midway resumes ----------------------------------------------------------------


def test_a_killed_sync_keeps_what_it_scored_and_resumes(
    stepmath_rows: list[dict], datasets_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed while scoring the third of four folders, a sync lost all the scoring done."""
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    for i in range(4):
        preds = write_jsonl(tmp_path / f"{i}.jsonl",
                            [{"item_id": r["uid"], "score": i} for r in stepmath_rows[:50]])  # fmt: skip
        meta = tmp_path / f"{i}.yaml"
        meta.write_text(f"judge: J{i}\nmodel: none\norganization: L\nlink: https://e.org\n"
                        "date: 2025-06-01\nconfig: {rule: r}\nopen_weights: null\n"
                        "license: CC0-1.0\ncontact: c\n")  # fmt: skip
        submit("stepmathbench", preds, meta, repo, datasets_dir=datasets_dir, allow_partial=True)
    score = sync_module.score_folder
    scored: list[str] = []

    def killed_at_the_third(folder, *args, **kwargs):
        if len(scored) == 2:
            raise KeyboardInterrupt  # as a kill would stop it, mid-scoring
        scored.append(folder.name)
        return score(folder, *args, **kwargs)

    monkeypatch.setattr(sync_module, "score_folder", killed_at_the_third)
    store = tmp_path / "results.duckdb"
    with pytest.raises(KeyboardInterrupt):
        sync_module.sync(repo, store, datasets_dir, n_boot=int(B))
    assert judges(store) == ["J0", "J1"]
    monkeypatch.setattr(sync_module, "score_folder", score)
    again = sync_module.sync(repo, store, datasets_dir, n_boot=int(B))
    assert again.unchanged == ["stepmathbench/j0", "stepmathbench/j1"]
    assert again.evaluated == ["stepmathbench/j2", "stepmathbench/j3"]
    assert judges(store) == ["J0", "J1", "J2", "J3"]


# --- 9. a store a maintainer can repair -------------------------------------------------------------


def _poison(store: Path, judge: str) -> str:
    """A stored meta no page can hold, as stores written before the checks may have."""
    with duckdb.connect(str(store)) as con:
        con.execute("UPDATE submissions SET meta = '{\"samples\": Infinity}' WHERE judge = ?",
                    [judge])  # fmt: skip
        return con.execute("SELECT id FROM submissions WHERE judge = ?", [judge]).fetchone()[0]


@pytest.mark.slow
def test_the_site_leaves_out_a_row_it_cannot_render_and_says_so(
    evaluate_into, one_result: Path, tmp_path: Path
) -> None:
    """One stored `{"samples": Infinity}` failed every build ("Out of range float values are
    not JSON compliant")."""
    store = tmp_path / "r.duckdb"
    shutil.copy(one_result, store)
    assert evaluate_into(store).exit_code == 0
    sid = _poison(store, "second")
    site = tmp_path / "site"
    built = cli("site", "build", "--store", str(store), "--out", str(site))
    assert built.exit_code == 0, built.output
    assert f"'second' (submission {sid}) cannot be rendered" in built.output
    assert f"mathjudge results remove {sid}" in built.output
    text = (site / "data" / "leaderboard.json").read_text()
    assert '"first"' in text and '"second"' not in text


def test_results_remove_takes_a_result_out_after_a_confirmation(
    evaluate_into, one_result: Path, tmp_path: Path
) -> None:
    store = tmp_path / "r.duckdb"
    shutil.copy(one_result, store)
    assert evaluate_into(store).exit_code == 0
    sid = _poison(store, "second")
    args = ["results", "remove", "second", "--store", str(store)]
    kept = CliRunner().invoke(main, args, input="n\n")
    assert kept.exit_code == 1 and "Aborted" in kept.output and judges(store) == ["first", "second"]
    refused(cli("results", "remove", "nobody", "--store", str(store)),
            "'nobody': no stored submission has exactly this judge name or id; nothing was removed")  # fmt: skip
    done = CliRunner().invoke(main, args, input="y\n")
    assert done.exit_code == 0, done.output
    assert (
        f"1 submission(s) in {store}:\n  {sid}  stepmathbench  reproduced  'second'" in done.output
    )
    assert f"removed 1 submission(s) from {store}: {sid}" in done.output
    assert judges(store) == ["first"]
    with duckdb.connect(str(store), read_only=True) as con:
        for table in ("scores", "item_predictions", "item_details"):
            left = con.execute(f"SELECT count(*) FROM {table} WHERE submission_id = ?", [sid])
            assert left.fetchone() == (0,)
    by_id = cli("results", "remove", judges_id(store, "first"), "--store", str(store), "--yes")
    assert by_id.exit_code == 0 and judges(store) == []


def judges_id(store: Path, judge: str) -> str:
    with duckdb.connect(str(store), read_only=True) as con:
        return con.execute("SELECT id FROM submissions WHERE judge = ?", [judge]).fetchone()[0]
