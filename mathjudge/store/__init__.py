"""The results store: a DuckDB file with `submissions`, long-format `scores`, the per-item
predictions each judge was scored on, the facts of every dataset scored (items, card,
manifest, by content hash) and the published leaderboard document.

This package is the only code that writes SQL against the store; `store.read` is its read API.
A submission's rows are replaced in one transaction, so a reader sees the old scores or the new
ones, never a mix; nothing touches the file before a submission has passed validation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from mathjudge.errors import MathJudgeError
from mathjudge.spec.results import DatasetSnapshot, EvaluationResult
from mathjudge.store.lock import open_store

SCHEMA_VERSION = 3
SCHEMA = """
CREATE TABLE IF NOT EXISTS store_info (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS submissions (
    id VARCHAR PRIMARY KEY,
    benchmark VARCHAR NOT NULL,
    dataset_version VARCHAR NOT NULL,
    content_hash VARCHAR NOT NULL,
    judge VARCHAR NOT NULL,
    meta JSON,
    sha256 VARCHAR NOT NULL,
    created TIMESTAMP NOT NULL, -- UTC
    partial BOOLEAN NOT NULL,
    coverage DOUBLE NOT NULL,
    n_items INTEGER NOT NULL,
    runs INTEGER NOT NULL,
    runs_agg VARCHAR NOT NULL,
    fields VARCHAR[] NOT NULL,
    bootstrap JSON NOT NULL,
    source VARCHAR NOT NULL,
    citation VARCHAR,
    mathjudge_version VARCHAR NOT NULL,
    extras JSON
);
CREATE TABLE IF NOT EXISTS scores (
    submission_id VARCHAR NOT NULL,
    scope VARCHAR NOT NULL,
    subset VARCHAR NOT NULL,
    metric VARCHAR NOT NULL,
    value DOUBLE,
    ci_low DOUBLE,
    ci_high DOUBLE,
    n INTEGER NOT NULL
);
-- What each submission was scored on: one row per (item, prediction field), runs combined,
-- as the scorer's column type holds it (booleans 0/1; verdicts as votes +1/-1/0, see
-- metrics/binary.py). Paired comparisons are computed from it.
CREATE TABLE IF NOT EXISTS item_predictions (
    submission_id VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    field VARCHAR NOT NULL,
    value DOUBLE
);
-- The datasets judges were scored on, so ranking, comparison and the site need no built copy:
-- the items config as Parquet bytes (exact types), the card and the manifest.
CREATE TABLE IF NOT EXISTS datasets (
    content_hash VARCHAR NOT NULL,
    items_config VARCHAR NOT NULL,
    name VARCHAR NOT NULL,
    version VARCHAR NOT NULL,
    card VARCHAR NOT NULL,
    manifest JSON NOT NULL,
    items BLOB NOT NULL,
    PRIMARY KEY (content_hash, items_config)
);
-- A judge's own account of each item (its details file: rationale, extracted answer...), as
-- a bounded JSON object per (item, run); shown on the item pages.
CREATE TABLE IF NOT EXISTS item_details (
    submission_id VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    run INTEGER,
    details JSON NOT NULL
);
-- Submissions that `leaderboard sync` evaluated from a leaderboard repository: the folder
-- (<benchmark>/<slug>), the hash of its files and of the dataset it was scored on, and the
-- stored submission, so an unchanged folder is never evaluated again.
CREATE TABLE IF NOT EXISTS repository (
    path VARCHAR PRIMARY KEY,
    key VARCHAR NOT NULL,
    submission_id VARCHAR NOT NULL
);
-- The leaderboard document last published from this store (`publish.document`).
CREATE TABLE IF NOT EXISTS documents (
    name VARCHAR PRIMARY KEY,
    created TIMESTAMP NOT NULL,
    document JSON NOT NULL
);
"""


def connect(path: Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """The store, once no other process holds it (see `store_lock`); created if missing."""
    if read_only:
        return open_store(path, read_only=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    con = open_store(path, read_only=False)
    try:
        con.execute(SCHEMA)
        con.execute(
            "INSERT OR REPLACE INTO store_info VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]
        )
    except duckdb.Error as exc:
        con.close()
        raise MathJudgeError(f"{path}: not a mathjudge results store ({exc})") from None
    return con


@contextmanager
def transaction(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """The store for writing, in one transaction: committed when the block ends, rolled back
    (nothing written) if it raises; a DuckDB error becomes a `MathJudgeError` naming the
    store."""
    con = connect(path)
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        con.execute("COMMIT")
    except duckdb.Error as exc:
        con.execute("ROLLBACK")
        raise MathJudgeError(f"{path}: could not write to the results store ({exc})") from None
    except BaseException:
        con.execute("ROLLBACK")
        raise
    finally:
        con.close()


def save(path: Path, result: EvaluationResult) -> str:
    """Insert or replace `result`; returns its submission id."""
    return save_many(path, [result])[0]


def save_many(path: Path, results: list[EvaluationResult]) -> list[str]:
    """Insert or replace every result in one transaction: all of them land, or none."""
    with transaction(path) as con:
        return [_insert(con, result) for result in results]


def _insert(con: duckdb.DuckDBPyConnection, result: EvaluationResult) -> str:
    sid = result.submission_id
    created = datetime.fromisoformat(result.created).astimezone(UTC).replace(tzinfo=None)
    _delete(con, [sid])
    con.execute(
        """INSERT INTO submissions (id, benchmark, dataset_version, content_hash, judge, meta,
               sha256, created, partial, coverage, n_items, runs, runs_agg, fields, bootstrap,
               source, citation, mathjudge_version, extras)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            sid,
            result.benchmark,
            result.dataset_version,
            result.content_hash,
            result.judge,
            json.dumps(result.meta),
            result.submission_sha256,
            created,
            result.partial,
            result.coverage,
            result.n_items,
            result.runs,
            result.runs_agg,
            list(result.fields),
            json.dumps(result.bootstrap),
            result.source,
            result.citation,
            result.mathjudge_version,
            json.dumps(result.extras),
        ],
    )
    scores = pa.Table.from_pylist(
        [
            {
                "submission_id": sid,
                "scope": x.scope,
                "subset": x.subset,
                "metric": x.metric,
                "value": x.value,
                "ci_low": x.ci_low,
                "ci_high": x.ci_high,
                "n": x.n,
            }
            for x in result.scores
        ],
        schema=_SCORES,
    )
    con.register("new_scores", scores)
    try:
        con.execute("INSERT INTO scores SELECT * FROM new_scores")
    finally:
        con.unregister("new_scores")
    if result.predictions is not None:
        _save_predictions(con, sid, result.predictions)
    if result.dataset is not None:
        _save_dataset(con, result.dataset)
    return sid


