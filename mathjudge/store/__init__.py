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
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from mathjudge.base.errors import MathJudgeError
from mathjudge.spec.results import DatasetSnapshot, Evaluation
from mathjudge.store.lock import exclusive, open_store, store_problem


def connect(path: Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """The store, once no other process holds it (see `store.lock`), its schema checked
    (`store.schema`); created if missing."""
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    return open_store(path, read_only=read_only)


@contextmanager
def transaction(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """The store for writing, in one transaction: committed when the block ends, rolled back
    (nothing written) if it raises. A DuckDB error (a full disk among them) becomes a
    `MathJudgeError` naming the store and the cause; a store this transaction created is
    removed again, so a failed first write leaves no file behind."""
    created = not path.exists()
    con = connect(path)
    try:
        con.execute("BEGIN TRANSACTION")
        yield con
        con.execute("COMMIT")
    except duckdb.Error as exc:
        _rollback(con)
        _close(con, path, created)
        raise MathJudgeError(store_problem(path, exc, "could not write to")) from None
    except BaseException:
        _rollback(con)
        _close(con, path, created)
        raise
    _close(con, path, created=False)


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back what is open; a COMMIT that failed (a full disk) has ended the transaction
    already, and saying "no transaction is active" would hide why it failed."""
    with suppress(duckdb.Error):
        con.execute("ROLLBACK")


def _close(con: duckdb.DuckDBPyConnection, path: Path, created: bool) -> None:
    try:
        con.close()
    except duckdb.Error as exc:  # the checkpoint at close can meet a full disk too
        if not created:
            raise MathJudgeError(store_problem(path, exc, "could not finish writing")) from None
    if created:
        for leftover in (path, path.with_name(path.name + ".wal")):
            leftover.unlink(missing_ok=True)


def save(path: Path, result: Evaluation) -> str:
    """Insert or replace `result`; returns its submission id."""
    return save_many(path, [result])[0]


def save_many(path: Path, results: list[Evaluation]) -> list[str]:
    """Insert or replace every result in one transaction: all of them land, or none."""
    with transaction(path) as con:
        return [_insert(con, result) for result in results]


def _insert(con: duckdb.DuckDBPyConnection, result: Evaluation) -> str:
    sid = result.id
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
            result.sha256,
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
    if result.submitted is not None:
        con.execute(
            "INSERT INTO submitted_files VALUES (?, ?, ?)",
            [sid, result.submitted.format, result.submitted.gzipped],
        )
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
    with transaction(path) as con:
        con.execute(
            "INSERT OR REPLACE INTO documents VALUES (?, ?, ?)",
            [name, datetime.now(UTC).replace(tzinfo=None), document],
        )


def _save_details(con: duckdb.DuckDBPyConnection, sid: str, rows: list[dict[str, Any]]) -> None:
    """Replace the details of a stored submission: rows of `item_id`, optional `run` and the
    judge's own fields (checked and bounded by the caller)."""
    table = pa.table(
        {
            "submission_id": pa.array([sid] * len(rows), pa.string()),
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
    con.execute("DELETE FROM item_details WHERE submission_id = ?", [sid])
    con.register("new_details", table)
    try:
        con.execute("INSERT INTO item_details SELECT * FROM new_details")
    finally:
        con.unregister("new_details")


def save_synced(
    path: Path, folder: str, key: str, result: Evaluation, details: list[dict[str, Any]]
) -> str:
    """Store the result of one repository folder (`repo sync`) with its details, and
    remember the folder's key, in one transaction: a sync killed after it keeps this folder,
    and one killed before it loses nothing of it. Returns the submission id."""
    with exclusive(path), transaction(path) as con:  # it may replace an earlier version
        sid = _insert(con, result)
        _save_details(con, sid, details)
        _record_synced(con, {folder: (key, sid)}, [])
    return sid


def record_synced(path: Path, entries: dict[str, tuple[str, str]], gone: list[str]) -> None:
    """Remember which repository folder (path -> (key, submission id)) is in the store, and
    delete the folders in `gone` together with their submissions; a folder whose files changed
    drops the submission of its earlier version (the repository's history keeps that). One
    transaction, never while a site is built from the store (`lock.exclusive`)."""
    with exclusive(path), transaction(path) as con:
        _record_synced(con, entries, gone)


def _record_synced(
    con: duckdb.DuckDBPyConnection, entries: dict[str, tuple[str, str]], gone: list[str]
) -> None:
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
        ("submitted_files", "submission_id"),
        ("submissions", "id"),
    ):
        con.execute(f"DELETE FROM {table} WHERE {key} IN (SELECT unnest(?))", [ids])


def delete(path: Path, ids: list[str]) -> None:
    """Remove these submissions and everything stored with them, in one transaction; a
    repository folder synced into one of them is forgotten too (the next sync scores it
    again if the folder is still there). Never while a site is built from the store
    (`lock.exclusive`): a build that started first ends first."""
    with exclusive(path), transaction(path) as con:
        _delete(con, ids)
        con.execute("DELETE FROM repository WHERE submission_id IN (SELECT unnest(?))", [ids])


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
