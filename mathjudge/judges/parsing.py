"""Strict readers for the last line of a judge's answer (`SCORE: 5`, `VERDICT: correct`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from mathjudge.llm import AnswerError, final_choice, final_field

_INTEGER = re.compile(r"([0-9]+)(?:\s*/\s*([0-9]+))?")


def score_parser(max_score: int) -> Callable[[str], int]:
    """Reads `SCORE: n` (or `n/max`) with n an integer in [0, max_score]."""

    def parse(answer: str) -> int:
        value = final_field(answer, "SCORE")
        match = _INTEGER.fullmatch(value.rstrip("."))
        if match is None:
            raise AnswerError(f"'SCORE:' must be followed by a whole number, not {value!r}")
        if match.group(2) is not None and int(match.group(2)) != max_score:
            raise AnswerError(f"the score must be out of {max_score}, not {match.group(2)}")
        score = int(match.group(1))
        if score > max_score:
            raise AnswerError(f"the score must be between 0 and {max_score}, not {score}")
        return score

    return parse


def verdict_parser(positive: str, negative: str) -> Callable[[str], bool]:
    """Reads `VERDICT: <positive>|<negative>` as True / False."""

    def parse(answer: str) -> bool:
        return final_choice(answer, "VERDICT", (positive, negative)) == positive

    return parse


def three_way(answer: str) -> bool | None:
    """Reads `VERDICT: yes|no|inconclusive` as True / False / None."""
    choice = final_choice(answer, "VERDICT", ("yes", "no", "inconclusive"))
    return {"yes": True, "no": False, "inconclusive": None}[choice]
