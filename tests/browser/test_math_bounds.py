"""Math from untrusted text cannot crash or hang an item page (Debian's Chromium, Playwright).

Item pages render the TeX of dataset texts and of submitters' details files with KaTeX
(`assets/math.js`). Past some size KaTeX's output crashes Chromium's renderer or takes minutes
to lay out, and one formula KaTeX throws on (not a parse error) stopped all math after it. Each
case here is a page built from the real assets around one hostile payload and a formula that
must still render; past the bounds a formula stays as its raw text. `site.js` must also survive
a URL fragment that is not valid percent-encoding.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from conftest import REPO

CHROMIUM = Path("/usr/bin/chromium")
ASSETS = REPO / "mathjudge" / "site" / "assets"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
LOAD_MS = 60_000  # a page that takes longer hangs (it took 70 s before the bounds)
GOOD = r"$\frac{a}{b} + \sqrt{2}$"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} missing: install it with `apt-get install -y chromium`")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("math-pages")
    shutil.copytree(ASSETS, root / "assets")
    return root


def page_with(site: Path, name: str, texts: list[str]) -> Path:
    """An item page as the site writes one: each text in a `.tex` block, KaTeX and math.js."""
    blocks = "\n".join(f'<div class="text tex">{html.escape(t)}</div>' for t in texts)
    path = site / f"{name}.html"
    path.write_text(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name}</title>
<link rel="stylesheet" href="assets/katex/katex.min.css">
<script src="assets/katex/katex.min.js" defer></script>
<script src="assets/katex/auto-render.min.js" defer></script>
<script src="assets/math.js" defer></script></head>
<body><main>{blocks}<div class="text tex" id="last">{html.escape(GOOD)}</div></main></body></html>
""",
        encoding="utf-8",
    )
    return path


def load(browser: Browser, path: Path, fragment: str = "") -> tuple[Page, list[str]]:
    """The page once math.js has run; what went wrong on the way (a crash, a page error)."""
    page = browser.new_page()
    problems: list[str] = []
    page.on("crash", lambda _: problems.append("renderer crashed"))
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.goto(path.as_uri() + fragment, timeout=LOAD_MS)
    page.wait_for_selector("html[data-math=rendered]", state="attached", timeout=LOAD_MS)
    return page, problems


def rendered(page: Page, selector: str) -> int:
    return page.locator(f"{selector} .katex").count()


def nested(opening: str, closing: str, depth: int, core: str = "x") -> str:
    return "$" + opening * depth + core + closing * depth + "$"


@pytest.mark.parametrize(
    "payload",
    [
        nested("x^{", "}", 150),  # 603 characters: crashed the renderer
        nested(r"\sqrt{", "}", 150),
        nested(r"\frac{1}{", "}", 150),
        nested(r"\left(", r"\right)", 150),
    ],
    ids=["superscripts", "sqrt", "frac", "left-right"],
)
def test_deeply_nested_math_stays_text_and_the_page_lives(
    browser: Browser, site: Path, payload: str
) -> None:
    page, problems = load(browser, page_with(site, "nested", [payload]))
    assert problems == []
    first = page.locator(".tex").first
    assert rendered(page, ".tex:first-child") == 0
    assert first.inner_text().strip() == payload  # the raw TeX, as written
    assert rendered(page, "#last") == 1  # the rest of the page still renders
    page.close()


def test_a_page_of_990_display_formulas_stays_bounded(browser: Browser, site: Path) -> None:
    """990 display formulas of `\\\\` (2 MB): within the page's budget they render, past it
    they stay text; the page loads instead of laying out for minutes."""
    formula = "$$" + "\\\\" * 1000 + "$$"
    texts = [formula] * 990
    path = page_with(site, "rows", texts)
    assert path.stat().st_size > 2_000_000
    page, problems = load(browser, path)
    assert problems == []
    assert rendered(page, ".tex") == 1  # only the ordinary formula at the end
    assert page.locator(".tex").first.inner_text().strip() == formula
    page.close()


def test_ordinary_formulas_render_up_to_the_page_budget(browser: Browser, site: Path) -> None:
    """The bounds leave real texts alone (the largest StepMathBench item holds 6,291
    characters of TeX in 77 formulas): long derivations of 40 aligned rows, nested six deep,
    render; past 1,000 formulas on one page the rest stay text."""
    rows = r" \\ ".join(
        rf"a_{{{i}}} &= \frac{{\sqrt{{x_{{{i}}}^{{2}} + 1}}}}{{2^{{{i}}}}}" for i in range(40)
    )
    derivation = rf"$$\begin{{aligned}}{rows}\end{{aligned}}$$"
    page, problems = load(browser, page_with(site, "ordinary", [derivation] * 10))
    assert problems == []
    assert rendered(page, ".tex") == 11
    page.close()
    page, problems = load(browser, page_with(site, "budget", ["$x_{1}$ " * 1200]))
    assert problems == []
    assert rendered(page, ".tex") == 1000  # the formula after them is past the budget too
    assert rendered(page, "#last") == 0
    page.close()


def test_thousands_of_nested_braces_stop_no_other_math(browser: Browser, site: Path) -> None:
    """6,000 nested braces in a dataset text made KaTeX throw (not a parse error), which
    stopped every formula after it."""
    braces = "$" + "{" * 6000 + "x" + "}" * 6000 + "$"
    page, problems = load(browser, page_with(site, "braces", ["before $y^2$", braces]))
    assert problems == []
    assert rendered(page, ".tex:first-child") == 1
    assert rendered(page, "#last") == 1
    page.close()


def test_a_fragment_that_is_not_percent_encoding_breaks_nothing(
    browser: Browser, site: Path
) -> None:
    """`#%E0%A4%A` made site.js throw on decoding it; the tabs must still work."""
    path = site / "tabs.html"
    path.write_text(
        """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tabs</title>
<script src="assets/site.js" defer></script></head><body><div data-tabs>
<div data-tablist hidden><button id="tab-a" data-tab="a">A</button>
<button id="tab-b" data-tab="b">B</button></div>
<section id="panel-a">first</section><section id="panel-b">second</section></div>
<script>document.documentElement.setAttribute("data-math", "rendered")</script>
</body></html>""",
        encoding="utf-8",
    )
    page, problems = load(browser, path, "#%E0%A4%A")
    page.wait_for_selector("[role=tab]", timeout=LOAD_MS)
    assert problems == []
    assert page.locator("#panel-a").is_visible() and not page.locator("#panel-b").is_visible()
    page.click("#tab-b")
    assert page.locator("#panel-b").is_visible()
    page.close()
