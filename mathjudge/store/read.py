"""Read access to the results store, the one place that knows its tables; what it returns is
typed (the records of `spec.results`: `Submission` with its `Score`s; `StoredRef`, `StoredEntry`;
datasets as the document's `DatasetDocument`), decoded from the JSON columns once here.

"Latest submission" is defined here once: per (benchmark, source, judge) the submission saved
last (ties broken by id), which is what the site shows, ranks and compares.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import duckdb

from mathjudge.base.errors import MathJudgeError
from mathjudge.spec.document import DatasetDocument
from mathjudge.spec.results import Score, Submission
from mathjudge.store.lock import open_store, read_snapshot

if TYPE_CHECKING:
    import pyarrow as pa

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class StoredRef:
    """What `find_latest` tells of a submission: enough to compare it without loading it."""

    id: str
    judge: str
    source: str
    content_hash: str
    bootstrap: dict[str, Any]


@dataclass(frozen=True)
class StoredEntry:
    """A stored submission as `results remove` lists it."""

    id: str
    benchmark: str
    source: str
    judge: str
    created: str  # ISO 8601, UTC
    scores: int


LATEST = """
    SELECT * FROM submissions
    QUALIFY row_number() OVER (
        PARTITION BY benchmark, source, judge ORDER BY created DESC, id DESC
    ) = 1
"""
_SUBMISSIONS = f"""
    SELECT id, benchmark, dataset_version, content_hash, judge, meta, sha256,
           epoch_us(created) AS created, partial, coverage, n_items, runs, runs_agg, fields,
           bootstrap, source, citation, mathjudge_version, extras
    FROM ({LATEST}) ORDER BY benchmark, judge, source
"""
_SCORES = f"""
    SELECT s.submission_id, s.scope, s.subset, s.metric, s.value, s.ci_low, s.ci_high, s.n
    FROM scores s JOIN ({LATEST}) latest ON s.submission_id = latest.id
    ORDER BY s.submission_id, s.scope <> 'overall', s.scope, s.subset, s.metric
"""
_BY = """SELECT id, judge, created, source, content_hash, bootstrap FROM submissions
         WHERE benchmark = ? AND {key} = ? ORDER BY created DESC, id DESC"""
# Timestamps leave DuckDB as epoch microseconds: TIMESTAMPTZ -> datetime would need pytz.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def in_threads(
    con: duckdb.DuckDBPyConnection,
    work: Callable[[duckdb.DuckDBPyConnection, T], R],
    items: Iterable[T],
    *,
    workers: int = 2,
) -> list[R]:
    """`work(cursor, item)` for every item, `workers` at a time, each call with its own cursor
    of `con` (threads must not share one connection); results in the items' order. Worth it
    where the work runs in DuckDB, Arrow or numpy, which release the GIL."""

    def one(item: T) -> R:
        cursor = con.cursor()
        try:
            return work(cursor, item)
        finally:
            cursor.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, items))


@contextmanager
def reading(path: Path, *, snapshot: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection, once no writer holds the store (see `store.lock`); with
    `snapshot`, an in-memory copy, so a long reader (ranking every judge) holds the store's lock
    only while copying. A missing file or one that is no store is the user's error."""
    if not path.is_file():
        raise MathJudgeError(f"{path}: no results store here; run `mathjudge evaluate` first")
    con = read_snapshot(path) if snapshot else open_store(path, read_only=True)
    try:
        yield con
    except duckdb.Error as exc:
        raise MathJudgeError(f"{path}: cannot read as a mathjudge results store ({exc})") from exc
    finally:
        con.close()


def iso(epoch_us: int) -> str:
    return (EPOCH + timedelta(microseconds=epoch_us)).isoformat()


def latest_submissions(con: duckdb.DuckDBPyConnection) -> list[Submission]:
    """Every benchmark's latest submission per judge, with its scores; ordered by benchmark,
    judge and source (a paper's row before our reproduction under the same name), so the
    document does not depend on the order the store was filled in."""
    scores: dict[str, list[Score]] = {}
    for sid, *score in con.execute(_SCORES).fetchall():
        scores.setdefault(sid, []).append(Score(*score))
    out = []
    for row in _records(con.execute(_SUBMISSIONS)):
        out.append(
            Submission(
                **{
                    **row,
                    "meta": json.loads(row["meta"]) if row["meta"] else {},
                    "bootstrap": json.loads(row["bootstrap"]),
                    "extras": json.loads(row["extras"]) if row["extras"] else {},
                    "created": iso(row["created"]),
                    "fields": tuple(row["fields"]),
                    "scores": tuple(scores.get(row["id"], ())),
                }
            )
        )
    return out


def submission_ids(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in con.execute("SELECT id FROM submissions").fetchall()}


