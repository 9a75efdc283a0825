"""Per-item data: each judge's call on each item beside the gold label, stored once per
benchmark however many pages show it.

Two forms of the same data, both under the site's `data/` folder:

- downloads, Parquet: the item texts, scope columns and gold columns (`<bench>_items.parquet`),
  one row per (judge, item, field) with the prediction, the gold value and whether they agree
  (`<bench>_predictions.parquet`), and the judges' own details per item where they gave any
  (`<bench>_details.parquet`);
- what the item pages load on demand, as script files so they work from `file://`
  (`items/<bench>/`): `index.js` (the items in natural id order with their scope values, gold
  labels and how many judges get each wrong, and the judges), `calls-K.js` (every judge's
  call on a block of CALLS_CHUNK items) and `text-K.js` (the texts and the judges' details of
  a block of items, cut at about TEXT_CHUNK_BYTES). Each file calls `mathjudgeData(name,
  payload)` with JSON data; the page's script checks the name.

Predictions are the values the judge was scored on (runs combined; verdicts as votes +1
correct / -1 incorrect / 0 inconclusive); the pages show them in words (`show_value`).
Benchmarks that declare no explorer fields still get their items and every judge's raw
prediction fields, without a gold comparison.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from mathjudge.base.display import (
    MAX_ITEM_DETAIL_CHARS,
    MAX_ITEM_DETAIL_PARAGRAPHS,
    MAX_ITEM_DETAIL_ROWS,
    paragraphs,
    shown_text,
)
from mathjudge.spec.document import (
    BenchmarkDocument,
    BoardSubmission,
    ItemColumn,
    ItemData,
    ItemJudge,
)
from mathjudge.spec.presentation import ItemField
from mathjudge.store import read

# Whether a prediction agrees with the gold value, per kind of field; NULL never agrees.
AGREES = {
    "score": "coalesce(abs(prediction - gold) <= {tolerance}, false)",
    "binary": "coalesce((prediction >= 0.5) = (gold >= 0.5), false)",
    "verdict": "coalesce(prediction <> 0 AND (prediction > 0) = (gold > 0), false)",
}
CALLS_CHUNK = 250  # items per calls file
TEXT_CHUNK_BYTES = 100_000  # a texts file closes once it holds about this much
MAX_DETAIL_CHARS = 20_000  # per value of a judge's details (reasoning is kept whole below it)
CUT = ["cut", "more than one item view shows; the whole details are in the details download"]
MAX_FACET_VALUES = 30  # a text column with at most this many short values is a filter
MAX_FACET_CHARS = 60
MAX_FALLBACK_TEXTS = 4  # text columns shown for a benchmark that declares none
PAGES = "items"  # folder of the script files, under data/


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """stepmath-2 before stepmath-10: digit runs compare as numbers."""
    parts = re.split(r"(\d+)", text)
    return tuple((1, int(p)) if i % 2 else (0, p.casefold()) for i, p in enumerate(parts))


def show_value(kind: str, value: float | None, *, gold: bool = False) -> str:
    """A stored prediction or gold value in words."""
    if value is None:
        return "none"
    if kind in ("score", "raw"):
        return f"{value:g}"
    if kind == "binary" or gold:
        return "correct" if value >= 0.5 else "incorrect"
    return "correct" if value > 0 else "incorrect" if value < 0 else "inconclusive"


def export_items(
    bench: BenchmarkDocument,
    con: duckdb.DuckDBPyConnection,
    data_dir: Path,
    withheld: str | None = None,
) -> ItemData:
    """Write one benchmark's item files; returns what the document says about them.
    `withheld`: why the item texts and the judges' details must be left out (ids, scope
    values, gold labels and every judge's call stay)."""
    show = bench.presentation
    name = bench.name
    reproduced = [s for s in bench.submissions if s.provenance != "paper"]
    if not reproduced:
        return ItemData(status="no reproduced judge: results copied from papers have no items")
    content_hash = Counter(s.content_hash for s in reproduced).most_common(1)[0][0]
    stored = read.dataset_items(con, content_hash, show.items_config)
    if stored is None:
        return ItemData(status="the store keeps no items for this dataset; re-evaluate a judge")
    judges = sorted(
        (s for s in reproduced if s.content_hash == content_hash),
        key=lambda s: (s.judge.casefold(), s.id),
    )
    predictions = read.predictions_table(con, [s.id for s in judges])
    columns = set(stored.column_names)
    declared = [f for f in show.items if f.gold in columns]
    given = set(predictions.column("field").to_pylist()) if predictions.num_rows else set()
    fields = [
        ItemColumn(field=f.field, label=f.label, kind=f.kind, gold=f.gold) for f in declared
    ] + [
        ItemColumn(field=f, label=f.replace("_", " "), kind="raw", gold="")
        for f in sorted(given - {f.field for f in declared})
    ]
    texts = [c for c in show.item_text if c in columns] or _fallback_texts(stored)
    facets = _facets(stored, [s.key for s in show.scopes], texts)
    texts = [] if withheld else [c for c in texts if c not in facets]
    items = _items_table(stored, facets, texts, declared)
    compared = _compare(predictions, items, declared, fields)
    rows = sorted(items.to_pylist(), key=lambda r: natural_key(r["item_id"]))
    calls = Calls.of(rows, compared, judges, fields)
    by_id = {r["item_id"]: i for i, r in enumerate(rows)}
    order = [by_id[i] for i in items.column("item_id").to_pylist()]
    items = items.append_column(
        "judges_wrong", pa.array([calls.wrong[i] for i in order], pa.int32())
    ).append_column("judges_answered", pa.array([calls.judged[i] for i in order], pa.int32()))
    details = {} if withheld else read.item_details(con, [s.id for s in judges])
    files = {"items": f"{name}_items.parquet", "predictions": f"{name}_predictions.parquet"}
    _write(data_dir / files["items"], items)
    _write(data_dir / files["predictions"], compared)
    if details:
        files["details"] = f"{name}_details.parquet"
        _write(data_dir / files["details"], _details_table(details))
    folder = f"{PAGES}/{name}"
    _write_pages(
        data_dir / folder, name, rows, calls, details, judges, facets, texts, fields, withheld
    )
    return ItemData(
        status="exported",
        content_hash=content_hash,
        n_items=items.num_rows,
        judges=calls.stats,
        fields=fields,
        facets=facets,
        texts=texts,
        pages=folder,
        withheld=withheld,
        **files,
    )


