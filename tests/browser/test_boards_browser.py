"""The demo's boards in Chromium (issue 28, items 1 and 2; issue 27's shortcut baselines): one
row per judge, with the paper's value beside ours, one entry per judge in the index, and
baselines drawn as reference lines, never ranked and never a glance leader.

The site is the demo's (the session's one demo run: `demo` in tests/browser/conftest.py), on
RewardMATH and ProcessBench, the boards the issue names.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page

from browser.conftest import shots_dir
from browser.demo_site import DemoSite
from mathjudge.base.names import canonical

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def page(browser: Browser) -> Page:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    yield context.new_page()
    context.close()


def _rows(page: Page, selector: str) -> list[str]:
    """The judge names of a table's rows, as shown."""
    return page.eval_on_selector_all(
        f"{selector} tbody tr", "rows => rows.map(r => r.querySelector('th a').textContent)"
    )


def _glance(page: Page, bench: str) -> str:
    line = page.locator(f".glance li:has(a.bench[href='{bench}.html']) .glance-line:not([hidden])")
    return " ".join(line.inner_text().split())


def test_rewardmath_lists_each_judge_once_with_the_papers_value_beside_ours(
    demo: DemoSite, page: Page
) -> None:
    page.goto(demo.url("rewardmath.html"))
    judges = _rows(page, ".main-board")
    assert judges, "the board lists no judge"
    names = [canonical(j) for j in judges]
    assert len(names) == len(set(names)), f"a judge twice: {sorted(judges)}"
    # The paper's "Internlm2-7b-reward" is our InternLM2-7B-Reward: one row, both values.
    assert "Internlm2-7b-reward" not in judges and "InternLM2-7B-Reward" in judges
    row = page.locator(
        ".main-board tbody tr", has=page.locator("th a", has_text="InternLM2-7B-Reward")
    )
    text = " ".join(row.inner_text().split())
    assert re.search(r"paper \d+\.\d\d (exact|within CI|outside CI|no CI)", text), text
    assert row.locator(".paper-value .badge").count() == 1
    # The glance names no paper row of a judge we reproduced as "higher, not ranked".
    page.goto(demo.url("index.html"))
    glance = _glance(page, "rewardmath")
    assert "Internlm2-7b-reward" not in glance
    page.screenshot(path=str(shots_dir() / "rewardmath-overview.png"))


def test_the_judges_index_has_one_entry_per_judge(demo: DemoSite, page: Page) -> None:
    page.goto(demo.url("judges/index.html"))
    names = page.eval_on_selector_all(
        "table tbody tr th.judge > a:first-child", "links => links.map(a => a.textContent)"
    )
    identities = [canonical(n) for n in names]
    twice = sorted({n for n in names if identities.count(canonical(n)) > 1})
    assert twice == [], f"listed under two spellings or twice: {twice}"
    link = "th.judge > a:first-child"
    entry = page.locator("table tbody tr", has=page.locator(link, has_text="InternLM2-7B-Reward"))
    assert entry.count() == 1
    # Its page holds our result and the paper's beside it, with the verdict.
    entry.locator(link).click()
    page.wait_for_load_state()  # the click returns once the judge page starts loading
    assert page.locator("h1").inner_text() == "InternLM2-7B-Reward"
    section = page.locator("section", has=page.locator("h2", has_text="RewardMATH"))
    assert section.locator(".badge[class*=verdict-]").count() >= 1
    assert "Internlm2-7b-reward" in section.inner_text()


