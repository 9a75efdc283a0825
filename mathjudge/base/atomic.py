"""Atomic writes of files and folders: write beside the target, then rename over it.

A crash or an exception mid-write leaves the previous version (or nothing), never a partial one.

A folder cannot be renamed over a non-empty folder, so replacing one takes a swap: on Linux
`renameat2(RENAME_EXCHANGE)` (macOS: `renamex_np(RENAME_SWAP)`) exchanges the new folder and
the published one in a single step, so the published name always holds a complete folder,
the old one or the new one. Only where the system cannot exchange (another OS, a file system
without the call) are there two renames, and a run killed between them leaves the name missing
until the next run restores the old folder. Either way a killed run leaves its staging folder
(`.NAME.tmp-PID-*`) or the replaced one (`.NAME.old-PID-*`) beside the target, as a killed file
write leaves `.NAME.part-PID-*`; the next run on that target removes those whose process is
gone.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

FILE_MODE = 0o644
DIR_MODE = 0o755
_RENAME_EXCHANGE = 2  # linux/fs.h
_RENAME_SWAP = 2  # macOS sys/stdio.h
_AT_FDCWD = -100
_LEFTOVER = re.compile(r"\.(?P<name>.+)\.(?P<kind>tmp|old|part)-(?:(?P<pid>\d+)-)?.*")
_LEGACY_AGE_S = 3600  # leftovers of older versions, named without a pid
_active: set[str] = set()  # this process's staging folders and files in use


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yields a temporary path in the target's folder (`.NAME.part-PID-*`); it replaces `path`
    on clean exit. Temporary files that killed runs left for `path` are removed first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    recover(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.part-{os.getpid()}-")
    os.close(fd)
    _active.add(tmp)
    try:
        yield Path(tmp)
        os.chmod(tmp, FILE_MODE)  # mkstemp makes it owner-only; outputs are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        _active.discard(tmp)


@contextmanager
def atomic_dir(final: Path) -> Iterator[Path]:
    """Yields a fresh sibling folder; on clean exit it replaces `final` (see the module note),
    on error it is deleted and `final` is untouched. Leftovers of killed runs on `final` are
    cleaned up first."""
    final.parent.mkdir(parents=True, exist_ok=True)
    recover(final)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".{final.name}.tmp-{os.getpid()}-"))
    _active.add(str(tmp))
    try:
        tmp.chmod(DIR_MODE)  # mkdtemp makes it owner-only; outputs are meant to be shared
        yield tmp
        _publish(tmp, final)
    except BaseException:
        _remove(tmp)
        raise
    finally:
        _active.discard(str(tmp))


def _publish(new: Path, final: Path) -> None:
    if exchange(new, final):
        _between_steps()
        _remove(new)  # now the old folder
        return
    if not os.path.lexists(final):
        os.rename(new, final)
        return
    old = final.with_name(f".{final.name}.old-{os.getpid()}-{new.name.rsplit('-', 1)[-1]}")
    os.rename(final, old)
    _between_steps()
    try:
        os.rename(new, final)
    except BaseException:
        os.rename(old, final)
        raise
    _remove(old)


def _between_steps() -> None:
    """The point between publishing the new folder and removing the old one (or, without an
    exchange, between the two renames): where a test injects a kill."""


def exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically; False where `b` is missing or the system or file
    system cannot (the caller then renames)."""
    call = _exchange_call()
    if call is None or not os.path.lexists(b):
        return False
    if call(os.fsencode(a), os.fsencode(b)) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EXDEV, errno.ENOENT):
        return False
    raise OSError(code, f"cannot swap {a} and {b}: {os.strerror(code)}")


@functools.cache
def _exchange_call() -> Callable[[bytes, bytes], int] | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if sys.platform.startswith("linux"):
            renameat2 = libc.renameat2
            renameat2.argtypes = (
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_uint,
            )
            return lambda a, b: renameat2(_AT_FDCWD, a, _AT_FDCWD, b, _RENAME_EXCHANGE)
        if sys.platform == "darwin":
            renamex_np = libc.renamex_np
            renamex_np.argtypes = (ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint)
            return lambda a, b: renamex_np(a, b, _RENAME_SWAP)
    except (AttributeError, OSError):  # an older C library
        return None
    return None


def recover(final: Path) -> None:
    """Clean up after runs on `final` that were killed: restore the replaced folder where a
    run died between two renames (the name is missing), then remove every leftover whose
    process is gone."""
    leftovers = []
    for entry in final.parent.glob(f".{glob_escape(final.name)}.*"):
        match = _LEFTOVER.fullmatch(entry.name)
        if match and match["name"] == final.name and _abandoned(entry, match["pid"]):
            leftovers.append((match["kind"], entry))
    if not os.path.lexists(final):
        replaced = sorted((e for k, e in leftovers if k == "old"), key=_mtime)
        if replaced:
            os.rename(replaced[-1], final)
            leftovers = [(k, e) for k, e in leftovers if e != replaced[-1]]
    for _, entry in leftovers:
        _remove(entry)


def glob_escape(name: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", name)


def _abandoned(entry: Path, pid: str | None) -> bool:
    if pid is None:
        return time.time() - _mtime(entry) > _LEGACY_AGE_S
    if int(pid) == os.getpid():
        return str(entry) not in _active
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):  # alive, another user's; or not a pid at all
        return False
    return False


def _mtime(entry: Path) -> float:
    try:
        return entry.lstat().st_mtime
    except OSError:
        return 0.0


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def json_text(data: object) -> str:
    """`data` as indented JSON text; NaN is refused."""
    import json

    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json_atomic(path: Path, data: object) -> None:
    """`data` as indented UTF-8 JSON at `path`, written atomically; NaN is refused."""
    with atomic_path(path) as tmp:
        tmp.write_text(json_text(data), encoding="utf-8")
