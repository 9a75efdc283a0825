"""Strict reading of model answers: a parser either returns a value or says why it cannot.

Prompts ask the model to end with one line `KEY: value`; reasoning may come before it. Only
Markdown emphasis or code marks around that line are forgiven, nothing else.
"""

from __future__ import annotations

import re


class AnswerError(ValueError):
    """The answer lacks the required form; the message is the reason (shown to the model when
    it is asked again, and recorded when the item fails)."""


_DECOR = "*_` \t"


def final_field(answer: str, key: str) -> str:
    """The value of the required last line `KEY: value` (key case-insensitive)."""
    lines = [line for line in answer.splitlines() if line.strip()]
    if not lines:
        raise AnswerError("the answer is empty")
    last = lines[-1].strip(_DECOR)
    match = re.fullmatch(rf"{re.escape(key)}[{_DECOR}]*:(.*)", last, flags=re.IGNORECASE)
    if match is None:
        raise AnswerError(f"the last line is not of the form '{key}: ...' (it is {last[:80]!r})")
    value = match.group(1).strip(_DECOR)
    if not value:
        raise AnswerError(f"the '{key}:' line gives no value")
    return value


def final_choice(answer: str, key: str, choices: tuple[str, ...]) -> str:
    """The last line's value when it is one of `choices` (case-insensitive, a final period
    allowed)."""
    value = final_field(answer, key).rstrip(".").strip(_DECOR).lower()
    if value not in choices:
        allowed = ", ".join(choices)
        raise AnswerError(f"'{key}:' must be followed by one of {allowed}, not {value!r}")
    return value
