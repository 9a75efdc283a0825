"""The built site in a real browser (Debian's Chromium driven by Playwright), from `file://`.

The site is built from a real store: StepMathBench and the Open Proof Corpus built from the
shared mirror, judges with hostile names, the corpus's own LLM judge, and the papers' reported
tables. Chromium missing is a failure, not a skip: these tests are the site's acceptance check.
Screenshots are kept under `test-artifacts/` (git-ignored).
"""

from __future__ import annotations

import functools
import json
import random
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urlsplit

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

from conftest import REPO, write_jsonl
from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.benchmarks.opc import build as opc
from mathjudge.benchmarks.stepmathbench import build as stepmathbench
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.judges.baselines import run_baseline
from mathjudge.judges.predictions import write_jsonl as write_predictions
from mathjudge.leaderboard.pages import judge_page
from mathjudge.publish.reported import import_reported
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.site import publish_and_render

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = REPO / "test-artifacts"
SCRIPT_JUDGE = "<script>alert(1)</script>"
IMG_JUDGE = '"><img src=x onerror=alert(2)>'
FORMULA_JUDGE = "=cmd|' /C calc'!A0"
B = 100


@dataclass
class Site:
    root: Path
    disagreements: dict[str, int] = field(default_factory=dict)  # judge -> hand count
    answered: dict[str, set[str]] = field(default_factory=dict)  # StepMathBench judge -> items
    rows: list[dict[str, Any]] = field(default_factory=list)  # the upstream StepMathBench rows

    def url(self, path: str) -> str:
        return (self.root / path).as_uri()

    def by_scope(self, **wanted: str) -> list[str]:
        """Item ids whose upstream fields have these values (counted from the raw rows)."""
        return [r["uid"] for r in self.rows if all(str(r[k]) == v for k, v in wanted.items())]


def _stepmath_judges(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(5)

    def clip(x: float) -> float:
        return float(min(10, max(0, x)))

    return {
        "close judge": [
            {"item_id": r["uid"], "score": clip(r["gold_score"] + rng.choice((-1, 0, 0, 1)))}
            for r in rows
        ],
        "far judge": [
            {"item_id": r["uid"], "score": clip(r["gold_score"] + rng.choice((-4, 4)))}
            for r in rows
        ],
        SCRIPT_JUDGE: [{"item_id": r["uid"], "score": float(rng.randint(0, 10))} for r in rows],
        IMG_JUDGE: [
            {"item_id": r["uid"], "answer_correct": bool(r["gold_score_01"])} for r in rows[:600]
        ],
        FORMULA_JUDGE: [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in rows],
    }


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, mirror: Path, stepmath_rows) -> Site:
    tmp = tmp_path_factory.mktemp("browser-site")
    datasets, store = tmp / "datasets", tmp / "results.duckdb"
    write_dataset(stepmathbench.build(mirror), datasets)
    write_dataset(opc.build(mirror), datasets)
    built = Site(tmp / "site", rows=stepmath_rows)
    for n, (judge, rows) in enumerate(_stepmath_judges(stepmath_rows).items()):
        built.answered[judge] = {r["item_id"] for r in rows}
        path = write_jsonl(tmp / f"step-{n}.jsonl", rows)
        result = evaluate_file(
            "stepmathbench", path, judge, datasets_dir=datasets, n_boot=B,
            allow_partial=len(rows) < 1000, meta={"model": "<b>x</b>", "prompt": SCRIPT_JUDGE},
        )  # fmt: skip
        sid = results_store.save(store, result)
        if judge == "close judge":  # a judge with a details file: its rationale per item
            results_store.save_details(store, sid, [
                {"item_id": r["item_id"], "rationale": f"step 2 of {r['item_id']} is wrong; {SCRIPT_JUDGE}"}
                for r in rows[:20]
            ])  # fmt: skip
        gold = {r["uid"]: r for r in stepmath_rows}
        built.disagreements[judge] = sum(
            r.get("score", gold[r["item_id"]]["gold_score"]) != gold[r["item_id"]]["gold_score"]
            or r.get("answer_correct", gold[r["item_id"]]["gold_score_01"])
            != bool(gold[r["item_id"]]["gold_score_01"])
            for r in rows
        )
    opc_spec = registry.get("opc")
    for baseline in opc_spec.baselines:
        items = pq.read_table(open_dataset("opc", datasets).parquet("judgments")).to_pylist()
        path = tmp / f"{baseline.key}.jsonl"
        write_predictions(path, run_baseline(opc_spec, baseline, iter(items), mirror))
        result = evaluate_file(
            "opc", path, baseline.judge_name, datasets_dir=datasets, n_boot=B,
            allow_partial=baseline.partial,
        )  # fmt: skip
        results_store.save(store, result)
    import_reported(mirror / "reported", store)
    publish_and_render(store, built.root)
    return built


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} missing: install it with `apt-get install -y chromium`")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield launched
        launched.close()


