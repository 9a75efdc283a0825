"""Is a solver's compact answer the variant's known answer? math-verify decides when it can;
`decide` returns None when it cannot, and only then does the CBU judge ask a model.

math-verify "cannot decide" when either side does not parse into a formula, when a comparison
errs or times out, or when it finds the two unequal but they do not even use the same free
symbols: that is the mark of a misreading, not of a wrong answer (plain `pi^2/6` parses as the
product p*i^2/6, which no answer written `\\pi^2/6` can equal; prose parses as a product of
letters). Unequal formulas over the same symbols are decided as different.
"""

from __future__ import annotations

import functools
from typing import Any

from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify
from sympy import Basic

from mathjudge.answers.alarm import timeout
from mathjudge.answers.normalised import safe_to_parse

_CONFIG = (LatexExtractionConfig(), ExprExtractionConfig())


@functools.lru_cache(maxsize=8192)
def decide(proposed: str, reference: str) -> bool | None:
    """True / False when math-verify settles it, None when it cannot (memoised: one variant's
    answer meets the same proposed answers across rollouts and candidates)."""
    if _spaced(proposed) == _spaced(reference):
        return True
    if "=" in proposed and "=" not in reference:
        proposed = proposed.rsplit("=", 1)[-1].strip()  # `f(2) = 8` answers `8`
    if not (safe_to_parse(proposed.strip("$ ")) and safe_to_parse(reference.strip("$ "))):
        return None  # a power tower or huge factorial: sympy would never finish
    gold, pred = _parsed(reference), _parsed(proposed)
    if not _formulas(gold) or not _formulas(pred):
        return None
    try:
        if verify(list(gold), list(pred), timeout_seconds=timeout()):
            return True
    except Exception:  # math-verify raises many types on odd input: undecided
        return None
    return False if _symbols(gold) == _symbols(pred) else None


def _spaced(text: str) -> str:
    return " ".join(text.strip().strip("$").split())


@functools.lru_cache(maxsize=8192)
def _parsed(text: str) -> tuple[Any, ...]:
    """math-verify's parse of a bare or delimited answer; () when it fails."""
    stripped = text.strip()
    delimited = any(mark in stripped for mark in ("$", "\\(", "\\["))
    try:
        found = parse(
            stripped if delimited else f"${stripped}$",
            extraction_config=_CONFIG,
            parsing_timeout=timeout(),
        )
    except Exception:  # as in `decide`
        return ()
    return tuple(found)


def _formulas(parsed: tuple[Any, ...]) -> list[Basic]:
    return [p for p in parsed if isinstance(p, Basic)]


def _symbols(parsed: tuple[Any, ...]) -> frozenset[str]:
    return frozenset(str(s) for f in _formulas(parsed) for s in f.free_symbols)
