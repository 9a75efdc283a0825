"""Error types the CLI maps to exit codes: anything here is the user's input, not a bug."""

from __future__ import annotations

import errno
from dataclasses import dataclass

from mathjudge.base.escaping import printable


class MathJudgeError(Exception):
    """Invalid input or an unreachable source; the CLI prints it and exits with code 1."""


def os_problem(exc: OSError) -> str:
    """What a failed read or write of the file system means for the user, in one sentence:
    the file and the system's reason, and for a full disk that it is full. Commands write
    their outputs atomically (`atomic`, the store's transactions), so a failed write leaves
    the earlier version, or nothing."""
    where = f"{exc.filename}: " if exc.filename else ""
    reason = exc.strerror or str(exc) or type(exc).__name__
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return (
            f"{where}{reason}: the disk is full (or the file size limit reached); nothing "
            "partial was kept. Free some space and run the command again"
        )
    return f"{where}{reason}"


class SourceUnavailable(MathJudgeError):
    """A benchmark's source cannot be had here (no mirror folder and no network, or data the
    user must supply): `build all` skips such a benchmark with this reason instead of failing."""


class UsageError(MathJudgeError):
    """A setting the command was run with is unusable (e.g. an environment variable that is
    not a number); the CLI prints it like a usage error and exits with code 2."""


@dataclass(frozen=True)
class Problem:
    """One validation problem, located precisely enough to fix it without guessing."""

    file: str
    line: int | None
    field: str | None
    message: str
    unit: str = "line"  # "row" for Parquet, where there are no text lines

    def __str__(self) -> str:
        """One line, whatever the file name, field or message hold: their characters that are
        not printable are escaped (see `display.printable`)."""
        where = printable(self.file)
        if self.line is not None:
            where += f":{self.line}" if self.unit == "line" else f" row {self.line}"
        if self.field:
            where += f" [{printable(self.field)}]"
        return f"{where}: {printable(self.message)}"


class ValidationFailed(MathJudgeError):
    """A submission or source file broke the contract; carries the problems kept (at most
    `limit` shown) and how many more were found but not kept (`omitted`). `message`, where
    given, says them (e.g. grouped by kind) instead of the list."""

    def __init__(
        self,
        problems: list[Problem],
        *,
        limit: int = 50,
        omitted: int = 0,
        message: str | None = None,
    ) -> None:
        self.problems = problems
        self.omitted = omitted
        if message is None:
            shown = "\n".join(f"  {p}" for p in problems[:limit])
            more = max(len(problems) - limit, 0) + omitted
            tail = f"\n  ... and {more} more" if more else ""
            message = f"{len(problems) + omitted} problem(s) found:\n{shown}{tail}"
        super().__init__(message)
