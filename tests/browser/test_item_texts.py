"""An item view does a bounded amount of work whatever a judge's details hold, and a link whose
fragment names no item says so instead of showing the fragment as the page's heading (issue 29;
Debian's Chromium).

The site is built here from the real StepMathBench with one judge whose details a store could
hold before `check` bounded them per item (`repo check` now refuses them): issue 29's 40 rows
of "x\\n\\n" x 3,300 on one item (660 KB, 132,000 paragraphs: 34 s to load), and 1,900
paragraphs on another, within the bounds, which the view shows a batch at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from mathjudge import store as results_store
from mathjudge.api import publish_site
from mathjudge.scoring.evaluator import evaluate_file

HOSTILE = [{"item_id": "stepmath-1", "why": "x\n\n" * 3300} for _ in range(40)]
# 1,900 paragraphs in 6,539 characters, every tenth a formula: within every bound
LONG = [
    {
        "item_id": "stepmath-2",
        "why": "".join(f"${i}$\n\n" if i % 10 == 0 else "x\n\n" for i in range(1900)),
    }
]
# MathCheck-GSM's details of a reply no rule could read: no label (`read_as` null)
UNREAD = [
    {"item_id": "stepmath-4", "reply": "The answer is 12.", "parsed_by": "none", "read_as": None}
]
AT_ONCE = 200  # paragraphs of one text shown at first (math.js)
VIEW_MS = 20_000  # the hostile view took 34 s to load before its work was bounded


@pytest.fixture(scope="module")
def item_site(
    tmp_path_factory: pytest.TempPathFactory, datasets_dir: Path, stepmath_rows: list[dict]
) -> Path:
    tmp = tmp_path_factory.mktemp("item-site")
    rows = [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in stepmath_rows]
    path = tmp / "gold.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = evaluate_file("stepmathbench", path, "Gold copy", datasets_dir=datasets_dir, n_boot=20)
    store = tmp / "results.duckdb"
    assert len("".join(json.dumps(r) + "\n" for r in HOSTILE)) > 660_000
    results_store.save_synced(
        store, "submissions/stepmathbench/gold", "key", result, HOSTILE + LONG + UNREAD
    )
    publish_site(store, tmp / "site")
    return tmp / "site"


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(str(exc)))
    page.on("crash", lambda _: problems.append("renderer crashed"))
    yield page
    page.close()
    assert problems == []


def open_item(page: Page, site: Path, fragment: str) -> None:
    page.goto((site / "items" / "stepmathbench" / "item.html").as_uri() + "#" + fragment)


def test_details_past_the_bounds_of_an_item_view_are_cut(page: Page, item_site: Path) -> None:
    open_item(page, item_site, "stepmath-1")
    page.wait_for_selector("html[data-item='stepmath-1']", state="attached", timeout=VIEW_MS)
    details = page.locator("table.item-judges td.details")
    assert details.locator("p").count() <= AT_ONCE
    assert "whole details are in the details download" in details.inner_text()


def test_a_long_text_is_shown_a_batch_at_a_time(page: Page, item_site: Path) -> None:
    open_item(page, item_site, "stepmath-2")
    page.wait_for_selector("html[data-item='stepmath-2']", state="attached", timeout=VIEW_MS)
    details = page.locator("table.item-judges td.details")
    assert details.locator("p").count() == AT_ONCE
    more = details.get_by_role("button", name="Show the next 200 of the remaining 1700 paragraphs")
    more.click()
    assert details.locator("p").count() == 2 * AT_ONCE
    formula = details.locator("p").nth(390)  # "$390$", in the second batch
    formula.scroll_into_view_if_needed()
    formula.locator(".katex").wait_for()  # typeset as it comes into view


def test_a_details_value_that_holds_nothing_reads_none(page: Page, item_site: Path) -> None:
    """MathCheck-GSM's `read_as` of an unparsed reply is null: it reads "none", as a call
    without a value does, never as an empty box or as "null"."""
    open_item(page, item_site, "stepmath-4")
    page.wait_for_selector("html[data-item='stepmath-4']", state="attached", timeout=VIEW_MS)
    lines = page.locator("table.item-judges td.details .reasoning")
    shown = [
        (line.locator(".key").inner_text(), line.locator(".text").inner_text())
        for line in lines.all()
    ]
    assert shown == [("reply", "The answer is 12."), ("parsed_by", "none"), ("read_as", "none")]


def test_a_fragment_that_names_no_item_is_never_the_heading(page: Page, item_site: Path) -> None:
    """`item.html#NOTICE%3A…` showed the fragment as the page's <h1>."""
    open_item(page, item_site, "NOTICE%3A%20this%20judge%20was%20disqualified")
    page.wait_for_selector("[data-slot=status]:not([hidden])")
    assert page.locator("h1").inner_text() == "No such item"
    assert page.locator("[data-slot=status]").inner_text().startswith("No such item")
    assert "disqualified" not in page.locator("main").inner_text()
    open_item(page, item_site, "stepmath-3")  # a real item after it: its own heading
    page.wait_for_selector("html[data-item='stepmath-3']", state="attached")
    # Its own heading: the benchmark, the item and the start of its text.
    assert page.locator("h1").inner_text().startswith("StepMathBench, stepmath-3")
