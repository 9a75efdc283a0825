"""Strict readers for the last line of a judge's answer (`SCORE: 5`, `VERDICT: correct`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from mathjudge.llm.answers import AnswerError, final_choice, final_field

_INTEGER = re.compile(r"([0-9]+)(?:\s*/\s*([0-9]+))?")


def score_parser(max_score: int, low: int = 0) -> Callable[[str], int]:
    """Reads `SCORE: n` (or `n/max`) with n an integer in [low, max_score]."""

    def parse(answer: str) -> int:
        value = final_field(answer, "SCORE")
        match = _INTEGER.fullmatch(value.rstrip("."))
        if match is None:
            raise AnswerError(f"'SCORE:' must be followed by a whole number, not {value!r}")
        if match.group(2) is not None and int(match.group(2)) != max_score:
            raise AnswerError(f"the score must be out of {max_score}, not {match.group(2)}")
        score = int(match.group(1))
        if not low <= score <= max_score:
            raise AnswerError(f"the score must be between {low} and {max_score}, not {score}")
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


def step_labels_parser(n_steps: int) -> Callable[[str], list[int]]:
    """Reads `LABELS: 1, 0, ...` with exactly one 0/1 per step (1 = step correct)."""

    def parse(answer: str) -> list[int]:
        value = final_field(answer, "LABELS")
        parts = [p for p in re.split(r"[\s,]+", value.rstrip(".")) if p]
        if any(p not in ("0", "1") for p in parts):
            raise AnswerError(f"'LABELS:' must list only 0 and 1, not {value!r}")
        if len(parts) != n_steps:
            raise AnswerError(
                f"'LABELS:' must give {n_steps} labels, one per step, not {len(parts)}"
            )
        return [int(p) for p in parts]

    return parse
