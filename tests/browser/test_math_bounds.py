"""Math from untrusted text cannot crash or hang an item page (Debian's Chromium, Playwright).

Item pages render the TeX of dataset texts and of submitters' details files with KaTeX
(`assets/math.js`). Past some size KaTeX's output crashes Chromium's renderer or takes minutes
to lay out, and one formula KaTeX throws on (not a parse error) stopped all math after it. The
bounds limit what a formula renders, not only what it says: a macro defined in the text lets a
short formula expand into a huge one (issue 29's three cases below). Each case here is a page
built from the real assets around one hostile payload and a formula that must still render;
past the bounds a formula stays as its source, in a code style, never as KaTeX's red error.
`site.js` must also survive a URL fragment that is not valid percent-encoding.
"""

from __future__ import annotations

import html
import itertools
import shutil
import string
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
    """A page of texts, each in a `.tex` block that math.js typesets at once (an item page
    typesets its paragraphs as they scroll into view, through the same function), then a block
    holding an ordinary formula; `body[data-typeset]` is set when all are done."""
    blocks = "\n".join(f'<div class="text tex">{html.escape(t)}</div>' for t in texts)
    path = site / f"{name}.html"
    path.write_text(
        f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{name}</title>
<script src="assets/math.js" defer></script></head>
<body><main>{blocks}<div class="text tex" id="last">{html.escape(GOOD)}</div></main>
<script>document.addEventListener("DOMContentLoaded", function () {{
  var all = Array.prototype.map.call(document.querySelectorAll(".tex"), mathjudgeMath.typeset);
  Promise.all(all).then(function () {{ document.body.setAttribute("data-typeset", "done"); }});
}});</script></body></html>
""",
        encoding="utf-8",
    )
    return path


def load(
    browser: Browser, path: Path, fragment: str = "", timeout: int = LOAD_MS
) -> tuple[Page, list[str]]:
    """The page once math.js has typeset it; what went wrong on the way (a crash, a page
    error)."""
    page = browser.new_page()
    problems: list[str] = []
    page.on("crash", lambda _: problems.append("renderer crashed"))
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.goto(path.as_uri() + fragment, timeout=timeout)
    page.wait_for_selector("body[data-typeset=done]", state="attached", timeout=timeout)
    if errors := page.locator(".katex-error").count():
        problems.append(f"{errors} KaTeX error(s) shown")
    return page, problems


def source(page: Page, selector: str) -> list[str]:
    """The formulas shown as their source (in a code style) within `selector`."""
    return page.locator(f"{selector} code.tex-source").all_inner_texts()


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
    assert source(page, ".tex:first-child") == [payload]  # in a code style, never in red
    assert rendered(page, "#last") == 1  # the rest of the page still renders
    page.close()


# Issue 29: macros defined in the text expand far past what the source's length says.
DEF_CHAIN = (  # 115 characters, 192 nested superscripts: crashed the renderer (144 did)
    r"$\def\f#1{x^{#1}}\def\g#1{\f{\f{\f{\f{#1}}}}}\def\h#1{\g{\g{\g{\g{#1}}}}}"
    r"\def\i#1{\h{\h{\h{\h{#1}}}}}\i{\i{\i{x}}}$"
)
NAMES = ["q" + a + b for a, b in itertools.product(string.ascii_lowercase, repeat=2)][:150]
DEFS_150 = (  # 150 macros, each one superscript deeper than the last: crashed it too
    "$\\def\\" + NAMES[0] + "{x}"
    + "".join(f"\\def\\{n}{{x^{{\\{p}}}}}" for p, n in itertools.pairwise(NAMES))
    + "\\" + NAMES[-1] + "$"
)  # fmt: skip
GLYPHS = (  # 3,568 characters, 350,000 glyphs (3,500 x 20 x 5): unusable after 120 s
    "$\\def\\a{" + "x" * 3500 + "}\\def\\b{" + "\\a" * 20 + "}" + "\\b" * 5 + "$"
)
EXPANDED_MS = 30_000  # each took minutes or crashed before; the page now loads in seconds


@pytest.mark.parametrize(
    "payload", [DEF_CHAIN, DEFS_150, GLYPHS], ids=["def-chain", "150-defs", "350k-glyphs"]
)
def test_macros_from_the_text_cannot_expand_past_the_bounds(
    browser: Browser, site: Path, payload: str
) -> None:
    assert len(DEF_CHAIN) == 115 and len(GLYPHS) == 3568 and DEFS_150.count("\\def") == 150
    page, problems = load(browser, page_with(site, "macros", [payload]), timeout=EXPANDED_MS)
    assert problems == []
    assert rendered(page, ".tex:first-child") == 0
    assert source(page, ".tex:first-child") == [payload]  # the TeX as written, as code
    assert rendered(page, "#last") == 1
    page.close()


def test_past_katexs_own_expansion_bound_a_formula_shows_as_source(
    browser: Browser, site: Path
) -> None:
    """KaTeX's own macros count too: \\iff expands 8 times, so 150 of them (1,050 characters,
    within every bound on the source) pass the 1,000 expansions a formula may take."""
    many = "$" + "a \\iff " * 150 + "$"
    page, problems = load(browser, page_with(site, "expand", ["$a \\iff b$", many]))
    assert problems == []
    assert rendered(page, ".tex:first-child") == 1
    assert source(page, ".tex:nth-child(2)") == [many]
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
<script>document.body.setAttribute("data-typeset", "done")</script>
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
