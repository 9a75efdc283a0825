"""View models of the item pages: one page per item with its texts, gold labels and every
judge's prediction side by side (with the judge's own details where it gave a details file),
and one index per benchmark in natural id order with filters by scope.

Built from the exported Parquet files only (items, predictions, details). Item texts are shown
as plain text (escaped by the templates); the page renders their LaTeX with the vendored KaTeX
when JavaScript runs, and the raw TeX stays readable when it does not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from mathjudge.leaderboard.pages import ItemLocator, judge_page, natural_key, show_value
from mathjudge.leaderboard.views import BenchmarkView

MAX_FACET_VALUES = 30  # a text column with at most this many short values is a filter
MAX_FACET_CHARS = 60
MAX_DETAIL_CHARS = 2000  # per value of a judge's details


@dataclass(frozen=True)
class ItemJudge:
    judge: str
    page: str
    cells: tuple[tuple[str, str, bool], ...]  # per field: label, prediction, agrees
    agrees: bool
    details: tuple[tuple[str, str], ...]  # (key, text) of the judge's details rows


@dataclass(frozen=True)
class ItemView:
    bench: BenchmarkView
    item_id: str
    path: str
    facets: tuple[tuple[str, str], ...]  # (column, value)
    golds: tuple[tuple[str, str], ...]  # (label, gold shown)
    texts: tuple[tuple[str, str], ...]  # (column, text)
    judges: tuple[ItemJudge, ...]
    index: str
    previous: str  # file names of the neighbours in natural order ("" at the ends)
    next: str


@dataclass(frozen=True)
class IndexRow:
    item_id: str
    file: str
    facets: tuple[str, ...]
    golds: tuple[str, ...]
    wrong: int  # judges whose prediction disagrees with the gold label
    judged: int


@dataclass(frozen=True)
class ItemIndex:
    bench: BenchmarkView
    path: str
    facets: tuple[tuple[str, tuple[str, ...]], ...]  # (column, its values in natural order)
    gold_labels: tuple[str, ...]
    rows: tuple[IndexRow, ...]
    n_judges: int


def facet_columns(items: pa.Table, info: dict[str, Any]) -> list[str]:
    """Columns to filter by: the benchmark's scopes found among the item columns, and short
    text columns with few distinct values (MR-MATH's set, JudgeBench's category)."""
    out = [c for c in info.get("facet_columns", []) if c in items.column_names]
    for column in info["text_columns"]:
        values = {v for v in items.column(column).to_pylist() if v is not None}
        short = all(len(v) <= MAX_FACET_CHARS for v in values)
        if column not in out and short and 1 < len(values) <= MAX_FACET_VALUES:
            out.append(column)
    return out


def item_views(
    view: BenchmarkView,
    items: pa.Table,
    predictions: pa.Table,
    details: pa.Table | None,
    info: dict[str, Any],
    judges: dict[str, dict[str, Any]],
) -> tuple[ItemIndex, list[ItemView]]:
    """The index and every item page of one benchmark. `judges`: submission id -> its
    submission (the reproduced judges whose predictions were exported)."""
    locator = ItemLocator.of(view.name, items)
    facets = facet_columns(items, info)
    texts = [c for c in info["text_columns"] if c not in facets]
    fields = info["fields"]
    by_item: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for p in predictions.to_pylist():
        by_item.setdefault(p["item_id"], {}).setdefault(p["submission_id"], {})[p["field"]] = p
    notes = _details(details)
    rows = sorted(items.to_pylist(), key=lambda r: natural_key(r["item_id"]))
    order = [locator.files[r["item_id"]] for r in rows]
    pages, index_rows = [], []
    for n, row in enumerate(rows):
        item_id = row["item_id"]
        golds = tuple(
            (f["label"], show_value(f["kind"], row.get(f["gold"]), gold=True)) for f in fields
        )
        shown = []
        for sid, values in sorted(
            by_item.get(item_id, {}).items(), key=lambda kv: judges[kv[0]]["judge"].casefold()
        ):
            sub = judges[sid]
            cells = tuple(
                (
                    f["label"],
                    show_value(f["kind"], values[f["field"]]["prediction"]),
                    bool(values[f["field"]]["agrees"]),
                )
                for f in fields
                if f["field"] in values
            )
            shown.append(
                ItemJudge(
                    judge=sub["judge"],
                    page=judge_page(sub["source"], sub["judge"]),
                    cells=cells,
                    agrees=all(c[2] for c in cells),
                    details=notes.get((sid, item_id), ()),
                )
            )
        pages.append(
            ItemView(
                bench=view,
                item_id=item_id,
                path=locator.href(item_id),
                facets=tuple((c, _text(row.get(c))) for c in facets),
                golds=golds,
                texts=tuple((c, _text(row.get(c))) for c in texts),
                judges=tuple(shown),
                index="index.html",
                previous=order[n - 1] if n > 0 else "",
                next=order[n + 1] if n + 1 < len(order) else "",
            )
        )
        index_rows.append(
            IndexRow(
                item_id=item_id,
                file=locator.files[item_id],
                facets=tuple(_text(row.get(c)) for c in facets),
                golds=tuple(g for _, g in golds),
                wrong=sum(not j.agrees for j in shown),
                judged=len(shown),
            )
        )
    facet_values = tuple(
        (c, tuple(sorted({r.facets[i] for r in index_rows}, key=natural_key)))
        for i, c in enumerate(facets)
    )
    index = ItemIndex(
        bench=view,
        path=locator.index,
        facets=facet_values,
        gold_labels=tuple(f["label"] for f in fields),
        rows=tuple(index_rows),
        n_judges=len(judges),
    )
    return index, pages


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _details(table: pa.Table | None) -> dict[tuple[str, str], tuple[tuple[str, str], ...]]:
    """(submission, item) -> the judge's details as (key, text) lines, one block per run."""
    out: dict[tuple[str, str], list[tuple[str, str]]] = {}
    if table is None:
        return {}
    for row in table.to_pylist():
        lines = out.setdefault((row["submission_id"], row["item_id"]), [])
        prefix = f"run {row['run']}: " if row["run"] is not None else ""
        for key, value in json.loads(row["details"]).items():
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            if len(text) > MAX_DETAIL_CHARS:
                text = text[:MAX_DETAIL_CHARS] + "…"
            lines.append((prefix + str(key), text))
    return {key: tuple(lines) for key, lines in out.items()}
