"""Results store -> plain data files (`leaderboard.json`, per-benchmark CSV/JSON downloads).

The site is rendered from these files only, never from the store, so what a reader downloads is
exactly what the pages show, and the renderer cannot depend on scoring internals. Each
(benchmark, judge) is represented by its latest submission; values stay in natural units.
With the built datasets at hand the export also ranks the reproduced judges (`ranks`), writes
the per-item predictions (`items`) and copies each dataset's card and manifest.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import duckdb

from mathjudge import __version__, sidefiles
from mathjudge.display import summary
from mathjudge.errors import MathJudgeError
from mathjudge.evaluate.store_lock import read_snapshot
from mathjudge.leaderboard.items import export_items
from mathjudge.leaderboard.ranks import rank_benchmark

SCHEMA_VERSION = 2
CARD_MAX_BYTES = 4 << 20
LEADERBOARD_JSON = "leaderboard.json"
# Timestamps leave DuckDB as epoch microseconds: TIMESTAMPTZ -> datetime would need pytz.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Benchmark names become file names; registry names match this, anything else is refused.
SAFE_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
DOWNLOAD_COLUMNS = (
    "submission_id", "judge", "source", "scope", "subset", "metric", "value", "ci_low",
    "ci_high", "n", "coverage", "partial", "dataset_version", "content_hash",
)  # fmt: skip

LATEST = """
    SELECT * FROM submissions
    QUALIFY row_number() OVER (
        PARTITION BY benchmark, source, judge ORDER BY created DESC, id DESC
    ) = 1
"""
SUBMISSIONS = f"""
    SELECT id, benchmark, dataset_version, content_hash, judge, meta, sha256,
           epoch_us(created) AS created, partial, coverage, n_items, runs, runs_agg, fields,
           bootstrap, source, citation, mathjudge_version, extras
    FROM ({LATEST}) ORDER BY benchmark, judge
"""
SCORES = f"""
    SELECT s.submission_id, s.scope, s.subset, s.metric, s.value, s.ci_low, s.ci_high, s.n
    FROM scores s JOIN ({LATEST}) latest ON s.submission_id = latest.id
    ORDER BY s.submission_id, s.scope <> 'overall', s.scope, s.subset, s.metric
"""


# A spreadsheet runs a cell starting with one of these as a formula; such text gets a quote.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def download_names(benchmark: str) -> dict[str, str]:
    return {"csv": f"{benchmark}_scores.csv", "json": f"{benchmark}_scores.json"}


def export_data(store: Path, data_dir: Path, datasets_dir: Path | None = None) -> Path:
    """Write `leaderboard.json` and the downloads into `data_dir`; returns the JSON's path.

    `datasets_dir` (the built datasets the judges were scored on) enables rank intervals, the
    item explorer data and the dataset pages; without it those parts say why they are absent.
    """
    if not store.is_file():
        raise MathJudgeError(f"{store}: no results store here; run `mathjudge evaluate` first")
    with read_snapshot(store) as con:  # one consistent view, the store's lock held briefly
        leaderboard = read_store(store, con)
        data_dir.mkdir(parents=True, exist_ok=True)
        for bench in leaderboard["benchmarks"]:
            subs = bench["submissions"]
            bench["ranks"] = rank_benchmark(bench["name"], subs, con, datasets_dir)
            bench["items"] = export_items(bench["name"], subs, con, datasets_dir, data_dir)
        write_meta(con, leaderboard, data_dir)
    leaderboard["datasets"] = read_datasets(datasets_dir)
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
    target = data_dir / LEADERBOARD_JSON
    _write_atomic(target, _to_json(leaderboard))
    return target


OVERVIEW = {"csv": "overview.csv", "json": "overview.json"}
OVERVIEW_COLUMNS = (
    "benchmark", "submission_id", "judge", "source", "citation", "metric", "value", "ci_low",
    "ci_high", "coverage", "partial", "rank", "rank_low", "rank_high", "tie_group",
)  # fmt: skip


def overview_rows(leaderboard: dict[str, Any]) -> list[dict[str, Any]]:
    """The overview table in long form: each judge's overall headline score per benchmark."""
    from mathjudge.leaderboard.presentation import presentation_for

    rows = []
    for bench in leaderboard["benchmarks"]:
        headline = presentation_for(bench["name"]).headline
        ranked = bench.get("ranks", {}).get("judges", {})
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
                }
            )
    return rows


SUBMISSION_ID = re.compile(r"[0-9a-f]{16}")


def meta_file(sid: str) -> str | None:
    """Where a submission's whole meta is, relative to the data folder (ids are hex digests;
    anything else in a store is not made into a file name)."""
    return f"meta/{sid}.json" if SUBMISSION_ID.fullmatch(sid) else None


