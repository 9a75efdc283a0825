"""Plain answer equivalence: math-verify as it comes. Extract a solution's final answer, parse
it and the golden answer as LaTeX, and test symbolic equivalence; when the golden answer is a
value, an extracted equation `y = ...` is reduced to its last side. No benchmark-specific
normalisation (that is `answers.normalised`)."""

from __future__ import annotations

import functools
import re
from typing import Any

from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

from mathjudge.answers.alarm import timeout
from mathjudge.answers.normalised import extract_final_answer, safe_to_parse

_CONFIG = (LatexExtractionConfig(), ExprExtractionConfig())
_ANSWER_LINE = re.compile(r"(?:final\s+)?answer\s*[*_]*\s*(?:is)?\s*[:：]\s*[*_]*\s*(.+)", re.I)
_INLINE_MATH = re.compile(r"\$([^$]+)\$")


def final_answer(solution: str) -> str | None:
    """The solution's final answer: a final-answer marker or a trailing box (RuleEM's
    extraction), else an `Answer:` line, else the last inline formula of the last paragraph."""
    found = extract_final_answer(solution)
    if found is not None:
        return found
    lines = [line for line in solution.splitlines() if line.strip()]
    for line in reversed(lines):
        match = _ANSWER_LINE.search(line)
        if match:
            return match.group(1).strip().rstrip(".").strip() or None
    last_paragraph = solution.strip().split("\n\n")[-1]
    formulas = _INLINE_MATH.findall(last_paragraph)
    return formulas[-1].strip() if formulas else None


def _value(answer: str) -> str:
    """`y(1) = 0 - (-1) = 1` -> `1`: the last side of a chain of equalities."""
    return answer.rsplit("=", 1)[-1].strip() if "=" in answer else answer


def equivalent(predicted: str, golden: str) -> bool:
    """True when math-verify finds the two answers equal (or they are the same string)."""
    if " ".join(predicted.split()) == " ".join(golden.split()):
        return True
    if "=" in predicted and "=" not in golden:
        predicted = _value(predicted)
    if not (safe_to_parse(golden.strip("$ ")) and safe_to_parse(predicted.strip("$ "))):
        return False  # a numeric power tower or huge factorial: sympy would never finish
    gold, pred = _parsed(golden), _parsed(predicted)
    if not gold or not pred:
        return False
    try:
        return bool(verify(list(gold), list(pred), timeout_seconds=timeout()))
    except Exception:  # math-verify raises many types on odd input; that is "not shown equal"
        return False


@functools.lru_cache(maxsize=4096)
def _parsed(text: str) -> tuple[Any, ...]:
    """math-verify's parse, () when it fails or times out; cached because one golden answer
    is compared with every solution of its problem (and a slow one would time out each time)."""
    try:
        return tuple(parse(_as_math(text), extraction_config=_CONFIG, parsing_timeout=timeout()))
    except Exception:  # as in `equivalent`
        return ()


def _as_math(text: str) -> str:
    """math-verify's LaTeX extractor looks for math delimiters; bare answers get them."""
    stripped = text.strip()
    return (
        stripped if "$" in stripped or "\\(" in stripped or "\\[" in stripped else f"${stripped}$"
    )
