"""The list of paths a pull request changes, as a workflow hands it to `repo check` and
`repo datasets` with `--paths-from FILE` (`-`: standard input).

Expanding such a list into command-line arguments lets a file name pass for an option: a file
named `submissions/.f --datasets submissions/.fake --` made `check` score a submission against
gold labels the pull request itself supplied. Read from a file instead, NUL-separated (as
`git diff --name-only -z` writes it), every name stays one path, whatever it holds; each is
then checked to lie under `submissions/<benchmark>/` (`named_folders`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mathjudge import registry
from mathjudge.base import sidefiles
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable
from mathjudge.repo.folder import SLUG, SUBMISSIONS

MAX_BYTES = 16 << 20


def read_path_list(source: Path) -> list[str]:
    """The non-empty NUL-separated paths of `source` (a file, or `-` for standard input), each
    UTF-8 text; at most MAX_BYTES."""
    if str(source) == "-":
        data = sys.stdin.buffer.read(MAX_BYTES + 1)
        where = "--paths-from -"
        if len(data) > MAX_BYTES:
            raise MathJudgeError(f"{where}: more than {MAX_BYTES} bytes of paths")
    else:
        data = sidefiles.read_bytes(source, MAX_BYTES, "path list")
        where = f"--paths-from {printable(str(source))}"
    paths = []
    for number, raw in enumerate(data.split(b"\0"), start=1):
        if not raw:
            continue
        try:
            paths.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise MathJudgeError(
                f"{where}: path {number} is not UTF-8 text ({printable(repr(raw)[:80])})"
            ) from None
    return paths


def named_folders(paths: list[str]) -> list[tuple[str, str | None]]:
    """(benchmark, slug or None for all its folders) named by each path, as a pull request
    lists the files it changes (`git diff --name-only`): `submissions/<benchmark>[/<slug>[/...]]`.
    Anything else is refused, every bad path named."""
    out, problems = [], []
    for raw in paths:
        parts = raw.removesuffix("/").split("/")
        why = None
        if raw.startswith("/") or parts[0] != SUBMISSIONS or len(parts) < 2:
            why = f"not a path under {SUBMISSIONS}/"
        elif any(p in ("", ".", "..") for p in parts):
            why = "a path with an empty, '.' or '..' part"
        elif parts[1] not in registry.names():
            why = f"{printable(repr(parts[1]))} is not a benchmark"
        elif len(parts) > 2 and not SLUG.fullmatch(parts[2]):
            why = f"{printable(repr(parts[2]))} is not a submission folder name"
        if why:
            problems.append(f"  {printable(repr(raw))}: {why}")
        else:
            out.append((parts[1], parts[2] if len(parts) > 2 else None))
    if problems:
        raise MathJudgeError(
            f"{len(problems)} path(s) refused; each must lie under {SUBMISSIONS}/<benchmark>/:\n"
            + "\n".join(problems[:20])
            + (f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else "")
        )
    return out
