"""Where the math is in a text, and what a formula KaTeX cannot typeset shows (Debian's Chromium).

math.js is the one rendering path of every text on the site: it finds the formulas (the
currency rule of docs/site.md decides which dollar signs are delimiters), typesets them, and
shows a formula KaTeX cannot typeset as its source in a code style, never KaTeX's red error.
The texts below are written for these tests, after the cases the datasets hold (issue 28).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from conftest import REPO

ASSETS = REPO / "mathjudge" / "site" / "assets"


@pytest.fixture(scope="module")
def page(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    root = tmp_path_factory.mktemp("math-text")
    shutil.copytree(ASSETS, root / "assets")
    (root / "page.html").write_text(
        """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>math</title>
<script src="assets/math.js"></script></head><body><main></main></body></html>""",
        encoding="utf-8",
    )
    page = browser.new_page()
    page.goto((root / "page.html").as_uri())
    yield page
    page.close()


def parts(page: Page, text: str) -> list[tuple[str, str]]:
    """The text as math.js splits it: ("text", ...) and ("math", the TeX) parts."""
    found: list[dict[str, Any]] = page.evaluate("t => mathjudgeMath.split(t)", text)
    return [("text", p["text"]) if "text" in p else ("math", p["tex"]) for p in found]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # MathCheck-GSM item 325's sentence: two prices, not a formula between them
        (
            "a belt for $50 and a pair of cufflinks for $30, though",
            [("text", "a belt for $50 and a pair of cufflinks for $30, though")],
        ),
        ("$x$ and $5$", [("math", "x"), ("text", " and "), ("math", "5")]),
        ("$5$", [("math", "5")]),
        (
            "the $2$nd and $2^n - 1$",
            [("text", "the "), ("math", "2"), ("text", "nd and "), ("math", "2^n - 1")],
        ),
        ("costs $5 and $x$ more", [("text", "costs $5 and "), ("math", "x"), ("text", " more")]),
        ("$5 each,\nso $x$", [("text", "$5 each,\nso "), ("math", "x")]),  # not closed on its line
        ("$.75 or $1.25 each", [("text", "$.75 or $1.25 each")]),
        ("he has $x and pays $40.", [("text", "he has $x and pays $40.")]),  # $ never closes
        # a closing $ after a number that reads as prose: "$x" written for x dollars
        (
            "is $104. So the cost of the heels is 3$x = $104 - $5.",
            [("text", "is $104. So the cost of the heels is 3$x = $104 - $5.")],
        ),
        (r"\$5 and $y$", [("text", r"\$5 and "), ("math", "y")]),
        (
            "$$x^2$$ and \\[y\\] and \\(z\\)",
            [("math", "x^2"), ("text", " and "), ("math", "y"), ("text", " and "), ("math", "z")],
        ),
    ],
)
def test_dollar_signs_before_a_number_are_currency_unless_closed_as_math(
    page: Page, text: str, expected: list[tuple[str, str]]
) -> None:
    assert parts(page, text) == expected


def show(page: Page, text: str) -> dict[str, Any]:
    """`text` shown and typeset as an item view shows it: its formulas, the sources shown in
    their place, any KaTeX error, and its visible text."""
    result: dict[str, Any] = page.evaluate(
        """async t => {
          const main = document.querySelector("main");
          main.textContent = "";
          const box = mathjudgeMath.text(t, "text");
          main.appendChild(box);
          await Promise.all(Array.from(box.querySelectorAll("p"), mathjudgeMath.typeset));
          return {typeset: Array.from(box.querySelectorAll(".katex annotation"), a => a.textContent),
                  sources: Array.from(box.querySelectorAll("code.tex-source"), c => c.textContent),
                  errors: box.querySelectorAll(".katex-error").length,
                  red: Array.from(box.querySelectorAll(".katex *")).filter(
                    e => getComputedStyle(e).color === "rgb(204, 0, 0)").length};
        }""",
        text,
    )
    return result


@pytest.mark.parametrize(
    "formula",
    [
        r"$x^$",  # a parse error
        r"\(c = AC \in \Q\)",  # a command the author defined elsewhere
        r"$\href{https://example.org}{x}$",  # needs trust: no links from TeX
        r"$\newcommand{\R}{x}\R$",  # macros from the text are not typeset
        "$" + r"a \iff " * 150 + "$",  # past the expansions a formula may take
    ],
    ids=["parse-error", "undefined", "href", "newcommand", "expansions"],
)
def test_what_katex_cannot_typeset_is_its_source_never_a_red_error(
    page: Page, formula: str
) -> None:
    shown = show(page, f"before $y^2$ then {formula} after")
    assert shown["typeset"] == ["y^2"]
    assert shown["sources"] == [formula]
    assert shown["errors"] == shown["red"] == 0


def test_array_commands_the_sources_use_render(page: Page) -> None:
    """MR-MATH's `invalid-3` laid out a multiplication with `@{}` columns and `\\cline`, which
    KaTeX lacks: the partial rule is drawn across the array, the column spacing left out."""
    layout = (
        "$$\\begin{array}{@{}c@{\\;}c@{}c}\n& 4 & 7_8 \\\\\n\\times & & 3_8 \\\\\n"
        "\\cline{2-3} & 1 & 5_8 \\\\\n\\end{array}$$"
    )
    shown = show(page, layout)
    assert shown["sources"] == [] and len(shown["typeset"]) == 1
    assert "\\hline" in shown["typeset"][0] and "@{" not in shown["typeset"][0]


def test_a_dollar_sign_inside_a_formula_is_typeset_as_one(page: Page) -> None:
    """MathCheck-GSM's solutions write prices inside formulas: `\\(x + $50,000\\)` and
    `\\text{$40}` made KaTeX fail."""
    shown = show(page, r"\(x + $50,000\) and \[ \text{Cost} = \text{$40} \times 0.5 = $20 \]")
    assert shown["sources"] == []
    assert shown["typeset"] == [r"x + \$50,000", r" \text{Cost} = \text{\$40} \times 0.5 = \$20 "]


def test_katexs_own_macros_still_work(page: Page) -> None:
    """`\\tag` defines a macro inside KaTeX; only macros the text defines are refused."""
    assert show(page, r"\[ a = b \tag{1} \]")["sources"] == []