def submission_count(con: duckdb.DuckDBPyConnection) -> int:
    row = con.execute("SELECT count(*) FROM submissions").fetchone()
    return int(row[0]) if row else 0


def judge_names(con: duckdb.DuckDBPyConnection, benchmark: str) -> list[str]:
    rows = con.execute(
        "SELECT DISTINCT judge FROM submissions WHERE benchmark = ? ORDER BY judge", [benchmark]
    ).fetchall()
    return [r[0] for r in rows]


def find_latest(con: duckdb.DuckDBPyConnection, benchmark: str, ref: str) -> StoredRef | None:
    """The latest submission of judge `ref` (or the submission with id `ref`), if any."""
    rows = con.execute(_BY.format(key="judge"), [benchmark, ref]).fetchall()
    rows = rows or con.execute(_BY.format(key="id"), [benchmark, ref]).fetchall()
    if len(rows) > 1 and rows[0][2] == rows[1][2]:
        tied = ", ".join(r[0] for r in rows if r[2] == rows[0][2])
        raise MathJudgeError(
            f"judge {ref!r} has several latest submissions saved at the same time ({tied}); "
            "pass one of these submission ids instead"
        )
    if not rows:
        return None
    sid, judge, _, source, content_hash, bootstrap = rows[0]
    return StoredRef(sid, judge, source, content_hash, json.loads(bootstrap))


def transcribed_ids(con: duckdb.DuckDBPyConnection, source: str) -> list[str]:
    """Ids of the submissions of `source` that were transcribed from a table (reported)."""
    rows = con.execute(
        """SELECT id FROM submissions
           WHERE source = ? AND json_extract(meta, '$.transcribed_from') IS NOT NULL""",
        [source],
    ).fetchall()
    return [r[0] for r in rows]


def submission_meta(con: duckdb.DuckDBPyConnection, ids: list[str]) -> dict[str, dict[str, Any]]:
    """The whole meta object of each of these submissions."""
    rows = con.execute(
        "SELECT id, meta FROM submissions WHERE id IN (SELECT unnest(?))", [ids]
    ).fetchall()
    return {sid: json.loads(meta) if meta else {} for sid, meta in rows}


def stored_predictions(
    con: duckdb.DuckDBPyConnection, sid: str
) -> dict[str, dict[str, float | None]]:
    """field -> item_id -> value for one stored submission."""
    out: dict[str, dict[str, float | None]] = {}
    rows = con.execute(
        "SELECT field, item_id, value FROM item_predictions WHERE submission_id = ?", [sid]
    ).fetchall()
    for name, item, value in rows:
        out.setdefault(name, {})[item] = value
    return out


def prediction_columns(
    con: duckdb.DuckDBPyConnection, sid: str, columns: tuple[str, ...]
) -> pa.Table | None:
    """`item_id` and the stored values of `columns` (float64) of one submission, one row per
    item that has a value of the first column, by item id; None when a column has no stored
    value. Only the columns asked for are read (a process reward model stores nine)."""
    cursor = con.cursor()  # a relation needs a connection without a pending result
    try:
        stored = {
            field
            for (field,) in cursor.execute(
                """SELECT DISTINCT field FROM item_predictions
                   WHERE submission_id = ? AND field IN (SELECT unnest(?))""",
                [sid, list(columns)],
            ).fetchall()
        }
        if not all(c in stored for c in columns):
            return None
        picked = ", ".join(
            f"max(value) FILTER (WHERE field = ?) AS c{k}" for k in range(len(columns))
        )
        table = cursor.sql(
            f"""SELECT item_id, {picked} FROM item_predictions
                WHERE submission_id = ? AND field IN (SELECT unnest(?))
                GROUP BY item_id HAVING count(*) FILTER (WHERE field = ?) > 0
                ORDER BY item_id""",
            params=[*columns, sid, list(columns), columns[0]],
        ).to_arrow_table()
    finally:
        cursor.close()
    return table.rename_columns(["item_id", *columns])


def predictions_table(con: duckdb.DuckDBPyConnection, sids: list[str]) -> pa.Table:
    """Every stored prediction of these submissions as an Arrow table (submission_id, item_id,
    field, value), ordered by submission, item and field."""
    cursor = con.cursor()  # a relation needs a connection without a pending result
    try:
        return cursor.sql(
            """SELECT submission_id, item_id, field, value FROM item_predictions
               WHERE submission_id IN (SELECT unnest(?))
               ORDER BY submission_id, item_id, field""",
            params=[sids],
        ).to_arrow_table()
    finally:
        cursor.close()


