"""View models of the cross-benchmark pages: the overview, one page per judge with its item
explorer, and the item text pages the explorer links to.

Like `views`, everything is plain strings and numbers ready to print; untrusted text is escaped
by the templates. A judge is a (source, name) pair: a reported row and a reproduced row with the
same name are different results and get different pages.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from mathjudge.leaderboard.views import BenchmarkView, Cell, percent, score_cell

ITEMS_PER_PAGE = 100


@dataclass(frozen=True)
class RankInfo:
    text: str  # "1" or "1–3"
    point: int
    group: int
    low: int
    high: int


@dataclass(frozen=True)
class OverviewCell:
    cell: Cell
    sort: str  # the raw value for client-side sorting ("" when none)
    rank: RankInfo | None
    coverage: str | None  # shown only when partial
    page: str  # the judge's page


@dataclass(frozen=True)
class OverviewRow:
    judge: str
    source: str
    citation: str | None
    page: str
    cells: tuple[OverviewCell | None, ...]


@dataclass(frozen=True)
class OverviewView:
    benchmarks: tuple[BenchmarkView, ...]
    rank_status: tuple[str, ...]  # per benchmark: "ranked" or why not
    rows: tuple[OverviewRow, ...]


def judge_key(sub: dict[str, Any]) -> tuple[str, str]:
    return (sub["source"], sub["judge"])


def judge_page(source: str, judge: str) -> str:
    """A file name safe on every file system; the hash keeps distinct judges apart."""
    digest = hashlib.sha256(f"{source}\0{judge}".encode()).hexdigest()[:10]
    slug = re.sub(r"[^a-z0-9]+", "-", judge.casefold()).strip("-")[:40].strip("-") or "judge"
    return f"judges/{slug}-{digest}.html"


def rank_info(bench: dict[str, Any], sid: str) -> RankInfo | None:
    entry = bench.get("ranks", {}).get("judges", {}).get(sid)
    if entry is None:
        return None
    low, high = entry["rank_low"], entry["rank_high"]
    text = str(low) if low == high else f"{low}–{high}"
    return RankInfo(text, entry["rank"], entry["group"], low, high)


def overview(views: list[BenchmarkView], docs: list[dict[str, Any]]) -> OverviewView:
    """One row per judge, one column per benchmark with its headline; reproduced rows first,
    then by how many benchmarks a judge covers, then by name (no order claimed beyond that)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for b, (view, doc) in enumerate(zip(views, docs, strict=True)):
        for sub in doc["submissions"]:
            score = next(
                (
                    s
                    for s in sub["scores"]
                    if (s["scope"], s["subset"], s["metric"])
                    == ("overall", "all", view.headline.key)
                ),
                None,
            )
            row = rows.setdefault(judge_key(sub), {"sub": sub, "cells": {}})
            if score is None:  # e.g. a final-answer-only judge on a process-score headline
                missing = Cell(f"no {view.headline.label}", "", "missing")
                row["cells"][b] = OverviewCell(missing, "", None, None, judge_page(*judge_key(sub)))
                continue
            row["cells"][b] = OverviewCell(
                cell=score_cell(view.headline, score),
                sort="" if score["value"] is None else repr(score["value"]),
                rank=rank_info(doc, sub["id"]),
                coverage=percent(sub["coverage"])
                if sub["partial"] or sub["coverage"] < 1
                else None,
                page=judge_page(*judge_key(sub)),
            )
    ordered = sorted(
        rows.items(),
        key=lambda kv: (kv[0][0] == "reported", -len(kv[1]["cells"]), kv[0][1].casefold()),
    )
    out = tuple(
        OverviewRow(
            judge=judge,
            source=source,
            citation=data["sub"]["citation"],
            page=judge_page(source, judge),
            cells=tuple(data["cells"].get(b) for b in range(len(views))),
        )
        for (source, judge), data in ordered
    )
    status = tuple(d.get("ranks", {}).get("status", "not ranked") for d in docs)
    return OverviewView(tuple(views), status, out)


@dataclass(frozen=True)
class ExplorerRow:
    item_id: str
    href: str  # item text page + anchor
    cells: tuple[tuple[str, str, bool], ...]  # per field: gold, prediction, agrees
    disagrees: bool