def test_baselines_are_reference_lines_never_ranked_nor_a_leader(
    demo: DemoSite, page: Page
) -> None:
    # ProcessBench has only baselines and papers' values: nothing is ranked, no baseline
    # leads, and the board says that no judge is reproduced yet.
    page.goto(demo.url("index.html"))
    glance = _glance(page, "processbench")
    assert "Constant (" not in glance, glance
    assert "no judge reproduced here yet" in glance
    board = page.locator("#bench-processbench")
    assert board.locator("tbody tr[data-kind=baseline]").count() == 0
    lines = board.locator(".ref-lines").text_content() or ""  # folded: not rendered text
    assert "Constant (no error)" in lines and "Constant (first paragraph wrong)" in lines
    page.goto(demo.url("processbench.html"))
    assert page.locator(".main-board tbody tr[data-kind=baseline]").count() == 0
    assert page.locator(".main-board .rank-cell .v").count() == 0  # nothing ranked
    reference = page.locator("section.references tbody tr")
    assert reference.count() == 2
    assert "never ranked" in page.locator("section.references").inner_text()
    # RewardMATH: the shortcuts are lines across the chart and rows of their own, each with
    # what it tells; the leader is a judge.
    page.goto(demo.url("rewardmath.html"))
    assert "Shortcut" not in " ".join(_rows(page, ".main-board"))
    shortcuts = _rows(page, "section.references")
    assert {"Shortcut (longer solution)", "Shortcut (shorter solution)"} <= set(shortcuts)
    notes = page.locator("section.references .ref-note").all_inner_texts()
    assert len(notes) == len(shortcuts) and all("length" in n for n in notes)
    values = page.locator("section.references tbody td.num .ci").all_inner_texts()
    assert all(re.fullmatch(r"\[\d+\.\d\d, \d+\.\d\d\]", v) for v in values[: len(shortcuts)])
    labelled = page.locator(".dotplot .ref-row .dot-label").all_inner_texts()
    assert set(shortcuts) <= set(labelled)
    assert page.locator(".dotplot .dot-row:not(.ref-row) .ref-line").count() > 0
    leader = page.locator(".bench-glance .glance-line:not([hidden]) .leader .who").inner_text()
    assert "Shortcut" not in leader
    page.screenshot(path=str(shots_dir() / "rewardmath-board.png"), full_page=False)


def test_reference_lines_read_on_a_phone(demo: DemoSite, browser: Browser) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(demo.url("processbench.html"))
        assert page.locator("section.references").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.screenshot(path=str(shots_dir() / "processbench-phone.png"))
    finally:
        context.close()


def test_model_facts_on_judge_and_model_pages_and_the_model_type_filter(
    demo: DemoSite, page: Page
) -> None:
    page.goto(demo.url("judges/index.html"))
    link = "th.judge > a:first-child"
    page.locator(link, has_text="InternLM2-7B-Reward").first.click()
    page.wait_for_load_state()
    facts = " ".join(page.locator(".facts-list").first.inner_text().split())
    assert "Type classifier RM" in facts and "Parameters 7B" in facts
    assert "Open weights yes" in facts
    assert (
        "No source here states its licence, released"
        in page.locator(".facts-note").first.inner_text()
    )
    page.locator(".lead a", has_text="InternLM2-7B-Reward").click()  # its model page
    page.wait_for_load_state()
    assert "Type classifier RM" in " ".join(page.locator(".facts-list").inner_text().split())
    # The overview filters by model type: rows and glance follow it.
    page.goto(demo.url("index.html"))
    details = page.locator("details[data-filters]").first
    details.locator("summary").click()
    page.select_option("select[name=mtype]", "PRM")
    rows = page.locator("#bench-rewardmath tbody tr:not([hidden])")
    assert rows.count() > 0
    assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.mtype)")) == {"PRM"}
    leader = page.locator(
        ".glance li:has(a.bench[href='rewardmath.html']) .glance-line:not([hidden]) .who"
    )
    assert leader.inner_text() in {"ReasonEval-7B", "ReasonEval-34B", "Math-Shepherd-Mistral-7B",
                                   "Llemma-7B-PRM (PRM800K, levels 1-3)"}  # fmt: skip
    page.select_option("select[name=mtype]", "classifier RM")
    assert set(rows.evaluate_all("rows => rows.map(r => r.dataset.mtype)")) == {"classifier RM"}