def write_meta(con: duckdb.DuckDBPyConnection, leaderboard: dict[str, Any], data_dir: Path) -> None:
    """Each shown submission's whole meta as its own JSON file, linked from the pages."""
    wanted = {
        sub["id"]: sub["meta_file"]
        for bench in leaderboard["benchmarks"]
        for sub in bench["submissions"]
        if sub["meta_file"]
    }
    if not wanted:
        return
    (data_dir / "meta").mkdir(exist_ok=True)
    rows = con.execute(
        "SELECT id, meta FROM submissions WHERE id IN (SELECT unnest(?))", [list(wanted)]
    ).fetchall()
    for sid, meta in rows:
        _write_atomic(data_dir / wanted[sid], _to_json(json.loads(meta)))


def read_datasets(datasets_dir: Path | None) -> list[dict[str, Any]]:
    """Card text and manifest of every built dataset in `datasets_dir`, for the dataset pages."""
    if datasets_dir is None or not datasets_dir.is_dir():
        return []
    out = []
    for manifest_path in sorted(datasets_dir.glob("*/manifest.json")):
        name = manifest_path.parent.name
        if not SAFE_NAME.fullmatch(name):
            continue
        manifest = sidefiles.read_json(manifest_path, sidefiles.MANIFEST_MAX_BYTES, "manifest")
        if not isinstance(manifest, dict):
            raise MathJudgeError(f"{manifest_path}: not a mathjudge manifest (not an object)")
        card = manifest_path.parent / "README.md"
        text = sidefiles.read_text(card, CARD_MAX_BYTES, "data card") if card.is_file() else ""
        out.append({"name": name, "manifest": manifest, "card": text})
    return out


def read_store(store: Path, con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The leaderboard document: latest submission per (benchmark, judge) with its scores,
    read from `con` (the store or a snapshot of it)."""
    try:
        submissions = _records(con.execute(SUBMISSIONS))
        scores = _records(con.execute(SCORES))
        total = con.execute("SELECT count(*) FROM submissions").fetchone()
    except duckdb.Error as exc:
        raise MathJudgeError(f"{store}: cannot read as a mathjudge results store ({exc})") from exc
    by_submission: dict[str, list[dict[str, Any]]] = {}
    for row in scores:
        by_submission.setdefault(row.pop("submission_id"), []).append(row)
    created = [s["created"] for s in submissions]
    benchmarks: dict[str, list[dict[str, Any]]] = {}
    for sub in submissions:
        benchmarks.setdefault(_safe_name(sub["benchmark"]), []).append(
            _submission(sub, by_submission.get(sub["id"], []))
        )
    return {
        "schema_version": SCHEMA_VERSION,
        "generated_from": {
            "store": store.name,
            "submissions_in_store": total[0] if total else 0,
            "latest_submission": _iso(max(created)) if created else None,
            "mathjudge_version": __version__,
        },
        "benchmarks": [
            {"name": name, "downloads": download_names(name), "submissions": subs}
            for name, subs in sorted(benchmarks.items())
        ],
    }


def long_rows(submissions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per score, with the submission facts a reader needs to interpret it."""
    rows = []
    for sub in submissions:
        for score in sub["scores"]:
            record = {**sub, "submission_id": sub["id"], **score}
            rows.append({column: record[column] for column in DOWNLOAD_COLUMNS})
    return rows


def _records(cursor: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cursor.description or []]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _submission(row: dict[str, Any], scores: list[dict[str, Any]]) -> dict[str, Any]:
    meta = json.loads(row["meta"]) if row["meta"] else {}
    return {
        **{k: v for k, v in row.items() if k != "benchmark"},
        # A bounded summary; the whole meta is the download `meta_file` (see `write_meta`).
        "meta": summary(meta),
        "meta_file": meta_file(row["id"]) if meta else None,
        "bootstrap": json.loads(row["bootstrap"]),
        # Benchmark-specific tables (e.g. ProofBench's confusion matrix) for the site's plots.
        "extras": json.loads(row["extras"]) if row["extras"] else {},
        "created": _iso(row["created"]),
        "fields": list(row["fields"]),
        "scores": scores,
    }


def _iso(epoch_us: int) -> str:
    return (EPOCH + timedelta(microseconds=epoch_us)).isoformat()


def _safe_name(benchmark: str) -> str:
    if not SAFE_NAME.fullmatch(benchmark):
        raise MathJudgeError(f"benchmark name {benchmark!r} cannot be used as a file name")
    return benchmark


def _to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


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