def _save_dataset(con: duckdb.DuckDBPyConnection, dataset: DatasetSnapshot) -> None:
    """Keep the scored dataset's facts once per (content hash, items config)."""
    known = con.execute(
        "SELECT count(*) FROM datasets WHERE content_hash = ? AND items_config = ?",
        [dataset.content_hash, dataset.items_config],
    ).fetchone()
    if known and known[0]:
        return
    con.execute(
        "INSERT INTO datasets VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            dataset.content_hash,
            dataset.items_config,
            dataset.name,
            dataset.version,
            dataset.card,
            json.dumps(dataset.manifest),
            dataset.items_parquet(),
        ],
    )


def save_datasets(path: Path, datasets: list[DatasetSnapshot]) -> None:
    """Keep these datasets' facts (e.g. every dataset a demo built, scored or not), so the
    site lists them; one transaction."""
    with transaction(path) as con:
        for dataset in datasets:
            _save_dataset(con, dataset)


def write_document(path: Path, name: str, document: str) -> None:
    """Replace the stored leaderboard document `name` (JSON text) in one transaction."""
    con = connect(path)
    try:
        con.execute(
            "INSERT OR REPLACE INTO documents VALUES (?, ?, ?)",
            [name, datetime.now(UTC).replace(tzinfo=None), document],
        )
    finally:
        con.close()


def save_details(path: Path, submission_id: str, rows: list[dict[str, Any]]) -> None:
    """Replace the details of a stored submission: rows of `item_id`, optional `run` and the
    judge's own fields (checked and bounded by the caller)."""
    table = pa.table(
        {
            "submission_id": pa.array([submission_id] * len(rows), pa.string()),
            "item_id": pa.array([r["item_id"] for r in rows], pa.string()),
            "run": pa.array([r.get("run") for r in rows], pa.int32()),
            "details": pa.array(
                [
                    json.dumps({k: v for k, v in r.items() if k not in ("item_id", "run")})
                    for r in rows
                ],
                pa.string(),
            ),
        }
    )
    with transaction(path) as con:
        con.execute("DELETE FROM item_details WHERE submission_id = ?", [submission_id])
        con.register("new_details", table)
        con.execute("INSERT INTO item_details SELECT * FROM new_details")
        con.unregister("new_details")


def record_synced(path: Path, entries: dict[str, tuple[str, str]], gone: list[str]) -> None:
    """Remember which repository folder (path -> (key, submission id)) is in the store, and
    delete the folders in `gone` together with their submissions; a folder whose files changed
    drops the submission of its earlier version (the repository's history keeps that). One
    transaction."""
    with transaction(path) as con:
        known = dict(con.execute("SELECT path, submission_id FROM repository").fetchall())
        stale = [known[f] for f in gone if f in known]
        stale += [known[f] for f, (_, sid) in entries.items() if known.get(f, sid) != sid]
        still = {sid for _, sid in entries.values()}
        still |= {sid for f, sid in known.items() if f not in gone and f not in entries}
        _delete(con, [sid for sid in stale if sid not in still])
        con.execute("DELETE FROM repository WHERE path IN (SELECT unnest(?))", [gone])
        for folder, (key, sid) in entries.items():
            con.execute("INSERT OR REPLACE INTO repository VALUES (?, ?, ?)", [folder, key, sid])


def _delete(con: duckdb.DuckDBPyConnection, ids: list[str]) -> None:
    for table, key in (
        ("scores", "submission_id"),
        ("item_predictions", "submission_id"),
        ("item_details", "submission_id"),
        ("submissions", "id"),
    ):
        con.execute(f"DELETE FROM {table} WHERE {key} IN (SELECT unnest(?))", [ids])


def delete(path: Path, ids: list[str]) -> None:
    """Remove these submissions and everything stored with them, in one transaction."""
    with transaction(path) as con:
        _delete(con, ids)


_SCORES = pa.schema(
    [
        ("submission_id", pa.string()),
        ("scope", pa.string()),
        ("subset", pa.string()),
        ("metric", pa.string()),
        ("value", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("n", pa.int32()),
    ]
)


def _save_predictions(con: duckdb.DuckDBPyConnection, sid: str, table: pa.Table) -> None:
    con.register("new_predictions", table)
    try:
        for name in table.column_names:
            # Per-item values only: a list (e.g. MR-MATH's per-step scores) is scored, not kept.
            if name == "item_id" or pa.types.is_nested(table.schema.field(name).type):
                continue
            con.execute(
                f"""INSERT INTO item_predictions
                    SELECT ?, item_id, ?, CAST("{name}" AS DOUBLE) FROM new_predictions""",
                [sid, name],
            )
    finally:
        con.unregister("new_predictions")
