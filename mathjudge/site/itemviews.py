"""View models of a benchmark's item pages, built from the item data `items` wrote.

- The explorer (`items/<bench>/index.html`, then `page-2.html`...) lists the items in natural
  id order, PAGE_ITEMS a page, with their scope values, gold labels and how many judges get
  each wrong, rendered as HTML so it reads without JavaScript and no page grows with the
  benchmark; the script adds filters by scope (category, subset...), by id and by one judge's
  disagreement with the gold label, over the whole benchmark, loading the item index and that
  judge's calls only when a filter is set (the filters are kept in the address).
- The item view (`items/<bench>/item.html#ID`) is one page for all the benchmark's items: the
  script reads the item id from the address, loads the item's texts and every judge's call
  and reasoning from the data files, and renders them as text (math typeset lazily). No item
  has a page of its own, so the site grows with submissions, not with submissions × items.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pyarrow.parquet as pq

from mathjudge.site.items import PAGES, natural_key, show_value
from mathjudge.site.modelpages import BenchRef
from mathjudge.site.pages import Option
from mathjudge.site.views import JudgeRef, View
from mathjudge.spec.document import ItemData

PAGE_ITEMS = 200  # items per page of the explorer: its first load stays small


def explorer_page(bench: str, page: int = 1) -> str:
    return f"{PAGES}/{bench}/{explorer_file(page)}"


def explorer_file(page: int) -> str:
    """The explorer's page `page` (from 1), in the benchmark's item folder."""
    return "index.html" if page == 1 else f"page-{page}.html"


def item_page(bench: str) -> str:
    return f"{PAGES}/{bench}/item.html"


def item_href(item_id: str) -> str:
    """The item view's address for an item, relative to the explorer (same folder)."""
    return "item.html#" + quote(item_id, safe="")


class Facet(View):
    column: str
    label: str
    values: tuple[str, ...]


class ItemRow(View):
    item_id: str
    href: str
    facets: tuple[str, ...]
    golds: tuple[str, ...]
    wrong: int  # judges whose call disagrees with gold
    judged: int


class PageLink(View):
    number: int
    href: str  # relative to the explorer's folder


class ExplorerPage(View):
    bench: BenchRef
    path: str
    view: str  # the item view page, relative to the explorer
    data: str  # the script files' folder, from the site root
    facets: tuple[Facet, ...]
    gold_labels: tuple[str, ...]
    rows: tuple[ItemRow, ...]  # this page's
    n_items: int  # the benchmark's
    page: int  # from 1
    pages: tuple[PageLink, ...]  # every page of the explorer
    first: int  # the position of this page's first item, from 1
    page_items: int
    judges: tuple[Option, ...]  # value: the judge's index in the data files
    n_compared: int  # judges with a gold comparison
    downloads: tuple[tuple[str, str], ...]  # (label, file under data/)
    withheld: str | None  # why the texts are left out


class ItemViewPage(View):
    bench: BenchRef
    path: str
    explorer: str  # relative to the item view
    data: str
    judges: tuple[JudgeRef, ...]  # in the data files' order: the script names them so
    withheld: str | None  # why the texts and the judges' details are left out


def explorer(
    info: ItemData, ref: BenchRef, refs: dict[str, JudgeRef], data_dir: Path
) -> list[ExplorerPage]:
    """The explorer of one benchmark, a page per PAGE_ITEMS items, from the items Parquet the
    export wrote (scope columns, gold labels, and how many judges answered and got each item
    wrong)."""
    assert info.items is not None and info.pages is not None
    golds = [f for f in info.fields if f.gold]
    wanted = ["item_id", *info.facets, *(f.gold for f in golds)]
    wanted += ["judges_wrong", "judges_answered"]
    table = pq.read_table(data_dir / info.items, columns=list(dict.fromkeys(wanted)))
    rows = sorted(table.to_pylist(), key=lambda r: natural_key(r["item_id"]))
    facets = tuple(
        Facet(
            column=c,
            label=c.replace("_", " "),
            values=tuple(sorted({_text(r.get(c)) for r in rows}, key=natural_key)),
        )
        for c in info.facets
    )
    items = tuple(
        ItemRow(
            item_id=r["item_id"],
            href=item_href(r["item_id"]),
            facets=tuple(_text(r.get(c)) for c in info.facets),
            golds=tuple(show_value(f.kind, r.get(f.gold), f.words, gold=True) for f in golds),
            wrong=r["judges_wrong"],
            judged=r["judges_answered"],
        )
        for r in rows
    )
    downloads = [("items", info.items), ("every judge's calls", info.predictions or "")]
    if info.details:
        downloads.append(("the judges' details", info.details))
    n_pages = max(1, -(-len(items) // PAGE_ITEMS))
    links = tuple(PageLink(number=k, href=explorer_file(k)) for k in range(1, n_pages + 1))
    judges = tuple(
        Option(value=str(i), label=refs[j.submission].judge) for i, j in enumerate(info.judges)
    )
    return [
        ExplorerPage(
            bench=ref,
            path=explorer_page(ref.name, k),
            view="item.html",
            data=info.pages,
            facets=facets,
            gold_labels=tuple(f.label for f in golds),
            rows=items[(k - 1) * PAGE_ITEMS : k * PAGE_ITEMS],
            n_items=len(items),
            page=k,
            pages=links,
            first=(k - 1) * PAGE_ITEMS + 1,
            page_items=PAGE_ITEMS,
            judges=judges,
            n_compared=sum(j.disagree is not None for j in info.judges),
            downloads=tuple((label, f) for label, f in downloads if f),
            withheld=info.withheld,
        )
        for k in range(1, n_pages + 1)
    ]


def item_view(info: ItemData, ref: BenchRef, refs: dict[str, JudgeRef]) -> ItemViewPage:
    assert info.pages is not None
    return ItemViewPage(
        bench=ref,
        path=item_page(ref.name),
        explorer="index.html",
        data=info.pages,
        judges=tuple(refs[j.submission] for j in info.judges),
        withheld=info.withheld,
    )


def _text(value: object) -> str:
    return "" if value is None else str(value)
