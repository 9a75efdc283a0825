"""Where things live by default; every default can be overridden by a flag or env var."""

from __future__ import annotations

import os
from pathlib import Path

MIRROR_ENV = "MATHJUDGE_MIRROR"
DATASETS_ENV = "MATHJUDGE_DATASETS"
CACHE_ENV = "MATHJUDGE_CACHE"


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
