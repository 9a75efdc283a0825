"""The built site in a real browser (Debian's Chromium driven by Playwright), from `file://`,
as a reader uses it: the glance on a phone, the filters (sources, judge kind, search, metric
columns) and the verdicts that follow them, the item explorer and item views with a judge's
reasoning, downloads, sorting, tabs, and every page readable without JavaScript.

The site is built once per session (`conftest.site`). Screenshots are kept under
`test-artifacts/` (git-ignored) or $MATHJUDGE_SHOTS.
"""

from __future__ import annotations

import functools
import json
import time
from collections import deque
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, unquote, urldefrag, urlsplit

import pyarrow.parquet as pq
from playwright.sync_api import Browser, Page, Request

from browser.conftest import FORMULA_JUDGE, IMG_JUDGE, O1, SCRIPT_JUDGE, Site, Watched, shots_dir
from mathjudge.base.names import canonical
from mathjudge.site.views import judge_page

PHONE = {"width": 390, "height": 844}


def _shot(page: Page, name: str) -> Path:
    path = shots_dir() / name
    page.screenshot(path=str(path), full_page=False)
    assert path.stat().st_size > 0
    return path


def _column_values(page: Page, table: str, index: int) -> list[str]:
    return page.eval_on_selector_all(
        f"{table} tbody tr:not([hidden])",
        f"rows => rows.map(r => r.cells[{index}].getAttribute('data-sort'))",
    )


def _glance(page: Page, bench: str):  # type: ignore[no-untyped-def]
    """The glance line of a benchmark the page shows now."""
    return page.locator(f".glance li:has(a.bench[href='{bench}.html']) .glance-line:not([hidden])")


def _open_filters(page: Page) -> None:
    details = page.locator("details[data-filters]").first
    if details.get_attribute("open") is None:
        details.locator("summary").click()


def test_the_glance_on_a_phone_names_leader_metric_direction_interval_and_n(
    site: Site, browser: Browser
) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(site.url("index.html"))
        step = _glance(page, "stepmathbench")
        assert step.count() == 1
        text = " ".join(step.inner_text().split())
        # The gold-copying judge leads every replicate: its value with the metric's name,
        # direction, interval and n, and the verdict, in one line.
        assert f"{FORMULA_JUDGE} reproduced rule 100.0 [100.0, 100.0] n = 1000" in text
        assert "Corr ×100 ↑ higher is better" in text and "significant lead" in text
        # The glance starts on the first screen: its first benchmarks are read without scrolling.
        lines = page.locator(".glance li .glance-line:not([hidden])")
        third = lines.nth(2).bounding_box()
        assert third is not None and third["y"] + third["height"] <= PHONE["height"]
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        _shot(page, "overview-phone.png")
        # A benchmark page on a phone: its verdict and the top of its board on the first screen.
        page.goto(site.url("stepmathbench.html"))
        verdict = page.locator(".bench-glance .glance-line:not([hidden])")
        assert "significant lead" in verdict.inner_text()
        rows = page.locator(".main-board tbody tr:not([hidden])")
        assert rows.first.locator("th a").inner_text() == FORMULA_JUDGE
        top = rows.nth(2).bounding_box()
        assert top is not None and top["y"] + top["height"] <= PHONE["height"]
        # Methodology folds away; the phone shows the default columns only.
        assert page.locator("details.method").get_attribute("open") is None
        shown = page.locator(".main-board thead th[data-col]:visible")
        assert shown.count() < page.locator(".main-board thead th[data-col]").count()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        _shot(page, "benchmark-phone.png")
    finally:
        context.close()


