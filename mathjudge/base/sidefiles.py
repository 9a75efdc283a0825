"""Reading the small files a command is handed beside its main input (`--meta`, the reported
tables, manifests and data cards): regular files only and a size limit, checked before a byte
is read. `--meta /dev/zero` would otherwise read until memory runs out and `--meta FIFO` would
wait forever; opening non-blocking and checking the opened file makes both an error at once.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from mathjudge.base import safejson
from mathjudge.base.errors import MathJudgeError

META_MAX_BYTES = 1 << 20
TABLE_MAX_BYTES = 8 << 20
MANIFEST_MAX_BYTES = 16 << 20


def read_bytes(path: Path, max_bytes: int | None, what: str = "file") -> bytes:
    """The whole of a regular file of at most `max_bytes` (None: no limit)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise MathJudgeError(f"{path}: {what} not found") from None
    except OSError as exc:
        raise MathJudgeError(f"{path}: cannot read the {what} ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise MathJudgeError(f"{path}: the {what} is not a regular file")
        if max_bytes is not None and info.st_size > max_bytes:
            raise MathJudgeError(
                f"{path}: the {what} has {info.st_size} bytes, more than the {max_bytes} allowed"
            )
        try:  # no more than the size it states: a /proc file states 0 and may never end
            data = handle.read(info.st_size + 1)
        except OSError as exc:
            raise MathJudgeError(f"{path}: cannot read the {what} ({exc.strerror})") from None
    if len(data) > info.st_size:
        raise MathJudgeError(f"{path}: the {what} grew while it was read")
    return data


def read_text(path: Path, max_bytes: int | None, what: str = "file") -> str:
    data = read_bytes(path, max_bytes, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise MathJudgeError(
            f"{path}:{line}: the {what} is not UTF-8 text ({exc.reason})"
        ) from None


def read_json(path: Path, max_bytes: int | None, what: str = "file") -> Any:
    """One JSON value, parsed as untrusted (see `safejson`): a nesting limit, no duplicate
    keys. A leading UTF-8 byte order mark is allowed."""
    data = read_bytes(path, max_bytes, what)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return safejson.loads(data)
    except safejson.JsonProblem as exc:
        line = f":{exc.line}" if exc.line else ""
        field = f" [{exc.field}]" if exc.field and exc.field.isprintable() else ""
        raise MathJudgeError(f"{path}{line}{field}: {exc.message}") from None
