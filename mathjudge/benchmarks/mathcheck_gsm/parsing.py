"""Reading a MathCheck judge's free-text reply as a prediction exactly as the MathCheck authors'
scorer reads it (`extract_ans.py` in the scripts' utils folder of their repository at the pinned
commit), quirks included, so that imported replies score as theirs do. Our own statement and
code of their rules; a kinder reading would be another metric, not this one.

Outcome judging (is the solution's final answer right?), first rule that applies:
  1. the first place where "the answer is:" (any case, the colon required) is followed, after
     any white space, by a word (letters, digits, underscores): if that word is "correct" or
     "incorrect" (any case) it decides; any other word passes to rule 2. A mark between the
     colon and the word ("The answer is: **Correct**") means no word follows at that place, so
     the next such place is looked at, and with none the reply falls to rule 2;
  2. otherwise the last whole word "correct" or "incorrect" anywhere in the reply (any case);
  3. otherwise no prediction.
Process judging (which step is the first wrong one?): the reply is read as a label, and the label
is right only when it is the gold text "Step k" exactly. First rule that applies:
  1. "all steps are correct" anywhere (any case): no wrong step;
  2. the first "the answer is" (any case) followed later on its line by "step", one space and
     digits (any case, even inside a longer word such as "footstep 2"): that text, with a
     lower-case "step" turned into "Step" and no other change ("STEP 2" stays as written);
  3. the first "judgement:" (any case) followed, after white space, by a word: if the word
     starts with "step" (any case), that word alone ("Step", never a step number);
  4. every "step N" in the reply (any case): if they are all the same once lower-cased, that
     one, capitalised ("Step N");
  5. the first "begin", "begins", "began", "start" or "starts", a space, "at" or "with", a space
     and "step N" (any case): "Step N";
  6. the reply cut at runs of . ! ?: when there are several pieces, the second-to-last (the last
     sentence when the reply ends with a stop) and then the first, each stripped of surrounding
     white space; a single piece is taken whole. In each in turn: " correct" (any case) in it
     means no wrong step; else its first "step N" (any case) as written;
  7. otherwise no prediction.
"step N" is always "step", exactly one space and digits (any Unicode digits, as the authors'
pattern allows). A label that is not "Step k" written exactly so with k >= 1 in ASCII digits
("STEP 2", "step 3", "Step 02", "Step") can never equal a gold label: it is kept as no
prediction, counted as wrong and as unparsed, with the label it was (`read_as`) and the rule
that gave it (`parsed_by`), never dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

NO_ERROR = -1  # "all steps are correct"
ALL_CORRECT = "All-Correct"  # the authors' label for it

_ANSWER_WORD = re.compile(r"the answer is:\s*(\w+)", re.I)
_VERDICT_WORD = re.compile(r"\b(correct|incorrect)\b", re.I)
_STEP = r"step \d+"
_ALL_STEPS_CORRECT = re.compile(r"all steps are correct", re.I)
_ANSWER_STEP = re.compile(r"the answer is.*?(" + _STEP + ")", re.I)  # `.` stops at a newline
_JUDGEMENT_WORD = re.compile(r"judgement:\s*(\w+)", re.I)
_ANY_STEP = re.compile(_STEP, re.I)
_BEGINS_AT = re.compile(r"(?:begins?|began|starts?) (?:at|with) (" + _STEP + ")", re.I)
_STOPS = re.compile(r"[.!?]+")
_GOLD_FORM = re.compile(r"Step ([1-9][0-9]*)")


@dataclass(frozen=True)
class Parsed:
    value: bool | int | None  # outcome: True = correct; process: a step, NO_ERROR or None
    parsed_by: str  # the rule that gave the label ("none": no rule did)
    read_as: str | None = None  # the label the rule gave, as the authors compare it


def outcome(reply: str) -> Parsed:
    answer = _ANSWER_WORD.search(reply)
    if answer is not None and answer.group(1).lower() in ("correct", "incorrect"):
        word = answer.group(1).lower()
        return Parsed(word == "correct", "the answer is:", word.capitalize())
    words = _VERDICT_WORD.findall(reply)
    if words:
        word = words[-1].lower()
        return Parsed(word == "correct", "last correct/incorrect", word.capitalize())
    return Parsed(None, "none")


def _label(rule: str, label: str) -> Parsed:
    """A process label as a prediction: no wrong step, a step, or unreadable."""
    if label == ALL_CORRECT:
        return Parsed(NO_ERROR, rule, label)
    gold_form = _GOLD_FORM.fullmatch(label)
    if gold_form is None:
        return Parsed(None, f"{rule}, unreadable", label)
    return Parsed(int(gold_form.group(1)), rule, label)


def _piece(piece: str) -> str | None:
    """Rule 6 on one piece of the reply: the label it gives, or None when it says nothing."""
    if " correct" in piece.lower():
        return ALL_CORRECT
    step = _ANY_STEP.search(piece)
    return step.group(0) if step is not None else None


def process(reply: str) -> Parsed:
    if _ALL_STEPS_CORRECT.search(reply):
        return _label("all steps are correct", ALL_CORRECT)
    answer = _ANSWER_STEP.search(reply)
    if answer is not None:
        return _label("the answer is: step N", answer.group(1).replace("step", "Step"))
    judgement = _JUDGEMENT_WORD.search(reply)
    if judgement is not None and judgement.group(1).lower().startswith("step"):
        return _label("judgement: step", judgement.group(1).replace("step", "Step"))
    named = {s.lower() for s in _ANY_STEP.findall(reply)}
    if len(named) == 1:
        return _label("one step named", named.pop().capitalize())
    begins = _BEGINS_AT.search(reply)
    if begins is not None:
        return _label("begins with step N", begins.group(1).capitalize())
    pieces = _STOPS.split(reply)
    last, first = (pieces[-2].strip(), pieces[0].strip()) if len(pieces) > 1 else (reply, reply)
    for rule, piece in (("last sentence", last), ("first sentence", first)):
        label = _piece(piece)
        if label is not None:
            return _label(rule, label)
    return Parsed(None, "none")
