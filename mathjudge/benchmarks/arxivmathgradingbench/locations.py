"""Error locations in papers ("Theorem 19", "proof of Lemma 4.1", "main theorem"), parsed into
the kind of result and its label, so locations written differently can be compared.

Rules (the ArxivMathGradingBench ground truth and judges' predictions go through the same ones):
- `split_locations` splits a list of locations on `,`, `;` and ` and `, never inside brackets,
  so "Theorem 3.4(a, b)" stays one location.
- `parse_location` finds the words naming a result or a place in the paper (case-insensitive,
  abbreviations and plurals included: "Thm." -> theorem, "Prop" -> proposition, "Lemmata" ->
  lemma, "Eq." -> equation, "§" -> section) and the label right after it: "19", "4.1", "B",
  "3.2.1", "A.1", "IV", "1A", also in parentheses ("eq. (4.2)"). A parenthesised sub-part is
  dropped ("Proposition 4.1(b)" -> 4.1). Where several appear, the first labelled *result*
  (theorem, lemma, ...) wins over places inside results or the paper (section, equation, claim,
  step, case, ...): "proof of Theorem 19" and "Theorem 19, eq. (4.2)" are theorem / 19, and so is
  "eq. (4.2) in the proof of Theorem 19". A whole text that is a parenthesised label, "(4.2)",
  is an equation; a bare label, "2.4", has no kind (`parse_locations` gives it the kind of the
  location before it: "Theorems 2.3 and 2.4").
- A location without a label keeps the kind its words name, if any ("main theorem" -> theorem,
  no label), for information only: it is identified by its words up to case and spacing
  (`normalize_words`), so "Main  Theorem" is the same location and "the main theorem" is not.
- `Location.key` is the normalized location: (kind, label) when labelled, else the words.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Canonical kind -> the words (lower case) that name it. Results come first: they win.
RESULT_KINDS: dict[str, tuple[str, ...]] = {
    "theorem": ("theorem", "theorems", "thm", "thms"),
    "lemma": ("lemma", "lemmas", "lemmata", "lem"),
    "proposition": ("proposition", "propositions", "prop", "props"),
    "corollary": ("corollary", "corollaries", "cor", "coro", "corr"),
    "conjecture": ("conjecture", "conjectures", "conj"),
    "definition": ("definition", "definitions", "def", "defn"),
    "remark": ("remark", "remarks", "rem", "rmk"),
    "example": ("example", "examples", "ex"),
    "assumption": ("assumption", "assumptions"),
    "hypothesis": ("hypothesis", "hypotheses"),
    "fact": ("fact", "facts"),
    "observation": ("observation", "observations", "obs"),
    "property": ("property", "properties"),
    "problem": ("problem", "problems"),
    "question": ("question", "questions"),
    "exercise": ("exercise", "exercises"),
    "construction": ("construction", "constructions"),
    "condition": ("condition", "conditions"),
    "notation": ("notation",),
    "axiom": ("axiom", "axioms"),
    "principle": ("principle", "principles"),
    "criterion": ("criterion", "criteria"),
    "algorithm": ("algorithm", "algorithms", "alg", "algo"),
}
# Places in the paper or inside a result's proof: used only when no labelled result is named.
PLACE_KINDS: dict[str, tuple[str, ...]] = {
    "section": ("section", "sections", "sec", "sect", "subsection", "subsections", "§", "§§"),
    "appendix": ("appendix", "appendices", "app"),
    "chapter": ("chapter", "chapters", "chap", "ch"),
    "paragraph": ("paragraph", "paragraphs", "para"),
    "equation": (
        "equation",
        "equations",
        "eq",
        "eqs",
        "eqn",
        "eqns",
        "formula",
        "formulas",
        "formulae",
        "inequality",
        "inequalities",
    ),
    "claim": ("claim", "claims"),
    "step": ("step", "steps"),
    "case": ("case", "cases"),
    "figure": ("figure", "figures", "fig", "figs"),
    "table": ("table", "tables", "tab"),
}
_KIND_OF = {
    word: kind
    for kinds in (RESULT_KINDS, PLACE_KINDS)
    for kind, words in kinds.items()
    for word in words
}

# A label: a letter ("B", "A.1"), a roman numeral ("IV"), or a number ("19", "3.2.1", "1A",
# "S2"), with primes ("A'"). Possessive quantifiers stop "3.4a" from shrinking to "3"; the
# primes may shrink, so "Lemma 3.2's proof" is 3.2.
_LABEL = r"(?:[A-Z](?:\.\d+)*+|[IVX]++|[A-Z]?\d+(?:\.\d+)*+[A-Za-z]?)['′]*(?![A-Za-z0-9])"
_WORDS = "|".join(
    re.escape(w) + ("" if not w[-1].isalpha() else r"(?![A-Za-z])")
    for w in sorted(_KIND_OF, key=len, reverse=True)
)
_MENTION = re.compile(
    rf"(?<![A-Za-z])(?P<kind>(?i:{_WORDS}))\.?[\s~]*(?:(?i:no)\.?\s*)?\(?(?P<label>{_LABEL})?"
)
_BARE = re.compile(rf"(?P<open>\()?(?P<label>{_LABEL})(?(open)\))")
_SEPARATOR = re.compile(r",|;|\s+and\s+", re.IGNORECASE)
_BRACKETS = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class Location:
    """One location as written (`text`, stripped) and what it names."""

    text: str
    kind: str | None  # canonical kind ("theorem"), None when no kind word is present
    label: str | None  # "19", "4.1", "B"; None when the location has no label

    @property
    def key(self) -> str:
        """The normalized location: labelled locations compare by (kind, label), the others by
        their words. The unit separator joining kind and label is whitespace to `str.split`,
        so it never occurs in normalized words and the two forms cannot collide."""
        if self.label is not None:
            return f"{self.kind or ''}\x1f{self.label}"
        return normalize_words(self.text)


def normalize_words(text: str) -> str:
    """Text up to case, spacing and Unicode compatibility forms."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def split_locations(text: str) -> list[str]:
    """Split a list of locations on `,`, `;` and ` and ` outside brackets; strip, drop empties."""
    pieces: list[str] = []
    start = 0
    closing: list[str] = []
    position = 0
    while position < len(text):
        char = text[position]
        if char in _BRACKETS:
            closing.append(_BRACKETS[char])
        elif closing and char == closing[-1]:
            closing.pop()
        elif not closing and (separator := _SEPARATOR.match(text, position)):
            pieces.append(text[start:position])
            start = position = separator.end()
            continue
        position += 1
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip()]


