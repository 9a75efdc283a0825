"""Per-item data: each judge's call on each item beside the gold label, stored once per
benchmark however many pages show it.

Two forms of the same data, both under the site's `data/` folder:

- downloads, Parquet: the item texts, scope columns and gold columns (`<bench>_items.parquet`),
  one row per (judge, item, field) with the prediction, the gold value and whether they agree
  (`<bench>_predictions.parquet`), and the judges' own details per item where they gave any
  (`<bench>_details.parquet`);
- what the item pages load on demand, as script files so they work from `file://`
  (`items/<bench>/`): `index.js` (the items in natural id order with their scope values, gold
  labels and how many judges get each wrong, and the fields in plain words), `calls-K.js`
  (every judge's call on a block of CALLS_CHUNK items: what an item view loads), `judge-J.js`
  (one judge's call on every item: what the explorer loads to filter by a judge) and
  `text-K.js` (the titles, texts and the judges' details of a block of items, cut at about
  TEXT_CHUNK_BYTES). Each file calls `mathjudgeData(name, payload)` with JSON data; the page's
  script checks the name.

Predictions are the values the judge was scored on (runs combined; verdicts as votes +1 / -1 /
0); the pages show them in the words each field declares (`show_value`, and the same rule in
SQL for the calls, which are many). A text the source holds as a list (a solution's steps) stays
a list, shown numbered as the benchmark numbers its steps. Benchmarks that declare no explorer
fields still get their items and every judge's raw prediction fields, without a gold
comparison.
"""

from __future__ import annotations

import json
import re
import string
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
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
from mathjudge.spec.presentation import BenchmarkPresentation, ItemField
from mathjudge.store import read

# Whether a prediction agrees with the gold value, per kind of field; NULL never agrees.
AGREES = {
    "score": "coalesce(abs(prediction - gold) <= {tolerance}, false)",
    "binary": "coalesce((prediction >= 0.5) = (gold >= 0.5), false)",
    "verdict": "coalesce(prediction <> 0 AND (prediction > 0) = (gold > 0), false)",
}
CALLS_CHUNK = 100  # items per calls file (an item view loads one)
TEXT_CHUNK_BYTES = 100_000  # a texts file closes once it holds about this much
MAX_DETAIL_CHARS = 20_000  # per value of a judge's details (reasoning is kept whole below it)
CUT = ["cut", "more than one item view shows; the whole details are in the details download"]
MAX_FACET_VALUES = 30  # a text column with at most this many short values is a filter
MAX_FACET_CHARS = 60
MAX_FALLBACK_TEXTS = 4  # text columns shown for a benchmark that declares none
PAGES = "items"  # folder of the script files, under data/
TITLE_CHARS = 80  # of an item's first text, after its label, in its title
WORDS = ("correct", "incorrect", "inconclusive")  # a verdict's words unless its field says


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """stepmath-2 before stepmath-10: digit runs compare as numbers."""
    parts = re.split(r"(\d+)", text)
    return tuple((1, int(p)) if i % 2 else (0, p.casefold()) for i, p in enumerate(parts))


def show_value(
    kind: str, value: float | None, words: Sequence[str] = WORDS, *, gold: bool = False
) -> str:
    """A stored prediction or gold value in words (`_call_text_sql` is the same rule in SQL)."""
    if value is None:
        return "none"
    if kind in ("score", "raw"):
        return f"{value:g}"
    if kind == "binary" or gold:
        return words[0] if value >= 0.5 else words[1]
    return words[0] if value > 0 else words[1] if value < 0 else words[2]


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
    details = {} if withheld else read.item_details(con, [s.id for s in judges])
    db = duckdb.connect()  # one in-memory database for the work of this benchmark
    try:
        return _export(bench, db, stored, predictions, details, judges, content_hash, data_dir,
                       withheld)  # fmt: skip
    finally:
        db.close()


