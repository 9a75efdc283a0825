"""JSON from untrusted files, parsed so that no input can crash or flood the process.

`json.loads` alone accepts duplicate keys (the last one silently wins), recurses once per
nesting level and turns a 5,000-digit number into a ValueError of its own. Here every value is
parsed with: a nesting limit checked on the raw bytes *before* parsing, duplicate keys and
unpaired surrogate escapes rejected, integers of thousands of digits read as (infinite) floats
as Arrow reads them, and every failure raised as `JsonProblem` with the key it concerns where
there is one, for the caller to locate by file and line. Ranges are the models' business: a
`run` beyond 32 bits is refused by the prediction model, an unused huge number is ignored,
as the columnar fast path ignores it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

MAX_DEPTH = 64
_STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"')
_BRACKETS = b"[]{}\n"
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonProblem(ValueError):
    """Why a JSON text was refused; `field` is the key concerned, if any."""

    def __init__(self, message: str, field: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        # The key as it may be printed: odd or long keys escaped and cut.
        if field is not None and not (field.isprintable() and len(field) <= 60):
            field = repr(field)[:60]
        self.field = field
        self.line = line  # within the text, where the JSON parser says


def max_depth(data: bytes) -> int:
    """The deepest bracket nesting of any line of `data`, brackets inside strings ignored.

    Strings are matched within a line only, so an unterminated one hides nothing: its
    brackets still count, which can only overstate the depth. The scan runs in C and numpy.
    """
    kept = _STRING.sub(b"", data).translate(None, _NOT_BRACKETS)
    if not kept.strip(b"\n"):
        return 0
    codes = np.frombuffer(kept, dtype=np.uint8)
    steps = np.isin(codes, (ord("["), ord("{"))).astype(np.int64)
    steps -= np.isin(codes, (ord("]"), ord("}")))
    level = np.cumsum(steps)
    newline = codes == ord("\n")
    # Depth counts from the start of each line: subtract the level at the last newline.
    last = np.maximum.accumulate(np.where(newline, np.arange(len(codes)), -1))
    base = np.where(last >= 0, level[np.maximum(last, 0)], 0)
    return int((level - base).max())


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JsonProblem("key given twice in one object", key)
            seen.add(key)
    return out


def _surrogates(value: Any, field: str | None = None) -> None:
    """Refuse text holding an unpaired surrogate: "\\ud800" escapes decode to text that no
    UTF-8 writer (Arrow, DuckDB) accepts. Only escapes can make one, so only texts with a
    `\\u` escape are walked."""
    stack = [(value, field)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if not item.isascii() and _SURROGATE.search(item):
                raise JsonProblem(_SURROGATE_PROBLEM, where)
        elif isinstance(item, dict):
            for key, inner in item.items():
                if not key.isascii() and _SURROGATE.search(key):
                    raise JsonProblem(_SURROGATE_PROBLEM, where or key)
                stack.append((inner, where or key))
        elif isinstance(item, list):
            stack.extend((inner, where) for inner in item)


def _long_integer(literal: str) -> int | float:
    """An integer literal too long for int() (thousands of digits) read as a float, infinite,
    as Arrow's reader does: refused wherever a field needs a number, ignored elsewhere."""
    return int(literal) if len(literal) < _INT_DIGITS_LIMIT else float(literal)


_SURROGATE_PROBLEM = "text with an unpaired surrogate escape (\\ud800-\\udfff)"
_INT_DIGITS_LIMIT = 4000  # below Python's int() limit of 4300 digits
# One decoder for every call (json.loads builds a new one per call when given hooks), and one
# for the rare text with an integer literal of thousands of digits.
_DECODER = json.JSONDecoder(object_pairs_hook=_pairs)
_LONG_INTEGERS = json.JSONDecoder(object_pairs_hook=_pairs, parse_int=_long_integer)


def loads(raw: bytes, *, depth: int = MAX_DEPTH) -> Any:
    """One JSON value from UTF-8 bytes (a leading BOM is the caller's to strip)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise JsonProblem(
            f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
        ) from None
    if raw.count(b"[") + raw.count(b"{") > depth and max_depth(raw) > depth:
        raise JsonProblem(f"nested deeper than {depth} levels")
    try:
        try:
            value = _DECODER.decode(text)
        except (JsonProblem, json.JSONDecodeError):
            raise
        except ValueError:  # int() refuses literals of thousands of digits
            value = _LONG_INTEGERS.decode(text)
        if b"\\u" in raw:
            _surrogates(value)
        return value
    except JsonProblem:
        raise
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"not valid JSON ({exc.msg})", line=exc.lineno) from None
    except RecursionError:  # unreachable after the depth check; kept as a last guard
        raise JsonProblem(f"nested deeper than {depth} levels") from None
