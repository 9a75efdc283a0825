"""Opening the results store when other processes may hold it.

DuckDB lets one process write a database file, or any number read it, and refuses a connection
that would conflict ("Could not set lock on file") at once. Two `evaluate`s, or an `evaluate`
and a `site build`, started together would then lose a result that took minutes to
compute. Every opening of the store here waits for the lock instead, retrying with backoff up
to a bounded time ($MATHJUDGE_STORE_LOCK_TIMEOUT seconds, default 60), and then fails with a
message naming the store. Any other failure (a file that is not a DuckDB database) is a
`MathJudgeError` naming the store, never a traceback.

DuckDB's lock is held for one transaction, but building the site reads the store for minutes,
in several steps: a submission removed between them would be in the document and not in the
data files, or be gone from the store and still on the site written after. So removing
submissions and building the site also exclude each other, for their whole length
(`exclusive`, a lock file beside the store); adding results does not wait for a build.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import filelock

from mathjudge.base.config import env_number
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable
from mathjudge.store import schema

LOCK_TIMEOUT_ENV = "MATHJUDGE_STORE_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S = 60.0
_FIRST_WAIT_S, _LONGEST_WAIT_S = 0.05, 1.0


def lock_timeout() -> float:
    return env_number(
        LOCK_TIMEOUT_ENV,
        DEFAULT_LOCK_TIMEOUT_S,
        float,
        lambda s: 0 <= s < float("inf"),
        "a number of seconds (0 or more)",
    )


def _is_lock_conflict(exc: duckdb.Error) -> bool:
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def store_problem(path: Path, exc: BaseException, doing: str) -> str:
    """A DuckDB failure on the store as one message: a full disk said as such, and that the
    transaction left the store as it was."""
    first = printable(_first_line(exc))
    if any(s in str(exc).lower() for s in ("no space left", "disk is full", "file too large")):
        return (
            f"{printable(str(path))}: {doing} the results store: the disk is full (or a file "
            f"size limit reached: {first}); nothing was written. Free some space and run the "
            "command again"
        )
    return f"{printable(str(path))}: {doing} the results store ({first}); nothing was written"


def open_store(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A connection to the store at `path`, waiting while another process holds its lock, once
    its schema is checked (`store.schema`): a new store is created, an older one brought up
    to date (also before a read), anything else that is not a store of this version refused."""
    existed = path.is_file() and path.stat().st_size > 0
    con = _wait_for(path, read_only=read_only)
    try:
        found = schema.version(con, path, existed=existed)
        if found == schema.SCHEMA_VERSION:
            return con
        if not read_only:
            schema.prepare(con, found)
            return con
    except MathJudgeError:
        con.close()
        raise
    except duckdb.Error as exc:
        con.close()
        if not existed:  # the schema of a new store could not be written: leave no file
            for leftover in (path, path.with_name(path.name + ".wal")):
                leftover.unlink(missing_ok=True)
        raise MathJudgeError(store_problem(path, exc, "could not prepare")) from None
    con.close()  # an older store opened to read: upgraded once, then read
    open_store(path, read_only=False).close()
    return open_store(path, read_only=True)


def _wait_for(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A connection to the DuckDB file at `path`, waiting while another process holds its
    lock."""
    timeout = lock_timeout()
    deadline = time.monotonic() + timeout
    wait = _FIRST_WAIT_S
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.Error as exc:
            if not _is_lock_conflict(exc):
                raise MathJudgeError(
                    f"{printable(str(path))}: cannot read as a mathjudge results store "
                    f"({printable(_first_line(exc))})"
                ) from None
            left = deadline - time.monotonic()
            if left <= 0:
                written = "" if read_only else "; nothing was written to it"
                raise MathJudgeError(
                    f"{path}: the results store is in use by another process and stayed locked "
                    f"for {timeout:g} s{written}. Try again when that is done, or wait longer "
                    f"with {LOCK_TIMEOUT_ENV}=SECONDS"
                ) from None
            if wait == _FIRST_WAIT_S:  # say once why the command seems to hang
                print(f"waiting for {path}: another process is using it", file=sys.stderr)
            time.sleep(min(wait, left))
            wait = min(wait * 2, _LONGEST_WAIT_S)


STORE_TABLES = ("store_info", "submissions", "scores", "item_predictions", "datasets", "documents")


def read_snapshot(path: Path) -> duckdb.DuckDBPyConnection:
    """An in-memory copy of the store's tables. A reader that takes minutes (the leaderboard
    ranks every judge) holds the store's lock only while copying, so writers wait seconds."""
    source = open_store(path, read_only=True)
    try:
        listed = source.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        present = {r[0] for r in listed}
        tables = {
            t: source.sql(f"SELECT * FROM {t}").to_arrow_table()
            for t in STORE_TABLES
            if t in present  # stores written before a table existed lack it
        }
    except duckdb.Error as exc:
        raise MathJudgeError(
            f"{path}: cannot read as a mathjudge results store ({_first_line(exc)})"
        ) from None
    finally:
        source.close()
    copy = duckdb.connect()
    for name, table in tables.items():
        copy.register("snapshot_table", table)
        copy.execute(f"CREATE TABLE {name} AS SELECT * FROM snapshot_table")
        copy.unregister("snapshot_table")
    return copy


def check_store_path(path: Path) -> None:
    """Fail early, before minutes of scoring, on a store path DuckDB cannot open: an existing
    file that is not a DuckDB database (its magic bytes) or something that is not a file."""
    if not path.exists():
        return
    if not path.is_file():
        raise MathJudgeError(f"{path}: the results store must be a file (a DuckDB database)")
    try:
        with path.open("rb") as handle:
            head = handle.read(12)
    except OSError as exc:
        raise MathJudgeError(f"{path}: cannot read the results store ({exc})") from None
    if head[8:12] != b"DUCK":
        raise MathJudgeError(f"{path}: not a DuckDB database, so not a mathjudge results store")


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """While the block runs, no other process builds a site from the store at `path` or
    removes submissions from it (see the module note): waits for one that does, as long as
    the store's lock timeout, then fails naming the store. Re-entrant within a process."""
    if not path.parent.is_dir():  # no store can be there: nothing to exclude
        yield
        return
    lock = filelock.FileLock(
        path.with_name(path.name + ".lock"), is_singleton=True, thread_local=False
    )
    timeout = lock_timeout()
    try:
        lock.acquire(timeout=0)
    except filelock.Timeout:
        print(
            f"waiting for {printable(str(path))}: another process is building a site from it "
            "or removing submissions from it",
            file=sys.stderr,
        )
        try:
            lock.acquire(timeout=timeout)
        except filelock.Timeout:
            raise MathJudgeError(
                f"{printable(str(path))}: another process has been building a site from the "
                f"results store, or removing submissions from it, for {timeout:g} s; nothing "
                f"was done. Try again when that is done, or wait longer with "
                f"{LOCK_TIMEOUT_ENV}=SECONDS"
            ) from None
    except OSError as exc:
        raise MathJudgeError(
            f"{printable(str(path))}: cannot take the results store's lock file ({exc})"
        ) from None
    try:
        yield
    finally:
        lock.release()
