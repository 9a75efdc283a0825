"""The problems of a predictions file, said so that the useful line comes first.

A file with one misspelt column used to print "did you mean 'score'?" on line 2, then a
thousand lines of the error every row has because of it. So problems are grouped by kind (the
field and the message, values aside): one line per kind, its first problem as found, with how
many lines have it and the first three; hints and suggestions first (the benchmark a file's
item ids belong to, a misspelt column), then the kinds in order of their first line, then what
concerns the whole file (items without a prediction). The count of every kind is exact, however
many rows have it; only EXAMPLES problems of each are kept.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from mathjudge.base.errors import Problem, ValidationFailed

EXAMPLES = 3  # problems kept (and located) per kind
MAX_KINDS = 50  # kinds shown; the rest are counted
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_GOT = re.compile(r" \(got .*\)$")
_DIGITS = re.compile(r"\d+")
_PYDANTIC_PREFIX = "Value error, "


@functools.lru_cache(maxsize=4096)  # a file's problems repeat a few messages, row after row
def kind_of(field: str | None, message: str) -> tuple[str, str]:
    """What makes two problems the same kind: the field (list positions aside) and the
    message with its values (quoted, numbers, or `(got ...)`) left out."""
    text = _DIGITS.sub("#", _QUOTED.sub("…", _GOT.sub("", message)))
    return _DIGITS.sub("#", field or ""), text


@dataclass
class _Kind:
    count: int = 0
    examples: list[Problem] = field(default_factory=list)


class Grouped:
    """Problems by kind, in order of their first appearance: each kind's count and its first
    EXAMPLES problems."""

    def __init__(self) -> None:
        self.kinds: dict[tuple[str, str], _Kind] = {}
        self.beyond = 0  # problems of kinds past MAX_KINDS

    def wants(self, field: str | None, message: str) -> bool:
        """Whether a problem of this kind would be kept: a caller that must format it first
        (it costs most of the time on a file of a million bad rows) counts it otherwise."""
        kind = self.kinds.get(kind_of(field, message))
        if kind is None:
            return len(self.kinds) < MAX_KINDS
        return len(kind.examples) < EXAMPLES

    def count(self, field: str | None, message: str, n: int = 1) -> None:
        """`n` more problems of the kind of (`field`, `message`), not kept."""
        kind = self.kinds.get(kind_of(field, message))
        if kind is None:
            self.beyond += n
        else:
            kind.count += n

    def add(self, problem: Problem) -> None:
        key = kind_of(problem.field, problem.message)
        kind = self.kinds.get(key)
        if kind is None:
            if len(self.kinds) >= MAX_KINDS:
                self.beyond += 1
                return
            kind = self.kinds[key] = _Kind()
        kind.count += 1
        if len(kind.examples) < EXAMPLES:
            kind.examples.append(problem)

    @property
    def total(self) -> int:
        return sum(k.count for k in self.kinds.values()) + self.beyond


def _line(kind: _Kind) -> str:
    first = kind.examples[0]
    text = str(replace(first, message=first.message.removeprefix(_PYDANTIC_PREFIX)))
    if kind.count == 1:
        return f"  {text}"
    units = f"{first.unit}s"
    where = ", ".join(str(p.line) for p in kind.examples if p.line is not None)
    more = ", ..." if kind.count > len(kind.examples) else ""
    return f"  {text}; the same on {kind.count} {units}: {where}{more}"


def failure(
    found: Grouped,
    whole_file: list[Problem],
    *,
    hints: Sequence[str] = (),
    first: Grouped | None = None,
) -> ValidationFailed:
    """The error for a file with these problems: `hints` first (said once, about the whole
    file), then `first` (suggestions, such as a misspelt column), then every other kind in
    order of its first line, then the problems of `whole_file`."""
    lines = [f"  {hint}" for hint in hints]
    ordered = sorted(found.kinds.values(), key=lambda k: k.examples[0].line or 0)
    kinds = [*(first.kinds.values() if first else ()), *ordered]
    lines += [_line(kind) for kind in kinds if kind.examples]
    lines += [f"  {p}" for p in whole_file]
    beyond = found.beyond + (first.beyond if first else 0)
    if beyond:
        lines.append(f"  ... and {beyond} more, of other kinds")
    total = found.total + (first.total if first else 0) + len(whole_file)
    kept = [p for kind in kinds for p in kind.examples] + whole_file
    return ValidationFailed(
        kept,
        omitted=total - len(kept),
        message=f"{total} problem(s) found:\n" + "\n".join(lines),
    )
