"""Reading what a pull request supplies without ever leaving the repository.

Everything under `submissions/` is a stranger's: a file or folder there may be a symbolic link
to `/etc`, to another checkout or to `/proc/self/pagemap` (which never ends), a FIFO that blocks
a reader forever, or a file larger than any limit. So every step below the repository root is
opened relative to its parent's file descriptor with `O_NOFOLLOW` (a link anywhere, at any
level, is refused, and no step can be swapped for a link between a check and the open), a file
is opened non-blocking and checked to be a regular file of at most its limit *before* a byte is
read, and the read itself stops at the limit. Names are checked before they are printed; paths
in messages are escaped (`display.printable`).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
NO_LINKS = "a submission may hold no symbolic links, only folders and regular files"


def shown(path: Path | str) -> str:
    """A path as it may appear in a message (see `display.printable`)."""
    return printable(str(path))


def _inside(repo: Path, path: Path) -> None:
    """The resolved path stays inside the resolved repository (a belt to the O_NOFOLLOW
    braces: with no link on the way it always does)."""
    if not path.resolve().is_relative_to(repo.resolve()):
        raise MathJudgeError(f"{shown(path)}: lies outside the repository {shown(repo)}")


def _plain(name: str) -> None:
    """One path component: never a separator, "." or "..", so a step stays one level down."""
    if not name or "/" in name or "\0" in name or name in (".", ".."):
        raise MathJudgeError(f"{printable(repr(name))}: not a file or folder name")


def _refused(path: Path, exc: OSError, what: str) -> MathJudgeError:
    # O_NOFOLLOW refuses a link with ELOOP, or with ENOTDIR where O_DIRECTORY is checked first.
    if exc.errno in (errno.ELOOP, errno.EMLINK) or path.is_symlink():
        return MathJudgeError(f"{shown(path)}: a symbolic link; {NO_LINKS}")
    if exc.errno == errno.ENOTDIR:
        return MathJudgeError(f"{shown(path)}: not a folder ({what} must be one)")
    if exc.errno == errno.ENOENT:
        return MathJudgeError(f"{shown(path)}: not found")
    return MathJudgeError(f"{shown(path)}: cannot open ({exc.strerror})")


@contextmanager
def folder(repo: Path, *names: str) -> Iterator[int]:
    """A descriptor of the folder `repo/names...`, each name opened without following a link
    (the repository root itself is the caller's and may be one)."""
    path = repo
    try:
        fd = os.open(repo, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _refused(repo, exc, "a repository") from None
    try:
        for name in names:
            _plain(name)
            path = path / name
            try:
                inner = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                raise _refused(path, exc, "this") from None
            os.close(fd)
            fd = inner
            _inside(repo, path)
        yield fd
    finally:
        os.close(fd)


def entries(fd: int) -> list[tuple[str, str]]:
    """(name, kind) of every entry of an open folder, by name; kind is "folder", "file",
    "link" or "other" (FIFO, socket, device), never following a link."""
    out = []
    with os.scandir(fd) as listing:
        for entry in listing:
            if entry.is_symlink():
                kind = "link"
            elif entry.is_dir(follow_symlinks=False):
                kind = "folder"
            elif entry.is_file(follow_symlinks=False):
                kind = "file"
            else:
                kind = "other"
            out.append((entry.name, kind))
    return sorted(out)


def read_file(dir_fd: int, name: str, path: Path, max_bytes: int, what: str) -> bytes:
    """The whole of the regular file `name` in the open folder `dir_fd` (shown as `path`), of
    at most `max_bytes`: type and size checked on the opened file before anything is read."""
    _plain(name)
    try:
        fd = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        raise _refused(path, exc, what) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise MathJudgeError(f"{shown(path)}: the {what} is not a regular file")
        if info.st_size > max_bytes:
            raise MathJudgeError(
                f"{shown(path)}: the {what} has {info.st_size} bytes, more than the "
                f"{max_bytes} allowed"
            )
        try:  # no more than the size it states: a /proc file states 0 and never ends
            data = handle.read(info.st_size + 1)
        except OSError as exc:
            raise MathJudgeError(
                f"{shown(path)}: cannot read the {what} ({exc.strerror})"
            ) from None
    if len(data) > info.st_size:
        raise MathJudgeError(f"{shown(path)}: the {what} grew while it was read")
    return data
