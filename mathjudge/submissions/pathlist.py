"""The list of paths a pull request changes, as a workflow hands it to `leaderboard check` and
`leaderboard datasets` with `--paths-from FILE` (`-`: standard input).

Expanding such a list into command-line arguments lets a file name pass for an option: a file
named `submissions/.f --datasets submissions/.fake --` made `check` score a submission against
gold labels the pull request itself supplied. Read from a file instead, NUL-separated (as
`git diff --name-only -z` writes it), every name stays one path, whatever it holds; each is
then checked to lie under `submissions/` (`folder.named_folders`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from mathjudge import sidefiles
from mathjudge.errors import MathJudgeError
from mathjudge.escaping import printable

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