def parse_location(text: str) -> Location:
    """The kind and label `text` names (see the module docstring for the rules)."""
    text = text.strip()
    best: tuple[int, str, str | None] | None = None  # (rank, kind, label); lower rank wins
    for mention in _MENTION.finditer(text):
        kind = _KIND_OF[mention["kind"].lower()]
        label = mention["label"]
        # labelled result 0, labelled place 1, unlabelled result 2, unlabelled place 3
        rank = (0 if label else 2) + (0 if kind in RESULT_KINDS else 1)
        if best is None or rank < best[0]:
            best = (rank, kind, label)
    if best is not None:
        return Location(text, best[1], best[2])
    bare = _BARE.fullmatch(text)
    if bare:
        return Location(text, "equation" if bare["open"] else None, bare["label"])
    return Location(text, None, None)


def parse_locations(pieces: list[str]) -> list[Location]:
    """Parse an already split list; a bare label takes the kind of the location before it
    ("Theorems 2.3 and 2.4" -> theorem 2.3, theorem 2.4)."""
    out: list[Location] = []
    for piece in pieces:
        location = parse_location(piece)
        if location.kind is None and location.label is not None and out and out[-1].kind:
            location = Location(location.text, out[-1].kind, location.label)
        out.append(location)
    return out


# --- locations named in an arXiv comment ---------------------------------------------------

_KIND_WORDS = sorted({w for words in RESULT_KINDS.values() for w in words}, key=len, reverse=True)
_NUMBER = r"\d+(?:\.\d+)*[a-z]?|[A-Z]\.\d+(?:\.\d+)*"  # "19", "3.2.1", "4a", "A.1"
_PART = r"(?:\s?\([a-z0-9]{1,4}\))?(?!\w)"  # "(b)" of "Proposition 4.1(b)"
# A kind word, its label, and more labels listed after it ("Theorems 2.3 and 2.4"). Bare
# letters and roman numerals count only right after the word: in "Theorem 2.2, I give" the
# "I" is a pronoun.
_COMMENT_MENTION = re.compile(
    rf"(?<![A-Za-z])(?i:(?:{'|'.join(_KIND_WORDS)})(?![a-z]))\.?\s*"
    rf"(?:{_NUMBER}|[A-Z]|[IVX]+){_PART}(?:(?:\s*,\s*|\s+and\s+|\s*&\s*)(?:{_NUMBER}){_PART})*"
)
_CLAUSE_END = re.compile(r"[.;:!?,](?=\s|$)")


def comment_locations(comment: str, correction: re.Pattern[str]) -> list[Location]:
    """The labelled results a comment names as erroneous: those in a clause (text between
    punctuation) with a correction word, or, when no clause has both, every one it names.
    "Corrected Theorem 4.8, added Corollary 4.9" gives Theorem 4.8 only; lists such as
    "Thms. 2.3 and 2.4" give both. Each is written canonically ("Theorem 2.4")."""
    mentions = list(_COMMENT_MENTION.finditer(comment))
    cuts = [
        c.start()
        for c in _CLAUSE_END.finditer(comment)
        if not any(m.start() <= c.start() < m.end() for m in mentions)
    ]

    def clause(mention: re.Match[str]) -> str:
        start = max((c + 1 for c in cuts if c < mention.start()), default=0)
        end = min((c for c in cuts if c >= mention.end()), default=len(comment))
        return comment[start:end]

    chosen = [m for m in mentions if correction.search(clause(m))] or mentions
    found: dict[str, Location] = {}
    for mention in chosen:
        for loc in parse_locations(split_locations(mention.group())):
            if loc.kind is not None and loc.label is not None:  # written as "Theorem 2.4"
                found.setdefault(
                    loc.key, Location(f"{loc.kind.capitalize()} {loc.label}", loc.kind, loc.label)
                )
    return list(found.values())
