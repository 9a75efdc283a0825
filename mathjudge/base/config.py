"""Where things live by default; every default can be overridden by a flag or env var."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mathjudge.base.errors import UsageError

N = TypeVar("N", int, float)

MIRROR_ENV = "MATHJUDGE_MIRROR"
DATASETS_ENV = "MATHJUDGE_DATASETS"
CACHE_ENV = "MATHJUDGE_CACHE"
# Bootstrap bounds. B = 100,000 is 100 times the default, about 11 s and 0.4 GB on
# StepMathBench; beyond it memory (B x statistics) grows while the CIs no longer change. Seeds
# are numpy's 32-bit range.
MAX_BOOTSTRAP = 100_000
MAX_SEED = 2**32 - 1


def default_datasets_dir() -> Path:
    return Path(os.environ.get(DATASETS_ENV, "datasets"))


def mirror_root() -> Path | None:
    value = os.environ.get(MIRROR_ENV)
    return Path(value) if value else None


def cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "mathjudge"
    )
    return Path(base)


def doc_url(name: str) -> str:
    """A `file://` URL of one of mathjudge's docs (`docs/<name>` of the repository), which a wheel
    carries as `mathjudge/docs/<name>`: messages cite this, which opens wherever mathjudge runs."""
    package = Path(__file__).resolve().parent.parent  # mathjudge/, from mathjudge/base/
    for folder in (package / "docs", package.parent / "docs"):
        if (folder / name).is_file():
            return (folder / name).as_uri()
    return f"docs/{name}"  # neither installed nor in a checkout: the repository's path


def env_number(
    name: str, default: N, parse: Callable[[str], N], ok: Callable[[N], bool], expected: str
) -> N:
    """The number an environment variable sets (`default` when unset); a value that does not
    parse or is not `ok` is a usage error saying what was `expected`."""
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = parse(raw)
    except ValueError:
        value = None
    if value is None or not ok(value):
        raise UsageError(f"{name}={raw!r}: expected {expected}")
    return value


def check_bootstrap(n_boot: int, seed: int | None) -> None:
    """The bootstrap settings of a scoring call, within their documented bounds."""
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or not 1 <= n_boot <= MAX_BOOTSTRAP:
        raise UsageError(f"--bootstrap {n_boot!r}: use 1 to {MAX_BOOTSTRAP:,} resamples")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED
    ):
        raise UsageError(f"--seed {seed!r}: use a whole number from 0 to {MAX_SEED:,}")
