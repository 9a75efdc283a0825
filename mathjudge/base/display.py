"""The one check for text that ends up displayed: judge names and meta, from every path
(`--judge`, `--meta`, the transcribed reported tables, library callers).

Escaping stops markup, not everything: a NUL or an escape sequence corrupts a terminal or a CSV
download, a right-to-left override (U+202E) makes a name read backwards, and a 10,000-character
name floods the overview. So such text is refused where it enters, with a message saying what
and where, and the site shows meta only as a bounded summary (`summary`).
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any

from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable
from mathjudge.base.names import invisible_problem

MAX_JUDGE_NAME = 200
MAX_META_KEY = 100
MAX_META_TEXT = 10_000
MAX_META_DEPTH = 8
MAX_META_ENTRIES = 1_000
# Integers beyond it are not exact in JSON readers, JavaScript or a DOUBLE column.
MAX_EXACT_INT = 2**53
# A judge's details on one item, as an item view shows them: its rows (one per run) and their
# texts, split into paragraphs at blank lines. `check`, `submit` and `sync` refuse more; the
# site cuts what a store holds beyond them (the largest real item: 1 row, 11,094 characters, 45
# paragraphs; 660 KB of blank-line paragraphs for one item took an item view 34 s to load).
MAX_ITEM_DETAIL_ROWS = 64
MAX_ITEM_DETAIL_CHARS = 200_000
MAX_ITEM_DETAIL_PARAGRAPHS = 2_000
# Summary of meta for pages and leaderboard.json: the full meta is a download.
SUMMARY_ENTRIES = 20
SUMMARY_CHARS = 200
_MULTILINE_OK = "\n\t"


def neutral_lines(message: str) -> str:
    """A whole message as the CLI prints it, the last guard behind `printable`: its own line
    breaks kept, every other character that is not printable escaped, and a line that would
    start a workflow command (`::name ...`, leading spaces ignored) shown with its first colon
    escaped."""
    lines = []
    for line in message.split("\n"):
        line = printable(line)
        if line.lstrip().startswith("::"):
            line = line.replace(":", "\\x3a", 1)
        lines.append(line)
    return "\n".join(lines)


def text_problem(text: str, max_chars: int, *, multiline: bool = False) -> str | None:
    """Why `text` may not be displayed, or None. Refused: more than `max_chars` characters and
    any control, format (bidirectional overrides and isolates among them), surrogate, private
    or unassigned character; newlines and tabs only where `multiline`."""
    if len(text) > max_chars:
        return f"is longer than {max_chars} characters ({len(text)})"
    for ch in text:
        if unicodedata.category(ch).startswith("C") and not (multiline and ch in _MULTILINE_OK):
            name = unicodedata.name(ch, "a control or unassigned character")
            return f"contains U+{ord(ch):04X} ({name.lower()}), which cannot be displayed safely"
    return None


def check_judge_name(judge: str, where: str = "--judge") -> str:
    """The judge name stripped of surrounding spaces; raises naming `where` if unusable: a
    name must show all it holds (no invisible or blank-looking character, `names`)."""
    name = judge.strip()
    if not name:
        raise MathJudgeError(f"{where}: the judge name is empty")
    problem = text_problem(name, MAX_JUDGE_NAME) or invisible_problem(name)
    if problem:
        raise MathJudgeError(f"{where}: the judge name {problem}")
    return name


def meta_problem(meta: Any) -> tuple[str, str] | None:
    """(where in meta, why) for the first key or text in `meta` that may not be displayed,
    e.g. ("the value at notes.steps[2]", "contains U+0000 ...")."""
    entries = 0
    stack: list[tuple[str, Any, int]] = [("", meta, 0)]
    while stack:
        path, value, depth = stack.pop()
        entries += 1
        if entries > MAX_META_ENTRIES:
            return "meta", f"has more than {MAX_META_ENTRIES} values"
        if depth > MAX_META_DEPTH:
            return f"the value at {_short(path)}", f"is nested deeper than {MAX_META_DEPTH} levels"
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    where = "at " + _short(path) if path else "at the top level"
                    return f"a key {where}", f"is not text ({type(key).__name__})"
                problem = text_problem(key, MAX_META_KEY)
                child = f"{path}.{key}" if path else str(key)
                if problem:
                    return f"a key {'at ' + _short(path) if path else 'at the top level'}", problem
                stack.append((child, item, depth + 1))
        elif isinstance(value, list | tuple):
            stack.extend((f"{path}[{i}]", item, depth + 1) for i, item in enumerate(value))
        elif isinstance(value, str):
            problem = text_problem(value, MAX_META_TEXT, multiline=True)
            if problem:
                return f"the value at {_short(path)}", problem
        else:
            problem = _number_problem(value)
            if problem:
                return f"the value at {_short(path)}", problem
    return None


def _number_problem(value: Any) -> str | None:
    """Why a value that is not text, a list or a mapping cannot be kept as JSON and shown:
    only null, true, false, finite numbers and integers within ±2^53 can."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return None if abs(value) <= MAX_EXACT_INT else f"is beyond ±2^53 ({MAX_EXACT_INT})"
    if isinstance(value, float):
        return None if math.isfinite(value) else "is not a finite number (NaN or infinite)"
    return f"is not a JSON value (a {type(value).__name__})"


def check_meta(meta: Any, where: str) -> dict[str, Any]:
    """`meta` if it is a JSON object whose keys and texts may all be displayed and whose
    numbers are finite and exact (so every store, JSON file and page can hold it)."""
    if not isinstance(meta, dict):
        raise MathJudgeError(f"{where}: meta must be a JSON object")
    found = meta_problem(meta)
    if found:
        what, problem = found
        raise MathJudgeError(f"{where}: meta: {what} {problem}")
    return meta


EMPTY_DETAIL = "none"  # a details value that holds nothing, as a call without a value reads


def shown_text(value: Any) -> str:
    """A details value as an item view shows it: text as it is, any other value as JSON, and a
    value that holds nothing (null, blank text, an empty list or object) as EMPTY_DETAIL, never
    as an empty box or as JSON's "null" (MathCheck-GSM's `read_as` of an unparsed reply)."""
    if value is None or (isinstance(value, str | list | dict) and not _holds_something(value)):
        return EMPTY_DETAIL
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _holds_something(value: str | list[Any] | dict[str, Any]) -> bool:
    return bool(value.strip()) if isinstance(value, str) else bool(value)


def paragraphs(text: str) -> int:
    """How many paragraphs an item view makes of `text`: runs of lines that are not blank."""
    count, blank = 0, True
    for line in text.split("\n"):
        if line.strip() and blank:
            count += 1
        blank = not line.strip()
    return count


def summary(meta: dict[str, Any]) -> dict[str, str]:
    """At most SUMMARY_ENTRIES (key, text) pairs, texts cut at SUMMARY_CHARS; characters that
    cannot be displayed (from a store written before these checks) are replaced."""
    out = {}
    for key in sorted(meta, key=str)[:SUMMARY_ENTRIES]:
        value = meta[key]
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        out[_clean(_cut(str(key), MAX_META_KEY))] = _clean(_cut(text, SUMMARY_CHARS))
    return out


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars] + "…"


def _clean(text: str) -> str:
    return "".join(
        "\ufffd" if unicodedata.category(ch).startswith("C") and ch not in _MULTILINE_OK else ch
        for ch in text
    )


def _short(path: str) -> str:
    return path if len(path) <= 80 and path.isprintable() else repr(path)[:80] + "…"