def _export(
    bench: BenchmarkDocument,
    db: duckdb.DuckDBPyConnection,
    stored: pa.Table,
    predictions: pa.Table,
    details: dict[str, dict[str, list[dict[str, Any]]]],
    judges: list[BoardSubmission],
    content_hash: str,
    data_dir: Path,
    withheld: str | None,
) -> ItemData:
    show, name = bench.presentation, bench.name
    columns = set(stored.column_names)
    declared = [f for f in show.items if f.gold in columns]
    given = set(predictions.column("field").to_pylist()) if predictions.num_rows else set()
    fields = [_column(f) for f in declared] + [
        _raw_column(show, f) for f in sorted(given - {f.field for f in declared})
    ]
    texts = [c for c in show.item_text if c in columns] or _fallback_texts(stored)
    facets = _facets(stored, [s.key for s in show.scopes], texts)
    texts = [] if withheld else [c for c in texts if c not in facets]
    items = _items_table(db, stored, facets, texts, declared)
    compared = _compare(db, predictions, items, declared, fields)
    rows = sorted(items.to_pylist(), key=lambda r: natural_key(r["item_id"]))
    titles = _titles(show, stored, rows, texts)
    calls = Calls.of(db, rows, compared, judges, fields)
    by_id = {r["item_id"]: i for i, r in enumerate(rows)}
    order = [by_id[i] for i in items.column("item_id").to_pylist()]
    items = items.append_column(
        "judges_wrong", pa.array([calls.wrong[i] for i in order], pa.int32())
    ).append_column("judges_answered", pa.array([calls.judged[i] for i in order], pa.int32()))
    files = {"items": f"{name}_items.parquet", "predictions": f"{name}_predictions.parquet"}
    _write(data_dir / files["items"], items)
    _write(data_dir / files["predictions"], compared)
    if details:
        files["details"] = f"{name}_details.parquet"
        _write(data_dir / files["details"], _details_table(details))
    folder = f"{PAGES}/{name}"
    _write_pages(
        data_dir / folder,
        Pages(
            bench=name, rows=rows, titles=titles, calls=calls, details=details, judges=judges,
            facets=facets, texts=texts, fields=fields, withheld=withheld,
            elsewhere=dict(show.text_elsewhere), first_step=show.first_step,
        ),
    )  # fmt: skip
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


def _column(f: ItemField) -> ItemColumn:
    return ItemColumn(
        field=f.field, label=f.label, kind=f.kind, gold=f.gold, description=f.description,
        words=list(f.words),
    )  # fmt: skip


def _raw_column(show: BenchmarkPresentation, field: str) -> ItemColumn:
    """A stored value not compared with gold, in the words the benchmark gives it."""
    note = next((n for n in show.item_notes if n.field == field), None)
    return ItemColumn(
        field=field,
        label=note.label if note else field.replace("_", " "),
        kind="raw",
        gold="",
        description=note.description if note else "",
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
        if _is_list(stored.schema.field(column).type):
            continue
        values = {str(v) for v in stored.column(column).to_pylist() if v is not None}
        short = all(len(v) <= MAX_FACET_CHARS for v in values)
        if column not in out and short and 1 < len(values) <= MAX_FACET_VALUES:
            out.append(column)
    return out


def _is_list(kind: pa.DataType) -> bool:
    return bool(pa.types.is_list(kind) or pa.types.is_large_list(kind))


def _text_sql(column: str, kind: pa.DataType) -> str:
    """A text column as the item pages show it: a list of steps stays a list of texts (a step
    that is itself a list of lines becomes one text), anything else becomes text."""
    quoted = f'"{column}"'
    if _is_list(kind):
        inner = kind.value_type
        if _is_list(inner):
            return f"list_transform({quoted}, lambda s: array_to_string(s, chr(10))) AS {quoted}"
        return f"CAST({quoted} AS VARCHAR[]) AS {quoted}"
    return f"CAST({quoted} AS VARCHAR) AS {quoted}"


def _items_table(
    db: duckdb.DuckDBPyConnection,
    stored: pa.Table,
    facets: list[str],
    texts: list[str],
    fields: list[ItemField],
) -> pa.Table:
    db.register("stored", stored)
    columns = (
        ["item_id"]
        + [f'CAST("{c}" AS VARCHAR) AS "{c}"' for c in facets]
        + [_text_sql(c, stored.schema.field(c).type) for c in texts]
        + [f'CAST("{f.gold}" AS DOUBLE) AS "{f.gold}"' for f in fields]
    )
    return db.sql(f"SELECT {', '.join(columns)} FROM stored ORDER BY item_id").to_arrow_table()


def _titles(
    show: BenchmarkPresentation, stored: pa.Table, rows: list[dict[str, Any]], texts: list[str]
) -> dict[str, tuple[str, str]]:
    """item id -> its title after the benchmark's name: the spec's label filled from the item's
    columns ("problem 3, solution 7"), and the start of its first text ("" when the texts are
    withheld)."""
    label = show.item_title
    wanted = [f for _, f, _, _ in string.Formatter().parse(label) if f]
    if not all(f in stored.column_names for f in wanted):  # a build that lacks a column
        label, wanted = "{item_id}", []
    table = stored.select(list(dict.fromkeys(["item_id", *wanted])))
    values = {r["item_id"]: r for r in table.to_pylist()}
    first = next((c for c in texts if rows and isinstance(rows[0].get(c), str | None)), None)
    out = {}
    for row in rows:
        item = row["item_id"]
        title = label.format_map({k: _text(v) for k, v in values[item].items()})
        start = " ".join(_text(row.get(first)).split()) if first else ""
        if len(start) > TITLE_CHARS:
            start = start[:TITLE_CHARS].rsplit(" ", 1)[0] + "…"
        out[item] = (title, start)
    return out


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
    db: duckdb.DuckDBPyConnection,
    predictions: pa.Table,
    items: pa.Table,
    declared: list[ItemField],
    fields: list[ItemColumn],
) -> pa.Table:
    """Every stored prediction of an explorer field beside its gold value and whether they
    agree (fields without gold: gold and agreement null)."""
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