@dataclass
class Watched:
    page: Page
    problems: list[str]


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    """A page that records console errors, uncaught exceptions, dialogs and any request
    leaving the local file system."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []

    def console(msg: ConsoleMessage) -> None:
        if msg.type in ("error", "warning"):
            problems.append(f"console {msg.type}: {msg.text}")

    page.on("console", console)
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on(
        "request",
        lambda r: None if r.url.startswith("file://") else problems.append(f"request {r.url}"),
    )
    yield Watched(page, problems)
    context.close()


def _shot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=False)
    assert path.stat().st_size > 0
    return path


def _column_values(page: Page, table: str, index: int) -> list[str]:
    return page.eval_on_selector_all(
        f"{table} tbody tr:not([hidden])",
        f"rows => rows.map(r => r.cells[{index}].getAttribute('data-sort'))",
    )


def test_overview_answers_who_leads_with_ranks_and_hostile_names_as_text(
    site: Site, watched: Watched
) -> None:
    page = watched.page
    page.goto(site.url("index.html"))
    # At a glance: every benchmark with its leader (or highest value) in the first screen.
    glance = page.locator(".glance li")
    doc = json.loads((site.root / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    names = [b["presentation"]["display_name"] for b in doc["benchmarks"]]
    assert [glance.nth(i).locator("a.bench").inner_text() for i in range(len(names))] == names
    for i in range(len(names)):
        assert glance.nth(i).bounding_box()["y"] < 900
    step = page.locator("#bench-stepmathbench")
    verdict = step.locator(".verdict").inner_text()
    # The exact (gold-copying) judge is first in every replicate; the close one second.
    assert verdict.startswith(f"Leads: {FORMULA_JUDGE}") and "Significant lead" in verdict
    rows = step.locator("tbody tr")
    first = rows.first.locator("td").first.inner_text().split()
    assert first == ["1", "group", "1"]
    assert "2 group 2" in " ".join(
        rows.filter(has_text="close judge").locator("td").first.inner_text().split()
    )
    # The answer-only judge gives no Corr: not in a table ordered by Corr.
    assert rows.filter(has_text=IMG_JUDGE).count() == 0
    # Reported rows carry a badge and a paper link, never a rank.
    assert page.locator("img[src=x]").count() == 0
    reported = page.locator("#bench-mumath tbody tr[data-source=reported]")
    assert reported.count() == 5  # the first five of the board, all from the paper
    assert reported.first.locator(".badge.reported").is_visible()
    assert reported.first.locator("a.cite").get_attribute("href").startswith("https://arxiv.org/")
    assert reported.first.locator("td").first.inner_text().strip() == "—"
    # OPC: the corpus judge answered 311 of 434 items: shown, labelled, unranked.
    opc = page.locator("#bench-opc")
    assert "partial 71.7%" in opc.locator("tbody tr", has_text="OPC LLM judge").inner_text()
    page.get_by_label("Show results reported in papers").uncheck()
    assert reported.first.is_hidden()
    assert page.locator("#bench-mumath .dot-row.reported").first.is_hidden()
    # The comparison chart: one point per row, in table order, whiskers only with an interval.
    chart = page.locator("#bench-stepmathbench .dot-row")
    assert chart.count() == rows.count()
    assert chart.first.locator(".whisker").count() == 1
    page.get_by_label("Show results reported in papers").check()
    assert page.locator("#bench-mumath .dot-row .whisker").count() == 0  # the paper gives none
    shot = _shot(page, "overview.png")
    assert shot.is_file()
    assert watched.problems == []


def test_sorting_keeps_empty_cells_last_in_both_directions(site: Site, watched: Watched) -> None:
    """StepMathBench's overall table: Corr is empty (a dash) for the answer-only judge and
    for the papers' final-answer rows; numbers sort as numbers, empties stay last."""
    page = watched.page
    page.goto(site.url("stepmathbench.html"))
    table = "#panel-scope-overall table"
    headers = page.locator(f"{table} thead tr").last.locator("th")
    labels = [h.strip() for h in headers.all_inner_texts()]
    column = next(i for i, h in enumerate(labels) if h.startswith("Corr"))
    values = _column_values(page, table, column)
    assert values.count("") >= 5 and len([v for v in values if v]) >= 10
    # Hostile judge names are shown as text, never as markup.
    judges = page.locator(f"{table} tbody th").all_inner_texts()
    assert any(SCRIPT_JUDGE in j for j in judges) and any(IMG_JUDGE in j for j in judges)
    assert page.locator("img[src=x]").count() == 0
    for clicks, order in ((1, "descending"), (1, "ascending")):
        for _ in range(clicks):
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
    wrap = page.locator("#panel-scope-overall .table-wrap").first
    wrap.evaluate("w => w.scrollIntoView()")
    box = wrap.bounding_box()
    wrap.evaluate("w => { w.scrollLeft = 600; w.scrollTop = 300; }")
    assert wrap.evaluate("w => w.scrollLeft") > 0 and wrap.evaluate("w => w.scrollTop") > 0
    # The first visible row's judge cell still starts at the frame's left edge...
    judge = page.locator("#panel-scope-overall tbody th.judge").nth(8)
    assert abs(judge.bounding_box()["x"] - box["x"]) <= 2
    # ...and the header (metric groups, then metric names) sits at the frame's top.
    thead = page.locator("#panel-scope-overall thead").first
    assert abs(thead.bounding_box()["y"] - box["y"]) <= 2
    header = page.locator("#panel-scope-overall thead th.judge-col").first
    at_point = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('th')?.textContent.trim()",
        [box["x"] + 10, header.bounding_box()["y"] + header.bounding_box()["height"] / 2],
    )
    assert at_point == "Judge"
    _shot(page, "sticky.png")
    assert watched.problems == []


