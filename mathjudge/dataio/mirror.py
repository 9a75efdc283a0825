"""What a source folder given on the command line means: one rule for every command.

`--source-dir DIR` (and `repo sync --reported DIR`) is either a *mirror root*, a folder
with one folder per benchmark laid out like the shared data (`DIR/stepmathbench/`,
`DIR/mr-math/`, `DIR/reported/`, ...), or that one benchmark's *own folder*. DIR is a root when
it holds the benchmark's folder; it is a root missing that folder when it holds another
benchmark's folder (an error, never a guess); otherwise it is the benchmark's own folder. The
folder used is said in words (`Located.how`), so a user sees which copy a command read.
`MATHJUDGE_MIRROR` is always a root. Without either, builders download their pinned files.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from mathjudge.base.config import MIRROR_ENV, mirror_root
from mathjudge.base.errors import MathJudgeError, SourceUnavailable
from mathjudge.dataio.pins import load_pins

REPORTED = "reported"  # the papers' result tables, beside the benchmarks in a mirror


@dataclass(frozen=True)
class Located:
    """The folder a command reads a benchmark from (None: download the pinned files), and
    where it came from in words."""

    folder: Path | None
    how: str


def known_folders(datasets: Iterable[str]) -> frozenset[str]:
    """The folder names a mirror root may hold: each dataset's (`source.yaml`'s `mirror`) and
    the reported tables'."""
    return frozenset({load_pins(name).mirror for name in datasets} | {REPORTED})


def locate(
    given: Path, folder: str, known: Collection[str], *, option: str = "--source-dir"
) -> Located:
    """The folder `given` means for the benchmark mirrored as `folder` (see the module note);
    `known` are the folder names a mirror root may hold."""
    if not given.is_dir():
        raise MathJudgeError(f"{given}: no such folder ({option})")
    nested = given / folder
    if nested.is_dir():
        return Located(nested, f"{nested} (the {folder}/ folder of the mirror root {given})")
    others = sorted(n for n in known if n != folder and (given / n).is_dir())
    if others:
        held = ", ".join(f"{n}/" for n in others[:3]) + (", ..." if len(others) > 3 else "")
        raise SourceUnavailable(
            f"{given}: a mirror root (it holds {held}) without a {folder}/ folder; give "
            f"{option} a root that has {folder}/, or that folder itself"
        )
    return Located(given, f"{given} (given as the {folder} folder itself)")


def root(given: Path, known: Collection[str], *, option: str = "--source-dir") -> Path:
    """`given` as a mirror root, for commands that read many benchmarks (the demo)."""
    if not given.is_dir():
        raise MathJudgeError(f"{given}: no such folder ({option})")
    if not any((given / n).is_dir() for n in known):
        raise MathJudgeError(
            f"{given}: not a mirror root (it holds none of {', '.join(sorted(known))}); "
            f"{option} here takes a folder with one folder per benchmark"
        )
    return given


def for_dataset(name: str, given: Path | None, known: Collection[str]) -> Located:
    """Where dataset `name` is built from: `given` (either form), else `$MATHJUDGE_MIRROR`'s
    folder, else its pinned upstream (`folder` None)."""
    pins = load_pins(name)
    if given is not None:
        return locate(given, pins.mirror, known)
    env_root = mirror_root()
    if env_root is not None and (env_root / pins.mirror).is_dir():
        return Located(env_root / pins.mirror, f"{env_root / pins.mirror} (${MIRROR_ENV})")
    missing = (
        f"${MIRROR_ENV} has no {pins.mirror}/ folder"
        if env_root is not None
        else f"no --source-dir and no ${MIRROR_ENV}"
    )
    if pins.kind == "package":
        return Located(None, f"{missing}: this benchmark is built from data you supply")
    return Located(None, f"{missing}: downloading {pins.repo} at {pins.revision}")


def reported(given: Path | None, known: Collection[str], *, option: str) -> Located:
    """The folder of the papers' result tables: `given` (either form), else
    `$MATHJUDGE_MIRROR/reported`."""
    if given is not None:
        found = locate(given, REPORTED, known, option=option)
        assert found.folder is not None
        if not any(found.folder.glob("*.csv")):
            raise MathJudgeError(
                f"{found.folder}: no result tables (*.csv) in it; {option} takes a mirror root "
                f"or its {REPORTED}/ folder"
            )
        return found
    env_root = mirror_root()
    if env_root is not None and (env_root / REPORTED).is_dir():
        return Located(env_root / REPORTED, f"{env_root / REPORTED} (${MIRROR_ENV})")
    raise MathJudgeError(
        f"no {REPORTED}/ folder: pass {option} (a mirror root or its {REPORTED}/ folder) or set "
        f"{MIRROR_ENV}"
    )