def _fallback_texts(stored: pa.Table) -> list[str]:
    strings = [
        f.name
        for f in stored.schema
        if f.name != "item_id" and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
    ]
    return strings[:MAX_FALLBACK_TEXTS]


def _facets(stored: pa.Table, scopes: list[str], texts: list[str]) -> list[str]:
    """Columns to filter by: the benchmark's scopes found among the item columns, and short
    text columns with few distinct values (MR-MATH's set, JudgeBench's category)."""
    out = [c for c in scopes if c in stored.column_names and c not in texts]
    for column in texts:
        values = {str(v) for v in stored.column(column).to_pylist() if v is not None}
        short = all(len(v) <= MAX_FACET_CHARS for v in values)
        if column not in out and short and 1 < len(values) <= MAX_FACET_VALUES:
            out.append(column)
    return out


def _items_table(
    stored: pa.Table, facets: list[str], texts: list[str], fields: list[ItemField]
) -> pa.Table:
    db = duckdb.connect()
    try:
        db.register("items", stored)
        columns = (
            ["item_id"]
            + [f'CAST("{c}" AS VARCHAR) AS "{c}"' for c in facets + texts]
            + [f'CAST("{f.gold}" AS DOUBLE) AS "{f.gold}"' for f in fields]
        )
        return db.sql(f"SELECT {', '.join(columns)} FROM items ORDER BY item_id").to_arrow_table()
    finally:
        db.close()


_SCHEMA = pa.schema(
    [
        ("submission_id", pa.string()),
        ("item_id", pa.string()),
        ("field", pa.string()),
        ("prediction", pa.float64()),
        ("gold", pa.float64()),
        ("agrees", pa.bool_()),
    ]
)


