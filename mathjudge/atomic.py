"""Atomic writes of files and folders: write beside the target, then rename over it.

A crash or an exception mid-write leaves the previous version (or nothing), never a partial one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FILE_MODE = 0o644
DIR_MODE = 0o755


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yields a temporary path in the target's folder; it replaces `path` on clean exit."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.part-")
    os.close(fd)
    try:
        yield Path(tmp)
        os.chmod(tmp, FILE_MODE)  # mkstemp makes it owner-only; outputs are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def atomic_dir(final: Path) -> Iterator[Path]:
    """Yields a fresh sibling folder; on clean exit it replaces `final` (two renames, the old
    folder restored if the second fails), on error it is deleted and `final` is untouched."""
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.tmp-"))
    try:
        tmp.chmod(DIR_MODE)  # mkdtemp makes it owner-only; outputs are meant to be shared
        yield tmp
        if not final.exists():
            os.rename(tmp, final)
            return
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        os.rename(final, old)
        try:
            os.rename(tmp, final)
        except BaseException:
            os.rename(old, final)
            raise
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_json_atomic(path: Path, data: object) -> None:
    """`data` as indented UTF-8 JSON at `path`, written atomically; NaN is refused."""
    import json

    with atomic_path(path) as tmp:
        tmp.write_text(
            json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n", encoding="utf-8"
        )