def item_details(
    con: duckdb.DuckDBPyConnection, sids: list[str]
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """submission id -> item id -> the judge's details rows (run order), for these ids."""
    if not _has(con, "item_details"):
        return {}
    rows = con.execute(
        """SELECT submission_id, item_id, run, CAST(details AS VARCHAR) FROM item_details
           WHERE submission_id IN (SELECT unnest(?))
           ORDER BY submission_id, item_id, run NULLS FIRST""",
        [sids],
    ).fetchall()
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for sid, item, run, details in rows:
        entry = json.loads(details)
        if run is not None:
            entry = {"run": run, **entry}
        out.setdefault(sid, {}).setdefault(item, []).append(entry)
    return out


def submitted_files(
    con: duckdb.DuckDBPyConnection, sids: list[str]
) -> Iterator[tuple[str, str, bytes]]:
    """(submission id, format, bytes) of the predictions file as submitted, for those of these
    ids that have one (see the `submitted_files` table), one file in memory at a time."""
    import gzip

    if not _has(con, "submitted_files"):
        return
    cursor = con.cursor()
    try:
        cursor.execute(
            "SELECT submission_id, format, gzipped FROM submitted_files "
            "WHERE submission_id IN (SELECT unnest(?)) ORDER BY submission_id",
            [sids],
        )
        while (row := cursor.fetchone()) is not None:
            sid, fmt, data = row
            yield sid, fmt, gzip.decompress(data)
    finally:
        cursor.close()


def synced(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, str]]:
    """Repository folder -> (key, submission id) of what `repo sync` stored."""
    if not _has(con, "repository"):
        return {}
    rows = con.execute("SELECT path, key, submission_id FROM repository").fetchall()
    return {path: (key, sid) for path, key, sid in rows}


def _has(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    """Stores written before a table existed lack it (they are read-only here)."""
    row = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [table]
    ).fetchone()
    return bool(row and row[0])


def dataset_items(
    con: duckdb.DuckDBPyConnection, content_hash: str, items_config: str
) -> pa.Table | None:
    """The stored items table (pyarrow) of a scored dataset, or None when it was not kept
    (results saved before the store kept datasets)."""
    if not _has(con, "datasets"):
        return None
    row = con.execute(
        "SELECT items FROM datasets WHERE content_hash = ? AND items_config = ?",
        [content_hash, items_config],
    ).fetchone()
    if row is None:
        return None
    import pyarrow.parquet as pq

    from mathjudge.base.arrowbytes import arrow_input

    return pq.read_table(arrow_input(row[0]))


def datasets(con: duckdb.DuckDBPyConnection) -> list[DatasetDocument]:
    """Name, version, content hash, card and manifest of every dataset scored, one per
    (name, content hash), by name."""
    if not _has(con, "datasets"):
        return []
    rows = con.execute(
        """SELECT DISTINCT name, version, content_hash, card, CAST(manifest AS VARCHAR)
           FROM datasets ORDER BY name, version, content_hash"""
    ).fetchall()
    return [
        DatasetDocument(name=n, version=v, content_hash=h, card=c, manifest=json.loads(m))
        for n, v, h, c, m in rows
    ]


# The tables the leaderboard document is assembled from (the document itself is not one).
DOCUMENT_INPUTS = ("submissions", "scores", "item_predictions", "datasets")


def content_digest(con: duckdb.DuckDBPyConnection) -> str:
    """A digest of every stored row the leaderboard document is assembled from, computed in
    DuckDB (a tenth of a second for half a million predictions): equal digests, equal rows."""
    parts = []
    for table in DOCUMENT_INPUTS:
        if _has(con, table):
            row = con.execute(f"SELECT count(*), sum(hash(t)::HUGEINT) FROM {table} t").fetchone()
            parts.append(f"{table}:{row[0] if row else 0}:{row[1] if row else 0}")
    return ";".join(parts)


def document(con: duckdb.DuckDBPyConnection, name: str) -> str | None:
    """The stored leaderboard document `name` (JSON text), if one was published."""
    if not _has(con, "documents"):
        return None
    row = con.execute("SELECT document FROM documents WHERE name = ?", [name]).fetchone()
    return None if row is None else str(row[0])


def entries(
    con: duckdb.DuckDBPyConnection, *, benchmark: str | None = None, source: str | None = None
) -> list[StoredEntry]:
    """Every stored submission (of `benchmark` and `source` where given), oldest first: what
    `results remove` picks from."""
    rows = con.execute(
        """SELECT s.id, s.benchmark, s.source, s.judge, epoch_us(s.created) AS created,
                  (SELECT count(*) FROM scores c WHERE c.submission_id = s.id) AS scores
           FROM submissions s
           WHERE ($benchmark IS NULL OR s.benchmark = $benchmark)
             AND ($source IS NULL OR s.source = $source)
           ORDER BY s.created, s.id""",
        {"benchmark": benchmark, "source": source},
    )
    return [StoredEntry(**{**row, "created": iso(row["created"])}) for row in _records(cursor=rows)]


def _records(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description or []]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