def test_the_sources_filter_changes_the_glance_and_the_verdicts(
    site: Site, watched: Watched
) -> None:
    page = watched.page
    page.goto(site.url("index.html"))
    _shot(page, "overview-desktop.png")
    # μ-MATH has results from papers only: the glance names the best and says why no rank.
    mumath = _glance(page, "mumath")
    assert "paper" in mumath.inner_text() and "copied from a paper" in mumath.inner_text()
    rows = page.locator("#bench-mumath tbody tr[data-prov=paper]:not([hidden])")
    assert rows.count() == 5 and rows.first.locator(".badge.src-paper").is_visible()
    link = rows.first.locator("a.cite")
    assert link.get_attribute("href").startswith("https://arxiv.org/abs/")
    step = _glance(page, "stepmathbench")
    assert FORMULA_JUDGE in step.inner_text() and "significant lead" in step.inner_text()
    board = page.locator("#bench-stepmathbench tbody tr:not([hidden])")
    assert (
        board.count() == 5
        and page.locator("#bench-stepmathbench tbody tr[data-prov=paper]:not([hidden])").count() > 0
    )
    _open_filters(page)
    page.get_by_label("paper", exact=True).uncheck()
    # Without the papers: μ-MATH says nothing is shown instead of naming a paper's judge...
    assert "nothing shown" in mumath.inner_text() and "paper" not in mumath.inner_text()
    assert page.locator("#bench-mumath tbody tr:not([hidden])").count() == 0
    assert page.locator("#bench-mumath .none-shown").is_visible()
    # ...and StepMathBench's board lists its four reproduced judges with a Corr, the leader first.
    assert "significant lead" in step.inner_text()
    assert board.locator("th a").first.inner_text() == FORMULA_JUDGE
    assert board.count() == 4 and set(
        board.evaluate_all("rows => rows.map(r => r.dataset.prov)")
    ) == {"submitted"}
    # Only the papers: no ranking anywhere, and the reason in words.
    page.get_by_label("paper", exact=True).check()
    page.get_by_label("reproduced", exact=True).uncheck()
    page.get_by_label("converted", exact=True).uncheck()
    assert "no ranking" in step.inner_text() and "copied from a paper" in step.inner_text()
    # The choice holds on the benchmark page, whose verdict follows it too.
    page.goto(site.url("stepmathbench.html"))
    verdict = page.locator(".bench-glance .glance-line:not([hidden])")
    assert "no ranking" in verdict.inner_text()
    assert page.locator(".main-board tbody tr[data-prov=submitted]:not([hidden])").count() == 0
    _open_filters(page)
    page.get_by_label("reproduced", exact=True).check()
    assert "significant lead" in verdict.inner_text()
    assert watched.problems == []


def test_the_judge_kind_filter_and_the_search(site: Site, watched: Watched) -> None:
    page = watched.page
    page.goto(site.url("stepmathbench.html"))
    _open_filters(page)
    page.get_by_label("Judge kind").select_option("reward_model")
    rows = page.locator(".main-board tbody tr:not([hidden])")
    assert rows.locator("th a").all_inner_texts() == ["far judge"]
    verdict = page.locator(".bench-glance .glance-line:not([hidden])")
    # The leader is a rule: hidden; the best reward model is not called the leader.
    assert "best of those shown" in verdict.inner_text()
    assert f"the overall leader, {FORMULA_JUDGE}, is hidden" in verdict.inner_text()
    page.get_by_label("Judge kind").select_option("all")
    page.get_by_label("Search judges").fill("close")
    assert rows.locator("th a").all_inner_texts() == ["close judge"]
    page.get_by_label("Search judges").fill("")
    # The metric columns: untick all but the headline.
    boxes = page.locator("fieldset.columns input[name=col]")
    for i in range(boxes.count()):
        if not boxes.nth(i).locator("xpath=..").inner_text().strip().startswith("Corr"):
            boxes.nth(i).uncheck()
    headers = page.locator(".main-board thead tr").last.locator("th[data-col]:visible")
    assert [h.strip().split()[0] for h in headers.all_inner_texts()] == ["Corr"]
    assert watched.problems == []