def test_benchmark_tabs_switch_by_click_and_keyboard(site: Site, watched: Watched) -> None:
    page = watched.page
    page.goto(site.url("stepmathbench.html"))
    tabs = page.get_by_role("tab")
    assert tabs.count() >= 4
    overall, by_type = page.locator("#panel-scope-overall"), page.locator("#panel-scope-type")
    assert overall.is_visible() and by_type.is_hidden()
    page.get_by_role("tab", name="By type").click()
    assert by_type.is_visible() and overall.is_hidden()
    assert page.get_by_role("tab", name="By type").get_attribute("aria-selected") == "true"
    page.get_by_role("tab", name="By type").press("ArrowRight")
    assert page.locator("#panel-scope-generator").is_visible() and by_type.is_hidden()
    assert page.evaluate("document.activeElement.textContent") == "By generator"
    assert page.locator("figure img").count() >= 1
    assert page.locator("figure img").first.evaluate("img => img.naturalWidth") > 0
    # The selected tab is in the URL: a reload (or a shared link) opens it again.
    assert urldefrag(page.url).fragment == "scope-generator"
    page.reload()
    assert page.locator("#panel-scope-generator").is_visible() and overall.is_hidden()
    page.goto(site.url("stepmathbench.html") + "#scope-level")
    assert page.get_by_role("tab", name="By level").get_attribute("aria-selected") == "true"
    # Plots span the content width.
    figure = page.locator(".plots figure.wide").first
    assert figure.bounding_box()["width"] >= page.locator("main").bounding_box()["width"] - 40
    _shot(page, "stepmathbench.png")
    assert watched.problems == []


