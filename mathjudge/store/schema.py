"""The results store's schema and its version, checked every time the store is opened.

A store is a DuckDB file with a `store_info` table whose `schema_version` says which schema it
was written with. Opening one checks that it is a mathjudge store at all (a DuckDB file with
other tables, or none, is refused rather than filled with ours), refuses a store written by a
newer mathjudge (whose tables this one may misread), and brings an older store up to this
version in one transaction (all of the upgrade lands, or none).
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

import duckdb

from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable

SCHEMA_VERSION = 4
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
-- mathjudge/benchmarks/verdict_metrics.py). Paired comparisons are computed from it.
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
-- Submissions that `repo sync` evaluated from a leaderboard repository: the folder
-- (<benchmark>/<slug>), the hash of its files and of the dataset it was scored on, and the
-- stored submission, so an unchanged folder is never evaluated again.
CREATE TABLE IF NOT EXISTS repository (
    path VARCHAR PRIMARY KEY,
    key VARCHAR NOT NULL,
    submission_id VARCHAR NOT NULL
);
-- Each submission's predictions file as submitted (the bytes its sha256 names, gzip-
-- compressed; `format` is jsonl, csv or parquet), so that a published site can offer the very
-- file to score again. Results scored from rows in memory have none.
CREATE TABLE IF NOT EXISTS submitted_files (
    submission_id VARCHAR PRIMARY KEY,
    format VARCHAR NOT NULL,
    gzipped BLOB NOT NULL
);
-- The leaderboard document last published from this store (`document.publish`).
CREATE TABLE IF NOT EXISTS documents (
    name VARCHAR PRIMARY KEY,
    created TIMESTAMP NOT NULL,
    document JSON NOT NULL
);
"""

# What an older store lacks beyond the tables SCHEMA creates if missing: schema 1 stores
# written before the `extras` column existed. Versions 1 to 3 otherwise differ from 4 only by
# tables (datasets, documents; item_details, repository; submitted_files).
UPGRADES = ("ALTER TABLE submissions ADD COLUMN IF NOT EXISTS extras JSON",)


def _tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute(
        """SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()
           UNION ALL
           SELECT view_name FROM duckdb_views()
           WHERE database_name = current_database() AND NOT internal"""
    ).fetchall()
    return sorted(r[0] for r in rows)


def version(con: duckdb.DuckDBPyConnection, path: Path, *, existed: bool) -> int | None:
    """The schema version of the store open on `con`; None for a store about to be created
    (no tables in a file that did not exist before). Raises on a file that is no store."""
    tables = _tables(con)
    name = printable(str(path))
    if not tables:
        if existed:
            raise MathJudgeError(
                f"{name}: an empty DuckDB database, not a mathjudge results store; give "
                "another --store, or delete this file to start a new store in its place"
            )
        return None
    if "store_info" not in tables:
        shown = ", ".join(printable(t) for t in tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise MathJudgeError(
            f"{name}: a DuckDB database of other tables ({shown}), not a mathjudge results "
            "store; nothing was written to it. Give another --store"
        )
    row = con.execute("SELECT value FROM store_info WHERE key = 'schema_version'").fetchone()
    text = str(row[0]) if row else ""
    if not text.isdigit() or len(text) > 6:
        raise MathJudgeError(f"{name}: not a mathjudge results store (no schema version)")
    found = int(text)
    if found > SCHEMA_VERSION:
        raise MathJudgeError(
            f"{name}: a results store of schema {found}, written by a newer mathjudge (this one "
            f"reads schema {SCHEMA_VERSION} and older); upgrade mathjudge to use it"
        )
    return found


def prepare(con: duckdb.DuckDBPyConnection, found: int | None) -> None:
    """Create the schema in a new store, or bring an older one up to SCHEMA_VERSION, in one
    transaction on the writable connection `con`."""
    if found == SCHEMA_VERSION:
        return
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(SCHEMA)
        if found is not None:
            for statement in UPGRADES:
                con.execute(statement)
        con.execute(
            "INSERT OR REPLACE INTO store_info VALUES ('schema_version', ?)", [str(SCHEMA_VERSION)]
        )
        con.execute("COMMIT")
    except BaseException:
        with suppress(duckdb.Error):  # a failed COMMIT has ended the transaction already
            con.execute("ROLLBACK")
        raise