def _compare(
    predictions: pa.Table, items: pa.Table, declared: list[ItemField], fields: list[ItemColumn]
) -> pa.Table:
    """Every stored prediction of an explorer field beside its gold value and whether they
    agree (fields without gold: gold and agreement null)."""
    db = duckdb.connect()
    try:
        db.register("preds", predictions)
        db.register("items", items)
        parts = []
        for f in declared:
            agrees = AGREES[f.kind].format(tolerance=float(f.tolerance))
            parts.append(
                f"""SELECT p.submission_id, p.item_id, p.field, p.value AS prediction,
                           i."{f.gold}" AS gold, {agrees} AS agrees
                    FROM preds p JOIN items i USING (item_id)
                    WHERE p.field = {_quote(f.field)}"""
            )
        for c in fields:
            if not c.gold:
                parts.append(
                    f"""SELECT submission_id, item_id, field, value AS prediction,
                               NULL::DOUBLE AS gold, NULL::BOOLEAN AS agrees
                        FROM preds WHERE field = {_quote(c.field)}"""
                )
        if not parts:
            return _SCHEMA.empty_table()
        sql = " UNION ALL ".join(f"({p})" for p in parts)
        table = db.sql(f"SELECT * FROM ({sql}) ORDER BY submission_id, item_id, field")
        return table.to_arrow_table().cast(_SCHEMA)
    finally:
        db.close()


def _quote(text: str) -> str:
    """A SQL string literal (field names come from benchmark specs and stored rows)."""
    return "'" + text.replace("'", "''") + "'"


def _details_lines(entries: list[dict[str, Any]]) -> list[list[str]]:
    """A judge's details on one item as (key, text) lines, one block per run, within the
    bounds of one item view (`check` refuses more; the rest of what an older store holds is
    left to the details download)."""
    lines: list[list[str]] = []
    chars = paras = 0
    for entry in entries[:MAX_ITEM_DETAIL_ROWS]:
        prefix = f"run {entry['run']}: " if entry.get("run") is not None else ""
        for key, value in entry.items():
            if key == "run":
                continue
            text = shown_text(value)
            if len(text) > MAX_DETAIL_CHARS:
                text = text[:MAX_DETAIL_CHARS] + "…"
            chars += len(text)
            paras += paragraphs(text)
            if chars > MAX_ITEM_DETAIL_CHARS or paras > MAX_ITEM_DETAIL_PARAGRAPHS:
                return [*lines, CUT]
            lines.append([prefix + str(key), text])
    return [*lines, CUT] if len(entries) > MAX_ITEM_DETAIL_ROWS else lines


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


def _write(path: Path, table: pa.Table) -> None:
    """Plain writes: the whole site is built in a fresh folder and swapped in at once."""
    pq.write_table(table, path, compression="zstd")


# --- The script files of the item pages -------------------------------------------------------


def data_script(name: str, payload: Any) -> str:
    """A script file that hands `payload` to the page: JSON inside one call, so nothing in
    the data can run."""
    body = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return f"mathjudgeData({json.dumps(name)},{body});\n"


Call = list[tuple[float | None, bool | None] | None]  # per field: (value, agrees)


class Calls:
    """Every judge's call on every item (items in natural order), with how many judges get
    each item wrong and each judge's counts."""

    def __init__(
        self, by_judge: list[dict[int, Call]], n_items: int, judges: list[BoardSubmission]
    ):
        self.by_judge = by_judge
        self.wrong = [0] * n_items
        self.judged = [0] * n_items
        self.stats = []
        for sub, by_item in zip(judges, by_judge, strict=True):
            compared, disagree = False, 0
            for i, slot in by_item.items():
                self.judged[i] += 1
                agree = _agrees(slot)
                compared = compared or agree is not None
                if agree is False:
                    self.wrong[i] += 1
                    disagree += 1
            self.stats.append(
                ItemJudge(
                    submission=sub.id,
                    answered=len(by_item),
                    disagree=disagree if compared else None,
                )
            )

    @classmethod
    def of(
        cls,
        rows: list[dict[str, Any]],
        compared: pa.Table,
        judges: list[BoardSubmission],
        fields: list[ItemColumn],
    ) -> Calls:
        position = {r["item_id"]: i for i, r in enumerate(rows)}
        judge_at = {s.id: j for j, s in enumerate(judges)}
        field_at = {f.field: k for k, f in enumerate(fields)}
        by_judge: list[dict[int, Call]] = [{} for _ in judges]
        cols = compared.to_pydict()
        for sid, item, field, value, agrees in zip(
            cols["submission_id"], cols["item_id"], cols["field"], cols["prediction"],
            cols["agrees"], strict=True,
        ):  # fmt: skip
            i = position.get(item)
            if i is None or field not in field_at:
                continue
            slot = by_judge[judge_at[sid]].setdefault(i, [None] * len(fields))
            slot[field_at[field]] = (value, agrees)
        return cls(by_judge, len(rows), judges)


