"""Replace a folder atomically: build beside the target, then swap it into place, so a reader
(or a failed build) never sees a half-written site."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mathjudge.base.atomic import atomic_dir
from mathjudge.base.errors import MathJudgeError


def swap_in(out: Path, fill: Callable[[Path], None], *, marker: str) -> None:
    """Call `fill(tmp)` on a fresh sibling folder of `out`, then swap it in as `out`.

    An existing `out` is replaced only if it is empty or holds `marker` (a file every build
    writes), so a mistyped `--out` cannot wipe an unrelated folder.
    """
    if out.exists() and not _replaceable(out, marker):
        raise MathJudgeError(f"{out}: exists and is not a mathjudge site; refusing to replace it")
    with atomic_dir(out) as tmp:
        fill(tmp)


def _replaceable(out: Path, marker: str) -> bool:
    return out.is_dir() and (not any(out.iterdir()) or (out / marker).is_file())