def test_item_explorer_links_to_item_pages_with_every_judge(site: Site, watched: Watched) -> None:
    page = watched.page
    page.goto(site.url(judge_page("reproduced", "close judge")))
    rows = page.locator("#ex-stepmathbench tbody tr")
    assert rows.count() == 1000
    page.get_by_label("Only disagreements").check()
    visible = page.locator("#ex-stepmathbench tbody tr:not([hidden])")
    assert visible.count() == site.disagreements["close judge"]
    assert page.locator("[data-count]").inner_text() == (
        f"{site.disagreements['close judge']} of 1000 items shown"
    )
    page.get_by_label("Only disagreements").uncheck()
    page.get_by_label("Search items").fill("stepmath-13")
    assert visible.first.inner_text().startswith("stepmath-13")
    visible.first.get_by_role("link", name="stepmath-13", exact=True).click()
    page.wait_for_load_state()
    assert page.url.endswith("items/stepmathbench/stepmath-13.html")
    # Every reproduced judge's prediction beside the gold label, and the close judge's details.
    judges = page.locator("table.item-judges tbody tr")
    answered = [j for j in site.answered if "stepmath-13" in site.answered[j]]
    assert sorted(judges.locator("th").all_inner_texts()) == sorted(answered)
    close = judges.filter(has_text="close judge")
    assert "step 2 of stepmath-13 is wrong" in close.locator("td.details").inner_text()
    assert SCRIPT_JUDGE in close.locator("td.details").inner_text()  # shown as text
    assert "none given" in judges.filter(has_text="far judge").inner_text()
    page.get_by_role("link", name="next →").click()
    assert page.url.endswith("items/stepmathbench/stepmath-14.html")
    _shot(page, "item.png")
    assert watched.problems == []


def test_item_index_filters_by_scope_in_natural_order(site: Site, watched: Watched) -> None:
    page = watched.page
    page.goto(site.url("items/stepmathbench/index.html"))
    ids = page.locator("#items tbody th").all_inner_texts()
    assert ids[:12] == [f"stepmath-{i}" for i in range(1, 13)]  # not stepmath-1, -10, -100...
    assert len(ids) == 1000
    page.get_by_label("type").select_option("Proof")
    page.get_by_label("level").select_option("3")
    shown = page.locator("#items tbody tr:not([hidden])")
    expected = site.by_scope(type="Proof", level="3")
    assert shown.count() == len(expected) > 0
    assert page.locator("[data-count]").inner_text() == f"{len(expected)} of 1000 items shown"
    page.get_by_label("Only items a judge gets wrong").check()
    assert 0 < shown.count() <= len(expected)
    _shot(page, "items.png")
    assert watched.problems == []


def test_latex_renders_with_katex_and_stays_readable_without_javascript(
    site: Site, watched: Watched, browser: Browser
) -> None:
    path = "items/stepmathbench/stepmath-5.html"
    page = watched.page
    page.goto(site.url(path), wait_until="networkidle")
    assert page.locator("html[data-math=rendered]").count() == 1
    assert page.locator(".text .katex").count() > 0
    assert (
        page.locator(".katex")
        .first.evaluate("e => getComputedStyle(e).fontFamily")
        .startswith("KaTeX")
    )
    assert watched.problems == []  # no console output from formulas KaTeX cannot parse
    context = browser.new_context(java_script_enabled=False)
    off = context.new_page()
    try:
        off.goto(site.url(path))
        assert off.locator(".katex").count() == 0
        raw = off.locator(".text.tex").first.inner_text()
        assert "$" in raw or "\\(" in raw  # the TeX as written
    finally:
        context.close()


def test_submit_page_lists_the_meta_schema(site: Site, watched: Watched) -> None:
    page = watched.page
    page.goto(site.url("index.html"))
    page.get_by_role("link", name="Submit", exact=True).first.click()
    assert page.url.endswith("submit.html")
    fields = page.locator("table tbody th code").all_inner_texts()
    assert fields == ["judge", "model", "model_version", "organization", "link", "date",
                      "prompt", "config", "open_weights", "license", "contact", "kind",
                      "converted_from"]  # fmt: skip
    assert "mathjudge submit BENCH predictions.jsonl --meta meta.yaml" in page.inner_text("main")
    _shot(page, "submit.png")
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


def test_every_internal_link_resolves(site: Site) -> None:
    """Crawl from the overview through every page: every local link and asset exists inside
    the site and every #fragment names an element of its target page."""
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
            if parts.fragment:
                assert parts.fragment in _parsed(target).ids, f"{page}: no #{parts.fragment}"
            if target.suffix == ".html" and target not in seen:
                seen.add(target)
                queue.append(target)
            checked += 1
    assert seen == set(root.rglob("*.html"))  # nothing unreachable either
    assert len(seen) > 1400 and checked > 10000