# --- Every judge's calls, computed in DuckDB ---------------------------------------------------


def _call_text_sql(f: ItemColumn) -> str:
    """`show_value` of a prediction of field `f`, in SQL."""
    if f.kind in ("score", "raw"):
        shown = "printf('%g', prediction)"
    elif f.kind == "binary":
        shown = (
            f"CASE WHEN prediction >= 0.5 THEN {_quote(f.words[0])} ELSE {_quote(f.words[1])} END"
        )
    else:
        shown = (
            f"CASE WHEN prediction > 0 THEN {_quote(f.words[0])} "
            f"WHEN prediction < 0 THEN {_quote(f.words[1])} ELSE {_quote(f.words[2])} END"
        )
    return f"CASE WHEN prediction IS NULL THEN 'none' ELSE {shown} END"


class Calls:
    """Every judge's call on every item (items in natural order): per (judge, item) the text
    shown for each field and whether the call agrees with gold on every compared field (None:
    no field compared), with how many judges get each item wrong and each judge's counts.

    Kept as one DuckDB table `calls` (j, i, f, text, agrees): the per-item loops over judges
    and fields were most of a site build's time on RewardMATH (30 judges, 4,830 items, 10
    fields)."""

    def __init__(
        self,
        db: duckdb.DuckDBPyConnection,
        n_items: int,
        judges: list[BoardSubmission],
        n_fields: int,
    ) -> None:
        self.db = db
        self.n_fields = n_fields
        self._cells: list[tuple[int, int, str]] | None = None
        per_item = db.sql(
            """SELECT i, count(*) AS judged, count(*) FILTER (WHERE agree = false) AS wrong
               FROM judge_item GROUP BY i"""
        ).fetchall()
        self.wrong = [0] * n_items
        self.judged = [0] * n_items
        for i, judged, wrong in per_item:
            self.judged[i], self.wrong[i] = judged, wrong
        counts = {
            j: (answered, disagree, compared)
            for j, answered, disagree, compared in db.sql(
                """SELECT j, count(*), count(*) FILTER (WHERE agree = false), count(agree)
                   FROM judge_item GROUP BY j"""
            ).fetchall()
        }
        self.stats = []
        for j, sub in enumerate(judges):
            answered, disagree, compared = counts.get(j, (0, 0, 0))
            self.stats.append(
                ItemJudge(
                    submission=sub.id, answered=answered, disagree=disagree if compared else None
                )
            )

    @classmethod
    def of(
        cls,
        db: duckdb.DuckDBPyConnection,
        rows: list[dict[str, Any]],
        compared: pa.Table,
        judges: list[BoardSubmission],
        fields: list[ItemColumn],
    ) -> Calls:
        db.register("compared", compared)
        db.register(
            "positions",
            pa.table({"item_id": [r["item_id"] for r in rows], "i": range(len(rows))}),
        )
        db.register(
            "judges", pa.table({"submission_id": [s.id for s in judges], "j": range(len(judges))})
        )
        db.register(
            "fields", pa.table({"field": [f.field for f in fields], "f": range(len(fields))})
        )
        shown = " ".join(f"WHEN {k} THEN {_call_text_sql(f)}" for k, f in enumerate(fields))
        db.execute(
            f"""CREATE TABLE calls AS
                SELECT j.j, p.i, f.f, c.agrees, CASE f.f {shown or "WHEN 0 THEN ''"} END AS text
                FROM compared c JOIN positions p USING (item_id)
                JOIN judges j USING (submission_id) JOIN fields f USING (field)"""
        )
        db.execute(
            """CREATE TABLE judge_item AS
               SELECT j, i, bool_and(agrees) FILTER (WHERE agrees IS NOT NULL) AS agree
               FROM calls GROUP BY j, i"""
        )
        return cls(db, len(rows), judges, len(fields))

    def blocks(self, by: str, size: int = 0) -> Iterator[tuple[int, str]]:
        """Payloads of the calls files, as JSON text: `by` "item" gives blocks of `size`
        consecutive items with every judge's calls (`start`, `judges`: [judge, calls]), "judge"
        one judge's calls on every item (`calls`). A call is [the text shown for each field
        (null: not given), whether it agrees with gold (1, 0, or null when not compared)], null
        for an item not answered. Each call is encoded once, in SQL; Python only joins them."""
        n = len(self.wrong)
        per: dict[int, dict[int, list[str]]] = {}
        for j, i, cell in self.cells():
            b, start = (i // size, i // size * size) if by == "item" else (j, 0)
            block = per.setdefault(b, {})
            row = block.get(j)
            if row is None:  # a judge's first call in the block: every slot "not answered"
                row = block[j] = ["null"] * ((min(start + size, n) - start) if by == "item" else n)
            row[i - start] = cell
        for b in sorted(per):
            if by == "item":
                judges = ",".join(f"[{j},[{','.join(c)}]]" for j, c in sorted(per[b].items()))
                yield b, f'{{"start":{b * size},"judges":[{judges}]}}'
            else:
                yield b, f'{{"calls":[{",".join(per[b][b])}]}}'

    def cells(self) -> list[tuple[int, int, str]]:
        """(judge, item, the call as JSON text), computed once."""
        if self._cells is None:
            texts = ", ".join(
                f"coalesce(to_json(max(text) FILTER (WHERE f = {k})), 'null')"
                for k in range(self.n_fields)
            )
            self._cells = self.db.sql(
                f"""SELECT c.j, c.i,
                           '[[' || concat_ws(',', {texts or "NULL"}) || '],'
                           || coalesce(CAST(CAST(any_value(ji.agree) AS INTEGER) AS VARCHAR),
                                       'null') || ']'
                    FROM calls c JOIN judge_item ji USING (j, i)
                    GROUP BY c.j, c.i"""
            ).fetchall()
        return self._cells


# --- The script files of the item pages -------------------------------------------------------


def data_script(name: str, payload: Any) -> str:
    """A script file that hands `payload` to the page: JSON inside one call, so nothing in
    the data can run."""
    body = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return f"mathjudgeData({json.dumps(name)},{body});\n"


def _script(name: str, payload: str) -> str:
    """`data_script` of a payload already encoded as JSON text."""
    return f"mathjudgeData({json.dumps(name)},{payload});\n"


@dataclass(frozen=True)
class Pages:
    """What the script files of one benchmark's item pages are written from."""

    bench: str
    rows: list[dict[str, Any]]  # the items in natural order
    titles: dict[str, tuple[str, str]]  # item id -> (label, start of its text)
    calls: Calls
    details: dict[str, dict[str, list[dict[str, Any]]]]
    judges: list[BoardSubmission]
    facets: list[str]
    texts: list[str]
    fields: list[ItemColumn]
    withheld: str | None
    elsewhere: dict[str, str]  # text column -> where its text lives, when the source lacks it
    first_step: int


def _write_pages(folder: Path, pages: Pages) -> None:
    """The script files of the item pages (see the module note)."""
    folder.mkdir(parents=True, exist_ok=True)
    bench, rows, calls = pages.bench, pages.rows, pages.calls
    judge_at = {s.id: j for j, s in enumerate(pages.judges)}
    chunk_of = {}
    for k, (ids, payload) in enumerate(_text_chunks(pages, judge_at)):
        for item in ids:
            chunk_of[item] = k
        _write_text(folder / f"text-{k}.js", _script(f"{bench}/text-{k}", payload))
    index = {
        "benchmark": bench,
        "withheld": pages.withheld,
        "fields": [
            {
                "label": f.label,
                "gold": bool(f.gold),
                "kind": f.kind,
                "description": f.description,
            }
            for f in pages.fields
        ],
        "facets": pages.facets,
        "texts": pages.texts,
        "elsewhere": [pages.elsewhere.get(c, "") for c in pages.texts],
        "first_step": pages.first_step,
        "calls_chunk": CALLS_CHUNK,
        "judges": [s.judge for s in pages.judges],
        "items": [
            [
                r["item_id"],
                [_text(r.get(c)) for c in pages.facets],
                [
                    show_value(f.kind, r.get(f.gold), f.words, gold=True)
                    for f in pages.fields
                    if f.gold
                ],
                chunk_of.get(r["item_id"], 0),
                calls.wrong[i],
                calls.judged[i],
            ]
            for i, r in enumerate(rows)
        ],
    }
    _write_text(folder / "index.js", data_script(f"{bench}/index", index))
    written = set()
    for k, text in calls.blocks("item", CALLS_CHUNK):
        written.add(k)
        _write_text(folder / f"calls-{k}.js", _script(f"{bench}/calls-{k}", text))
    for k in range(max(1, -(-len(rows) // CALLS_CHUNK))):  # blocks no judge answered
        if k not in written:
            empty = {
                "start": k * CALLS_CHUNK,
                "values": [[] for _ in pages.fields],
                "judges": [],
            }
            _write_text(folder / f"calls-{k}.js", data_script(f"{bench}/calls-{k}", empty))
    answered = set()
    for j, text in calls.blocks("judge"):
        answered.add(j)
        _write_text(folder / f"judge-{j}.js", _script(f"{bench}/judge-{j}", text))
    for j in range(len(pages.judges)):  # a judge without a call on these items
        if j not in answered:
            nothing = {"values": [[] for _ in pages.fields], "calls": [None] * len(rows)}
            _write_text(folder / f"judge-{j}.js", data_script(f"{bench}/judge-{j}", nothing))


def _text_chunks(pages: Pages, judge_at: dict[str, int]) -> Iterator[tuple[list[str], str]]:
    """Blocks of consecutive items with their titles, texts and the judges' details, each
    closed once it holds about TEXT_CHUNK_BYTES; the payload as JSON text (each item's entry is
    encoded once)."""
    ids: list[str] = []
    parts: list[str] = []
    size = 0
    by_judge = sorted(pages.details.items(), key=lambda kv: judge_at.get(kv[0], -1))
    for row in pages.rows:
        item = row["item_id"]
        notes = [
            [judge_at[sid], _details_lines(by_item[item])]
            for sid, by_item in by_judge
            if sid in judge_at and item in by_item
        ]
        label, start = pages.titles.get(item, (item, ""))
        entry = {
            "title": label,
            "start": start,
            "texts": [_shown_text(row.get(c)) for c in pages.texts],
            "details": notes,
        }
        encoded = json.dumps(entry, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        parts.append(f"{json.dumps(item, ensure_ascii=False)}:{encoded}")
        ids.append(item)
        size += len(encoded)
        if size >= TEXT_CHUNK_BYTES:
            yield ids, "{" + ",".join(parts) + "}"
            ids, parts, size = [], [], 0
    if ids or not pages.rows:
        yield ids, "{" + ",".join(parts) + "}"


def _shown_text(value: Any) -> str | list[str]:
    """A text as the item view shows it: a list of steps stays a list."""
    if isinstance(value, list):
        return [_text(v) for v in value]
    return _text(value)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _write_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
