"""Reading a MathCheck judge's free-text reply as a prediction: our own statement and code of the
rules the MathCheck authors' scorer applies (`extract_ans.py`, in the scripts' utils folder of their
repository at the pinned commit, as the shared SOURCE.md describes them), so that imported replies
score as theirs do.

Outcome judging (is the solution's final answer right?), first rule that applies:
  1. at the first "the answer is" (any case, colon optional), after spaces and markdown marks
     (* _ " ' `), the word "correct" or "incorrect" decides;
  2. otherwise the last whole word "correct" or "incorrect" anywhere in the reply;
  3. otherwise no prediction.
Process judging (which step is the first wrong one?), first rule that applies:
  1. "all steps are correct" anywhere (any case): no wrong step (-1);
  2. "the answer is" followed on its line by "step N": step N, but only when the word is
     written "Step" or "step" (the authors' scorer turns "step" into "Step" and nothing
     else, so "STEP 2" never matches a gold label): any other casing is unreadable;
  3. "judgement:" followed by a word starting with "step": unreadable (the authors keep that
     word alone, e.g. "Step" without its number, which never matches a gold label);
  4. exactly one distinct step number named anywhere ("step N", any case): that step;
  5. "begins/began/starts with/at step N" (any case): step N;
  6. the reply cut at runs of . ! ?: in the second-to-last piece (the last sentence when the
     reply ends with a stop), " correct" means no wrong step; else its first "Step N" (written
     so: other casings are unreadable, as the authors compare the text as found); then the same
     on the first piece;
  7. otherwise no prediction.
An unreadable label is no prediction too: both are counted (`parsed_by` says which rule gave
the result, or "none"), never dropped. Between "step" and its number any space character on the
line counts (a few replies put a no-break space there): our choice, where the authors' exact
pattern is not known to us.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NO_ERROR = -1  # "all steps are correct"

_MARKS = r"[\s*_\"'`]*"
_ANSWER = re.compile(r"the answer is:?" + _MARKS + r"(incorrect|correct)\b", re.I)
_FIRST_ANSWER = re.compile(r"the answer is", re.I)
_WORD = re.compile(r"\b(incorrect|correct)\b", re.I)
_ALL_CORRECT = re.compile(r"all steps are correct", re.I)
_SPACE = r"[^\S\n]+"  # any space but a line break
_ANSWER_STEP = re.compile(r"the answer is[^\n]*?\b(step)" + _SPACE + r"(\d+)", re.I)
_JUDGEMENT = re.compile(r"judgement:\s*step", re.I)
_ANY_STEP = re.compile(r"\bstep" + _SPACE + r"(\d+)", re.I)
_BEGINS = re.compile(r"\b(?:begins|began|starts) (?:with|at) step" + _SPACE + r"(\d+)", re.I)
_STOPS = re.compile(r"[.!?]+")
_WRITTEN_STEP = re.compile(r"\bStep" + _SPACE + r"(\d+)")


@dataclass(frozen=True)
class Parsed:
    value: bool | int | None  # outcome: True = correct; process: a step, NO_ERROR or None
    parsed_by: str  # the rule that gave the value ("none": no prediction)


def outcome(reply: str) -> Parsed:
    first = _FIRST_ANSWER.search(reply)
    if first is not None:
        match = _ANSWER.match(reply, first.start())
        if match is not None:
            return Parsed(match.group(1).lower() == "correct", "the answer is")
    words = _WORD.findall(reply)
    if words:
        return Parsed(words[-1].lower() == "correct", "last correct/incorrect")
    return Parsed(None, "none")


def _sentence(piece: str) -> int | str | None:
    """Rule 6 on one piece: NO_ERROR, a step, "unreadable", or None when it says nothing."""
    if " correct" in piece:
        return NO_ERROR
    step = _ANY_STEP.search(piece)
    if step is None:
        return None
    written = _WRITTEN_STEP.match(piece, step.start())
    return int(written.group(1)) if written else "unreadable"


def process(reply: str) -> Parsed:
    if _ALL_CORRECT.search(reply):
        return Parsed(NO_ERROR, "all steps are correct")
    answer = _ANSWER_STEP.search(reply)
    if answer is not None:
        if answer.group(1) in ("Step", "step"):
            return Parsed(int(answer.group(2)), "the answer is: step N")
        return Parsed(None, "the answer is: step N, unreadable casing")
    if _JUDGEMENT.search(reply):
        return Parsed(None, "judgement: step, no number")
    named = {int(n) for n in _ANY_STEP.findall(reply)}
    if len(named) == 1:
        return Parsed(named.pop(), "one step named")
    begins = _BEGINS.search(reply)
    if begins is not None:
        return Parsed(int(begins.group(1)), "begins with step N")
    pieces = _STOPS.split(reply)
    candidates = [pieces[-2]] if len(pieces) >= 2 else []
    for piece in [*candidates, pieces[0]]:
        found = _sentence(piece)
        if isinstance(found, str):  # "unreadable"
            return Parsed(None, "closing sentence, unreadable casing")
        if found is not None:
            return Parsed(found, "closing sentence")
    return Parsed(None, "none")
