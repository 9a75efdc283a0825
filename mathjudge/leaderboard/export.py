"""The stored leaderboard document -> plain data files (`leaderboard.json`, per-benchmark
CSV/JSON downloads, the item explorer's Parquet files).

`publish.document` stores the document (latest submission per judge, ranks, presentation
facts); this module reads it, adds the download names and the per-item data (items and
predictions, read from the store), and writes the files. The pages are rendered from these
files only, so what a reader downloads is exactly what the pages show. Values stay in natural
units.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path
from typing import Any

from mathjudge.errors import MathJudgeError
from mathjudge.leaderboard.items import export_items
from mathjudge.spec.document import DOCUMENT, SCHEMA_VERSION, LeaderboardDocument
from mathjudge.store import read

LEADERBOARD_JSON = "leaderboard.json"
LEADERBOARD_SCHEMA = "leaderboard.schema.json"
# Benchmark names become file names; registry names match this, anything else is refused.
SAFE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
DOWNLOAD_COLUMNS = (
    "submission_id", "judge", "source", "scope", "subset", "metric", "value", "ci_low",
    "ci_high", "n", "coverage", "partial", "dataset_version", "content_hash",
)  # fmt: skip


# A spreadsheet runs a cell starting with one of these as a formula; such text gets a quote.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def download_names(benchmark: str) -> dict[str, str]:
    return {"csv": f"{benchmark}_scores.csv", "json": f"{benchmark}_scores.json"}


def export_data(store: Path, data_dir: Path) -> Path:
    """Write `leaderboard.json` and the downloads into `data_dir`; returns the JSON's path."""
    data_dir.mkdir(parents=True, exist_ok=True)
    with read.reading(store) as con:
        document = read_document(con, store)
        for bench in document.benchmarks:
            _safe_name(bench.name)
            bench.downloads = download_names(bench.name)
        for bench, items in zip(document.benchmarks, _items(con, document, data_dir), strict=True):
            bench.items = items
        write_meta(con, document, data_dir)
    leaderboard = json.loads(document.model_dump_json())
    for bench in leaderboard["benchmarks"]:
        rows = long_rows(bench["submissions"])
        names = bench["downloads"]
        _write_atomic(data_dir / names["csv"], _to_csv(rows))
        _write_atomic(
            data_dir / names["json"],
            _to_json({"schema_version": SCHEMA_VERSION, "benchmark": bench["name"], "rows": rows}),
        )
    overview = overview_rows(leaderboard)
    _write_atomic(data_dir / OVERVIEW["csv"], _to_csv(overview, OVERVIEW_COLUMNS))
    _write_atomic(
        data_dir / OVERVIEW["json"],
        _to_json({"schema_version": SCHEMA_VERSION, "rows": overview}),
    )
    _write_atomic(data_dir / LEADERBOARD_SCHEMA, _to_json(LeaderboardDocument.model_json_schema()))
    target = data_dir / LEADERBOARD_JSON
    _write_atomic(target, _to_json(leaderboard))
    return target


def _items(con: Any, document: LeaderboardDocument, data_dir: Path) -> list[dict[str, Any]]:
    """Each benchmark's item files (`export_items`), two benchmarks at a time (the work is in
    DuckDB and Parquet; each benchmark writes its own files)."""

    def one(cursor: Any, bench: Any) -> dict[str, Any]:
        view = {**bench.model_dump(mode="json"), "presentation": bench.presentation}
        return export_items(view, cursor, data_dir)

    return read.in_threads(con, one, document.benchmarks)


def read_document(con: Any, store: Path) -> LeaderboardDocument:
    """The document `publish.document` stored; an error naming the store when there is none."""
    text = read.document(con, DOCUMENT)
    if text is None:
        raise MathJudgeError(
            f"{store}: no published leaderboard document; run `mathjudge leaderboard build`"
        )
    return LeaderboardDocument.model_validate_json(text)


OVERVIEW = {"csv": "overview.csv", "json": "overview.json"}
OVERVIEW_COLUMNS = (
    "benchmark", "submission_id", "judge", "source", "citation", "metric", "value", "ci_low",
    "ci_high", "coverage", "partial", "rank", "rank_low", "rank_high", "tie_group",
    "not_ranked",
)  # fmt: skip


def overview_rows(leaderboard: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline table in long form: each judge's overall headline score per benchmark,
    with its rank or the reason it has none."""
    rows = []
    for bench in leaderboard["benchmarks"]:
        headline = bench["presentation"]["headline"]
        ranked = bench.get("ranks", {}).get("judges", {})
        excluded = bench.get("ranks", {}).get("excluded", {})
        for sub in bench["submissions"]:
            score = next(
                (
                    s
                    for s in sub["scores"]
                    if (s["scope"], s["subset"], s["metric"]) == ("overall", "all", headline)
                ),
                None,
            )
            if score is None:
                continue
            rank = ranked.get(sub["id"], {})
            rows.append(
                {
                    "benchmark": bench["name"],
                    "submission_id": sub["id"],
                    "judge": sub["judge"],
                    "source": sub["source"],
                    "citation": sub["citation"],
                    "metric": headline,
                    "value": score["value"],
                    "ci_low": score["ci_low"],
                    "ci_high": score["ci_high"],
                    "coverage": sub["coverage"],
                    "partial": sub["partial"],
                    "rank": rank.get("rank"),
                    "rank_low": rank.get("rank_low"),
                    "rank_high": rank.get("rank_high"),
                    "tie_group": rank.get("group"),
                    "not_ranked": excluded.get(sub["id"], {}).get("text"),
                }
            )
    return rows


def write_meta(con: Any, document: LeaderboardDocument, data_dir: Path) -> None:
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
        _write_atomic(data_dir / wanted[sid], _to_json(meta))


def long_rows(submissions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per score, with the submission facts a reader needs to interpret it."""
    rows = []
    for sub in submissions:
        for score in sub["scores"]:
            record = {**sub, "submission_id": sub["id"], **score}
            rows.append({column: record[column] for column in DOWNLOAD_COLUMNS})
    return rows


def _safe_name(benchmark: str) -> str:
    if not SAFE_NAME.fullmatch(benchmark):
        raise MathJudgeError(f"benchmark name {benchmark!r} cannot be used as a file name")
    return benchmark


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


def _write_atomic(path: Path, text: str) -> None:
    """Write-then-rename so a reader never sees half a file; plain open() keeps umask modes
    (a static host must be able to read the files)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
