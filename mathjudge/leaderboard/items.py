"""Per-item data for the item explorer: each judge's stored prediction next to the gold label.

Parquet files per benchmark with an explorer spec (`BenchmarkPresentation.items`): the item
texts, scope columns and gold columns (`<bench>_items.parquet`), one row per (judge, item,
field) with the prediction, the gold value and whether they agree
(`<bench>_predictions.parquet`), and the judges' own details per item where they gave any
(`<bench>_details.parquet`). They are both downloads and the only per-item input of the
renderer. Predictions are the values the judge was
scored on (runs combined; verdicts as votes +1 correct / -1 incorrect / 0 inconclusive).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from mathjudge.atomic import atomic_path
from mathjudge.spec.presentation import BenchmarkPresentation, ItemField
from mathjudge.store import read

# Whether a prediction agrees with the gold value, per kind of field; NULL never agrees.
AGREES = {
    "score": "coalesce(abs(prediction - gold) <= {tolerance}, false)",
    "binary": "coalesce((prediction >= 0.5) = (gold >= 0.5), false)",
    "verdict": "coalesce(prediction <> 0 AND (prediction > 0) = (gold > 0), false)",
}
PREDICTIONS = """
    SELECT p.submission_id, j.judge, p.item_id, ? AS field, p.value AS prediction,
           CAST(i."{gold}" AS DOUBLE) AS gold
    FROM preds p JOIN judges j USING (submission_id) JOIN items i USING (item_id)
"""


def item_names(benchmark: str) -> dict[str, str]:
    return {
        "items": f"{benchmark}_items.parquet",
        "predictions": f"{benchmark}_predictions.parquet",
    }


def export_items(
    bench: dict[str, Any], con: duckdb.DuckDBPyConnection, data_dir: Path
) -> dict[str, Any]:
    """Write the two files for one benchmark of the document; returns what `leaderboard.json`
    says about them. Items and predictions come from the store (`con`)."""
    show: BenchmarkPresentation = bench["presentation"]
    name = bench["name"]
    if not show.items:
        return {"status": "no item explorer for this benchmark"}
    reproduced = [s for s in bench["submissions"] if s["source"] != "reported"]
    if not reproduced:
        return {"status": "no reproduced judge"}
    content_hash = Counter(s["content_hash"] for s in reproduced).most_common(1)[0][0]
    stored = read.dataset_items(con, content_hash, show.items_config)
    if stored is None:
        return {"status": "the store keeps no items for this dataset; re-evaluate a judge"}
    columns = set(stored.column_names)
    fields = [f for f in show.items if f.gold in columns]
    texts = [c for c in show.item_text if c in columns]
    # The scopes the items carry as columns (type, generator, author model...): filters.
    facets = [s.key for s in show.scopes if s.key in columns and s.key not in texts]
    judges = {s["id"]: s["judge"] for s in reproduced if s["content_hash"] == content_hash}
    names = item_names(name)
    db = duckdb.connect()
    try:
        db.register("items", stored)
        db.register(
            "judges",
            pa.table({"submission_id": list(judges), "judge": list(judges.values())}),
        )
        items = db.sql(
            "SELECT {} FROM items ORDER BY item_id".format(
                ", ".join(
                    ["item_id"]
                    + [f'CAST("{c}" AS VARCHAR) AS "{c}"' for c in facets + texts]
                    + [f'CAST("{f.gold}" AS DOUBLE) AS "{f.gold}"' for f in fields]
                )
            )
        ).to_arrow_table()
        _write(data_dir / names["items"], items)
        tables = [_predictions(db, con, list(judges), f) for f in fields]
    finally:
        db.close()
    predictions = pa.concat_tables(tables) if tables else _predictions_schema().empty_table()
    _write(data_dir / names["predictions"], predictions.sort_by(_ORDER))
    details = read.item_details(con, list(judges))
    if details:
        names["details"] = f"{name}_details.parquet"
        _write(data_dir / names["details"], _details_table(details))
    return {
        "status": "exported",
        "downloads": names,
        "facet_columns": facets,
        "text_columns": texts,
        "fields": [
            {"field": f.field, "gold": f.gold, "label": f.label, "kind": f.kind} for f in fields
        ],
        "content_hash": content_hash,
    }


_ORDER = [("submission_id", "ascending"), ("item_id", "ascending"), ("field", "ascending")]


def _predictions(
    db: duckdb.DuckDBPyConnection,
    store: duckdb.DuckDBPyConnection,
    ids: list[str],
    field: ItemField,
) -> pa.Table:
    """Every judge's stored value of `field` beside the gold value, and whether they agree."""
    rows = read.field_predictions(store, ids, field.field)
    db.register(
        "preds",
        pa.table(
            {
                "submission_id": pa.array([r[0] for r in rows], pa.string()),
                "item_id": pa.array([r[1] for r in rows], pa.string()),
                "value": pa.array([r[2] for r in rows], pa.float64()),
            }
        ),
    )
    agrees = AGREES[field.kind].format(tolerance=float(field.tolerance))
    sql = f"SELECT *, {agrees} AS agrees FROM ({PREDICTIONS.format(gold=field.gold)})"
    try:
        return db.sql(sql, params=[field.field]).to_arrow_table().cast(_predictions_schema())
    finally:
        db.unregister("preds")


def _details_table(details: dict[str, dict[str, list[dict[str, Any]]]]) -> pa.Table:
    """The judges' details, one row per (submission, item, run), the fields as JSON text."""
    rows = [
        {
            "submission_id": sid,
            "item_id": item,
            "run": entry.get("run"),
            "details": json.dumps({k: v for k, v in entry.items() if k != "run"}),
        }
        for sid, items in sorted(details.items())
        for item, entries in sorted(items.items())
        for entry in entries
    ]
    schema = pa.schema(
        [
            ("submission_id", pa.string()),
            ("item_id", pa.string()),
            ("run", pa.int32()),
            ("details", pa.string()),
        ]
    )
    return pa.Table.from_pylist(rows, schema=schema)


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