def test_each_kind_of_page_loads_without_errors(site: Site, watched: Watched) -> None:
    """Every page template, in the browser: no console errors, no failed loads, no dialogs."""
    doc = json.loads((site.root / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    pages = ["index.html", "methodology.html", "downloads.html"]
    for bench in doc["benchmarks"]:
        pages.append(f"{bench['name']}.html")
        first = bench["submissions"][0]
        pages.append(judge_page(first["source"], first["judge"]))
    pages += [f"datasets/{d['name']}.html" for d in doc["datasets"]]
    pages += [f"items/{name}/index.html" for name in ("stepmathbench", "opc")]
    pages += ["items/stepmathbench/stepmath-1.html", "submit.html", "models/index.html"]
    pages += [f"models/{m['id']}.html" for m in doc["models"][:3]]
    pages.append(judge_page("reproduced", SCRIPT_JUDGE))
    failed: list[str] = []
    watched.page.on("requestfailed", lambda r: failed.append(r.url))
    for path in pages:
        # Lazy plot images may still be loading after `load`; leaving the page then would
        # abort them and read as a failed request, so wait for the network to settle.
        watched.page.goto(site.url(path), wait_until="networkidle")
        assert watched.page.title().endswith("mathjudge leaderboard"), path
    assert failed == [] and watched.problems == []


def test_narrow_viewport_shows_every_benchmark_without_overflow(
    site: Site, browser: Browser
) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 800})
    page = context.new_page()
    try:
        for path in (
            "index.html",
            "stepmathbench.html",
            "opc.html",
            judge_page("reproduced", "close judge"),
            "datasets/opc.html",
            "methodology.html",
            "submit.html",
            "items/stepmathbench/index.html",
            "items/stepmathbench/stepmath-5.html",
            "models/gpt-4o.html",
        ):
            page.goto(site.url(path))
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, f"{path}: page is {width}px wide at 375px"
        page.goto(site.url("index.html"))
        doc = json.loads((site.root / "data" / "leaderboard.json").read_text(encoding="utf-8"))
        boards = page.locator("section.board")
        assert boards.count() == len(doc["benchmarks"])  # every benchmark, stacked
        for i in range(boards.count()):
            box = boards.nth(i).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= 375
            assert boards.nth(i).locator(".verdict").is_visible()
        _shot(page, "overview-375.png")
        page.locator("#bench-stepmathbench").scroll_into_view_if_needed()
        verdict = page.locator("#bench-stepmathbench .verdict").bounding_box()
        assert verdict["y"] >= 0 and verdict["y"] + verdict["height"] <= 800  # in the first screen
        _shot(page, "overview-375-stepmathbench.png")
    finally:
        context.close()


def test_pages_read_with_javascript_off(site: Site, browser: Browser) -> None:
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(site.url("stepmathbench.html"))
        assert page.locator("#panel-scope-overall").is_visible()
        assert page.locator("#panel-scope-type").is_visible()  # every panel, one after another
        assert page.locator("[data-tablist]").is_hidden()  # tab buttons need the script
        page.goto(site.url(judge_page("reproduced", "far judge")))
        assert page.locator("#ex-stepmathbench tbody tr:visible").count() == 1000
        assert page.locator("[data-explorer-controls]").is_hidden()
        page.goto(site.url("index.html"))
        assert page.locator("tbody tr[data-source=reported]").first.is_visible()
        page.goto(site.url("items/stepmathbench/index.html"))
        assert page.locator("#items tbody tr:visible").count() == 1000
        assert page.locator("[data-item-filters]").is_hidden()
    finally:
        context.close()


def test_leaderboard_json_is_what_the_pages_show(site: Site) -> None:
    doc = json.loads((site.root / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    names = {b["name"] for b in doc["benchmarks"]}
    assert {"stepmathbench", "opc", "mumath", "proofbench"} <= names
    (opc_doc,) = [b for b in doc["benchmarks"] if b["name"] == "opc"]
    # One judge on every item and one partial: nothing comparable to rank.
    assert opc_doc["ranks"]["status"] == "not ranked: fewer than two comparable judges"
    assert {e["kind"] for e in opc_doc["ranks"]["excluded"].values()} == {"alone", "partial"}
    assert {d["name"] for d in doc["datasets"]} == {"stepmathbench", "opc"}


def test_no_page_names_the_folder_it_was_built_in(site: Site) -> None:
    build = str(site.root.parent).encode()
    leaked = [p for p in site.root.rglob("*") if p.is_file() and build in p.read_bytes()]
    assert leaked == []
