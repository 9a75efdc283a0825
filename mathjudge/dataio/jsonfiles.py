"""Reading JSON and JSON-lines files that users and upstreams hand us, so every reader fails
the same way: a `MathJudgeError` naming the file and, where JSON says, the line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mathjudge.base import safejson, sidefiles
from mathjudge.base.errors import MathJudgeError


def read_json(path: Path) -> Any:
    """The whole file as one JSON value (a regular file, parsed as untrusted)."""
    return sidefiles.read_json(path, None)


class MissingField(MathJudgeError, KeyError):
    """A field a row must have is absent; a KeyError too, for callers that catch those."""

    def __str__(self) -> str:
        return str(self.args[0])


class Record(dict[str, Any]):
    """A JSON object read from a file that knows where it came from (`file:line`), so that a
    missing field is a located error rather than a bare KeyError."""

    __slots__ = ("where",)

    def __init__(self, data: dict[str, Any], where: str) -> None:
        super().__init__(data)
        self.where = where

    def __missing__(self, key: str) -> Any:
        raise MissingField(f"{self.where} [{key}]: missing")


def expect(row: dict[str, Any], key: str, *kinds: type | None) -> Any:
    """`row[key]` if it is of one of `kinds` (None among them allows null; a bool is not an
    int); a located error otherwise."""
    value = row[key]
    allowed = tuple(type(None) if k is None else k for k in kinds)
    if isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed):
        return value
    names = " or ".join("null" if k is None else k.__name__ for k in kinds)
    where = getattr(row, "where", "row")
    raise MathJudgeError(f"{where} [{key}]: expected {names}, got {value!r:.60}")


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line; objects come as `Record`s. Lines are
    parsed as untrusted (see `safejson`: nesting limit, no duplicate keys)."""
    try:
        with path.open("rb") as handle:
            for lineno, line in enumerate(handle, start=1):
                if lineno == 1 and line.startswith(b"\xef\xbb\xbf"):
                    line = line[3:]
                if not line.strip():
                    continue
                try:
                    value = safejson.loads(line)
                except safejson.JsonProblem as exc:
                    field = f" [{exc.field}]" if exc.field else ""
                    raise MathJudgeError(f"{path}:{lineno}{field}: {exc.message}") from None
                yield (
                    lineno,
                    Record(value, f"{path}:{lineno}") if isinstance(value, dict) else value,
                )
    except OSError as exc:
        raise MathJudgeError(f"{path}: cannot read ({exc})") from exc


def read_jsonl(path: Path) -> list[Any]:
    """Every JSON line of a file; a bad line fails naming file and line."""
    return [row for _, row in iter_jsonl(path)]


def read_json_array(path: Path) -> list[Record]:
    """A file holding one JSON array of objects (the layout of many research repositories'
    data files), each object a `Record` located as `<file> row <i>` (0-based, the position the
    upstream code indexes by)."""
    data = read_json(path)
    if not isinstance(data, list):
        raise MathJudgeError(f"{path}: expected a JSON array of objects")
    rows = []
    for i, value in enumerate(data):
        if not isinstance(value, dict):
            raise MathJudgeError(f"{path} row {i}: expected a JSON object")
        rows.append(Record(value, f"{path} row {i}"))
    return rows
