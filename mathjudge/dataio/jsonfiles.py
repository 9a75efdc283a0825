"""Reading JSON and JSON-lines files that users and upstreams hand us, so every reader fails
the same way: a `MathJudgeError` naming the file and, where JSON says, the line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mathjudge.errors import MathJudgeError


def read_json(path: Path) -> Any:
    """The whole file as one JSON value."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise MathJudgeError(f"{path}: cannot read ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise MathJudgeError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from exc


def iter_jsonl(path: Path) -> Iterator[tuple[int, Any]]:
    """(line number, value) for every non-blank line."""
    try:
        with path.open(encoding="utf-8") as handle:
            for lineno, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield lineno, json.loads(line)
                except json.JSONDecodeError as exc:
                    raise MathJudgeError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise MathJudgeError(f"{path}: cannot read ({exc})") from exc


def read_jsonl(path: Path) -> list[Any]:
    """Every JSON line of a file; a bad line fails naming file and line."""
    return [row for _, row in iter_jsonl(path)]