def test_sorting_keeps_empty_cells_last_in_both_directions(site: Site, watched: Watched) -> None:
    """StepMathBench's main table: Corr is empty (a dash) for the answer-only judge and for
    the papers' final-answer rows; numbers sort as numbers, empties stay last."""
    page = watched.page
    page.goto(site.url("stepmathbench.html"))
    table = ".main-board table"
    headers = page.locator(f"{table} thead tr").last.locator("th")
    labels = [h.strip() for h in headers.all_inner_texts()]
    column = next(i for i, h in enumerate(labels) if h.startswith("Corr"))
    values = _column_values(page, table, column)
    assert values.count("") >= 5 and len([v for v in values if v]) >= 10
    # Hostile judge names are shown as text, never as markup.
    judges = page.locator(f"{table} tbody th a").all_inner_texts()
    assert SCRIPT_JUDGE in judges and IMG_JUDGE in judges
    assert page.locator("img[src=x]").count() == 0
    for order in ("descending", "ascending"):
        headers.nth(column).get_by_role("button").click()
        assert headers.nth(column).get_attribute("aria-sort") == order
        values = _column_values(page, table, column)
        filled = [float(v) for v in values if v]
        assert values[len(filled) :] == [""] * (len(values) - len(filled))  # empties last
        assert filled == sorted(filled, reverse=order == "descending")
    # A text column sorts as text, a keyboard press works like a click.
    headers.nth(0).get_by_role("button").press("Enter")
    assert headers.nth(0).get_attribute("aria-sort") == "ascending"
    assert watched.problems == []


def test_judge_column_and_header_stay_in_view(site: Site, watched: Watched) -> None:
    page = watched.page
    page.set_viewport_size({"width": 700, "height": 700})
    page.goto(site.url("stepmathbench.html"))
    _open_filters(page)
    boxes = page.locator("fieldset.columns input[name=col]")
    for i in range(boxes.count()):
        boxes.nth(i).check()  # every column: a wide table
    wrap = page.locator(".main-board .table-wrap").first
    wrap.evaluate("w => w.scrollIntoView()")
    box = wrap.bounding_box()
    wrap.evaluate("w => { w.scrollLeft = 600; w.scrollTop = 300; }")
    assert wrap.evaluate("w => w.scrollLeft") > 0 and wrap.evaluate("w => w.scrollTop") > 0
    # The first visible row's judge cell still starts at the frame's left edge...
    judge = page.locator(".main-board tbody th.judge").nth(8)
    assert abs(judge.bounding_box()["x"] - box["x"]) <= 2
    # ...and the header (metric groups, then metric names) sits at the frame's top.
    thead = page.locator(".main-board thead").first
    assert abs(thead.bounding_box()["y"] - box["y"]) <= 2
    assert watched.problems == []


def test_benchmark_tabs_switch_by_click_and_keyboard(site: Site, watched: Watched) -> None:
    page = watched.page
    page.goto(site.url("stepmathbench.html"))
    tabs = page.get_by_role("tab")
    assert tabs.count() >= 3
    by_type, by_generator = (
        page.locator("#panel-scope-type"),
        page.locator("#panel-scope-generator"),
    )
    assert by_type.is_visible() and by_generator.is_hidden()
    page.get_by_role("tab", name="By generator").click()
    assert by_generator.is_visible() and by_type.is_hidden()
    page.get_by_role("tab", name="By generator").press("ArrowRight")
    assert page.locator("#panel-scope-level").is_visible() and by_generator.is_hidden()
    assert page.evaluate("document.activeElement.textContent") == "By level"
    # The selected tab is in the URL: a reload (or a shared link) opens it again.
    assert urldefrag(page.url).fragment == "scope-level"
    page.reload()
    assert page.locator("#panel-scope-level").is_visible() and by_type.is_hidden()
    page.goto(site.url("stepmathbench.html#scope-generator"))
    assert page.get_by_role("tab", name="By generator").get_attribute("aria-selected") == "true"
    # A fragment that is no valid escape does not break the page.
    page.goto(site.url("index.html"))
    page.goto(site.url("stepmathbench.html#%E0%A4%A"))
    assert page.get_by_role("tab", name="By type").get_attribute("aria-selected") == "true"
    plot = page.locator("figure img").first
    plot.scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('figure img')?.naturalWidth > 0")
    assert watched.problems == []


