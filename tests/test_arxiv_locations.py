"""Error locations: splitting, kind/label parsing and normalization, on every real location."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mathjudge.benchmarks.arxivmathgradingbench.locations import (
    Location,
    normalize_words,
    parse_location,
    parse_locations,
    split_locations,
)

# Every `Location of Error` of the real file, in file order, with the expected (kind, label) of
# each location it lists: 35 papers, 40 locations.
REAL = [
    ("Theorem 19", [("theorem", "19")]),
    ("Proposition 6.10", [("proposition", "6.10")]),
    ("Theorem B", [("theorem", "B")]),
    ("Theorem 3.1", [("theorem", "3.1")]),
    ("Theorem 1.2", [("theorem", "1.2")]),
    ("Lemma 2.3", [("lemma", "2.3")]),
    ("Theorem 5", [("theorem", "5")]),
    ("Theorem 2.2", [("theorem", "2.2")]),
    ("Theorem 2.1", [("theorem", "2.1")]),
    ("Lemma 8", [("lemma", "8")]),
    ("Proposition 5.1", [("proposition", "5.1")]),
    ("Lemma 4.1", [("lemma", "4.1")]),
    ("Lemma 20", [("lemma", "20")]),
    ("Lemma 3.5", [("lemma", "3.5")]),
    ("Theorem 5.1", [("theorem", "5.1")]),
    ("Theorem 4.5", [("theorem", "4.5")]),
    ("Theorem 1.5, Lemma 2.1", [("theorem", "1.5"), ("lemma", "2.1")]),
    ("Proposition 3.3", [("proposition", "3.3")]),
    ("Theorem 4.8", [("theorem", "4.8")]),
    ("Lemma 5", [("lemma", "5")]),
    ("Lemma 2.2", [("lemma", "2.2")]),
    ("Theorem 1.2", [("theorem", "1.2")]),
    ("Lemma 4.3, main theorem", [("lemma", "4.3"), ("theorem", None)]),
    ("Proposition 4.3", [("proposition", "4.3")]),
    ("Proposition 3", [("proposition", "3")]),
    ("Proposition 4.1(b)", [("proposition", "4.1")]),
    (
        "Theorem 3.4, Corollary 3.5, Lemma 6.5",
        [("theorem", "3.4"), ("corollary", "3.5"), ("lemma", "6.5")],
    ),
    ("Theorem 2.3, Theorem 2.4", [("theorem", "2.3"), ("theorem", "2.4")]),
    ("Lemma 5.7", [("lemma", "5.7")]),
    ("Lemma 3.11", [("lemma", "3.11")]),
    ("Proposition 2.15", [("proposition", "2.15")]),
    ("Lemma 4.1", [("lemma", "4.1")]),
    ("Lemma 8", [("lemma", "8")]),
    ("Theorem 2", [("theorem", "2")]),
    ("Lemma 4.2", [("lemma", "4.2")]),
]


@pytest.fixture(scope="module")
def real_locations(mirror: Path) -> list[str]:
    path = mirror / "arxivmathgradingbench" / "arxiv_grading_bench.jsonl"
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line)["Location of Error"] for line in handle]


def test_every_real_location_parses_as_expected(real_locations: list[str]) -> None:
    assert len(real_locations) == len(REAL) == 35
    total = 0
    for text, (expected_text, expected) in zip(real_locations, REAL, strict=True):
        assert text == expected_text
        parsed = parse_locations(split_locations(text))
        assert [(p.kind, p.label) for p in parsed] == expected, text
        total += len(parsed)
    assert total == 40


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Theorem 19", ["Theorem 19"]),
        ("Theorem 1.5, Lemma 2.1", ["Theorem 1.5", "Lemma 2.1"]),
        ("Lemma 4.3; main theorem", ["Lemma 4.3", "main theorem"]),
        ("Lemma 2 and Lemma 3", ["Lemma 2", "Lemma 3"]),
        ("Lemma 2 AND\tLemma 3", ["Lemma 2", "Lemma 3"]),
        ("Theorem 3.4(a, b), Lemma 1", ["Theorem 3.4(a, b)", "Lemma 1"]),
        ("Prop [1; 2] and {x, y}", ["Prop [1; 2]", "{x, y}"]),
        ("Theorem 3 (i and ii)", ["Theorem 3 (i and ii)"]),
        (" , Theorem 1,, ;", ["Theorem 1"]),
        ("Theorem 1 (unbalanced, still one", ["Theorem 1 (unbalanced, still one"]),
        ("Randomness", ["Randomness"]),  # "and" inside a word does not split
        ("", []),
    ],
)
def test_split_locations(text: str, expected: list[str]) -> None:
    assert split_locations(text) == expected


@pytest.mark.parametrize(
    ("text", "kind", "label"),
    [
        ("Theorem 19", "theorem", "19"),
        ("proof of Theorem 19", "theorem", "19"),
        ("Theorem 19, eq. (4.2)", "theorem", "19"),
        ("eq. (4.2) in the proof of Theorem 19", "theorem", "19"),
        ("Claim 2 in the proof of Lemma 5", "lemma", "5"),
        ("Thm. 19", "theorem", "19"),
        ("thm 19", "theorem", "19"),
        ("Thm3", "theorem", "3"),
        ("Theorem~3.1", "theorem", "3.1"),
        ("Theorem No. 5", "theorem", "5"),
        ("Theorem 3.1.", "theorem", "3.1"),
        ("Prop 4.1(b)", "proposition", "4.1"),
        ("Proposition 4.1 (ii)", "proposition", "4.1"),
        ("Lem. 3.2.1", "lemma", "3.2.1"),
        ("Lemmata 2", "lemma", "2"),
        ("Lemma 3.2's proof", "lemma", "3.2"),
        ("Corollaries 4", "corollary", "4"),
        ("Cor. 1.3", "corollary", "1.3"),
        ("Def. 2.1", "definition", "2.1"),
        ("Conjecture 1", "conjecture", "1"),
        ("Remark 5.2", "remark", "5.2"),
        ("Example 3", "example", "3"),
        ("Theorem B", "theorem", "B"),
        ("Theorem A'", "theorem", "A'"),
        ("Theorem IV", "theorem", "IV"),
        ("Lemma A.1", "lemma", "A.1"),
        ("Theorem 1A", "theorem", "1A"),
        ("Section 3.2", "section", "3.2"),
        ("§3.2", "section", "3.2"),
        ("Subsection 4.1", "section", "4.1"),
        ("Appendix B", "appendix", "B"),
        ("Eq. (4.2)", "equation", "4.2"),
        ("equation 7", "equation", "7"),
        ("(4.2)", "equation", "4.2"),
        ("Step 3", "step", "3"),
        ("2.4", None, "2.4"),
        ("main theorem", "theorem", None),
        ("the main result", None, None),
        ("Theorem In Section 3", "section", "3"),  # "In" is a word, not a label
        ("main theorem, step 2", "step", "2"),  # a labelled place beats an unlabelled result
        ("  Lemma 8  ", "lemma", "8"),
    ],
)
def test_parse_location(text: str, kind: str | None, label: str | None) -> None:
    parsed = parse_location(text)
    assert (parsed.kind, parsed.label) == (kind, label)
    assert parsed.text == text.strip()


def test_bare_labels_take_the_kind_before_them() -> None:
    parsed = parse_locations(split_locations("Theorems 2.3 and 2.4"))
    assert [(p.kind, p.label) for p in parsed] == [("theorem", "2.3"), ("theorem", "2.4")]
    assert parse_locations(["2.4"]) == [Location("2.4", None, "2.4")]


def test_normalize_words() -> None:
    assert normalize_words("  Main\u00a0 THEOREM\n") == "main theorem"
    assert normalize_words("ﬁnal Step") == "final step"  # compatibility forms (NFKC)


def test_keys() -> None:
    def key(text: str) -> str:
        return parse_location(text).key

    assert key("proof of Theorem 19") == key("Thm. 19") == key("Theorem 19, eq. (4.2)")
    assert key("Theorem 18") != key("Theorem 19")
    assert key("Lemma 19") != key("Theorem 19")
    assert key("Main  Theorem") == key("main theorem") != key("the main theorem")
    # Normalized words never hold the separator of labelled keys, so the two cannot collide.
    assert Location("theorem\x1f19", None, None).key == "theorem 19"
    assert key("Theorem 19") == "theorem\x1f19"
