"""Per-item data for the item explorer: each judge's stored prediction next to the gold label.

Two Parquet files per benchmark with an explorer spec (`BenchmarkPresentation.items`): the item
texts and gold columns (`<bench>_items.parquet`) and one row per (judge, item, field) with the
prediction, the gold value and whether they agree (`<bench>_predictions.parquet`). They are both
downloads and the only per-item input of the renderer. Predictions are the values the judge was
scored on (runs combined; verdicts as votes +1 correct / -1 incorrect / 0 inconclusive).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from mathjudge import registry
from mathjudge.atomic import atomic_path
from mathjudge.errors import MathJudgeError
from mathjudge.evaluate.dataset import open_dataset
from mathjudge.leaderboard.presentation import ItemField, presentation_for

# Whether a prediction agrees with the gold value, per kind of field; NULL never agrees.
AGREES = {
    "score": "coalesce(abs(prediction - gold) <= {tolerance}, false)",
    "binary": "coalesce((prediction >= 0.5) = (gold >= 0.5), false)",
    "verdict": "coalesce(prediction <> 0 AND (prediction > 0) = (gold > 0), false)",
}
PREDICTIONS = """
    SELECT p.submission_id, s.judge, p.item_id, p.field, p.value AS prediction,
           CAST(i."{gold}" AS DOUBLE) AS gold
    FROM item_predictions p
    JOIN submissions s ON s.id = p.submission_id
    JOIN read_parquet(?) i ON i.item_id = p.item_id
    WHERE p.submission_id IN (SELECT unnest(?)) AND p.field = ?
"""


def item_names(benchmark: str) -> dict[str, str]:
    return {
        "items": f"{benchmark}_items.parquet",
        "predictions": f"{benchmark}_predictions.parquet",
    }


def export_items(
    benchmark: str,
    submissions: list[dict[str, Any]],
    con: duckdb.DuckDBPyConnection,
    datasets_dir: Path | None,
    data_dir: Path,
) -> dict[str, Any]:
    """Write the two files; returns what `leaderboard.json` says about them."""
    show = presentation_for(benchmark)
    if not show.items:
        return {"status": "no item explorer for this benchmark"}
    if datasets_dir is None or benchmark not in registry.BENCHMARKS:
        return {"status": "no built dataset given"}
    spec = registry.get(benchmark)
    try:
        dataset = open_dataset(spec.dataset_name, datasets_dir)
        source = dataset.parquet(spec.items_config)
    except MathJudgeError as exc:
        return {"status": str(exc)}
    columns = set(pq.read_schema(source).names)
    fields = [f for f in show.items if f.gold in columns]
    texts = [c for c in show.item_text if c in columns]
    ids = [
        s["id"]
        for s in submissions
        if s["source"] != "reported" and s["content_hash"] == dataset.content_hash
    ]
    names = item_names(benchmark)
    items = con.sql(
        "SELECT {} FROM read_parquet(?) ORDER BY item_id".format(
            ", ".join(
                ["item_id"]
                + [f'CAST("{c}" AS VARCHAR) AS "{c}"' for c in texts]
                + [f'CAST("{f.gold}" AS DOUBLE) AS "{f.gold}"' for f in fields]
            )
        ),
        params=[str(source)],
    ).to_arrow_table()
    _write(data_dir / names["items"], items)
    tables = [_predictions(con, str(source), ids, f) for f in fields]
    predictions = pa.concat_tables(tables) if tables else _predictions_schema().empty_table()
    _write(data_dir / names["predictions"], predictions.sort_by(_ORDER))
    return {
        "status": "exported",
        "downloads": names,
        "text_columns": texts,
        "fields": [
            {"field": f.field, "gold": f.gold, "label": f.label, "kind": f.kind} for f in fields
        ],
        "content_hash": dataset.content_hash,
    }


_ORDER = [("submission_id", "ascending"), ("item_id", "ascending"), ("field", "ascending")]


def _predictions(
    con: duckdb.DuckDBPyConnection, source: str, ids: list[str], field: ItemField
) -> pa.Table:
    agrees = AGREES[field.kind].format(tolerance=float(field.tolerance))
    sql = f"SELECT *, {agrees} AS agrees FROM ({PREDICTIONS.format(gold=field.gold)})"
    return (
        con.sql(sql, params=[source, ids, field.field]).to_arrow_table().cast(_predictions_schema())
    )


def _predictions_schema() -> pa.Schema:
    return pa.schema(
        [
            ("submission_id", pa.string()),
            ("judge", pa.string()),
            ("item_id", pa.string()),
            ("field", pa.string()),
            ("prediction", pa.float64()),
            ("gold", pa.float64()),
            ("agrees", pa.bool_()),
        ]
    )


def _write(path: Path, table: pa.Table) -> None:
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