def test_an_item_explorer_filtered_to_a_category_and_a_judges_disagreements(
    site: Site, watched: Watched
) -> None:
    page = watched.page
    page.goto(site.url("items/judgebench/index.html"))
    rows = page.locator("#items tbody tr:not([hidden])")
    assert rows.count() == 200  # the first page of 350
    page.get_by_label("category").select_option("math")
    items = pq.read_table(site.root / "data" / "judgebench_items.parquet").to_pylist()
    math = sorted(r["item_id"] for r in items if r["category"] == "math")
    page.wait_for_function("document.querySelector('[data-count]')?.textContent.includes('found')")
    assert len(math) == 56 and sorted(rows.locator("th").all_inner_texts()) == math
    assert page.locator("[data-count]").inner_text() == "56 of 350 items found."
    # One judge's calls, and only the math pairs it gets wrong (counted from its data file).
    preds = pq.read_table(site.root / "data" / "judgebench_predictions.parquet").to_pylist()
    doc = site.document()
    (bench,) = [b for b in doc["benchmarks"] if b["name"] == "judgebench"]
    sid = next(s["id"] for s in bench["submissions"] if s["judge"] == O1)
    wrong = {p["item_id"] for p in preds if p["submission_id"] == sid and not p["agrees"]}
    page.locator("select[name=judge]").select_option(label=O1)
    page.get_by_label("Only items where the judge disagrees").check()
    shown = set(rows.locator("th").all_inner_texts())
    assert shown == wrong & set(math) and shown
    assert rows.first.locator("td[data-judge-col]").inner_text().endswith("(disagrees)")
    _shot(page, "items-judgebench-math.png")
    # The judge page leads to the same view: every item it gets wrong.
    page.goto(site.url(judge_page(canonical(O1))))
    page.get_by_role("link", name="Its calls item by item").click()
    page.wait_for_function("document.querySelector('[data-count]')?.textContent.includes('with')")
    assert rows.count() == len(wrong)
    assert watched.problems == []


def test_an_llm_judges_reasoning_on_an_item_view(site: Site, watched: Watched) -> None:
    page = watched.page
    item = next(i for i, texts in site.reasoning.items() if len(texts) == 2)
    page.goto(site.url(f"items/judgebench/item.html#{quote(item, safe='')}"))
    page.wait_for_selector("html[data-item]")
    title = page.locator("h1").inner_text()
    assert title.startswith("JudgeBench, ") and item not in title  # its label, not its UUID
    row = page.locator("table.item-judges tbody tr", has_text=O1)
    details = " ".join(row.locator("td.details").inner_text().split())
    for key, text in site.reasoning[item].items():
        assert key in details and " ".join(text.split())[:200] in details
    assert "none given" in page.locator("table.item-judges tbody tr", has_text="GRM").inner_text()
    # Every judge's call, with its source badge; the texts of the pair below.
    assert page.locator("table.item-judges tbody tr").count() == 3
    assert row.locator(".badge.src-published_outputs").is_visible()
    assert page.locator("h2", has_text="response a").is_visible()
    _shot(page, "item-view-desktop.png")
    # The pager walks the items in natural order.
    page.get_by_role("link", name="next →").click()
    page.wait_for_function(f"document.documentElement.dataset.item !== {json.dumps(item)}")
    assert page.locator("h1").inner_text() != title
    assert watched.problems == []


