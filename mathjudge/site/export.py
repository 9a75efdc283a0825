"""The stored leaderboard document -> the site's data files: `leaderboard.json` (the document
with its download names), per-benchmark CSV/JSON score tables, the overview table, each
judge's predictions and meta, and the per-item data (`items`).

`document.publish` stores the document (latest submission per judge, ranks, presentation
facts); this module reads it, adds what only the site has (file names, item data), writes the
files and returns the document it wrote, which is all the pages are rendered from: what a
reader downloads is exactly what the pages show. Values stay in natural units.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import duckdb

from mathjudge.base.errors import MathJudgeError
from mathjudge.site.items import export_items
from mathjudge.spec.document import (
    DOCUMENT,
    SCHEMA_VERSION,
    BenchmarkDocument,
    BoardSubmission,
    LeaderboardDocument,
)
from mathjudge.store import read

LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_SCHEMA = "leaderboard.schema.json"
OVERVIEW = {"csv": "overview.csv", "json": "overview.json"}
PREDICTIONS = "predictions"  # folder of the judges' predictions files, under data/
# Benchmark names become file names; registry names match this, anything else is refused.
SAFE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
SUBMISSION_ID = re.compile(r"[0-9a-f]{16}")  # ids that may name a file
DOWNLOAD_COLUMNS = (
    "submission_id", "judge", "source", "provenance", "kind", "scope", "subset", "metric",
    "value", "ci_low", "ci_high", "n", "coverage", "partial", "dataset_version", "content_hash",
)  # fmt: skip
OVERVIEW_COLUMNS = (
    "benchmark", "submission_id", "judge", "source", "provenance", "kind", "citation", "metric",
    "value", "ci_low", "ci_high", "n", "coverage", "partial", "rank", "rank_low", "rank_high",
    "tie_group", "not_ranked",
)  # fmt: skip
# A spreadsheet runs a cell starting with one of these as a formula; such text gets a quote.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def download_names(benchmark: str) -> dict[str, str]:
    return {"csv": f"{benchmark}_scores.csv", "json": f"{benchmark}_scores.json"}


def safe_name(benchmark: str) -> str:
    if not SAFE_NAME.fullmatch(benchmark):
        raise MathJudgeError(f"benchmark name {benchmark!r} cannot be used as a file name")
    return benchmark


def export_data(store: Path, data_dir: Path, *, local_texts: bool = False) -> LeaderboardDocument:
    """Write every data file into `data_dir` (a fresh folder: the site is swapped in whole);
    returns the document written to `leaderboard.json`. The texts of local-only datasets (and
    the judges' details on them) are left out unless `local_texts` (a site that stays on the
    machine the datasets were built on)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with read.reading(store) as con:
        document = read_document(con, store)
        for bench in document.benchmarks:
            bench.downloads = download_names(safe_name(bench.name))
        withheld = {
            b.name: None if local_texts else local_only(b, document) for b in document.benchmarks
        }
        found = read.in_threads(
            con, lambda c, b: export_items(b, c, data_dir, withheld[b.name]), document.benchmarks
        )
        for bench, items in zip(document.benchmarks, found, strict=True):
            bench.items = items
        write_meta(con, document, data_dir)
        write_predictions(con, document, data_dir)
    for bench in document.benchmarks:
        rows = long_rows(bench.submissions)
        assert bench.downloads is not None
        _write(data_dir / bench.downloads["csv"], _to_csv(rows))
        payload = {"schema_version": SCHEMA_VERSION, "benchmark": bench.name, "rows": rows}
        _write(data_dir / bench.downloads["json"], _to_json(payload))
    overview = overview_rows(document.benchmarks)
    _write(data_dir / OVERVIEW["csv"], _to_csv(overview, OVERVIEW_COLUMNS))
    overview_json = {"schema_version": SCHEMA_VERSION, "rows": overview}
    _write(data_dir / OVERVIEW["json"], _to_json(overview_json))
    schema = LeaderboardDocument.model_json_schema()
    _write(data_dir / LEADERBOARD_SCHEMA, _to_json(schema))
    _write(data_dir / LEADERBOARD_JSON, document.model_dump_json() + "\n")
    return document


def local_only(bench: BenchmarkDocument, document: LeaderboardDocument) -> str | None:
    """Why the texts of the benchmark's dataset must stay on the machine it was built on: its
    own `local_only`, or that of the benchmark that builds the dataset it is scored on."""
    dataset = bench.presentation.dataset
    owners = [p for p in document.methodology if p.name == dataset]
    reason = bench.presentation.local_only or next((p.local_only for p in owners), None)
    return reason


def read_document(con: duckdb.DuckDBPyConnection, store: Path) -> LeaderboardDocument:
    """The document `document.publish` stored; an error naming the store when there is none."""
    text = read.document(con, DOCUMENT)
    if text is None:
        raise MathJudgeError(
            f"{store}: no published leaderboard document; run `mathjudge site build`"
        )
    return LeaderboardDocument.model_validate_json(text)


def load_document(data_dir: Path) -> LeaderboardDocument:
    """The document an earlier export wrote (a site re-rendered from its data files)."""
    text = (data_dir / LEADERBOARD_JSON).read_text(encoding="utf-8")
    try:
        return LeaderboardDocument.model_validate_json(text)
    except ValueError as exc:
        raise MathJudgeError(f"{LEADERBOARD_JSON}: not a leaderboard document ({exc})") from exc