def _write_pages(
    folder: Path,
    bench: str,
    rows: list[dict[str, Any]],
    calls: Calls,
    details: dict[str, dict[str, list[dict[str, Any]]]],
    judges: list[BoardSubmission],
    facets: list[str],
    texts: list[str],
    fields: list[ItemColumn],
    withheld: str | None,
) -> None:
    """The script files of the item pages (see the module note)."""
    folder.mkdir(parents=True, exist_ok=True)
    judge_at = {s.id: j for j, s in enumerate(judges)}
    chunk_of = {}
    for k, (ids, payload) in enumerate(_text_chunks(rows, texts, details, judge_at)):
        for item in ids:
            chunk_of[item] = k
        _write_text(folder / f"text-{k}.js", data_script(f"{bench}/text-{k}", payload))
    index = {
        "benchmark": bench,
        "withheld": withheld,
        "fields": [{"label": f.label, "gold": bool(f.gold), "kind": f.kind} for f in fields],
        "facets": facets,
        "texts": texts,
        "calls_chunk": CALLS_CHUNK,
        "judges": [s.judge for s in judges],
        "items": [
            [
                r["item_id"],
                [_text(r.get(c)) for c in facets],
                [show_value(f.kind, r.get(f.gold), gold=True) for f in fields if f.gold],
                chunk_of.get(r["item_id"], 0),
                calls.wrong[i],
                calls.judged[i],
            ]
            for i, r in enumerate(rows)
        ],
    }
    _write_text(folder / "index.js", data_script(f"{bench}/index", index))
    for k, start in enumerate(range(0, max(len(rows), 1), CALLS_CHUNK)):
        block = range(start, min(start + CALLS_CHUNK, len(rows)))
        payload = _calls_block(calls, block, fields)
        _write_text(folder / f"calls-{k}.js", data_script(f"{bench}/calls-{k}", payload))


def _calls_block(calls: Calls, block: range, fields: list[ItemColumn]) -> dict[str, Any]:
    """Every judge's calls on a block of items: per field a table of the texts shown and per
    judge, per item, the index of its text in each field (-1: not given) and whether it
    agrees with gold (1, 0, or null when not compared); null for an item it did not answer."""
    values: list[list[str]] = [[] for _ in fields]
    codes: list[dict[str, int]] = [{} for _ in fields]

    def code(f: int, value: float | None) -> int:
        text = show_value(fields[f].kind, value)
        if text not in codes[f]:
            codes[f][text] = len(values[f])
            values[f].append(text)
        return codes[f][text]

    per_judge = []
    for j, by_item in enumerate(calls.by_judge):
        cells: list[Any] = []
        for i in block:
            slot = by_item.get(i)
            if slot is None:
                cells.append(None)
                continue
            agree = _agrees(slot)
            given = [-1 if c is None else code(f, c[0]) for f, c in enumerate(slot)]
            cells.append([given, None if agree is None else int(agree)])
        if any(c is not None for c in cells):
            per_judge.append([j, cells])
    return {"start": block.start, "values": values, "judges": per_judge}


def _agrees(slot: list[tuple[float | None, bool | None] | None]) -> bool | None:
    """Whether a judge's call on an item agrees with gold on every compared field (None: no
    field is compared)."""
    compared = [c[1] for c in slot if c is not None and c[1] is not None]
    return all(compared) if compared else None


def _text_chunks(
    rows: list[dict[str, Any]],
    texts: list[str],
    details: dict[str, dict[str, list[dict[str, Any]]]],
    judge_at: dict[str, int],
) -> Iterator[tuple[list[str], dict[str, Any]]]:
    """Blocks of consecutive items with their texts and the judges' details, each closed once
    it holds about TEXT_CHUNK_BYTES."""
    ids: list[str] = []
    payload: dict[str, Any] = {}
    size = 0
    for row in rows:
        item = row["item_id"]
        notes = [
            [judge_at[sid], _details_lines(by_item[item])]
            for sid, by_item in sorted(details.items(), key=lambda kv: judge_at.get(kv[0], -1))
            if sid in judge_at and item in by_item
        ]
        entry = {"texts": [_text(row.get(c)) for c in texts], "details": notes}
        payload[item] = entry
        ids.append(item)
        size += len(json.dumps(entry, ensure_ascii=False))
        if size >= TEXT_CHUNK_BYTES:
            yield ids, payload
            ids, payload, size = [], {}, 0
    if ids or not rows:
        yield ids, payload


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _write_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