def test_item_view_of_a_stepmathbench_item_with_every_judge_and_math(
    site: Site, watched: Watched, browser: Browser
) -> None:
    page = watched.page
    page.goto(site.url("items/stepmathbench/index.html"))
    ids = page.locator("#items tbody th").all_inner_texts()
    assert ids[:12] == [f"stepmath-{i}" for i in range(1, 13)]  # natural order
    page.get_by_label("type").select_option("Proof")
    page.get_by_label("level").select_option("3")
    expected = site.by_scope(type="Proof", level="3")
    page.wait_for_function("document.querySelector('[data-count]')?.textContent.includes('found')")
    # Every match is found; the explorer shows them 200 a page.
    count = page.locator("[data-count]").inner_text()
    assert count.startswith(f"{len(expected)} of 1000 items found"), count
    shown = page.locator("#items tbody th").all_inner_texts()
    natural = sorted(expected, key=lambda i: int(i.rsplit("-", 1)[1]))
    assert shown == natural[:200] and len(expected) > 0
    page.get_by_label("Search ids").fill("stepmath-13")
    page.get_by_label("type").select_option("")
    page.get_by_label("level").select_option("")
    page.get_by_role("link", name="stepmath-13", exact=True).click()
    page.wait_for_selector("html[data-item='stepmath-13']")
    judges = page.locator("table.item-judges tbody tr")
    answered = [j for j in site.answered if "stepmath-13" in site.answered[j]]
    assert sorted(judges.locator("th a").all_inner_texts()) == sorted(answered)
    close = judges.filter(has_text="close judge")
    assert "step 2 of stepmath-13 is wrong" in close.locator("td.details").inner_text()
    assert SCRIPT_JUDGE in close.locator("td.details").inner_text()  # shown as text
    assert page.locator("img[src=x]").count() == 0
    # Math is typeset as the text scrolls into view, with the vendored KaTeX.
    page.wait_for_selector(".text .katex")
    assert (
        page.locator(".katex")
        .first.evaluate("e => getComputedStyle(e).fontFamily")
        .startswith("KaTeX")
    )
    # Without JavaScript the page says where the data is instead of showing nothing.
    context = browser.new_context(java_script_enabled=False)
    off = context.new_page()
    try:
        off.goto(site.url("items/stepmathbench/item.html#stepmath-13"))
        assert "item list" in off.locator("main").inner_text()
        assert off.locator("noscript").count() == 1
    finally:
        context.close()
    assert watched.problems == []


