"""View models of the cross-benchmark pages: one page per judge with its item explorer, and
where each item's page is (`ItemLocator`).

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

from mathjudge.leaderboard.views import BenchmarkView


@dataclass(frozen=True)
class RankInfo:
    text: str  # "1" or "1–3"
    point: int
    group: int
    low: int
    high: int


def judge_key(sub: dict[str, Any]) -> tuple[str, str]:
    return (sub["source"], sub["judge"])


def judge_page(source: str, judge: str) -> str:
    """A file name safe on every file system; the hash keeps distinct judges apart."""
    digest = hashlib.sha256(f"{source}\0{judge}".encode()).hexdigest()[:10]
    slug = re.sub(r"[^a-z0-9]+", "-", judge.casefold()).strip("-")[:40].strip("-") or "judge"
    return f"judges/{slug}-{digest}.html"


def model_page(model_id: str) -> str:
    """Model ids are checked file names (the alias table's pattern)."""
    return f"models/{model_id}.html"


def rank_info(bench: dict[str, Any], sid: str) -> RankInfo | None:
    entry = bench.get("ranks", {}).get("judges", {}).get(sid)
    if entry is None:
        return None
    low, high = entry["rank_low"], entry["rank_high"]
    text = str(low) if low == high else f"{low}–{high}"
    return RankInfo(text, entry["rank"], entry["group"], low, high)


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
    standing: Any  # board.Standing: its rank, or why it has none
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


RESERVED = {"index"}  # file names of the item folder that are not items
SAFE_ITEM = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")


def item_file(item_id: str) -> str:
    """The item's page name: its id when that is a safe lower-case file name, else a slug
    with a hash of the id (so distinct ids never share a page, on any file system)."""
    if SAFE_ITEM.fullmatch(item_id) and item_id not in RESERVED and not item_id.endswith("."):
        return f"{item_id}.html"
    digest = hashlib.sha256(item_id.encode()).hexdigest()[:10]
    slug = re.sub(r"[^a-z0-9]+", "-", item_id.casefold()).strip("-")[:60].strip("-") or "item"
    return f"{slug}-{digest}.html"


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """stepmath-2 before stepmath-10: digit runs compare as numbers."""
    parts = re.split(r"(\d+)", text)
    return tuple((1, int(p)) if i % 2 else (0, p.casefold()) for i, p in enumerate(parts))


@dataclass(frozen=True)
class ItemLocator:
    """Where each item's page is: `items/<benchmark>/<item file>`, one page per item."""

    benchmark: str
    files: dict[str, str]  # item id -> file name

    @classmethod
    def of(cls, benchmark: str, items: pa.Table) -> ItemLocator:
        return cls(benchmark, {i: item_file(i) for i in items.column("item_id").to_pylist()})

    @property
    def index(self) -> str:
        return f"items/{self.benchmark}/index.html"

    def href(self, item_id: str) -> str:
        return f"items/{self.benchmark}/{self.files[item_id]}"


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
    for item_id in sorted(by_item, key=natural_key):
        values = by_item[item_id]
        cells = []
        for f in used:
            given = values.get(f["field"])
            if given is None:
                cells.append(("", "not given", True))
                continue
            gold = show_value(f["kind"], given["gold"], gold=True)
            cells.append((gold, show_value(f["kind"], given["prediction"]), bool(given["agrees"])))
        rows.append(
            ExplorerRow(
                item_id=item_id,
                href=locator.href(item_id) if item_id in locator.files else "",
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