@dataclass(frozen=True)
class Explorer:
    labels: tuple[str, ...]
    rows: tuple[ExplorerRow, ...]
    n_disagree: int
    download: str


@dataclass(frozen=True)
class JudgeEntry:
    bench: BenchmarkView
    submission: dict[str, Any]
    scores: Any  # views.Table of the overall scores, this judge only
    rank: RankInfo | None
    n_ranked: int
    explorer: Explorer | None


@dataclass(frozen=True)
class JudgeView:
    judge: str
    source: str
    citation: str | None
    page: str
    entries: tuple[JudgeEntry, ...]


def show_value(kind: str, value: float | None, *, gold: bool = False) -> str:
    if value is None:
        return "none"
    if kind == "score":
        return f"{value:g}"
    if kind == "binary" or gold:
        return "correct" if value >= 0.5 else "incorrect"
    return "correct" if value > 0 else "incorrect" if value < 0 else "inconclusive"


@dataclass(frozen=True)
class ItemLocator:
    """Where each item's text is: chunked pages of the benchmark's items, in item_id order."""

    benchmark: str
    index: dict[str, int]

    @classmethod
    def of(cls, benchmark: str, items: pa.Table) -> ItemLocator:
        ids = items.column("item_id").to_pylist()
        return cls(benchmark, {item: i for i, item in enumerate(ids)})

    def page(self, chunk: int) -> str:
        return f"items/{self.benchmark}-{chunk + 1}.html"

    def href(self, item_id: str) -> str:
        i = self.index[item_id]
        return f"{self.page(i // ITEMS_PER_PAGE)}#item-{i + 1}"


def explorer(
    fields: list[dict[str, Any]],
    predictions: list[dict[str, Any]],
    locator: ItemLocator,
    download: str,
) -> Explorer:
    """Rows of one judge: every item it answered, each field's gold and prediction."""
    by_item: dict[str, dict[str, dict[str, Any]]] = {}
    for p in predictions:
        by_item.setdefault(p["item_id"], {})[p["field"]] = p
    used = [f for f in fields if any(f["field"] in v for v in by_item.values())]
    rows = []
    for item_id in sorted(by_item, key=lambda i: locator.index.get(i, -1)):
        values = by_item[item_id]
        cells = []
        for f in used:
            p = values.get(f["field"])
            if p is None:
                cells.append(("", "not given", True))
                continue
            gold = show_value(f["kind"], p["gold"], gold=True)
            cells.append((gold, show_value(f["kind"], p["prediction"]), bool(p["agrees"])))
        rows.append(
            ExplorerRow(
                item_id=item_id,
                href=locator.href(item_id) if item_id in locator.index else "",
                cells=tuple(cells),
                disagrees=not all(c[2] for c in cells),
            )
        )
    return Explorer(
        labels=tuple(f["label"] for f in used),
        rows=tuple(rows),
        n_disagree=sum(r.disagrees for r in rows),
        download=download,
    )


@dataclass(frozen=True)
class ItemPage:
    benchmark: BenchmarkView
    number: int
    total: int
    path: str
    start: int  # 1-based number of the first item
    items: tuple[dict[str, Any], ...]
    text_columns: tuple[str, ...]
    gold_columns: tuple[tuple[str, str, str], ...]  # (column, label, kind)


def item_pages(view: BenchmarkView, items: pa.Table, info: dict[str, Any]) -> list[ItemPage]:
    locator = ItemLocator.of(view.name, items)
    rows = items.to_pylist()
    total = max(1, -(-len(rows) // ITEMS_PER_PAGE))
    gold = tuple((f["gold"], f["label"], f["kind"]) for f in info["fields"])
    return [
        ItemPage(
            benchmark=view,
            number=n + 1,
            total=total,
            path=locator.page(n),
            start=n * ITEMS_PER_PAGE + 1,
            items=tuple(rows[n * ITEMS_PER_PAGE : (n + 1) * ITEMS_PER_PAGE]),
            text_columns=tuple(info["text_columns"]),
            gold_columns=gold,
        )
        for n in range(total)
    ]