def test_a_judges_predictions_and_meta_download(site: Site, watched: Watched) -> None:
    page = watched.page
    page.goto(site.url(judge_page(canonical("far judge"))))
    href = page.get_by_role("link", name="Predictions as submitted").get_attribute("href")
    assert href is not None and href.endswith(".jsonl")
    path = (site.root / "judges" / unquote(href)).resolve()
    with open(path, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    assert len(rows) == 1000 and {"item_id", "score"} <= set(rows[0])
    assert {r["item_id"] for r in rows} == site.answered["far judge"]
    href = page.get_by_role("link", name="Meta").get_attribute("href")
    meta = json.loads((site.root / "judges" / unquote(href)).resolve().read_text("utf-8"))
    assert meta["kind"] == "reward_model" and meta["prompt"] == SCRIPT_JUDGE
    assert watched.problems == []


def test_submit_page_lists_the_meta_schema(site: Site, watched: Watched) -> None:
    page = watched.page
    page.goto(site.url("index.html"))
    page.get_by_role("link", name="Submit", exact=True).first.click()
    # A click returns once the next page starts loading: wait for all of it before reading
    # lists (`all_inner_texts` and `count` do not wait for elements to appear).
    page.wait_for_url("**/submit.html")
    meta = page.locator(
        "table:has(caption:text-is('Fields of meta.yaml (no others are accepted)'))"
    )
    fields = meta.locator("tbody th code").all_inner_texts()
    assert fields[:3] == ["judge", "model", "model_version"] and "license" in fields
    assert "mathjudge submit BENCH predictions.jsonl --meta meta.yaml" in page.inner_text("main")
    assert watched.problems == []


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("href", "src") and value is not None:
                self.links.append(value)
            elif key == "id" and value:
                self.ids.add(value)


@functools.cache
def _parsed(path: Path) -> Links:
    parsed = Links()
    parsed.feed(path.read_text(encoding="utf-8"))
    return parsed


def test_every_internal_link_resolves_and_no_page_is_an_orphan(site: Site) -> None:
    """Crawl from the overview through every page: every local link and asset exists inside
    the site and every #fragment names an element of its target page (the item pages'
    fragments name an item or a filter, read by their script)."""
    root = site.root.resolve()
    queue, seen, checked = deque([root / "index.html"]), {root / "index.html"}, 0
    while queue:
        page = queue.popleft()
        for link in _parsed(page).links:
            parts = urlsplit(link)
            if parts.scheme:
                assert link.startswith("https://arxiv.org/abs/"), f"{page}: external {link}"
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            assert target.is_file(), f"{page}: broken link {link}"
            assert root in target.parents, f"{page}: {link} leaves the site"
            if parts.fragment and "items" not in target.relative_to(root).parts:
                assert parts.fragment in _parsed(target).ids, f"{page}: no #{parts.fragment}"
            if target.suffix == ".html" and target not in seen:
                seen.add(target)
                queue.append(target)
            checked += 1
    assert seen == set(root.rglob("*.html"))  # nothing unreachable either
    # Pages grow with judges and benchmarks, and with items only by the explorer's pages of 200:
    # the site's pages are exactly its four top pages, a page per benchmark (with items, an item
    # view and a page per 200 items more), per judge (an identity: a paper's row declared
    # the pair of our reproduction is that judge), per model and per dataset.
    doc = site.document()
    judges = {s["identity"] for b in doc["benchmarks"] for s in b["submissions"]}
    with_items = [b for b in doc["benchmarks"] if b["items"]["status"] == "exported"]
    explorer_pages = sum(-(-b["items"]["n_items"] // 200) for b in with_items)
    expected = (
        4 + len(doc["benchmarks"]) + len(with_items) + explorer_pages + 1 + len(judges)
        + 1 + len(doc["models"]) + len({d["name"] for d in doc["datasets"]})
    )  # fmt: skip
    assert len(seen) == expected and len(with_items) == 3 and checked > 2000


def _open_with_its_favicon(page: Page, url: str, settled: list[Request]) -> None:
    """Open `url` and wait until its favicon has loaded or failed (`settled` holds the page's
    settled requests). Chromium asks for a page's favicon only after the page has loaded, at
    times after the network has gone idle for 500 ms (under load); navigating on then aborts the
    request (net::ERR_ABORTED), which read as a failed load of a file that is there."""
    with page.expect_request(lambda r: r.url.endswith("/assets/favicon.svg")) as asked:
        page.goto(url, wait_until="networkidle")
    favicon = asked.value
    deadline = time.monotonic() + 30
    while not any(r is favicon for r in settled):
        assert time.monotonic() < deadline, f"{url}: its favicon neither loaded nor failed"
        page.wait_for_timeout(20)  # lets Playwright deliver the request's events


def test_each_kind_of_page_loads_without_errors_and_fits_a_phone(
    site: Site, watched: Watched, browser: Browser
) -> None:
    """Every page template, in the browser: no console errors, no failed loads, no dialogs;
    and at 390 px nothing is wider than the screen."""
    doc = site.document()
    pages = ["index.html", "methodology.html", "downloads.html", "submit.html", "judges/index.html",
             "models/index.html"]  # fmt: skip
    for bench in doc["benchmarks"]:
        pages.append(f"{bench['name']}.html")
        first = bench["submissions"][0]
        pages.append(judge_page(first["identity"]))
    pages += [f"datasets/{d['name']}.html" for d in doc["datasets"]]
    pages += [f"items/{name}/index.html" for name in ("stepmathbench", "opc", "judgebench")]
    pages += ["items/stepmathbench/item.html#stepmath-1", f"models/{doc['models'][0]['id']}.html"]
    pages.append(judge_page(canonical(SCRIPT_JUDGE)))
    failed: list[str] = []
    settled: list[Request] = []
    watched.page.on(
        "requestfailed", lambda r: (failed.append(f"{r.url}: {r.failure}"), settled.append(r))
    )
    watched.page.on("requestfinished", lambda r: settled.append(r))
    for path in pages:
        _open_with_its_favicon(watched.page, site.url(path), settled)
        assert watched.page.title().endswith("mathjudge leaderboard"), path
    assert failed == [] and watched.problems == []
    context = browser.new_context(viewport=PHONE)
    phone = context.new_page()
    try:
        for path in pages:
            phone.goto(site.url(path), wait_until="networkidle")
            width = phone.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], f"{path}: {width}px wide at 390px"
    finally:
        context.close()


def test_pages_read_with_javascript_off(site: Site, browser: Browser) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(site.url("stepmathbench.html"))
        assert page.locator("#panel-scope-type").is_visible()
        assert page.locator("#panel-scope-level").is_visible()  # every panel, one after another
        assert page.locator("[data-tablist]").is_hidden()  # tab buttons need the script
        assert page.locator("details[data-filters]").is_hidden()  # so do the filters
        # Every result and every metric column, and the default glance line only.
        n = len(
            next(b for b in site.document()["benchmarks"] if b["name"] == "stepmathbench")[
                "submissions"
            ]
        )
        assert page.locator(".main-board tbody tr:visible").count() == n
        assert page.locator(".bench-glance .glance-line:visible").count() == 1
        page.goto(site.url("index.html"))
        assert page.locator("tbody tr[data-prov=paper]").first.is_visible()
        assert page.locator(".glance li").first.locator(".glance-line:visible").count() == 1
        page.goto(site.url("items/stepmathbench/index.html"))
        assert page.locator("#items tbody tr:visible").count() == 200  # of 1,000: five pages
        assert page.locator("[data-item-filters]").is_hidden()
        page.get_by_role("link", name="5", exact=True).click()
        page.wait_for_load_state()  # the fifth page whole, not its first rows
        assert page.locator("#items tbody th").last.inner_text() == "stepmath-1000"
    finally:
        context.close()


def test_leaderboard_json_is_what_the_pages_show(site: Site) -> None:
    doc = site.document()
    names = {b["name"] for b in doc["benchmarks"]}
    assert {"stepmathbench", "opc", "mumath", "proofbench", "judgebench"} <= names
    (opc_doc,) = [b for b in doc["benchmarks"] if b["name"] == "opc"]
    # A partial judge and two constant baselines (reference lines): no judge to rank.
    assert opc_doc["ranks"]["status"] == (
        "not ranked: no judge scored on every item of the benchmark's data"
    )
    assert {e["kind"] for e in opc_doc["ranks"]["excluded"].values()} == {"baseline", "partial"}
    assert {d["name"] for d in doc["datasets"]} == {"stepmathbench", "opc", "judgebench"}
    (jb,) = [b for b in doc["benchmarks"] if b["name"] == "judgebench"]
    # Converted from the authors' published outputs, beside the paper's own tables (reported).
    sources = {s["provenance"] for s in jb["submissions"]}
    assert sources == {"published_outputs", "paper"}
    assert jb["items"]["status"] == "exported" and jb["items"]["details"]


def test_no_page_names_the_folder_it_was_built_in(site: Site) -> None:
    build = str(site.root.parent).encode()
    leaked = [p for p in site.root.rglob("*") if p.is_file() and build in p.read_bytes()]
    assert leaked == []
