"""Several processes on one results store: writers and readers wait for DuckDB's lock (up to
a bounded time), nothing is written when the store write fails, and a store path that is not
a DuckDB database is refused before any scoring. Real processes, as a user would start them."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from conftest import write_jsonl

# Holds the store's write lock until its stdin is closed.
HOLDER = """
import sys, duckdb
con = duckdb.connect(sys.argv[1])
con.execute("CREATE TABLE IF NOT EXISTS holder_was_here (x INTEGER)")
print("locked", flush=True)
sys.stdin.read()
con.close()
"""


def mathjudge(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "mathjudge", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def finish(process: subprocess.Popen) -> tuple[int, str]:
    out, err = process.communicate(timeout=600)
    return process.returncode, out + err


@contextmanager
def lock_held(store: Path) -> Iterator[None]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield
    finally:
        holder.communicate(timeout=60)  # closes stdin: the holder lets go


def assert_waits(process: subprocess.Popen, store: Path) -> None:
    """Read the process's stderr up to its note that it waits for the store's lock."""
    assert process.stderr is not None
    seen = []
    while line := process.stderr.readline():
        if line == f"waiting for {store}: another process is using it\n":
            return
        seen.append(line)
    pytest.fail(f"never waited for the lock: {''.join(seen)}")


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def predictions(tmp_path: Path, stepmath_rows: list[dict]) -> list[Path]:
    return [
        write_jsonl(
            tmp_path / f"p{k}.jsonl",
            [{"item_id": r["uid"], "score": min(10, r["gold_score"] + k)} for r in stepmath_rows],
        )
        for k in range(3)
    ]


def evaluate_args(path: Path, judge: str, store: Path, datasets_dir: Path, *extra: str):
    return (
        "evaluate", "stepmathbench", str(path), "--judge", judge, "--store", str(store),
        "--datasets", str(datasets_dir), "--bootstrap", "20", "--quiet", *extra,
    )  # fmt: skip


@pytest.mark.slow
def test_two_evaluates_and_a_leaderboard_build_started_together_all_succeed(
    tmp_path: Path, datasets_dir: Path, predictions: list[Path]
) -> None:
    store, site = tmp_path / "results.duckdb", tmp_path / "site"
    first = mathjudge(*evaluate_args(predictions[0], "judge 0", store, datasets_dir))
    assert finish(first)[0] == 0
    # The lock is held until each of the three has said it waits for it: all of them meet a
    # held lock, and none may give up.
    with lock_held(store):
        started = [
            mathjudge(*evaluate_args(predictions[1], "judge 1", store, datasets_dir)),
            mathjudge(*evaluate_args(predictions[2], "judge 2", store, datasets_dir)),
            mathjudge(
                "site",
                "build",
                "--store",
                str(store),
                "--out",
                str(site),
            ),
        ]
        for process in started:
            assert_waits(process, store)
    outcomes = [finish(p) for p in started]
    for code, output in outcomes:
        assert code == 0, output
    with duckdb.connect(str(store), read_only=True) as con:
        judges = {j for (j,) in con.execute("SELECT judge FROM submissions").fetchall()}
    assert judges == {"judge 0", "judge 1", "judge 2"}
    assert (site / "index.html").is_file()


@pytest.mark.slow
def test_a_writer_that_cannot_get_the_lock_in_time_writes_nothing(
    tmp_path: Path, datasets_dir: Path, predictions: list[Path]
) -> None:
    store = tmp_path / "results.duckdb"
    assert finish(mathjudge(*evaluate_args(predictions[0], "judge 0", store, datasets_dir)))[0] == 0
    before = sha(store)
    out = tmp_path / "result.json"
    with lock_held(store):
        code, output = finish(
            mathjudge(
                *evaluate_args(predictions[1], "judge 1", store, datasets_dir, "--json", str(out)),
                env={"MATHJUDGE_STORE_LOCK_TIMEOUT": "1"},
            )
        )
        assert code == 1 and "Traceback" not in output
        assert (
            f"{store}: the results store is in use by another process and stayed locked for "
            "1 s; nothing was written to it" in output
        )
        assert not out.exists()
    assert sha(store) != before  # the holder's own table; judge 1 is not in it
    with duckdb.connect(str(store), read_only=True) as con:
        assert con.execute("SELECT judge FROM submissions").fetchall() == [("judge 0",)]


@pytest.mark.slow
def test_a_store_that_is_not_duckdb_is_refused_before_scoring(
    tmp_path: Path, datasets_dir: Path, predictions: list[Path]
) -> None:
    store = tmp_path / "results.duckdb"
    store.write_text("not a database\n")
    out = tmp_path / "result.json"
    code, output = finish(
        mathjudge(*evaluate_args(predictions[0], "j", store, datasets_dir, "--json", str(out)))
    )
    assert code == 1 and "Traceback" not in output
    assert f"{store}: not a DuckDB database, so not a mathjudge results store" in output
    assert store.read_text() == "not a database\n" and not out.exists()
    code, output = finish(mathjudge("site", "build", "--store", str(store)))
    assert code == 1 and f"{store}: not a DuckDB database" in output


@pytest.mark.slow
def test_an_unusable_lock_timeout_is_a_usage_error(
    tmp_path: Path, datasets_dir: Path, predictions: list[Path]
) -> None:
    store = tmp_path / "results.duckdb"
    code, output = finish(
        mathjudge(
            *evaluate_args(predictions[0], "j", store, datasets_dir),
            env={"MATHJUDGE_STORE_LOCK_TIMEOUT": "soon"},
        )
    )
    assert code == 2 and "Traceback" not in output
    assert "MATHJUDGE_STORE_LOCK_TIMEOUT='soon': expected a number of seconds" in output
    assert not store.exists()