def overview_rows(benchmarks: list[BenchmarkDocument]) -> list[dict[str, Any]]:
    """The headline table in long form: each judge's overall headline score per benchmark,
    with its rank or the reason it has none."""
    rows = []
    for bench in benchmarks:
        headline = bench.presentation.headline
        for sub in bench.submissions:
            score = next(
                (
                    s
                    for s in sub.scores
                    if (s.scope, s.subset, s.metric) == ("overall", "all", headline)
                ),
                None,
            )
            if score is None:
                continue
            rank = bench.ranks.judges.get(sub.id)
            excluded = bench.ranks.excluded.get(sub.id)
            rows.append(
                {
                    "benchmark": bench.name,
                    "submission_id": sub.id,
                    "judge": sub.judge,
                    "source": sub.source,
                    "provenance": sub.provenance,
                    "kind": sub.kind,
                    "citation": sub.citation,
                    "metric": headline,
                    "value": score.value,
                    "ci_low": score.ci_low,
                    "ci_high": score.ci_high,
                    "n": score.n,
                    "coverage": sub.coverage,
                    "partial": sub.partial,
                    "rank": rank.rank if rank else None,
                    "rank_low": rank.rank_low if rank else None,
                    "rank_high": rank.rank_high if rank else None,
                    "tie_group": rank.group if rank else None,
                    "not_ranked": excluded.text if excluded else None,
                }
            )
    return rows


def write_meta(
    con: duckdb.DuckDBPyConnection, document: LeaderboardDocument, data_dir: Path
) -> None:
    """Each shown submission's whole meta as its own JSON file (`meta_file`), linked from the
    pages, which show only a bounded summary."""
    wanted = {
        sub.id: sub.meta_file
        for bench in document.benchmarks
        for sub in bench.submissions
        if sub.meta_file
    }
    if not wanted:
        return
    (data_dir / "meta").mkdir(exist_ok=True)
    for sid, meta in read.submission_meta(con, list(wanted)).items():
        _write(data_dir / wanted[sid], _to_json(meta))


def write_predictions(
    con: duckdb.DuckDBPyConnection, document: LeaderboardDocument, data_dir: Path
) -> None:
    """Each reproduced judge's predictions as scored (runs combined), one JSON object per
    item, gzip-compressed: `predictions/<submission id>.jsonl.gz`, set as its
    `predictions_file`."""
    subs = [
        sub
        for bench in document.benchmarks
        for sub in bench.submissions
        if sub.provenance != "paper" and SUBMISSION_ID.fullmatch(sub.id)
    ]
    if not subs:
        return
    (data_dir / PREDICTIONS).mkdir(exist_ok=True)
    table = read.predictions_table(con, [s.id for s in subs])
    # One JSON object per item, put together in SQL (per-row Python took seconds at a few
    # hundred thousand predictions); numbers as DuckDB prints a double, shortest round-trip.
    db = duckdb.connect()
    try:
        db.register("preds", table)
        lines = db.sql(
            """SELECT submission_id, string_agg(line, '' ORDER BY item_id) FROM (
                   SELECT submission_id, item_id,
                          '{"item_id":' || to_json(item_id) || ',' || string_agg(
                              to_json(field) || ':' || CASE
                                  WHEN value IS NULL OR isnan(value) OR isinf(value) THEN 'null'
                                  ELSE CAST(value AS VARCHAR) END,
                              ',' ORDER BY field) || '}' || chr(10) AS line
                   FROM preds GROUP BY submission_id, item_id)
               GROUP BY submission_id"""
        ).fetchall()
    finally:
        db.close()
    by_sid = dict(lines)
    written: dict[str, str] = {}
    for sub in subs:
        text = by_sid.get(sub.id)
        if not text:
            continue
        name = f"{PREDICTIONS}/{sub.id}.jsonl.gz"
        # Level 6 (zlib's default): a third of level 9's time for 3% more bytes.
        (data_dir / name).write_bytes(gzip.compress(text.encode("utf-8"), 6, mtime=0))
        written[sub.id] = name
    for bench in document.benchmarks:
        bench.submissions = [
            replace(sub, predictions_file=written[sub.id]) if sub.id in written else sub
            for sub in bench.submissions
        ]


def long_rows(submissions: list[BoardSubmission]) -> list[dict[str, Any]]:
    """One row per score, with the submission facts a reader needs to interpret it."""
    rows = []
    for sub in submissions:
        facts = {
            "submission_id": sub.id,
            "judge": sub.judge,
            "source": sub.source,
            "provenance": sub.provenance,
            "kind": sub.kind,
            "coverage": sub.coverage,
            "partial": sub.partial,
            "dataset_version": sub.dataset_version,
            "content_hash": sub.content_hash,
        }
        for score in sub.scores:
            record = {**facts, **asdict(score)}
            rows.append({column: record[column] for column in DOWNLOAD_COLUMNS})
    return rows


def _to_json(data: Any) -> str:
    # No indent: json's C encoder only runs without one, and these files are for programs.
    return json.dumps(data, ensure_ascii=False, allow_nan=False) + "\n"


def _to_csv(rows: list[dict[str, Any]], columns: tuple[str, ...] = DOWNLOAD_COLUMNS) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: defuse(v) for k, v in row.items()} for row in rows)
    return buffer.getvalue()


def defuse(value: Any) -> Any:
    """Text a spreadsheet would run as a formula gets a leading quote; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def _write(path: Path, text: str) -> None:
    """Plain writes: the whole site is built in a fresh folder and swapped in at once."""
    path.write_text(text, encoding="utf-8")
