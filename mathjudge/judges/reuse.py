"""A baseline's predictions kept from an earlier run of `mathjudge demo` when nothing they
depend on has changed, so a second demo does not spend a minute re-checking the same answers
with math-verify.

What they depend on is named by content, never by time or path: the built dataset (its content
hash and the sha256 of every source file it was built from, which also covers a baseline that
reads its pinned source), the baseline as the spec declares it, and the code (every file of
this mathjudge package, and the name and version of every installed distribution: code outside
the package is known by its version only). A stamp beside the predictions records that key and
the sha256 of the files written; the files are reused only when both still match, so a
predictions or details file edited, truncated, replaced by a link or removed since is computed
again. The stamp is a cache, not a seal: it does not prove who wrote the files.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import stat
import sys
from importlib import metadata
from pathlib import Path

from mathjudge.base.atomic import atomic_path
from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.reader import BuiltDataset
from mathjudge.dataio.sources import sha256_file
from mathjudge.spec.benchmark import Baseline

STAMP_MAX_BYTES = 4096  # a stamp is three hashes; anything larger was not written here
MISSING, NOT_A_FILE = None, "not a regular file"  # never equal to a recorded sha256


def inputs_key(benchmark: str, baseline: Baseline, dataset: BuiltDataset) -> str:
    """The sha256 of everything the baseline's predictions on `dataset` are computed from.
    A baseline argument JSON cannot hold exactly is a TypeError: it would make a key by
    accident (its `str`), so the spec must be fixed."""
    manifest = dataset.manifest
    named = {
        "benchmark": benchmark,
        "baseline": dataclasses.asdict(baseline),
        "dataset": manifest["content_hash"],
        "sources": manifest["sources"],
        "code": code_fingerprint(),
    }
    return hashlib.sha256(json.dumps(named, sort_keys=True).encode()).hexdigest()


@functools.cache
def code_fingerprint() -> str:
    """The fingerprint of this mathjudge (`fingerprint` of its package folder)."""
    return fingerprint(Path(__file__).resolve().parents[1])


def fingerprint(package: Path) -> str:
    """The sha256 of the files under `package` (their paths and bytes; `__pycache__` folders
    left out), of the Python version and of the installed distributions' names and versions
    (on the interpreter's path, not the working folder `python -m` adds to it)."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            data = path.read_bytes()
            digest.update(f"\0{path.relative_to(package).as_posix()}\0{len(data)}\0".encode())
            digest.update(data)
    here = os.getcwd()
    installed = [p for p in sys.path if p and os.path.abspath(p) != here]
    versions = sorted(_named(d) for d in metadata.distributions(path=installed))
    digest.update("\0".join(versions).encode())
    return digest.hexdigest()


def _named(dist: metadata.Distribution) -> str:
    try:
        return f"{dist.metadata['Name']}=={dist.version}"
    except (OSError, ValueError):  # unreadable metadata (ValueError covers bad UTF-8)
        return f"unreadable distribution at {dist.locate_file('')}"


def stamp_path(predictions: Path) -> Path:
    return predictions.with_name(f"{predictions.stem}.inputs.json")


def kept(predictions: Path, details: Path, key: str) -> bool:
    """Whether the predictions (and details) file written for `key` are still there, unchanged.
    Any stamp this module did not write (not a regular file, too large, not JSON) means no."""
    stamp = stamp_path(predictions)
    try:
        info = stamp.lstat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > STAMP_MAX_BYTES:
            return False
        recorded = json.loads(stamp.read_bytes())
    except (OSError, ValueError, RecursionError):
        return False
    if not isinstance(recorded, dict) or recorded.get("key") != key:
        return False
    written = _sha256_of(predictions)
    return (
        written not in (MISSING, NOT_A_FILE)
        and recorded.get("predictions") == written
        and recorded.get("details") == _sha256_of(details)
    )


def record(predictions: Path, details: Path, key: str) -> None:
    """Stamp the files just written for `key` (after them, so a run killed before leaves none)."""
    stamp = stamp_path(predictions)
    recorded = {
        "key": key,
        "predictions": _sha256_of(predictions),
        "details": _sha256_of(details),
    }
    try:
        with atomic_path(stamp) as tmp:
            tmp.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise MathJudgeError(f"{stamp}: cannot write the stamp ({exc.strerror})") from None


def _sha256_of(path: Path) -> str | None:
    """The file's sha256; MISSING when there is none; NOT_A_FILE for a link, folder or FIFO
    (never opened, so a FIFO cannot hang the demo)."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return MISSING
    except OSError:
        return NOT_A_FILE
    if not stat.S_ISREG(mode):
        return NOT_A_FILE
    try:
        return sha256_file(path)
    except OSError:
        return NOT_A_FILE
