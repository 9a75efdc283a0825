"""Lighthouse and axe-core on the pages a reader lands on: the overview, the largest benchmark
page, the longest item view and a judge page, served by a static HTTP server on 127.0.0.1 as a
host would serve them.

Both tools come from npm, pinned in package-lock.json and installed by scripts/test (Lighthouse
12.2, which runs on Node 20; axe-core injected into Debian's Chromium through Playwright, so no
browser or driver is ever downloaded). Missing tools fail the tests: they are the site's
accessibility check. Accessibility, best practices and SEO must score 100 and axe must find
nothing, on a desktop and on a phone; the performance score is a timing, so it is reported by
bench/site_weight.py against its target rather than asserted here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from browser.conftest import Site
from browser.landing import AXE, LIGHTHOUSE, landing_pages, serving

CATEGORIES = ("accessibility", "best-practices", "seo")


def _tool(path: Path) -> Path:
    if not path.is_file():
        pytest.fail(f"{path} missing: scripts/test installs it from package-lock.json (npm ci)")
    return path


@pytest.fixture(scope="module")
def served(site: Site) -> Iterator[str]:
    """The site on http://127.0.0.1:PORT/, as a static host serves it."""
    with serving(site.root) as base:
        yield base


def audited_pages(site: Site) -> dict[str, str]:
    """The overview, the largest benchmark page, the longest item view, the largest judge page."""
    pages = landing_pages(site.root)
    assert len(pages) == 4, pages  # the test site has each kind of page
    return pages


def test_lighthouse_accessibility_best_practices_and_seo_score_100(
    site: Site, served: str, tmp_path: Path
) -> None:
    lighthouse = _tool(LIGHTHOUSE)
    if shutil.which("node") is None:
        pytest.fail("node missing: Lighthouse needs Node.js 18.20 or newer (scripts/test says how)")
    env = {**os.environ, "CHROME_PATH": "/usr/bin/chromium"}
    scores = {}
    for name, path in audited_pages(site).items():
        report = tmp_path / f"{name.replace(' ', '-')}.json"
        done = subprocess.run(
            [
                str(lighthouse), served + path, "--quiet", "--output=json",
                f"--output-path={report}", "--max-wait-for-load=60000",
                "--only-categories=performance,accessibility,best-practices,seo",
                "--chrome-flags=--headless=new --no-sandbox --disable-gpu",
            ],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-2000:]
        result = json.loads(report.read_text(encoding="utf-8"))
        assert result["finalDisplayedUrl"].startswith(served), name
        categories = result["categories"]
        scores[name] = {k: categories[k]["score"] for k in (*CATEGORIES, "performance")}
        failing = [
            f"{category}: {ref['id']}"
            for category in CATEGORIES
            for ref in categories[category]["auditRefs"]
            if ref["weight"] > 0 and (result["audits"][ref["id"]]["score"] or 0) < 1
            and result["audits"][ref["id"]]["scoreDisplayMode"] not in ("notApplicable", "informative", "manual")
        ]  # fmt: skip
        assert failing == [], f"{name} ({path}): {failing}"
    print(json.dumps(scores, indent=1))  # the performance scores, for the record
    assert all(s[k] == 1 for s in scores.values() for k in CATEGORIES), scores


@pytest.mark.parametrize("width", [1366, 390])
def test_axe_finds_no_violation(site: Site, served: str, browser: Browser, width: int) -> None:
    axe = _tool(AXE).read_text(encoding="utf-8")
    context = browser.new_context(viewport={"width": width, "height": 900 if width > 500 else 844})
    page = context.new_page()
    pages = {**audited_pages(site), "item explorer": "items/stepmathbench/index.html",
             "judges": "judges/index.html", "methodology": "methodology.html"}  # fmt: skip
    found = {}
    try:
        for name, path in pages.items():
            page.goto(served + path, wait_until="networkidle")
            if "item.html" in path:
                page.wait_for_selector("html[data-item]")
            page.add_script_tag(content=axe)
            violations = page.evaluate(
                "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
                ".map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))"
            )
            if violations:
                found[f"{name} ({path})"] = violations
    finally:
        context.close()
    assert found == {}
