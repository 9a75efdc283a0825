"""A baseline's predictions kept from an earlier run of `mathjudge demo` when nothing they
depend on has changed, so a second demo does not spend a minute re-checking the same answers
with math-verify.

What they depend on is named by content, never by time: the built dataset (its content hash
and the sha256 of every source file it was built from), the baseline as the spec declares it,
and the code (every file of this mathjudge package and the version of every installed
distribution, math-verify and sympy among them). A stamp beside the predictions records that
key and the sha256 of the files written; the files are reused only when both still match, so an
edited, truncated or foreign predictions file is computed again.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import sys
from importlib import metadata
from pathlib import Path

from mathjudge.base.atomic import atomic_path
from mathjudge.dataio.reader import BuiltDataset
from mathjudge.spec.benchmark import Baseline


def inputs_key(benchmark: str, baseline: Baseline, dataset: BuiltDataset) -> str:
    """The sha256 of everything the baseline's predictions on `dataset` are computed from."""
    manifest = dataset.manifest
    named = {
        "benchmark": benchmark,
        "baseline": dataclasses.asdict(baseline),
        "dataset": manifest["content_hash"],
        "sources": manifest["sources"],
        "code": code_fingerprint(),
    }
    return _sha256(json.dumps(named, sort_keys=True, default=str).encode())


@functools.cache
def code_fingerprint() -> str:
    """The fingerprint of this mathjudge (`fingerprint` of its package folder)."""
    return fingerprint(Path(__file__).resolve().parents[1])


def fingerprint(package: Path) -> str:
    """The sha256 of the files under `package` (their paths and bytes; bytecode caches left
    out), of the Python version and of the installed distributions' names and versions."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            data = path.read_bytes()
            digest.update(f"\0{path.relative_to(package).as_posix()}\0{len(data)}\0".encode())
            digest.update(data)
    versions = sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions())
    digest.update("\0".join(versions).encode())
    return digest.hexdigest()


def stamp_path(predictions: Path) -> Path:
    return predictions.with_name(f"{predictions.stem}.inputs.json")


def kept(predictions: Path, details: Path, key: str) -> bool:
    """Whether the predictions (and details) file written for `key` are still there, unchanged."""
    try:
        stamp = json.loads(stamp_path(predictions).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (
        isinstance(stamp, dict)
        and stamp.get("key") == key
        and stamp.get("predictions") == _file_sha256(predictions)
        and stamp.get("details") == _file_sha256(details)
    )


def record(predictions: Path, details: Path, key: str) -> None:
    """Stamp the files just written for `key` (after them, so a run killed before leaves none)."""
    stamp = {
        "key": key,
        "predictions": _file_sha256(predictions),
        "details": _file_sha256(details),
    }
    with atomic_path(stamp_path(predictions)) as tmp:
        tmp.write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")


def _file_sha256(path: Path) -> str | None:
    try:
        return _sha256(path.read_bytes())
    except OSError:  # missing, or not a file
        return None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
