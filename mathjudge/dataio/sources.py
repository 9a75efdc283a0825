"""Upstream source pins and how to obtain their files: a local mirror or a pinned download.

Every input is checked against the sha256 recorded in its pin, so a build can only ever be made
from the bytes the builder was written and tested against.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path

from mathjudge import __version__
from mathjudge.base.atomic import atomic_path
from mathjudge.base.config import cache_dir, mirror_root
from mathjudge.base.errors import MathJudgeError, SourceUnavailable

USER_AGENT = f"mathjudge/{__version__} (+dataset builder)"
DOWNLOAD_TIMEOUT_S = 60


@dataclass(frozen=True)
class SourceFile:
    """One upstream file: its path in the mirror folder, its pinned URL and expected digest
    ("" while moving to a new revision: the file is taken as found and its digest reported)."""

    path: str
    url: str
    sha256: str


@dataclass(frozen=True)
class Source:
    """Where a benchmark comes from: `repo` at `revision`, mirrored as folder `mirror_name`."""

    kind: str  # "github" or "huggingface"
    repo: str
    revision: str
    mirror_name: str
    files: tuple[SourceFile, ...]

    def pin(self) -> dict[str, str]:
        return {"kind": self.kind, "repo": self.repo, "revision": self.revision}


@dataclass(frozen=True)
class ResolvedFile:
    path: Path
    sha256: str
    origin: str  # "mirror:<dir>" or the URL it was downloaded from


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def find_mirror_dir(source: Source, source_dir: Path | None) -> Path | None:
    """The folder holding this benchmark's files: `source_dir` itself or its `mirror_name`
    subfolder, else `$MATHJUDGE_MIRROR/<mirror_name>`; None when no mirror is configured."""
    if source_dir is not None:
        for candidate in (source_dir / source.mirror_name, source_dir):
            if all((candidate / f.path).is_file() for f in source.files):
                return candidate
        missing = ", ".join(f.path for f in source.files)
        raise MathJudgeError(
            f"{source_dir}: expected {missing} in this folder or in {source.mirror_name}/ under it"
        )
    root = mirror_root()
    if root is not None and (root / source.mirror_name).is_dir():
        return root / source.mirror_name
    return None


def commit_mirror(source: Source, source_dir: Path | None) -> Path | None:
    """The folder holding every file of `source` (a pinned commit) where one exists: under
    `source_dir` (or it itself), else under `$MATHJUDGE_MIRROR`; None otherwise. For benchmarks
    whose items live on the Hub and whose offline mirror is the authors' GitHub commit: the
    builder reads the commit's files when a mirror holds them, and the Hub snapshot otherwise."""
    roots = [source_dir / source.mirror_name, source_dir] if source_dir is not None else []
    root = mirror_root()
    if source_dir is None and root is not None:
        roots.append(root / source.mirror_name)
    for candidate in roots:
        if candidate.is_dir() and all((candidate / f.path).is_file() for f in source.files):
            return candidate
    return None


def snapshot_or_commit(
    hub: Source, source: Source, source_dir: Path | None, patterns: tuple[str, ...] | None = None
) -> Snapshot:
    """`resolve_snapshot(hub, ...)` for a builder that found no mirror of the commit `source`
    (`commit_mirror`): a failure names both layouts the builder would have taken. A folder given
    as `source_dir` is taken as a snapshot only if it (or its `hub.mirror_name` subfolder) has
    the README.md every Hub dataset repo has, so a wrong folder fails at once instead of being
    read whole."""
    files = ", ".join(f.path for f in source.files)
    both = f"nor the files of {source.repo} at {source.revision[:12]} ({files})"
    if source_dir is not None and not any(
        (folder / "README.md").is_file() for folder in (source_dir / hub.mirror_name, source_dir)
    ):
        raise MathJudgeError(
            f"{source_dir}: no {hub.repo} snapshot (a README.md and data files) in it or in "
            f"{hub.mirror_name}/, {both}"
        )
    try:
        return resolve_snapshot(hub, source_dir, patterns)
    except SourceUnavailable as exc:  # `build all` skips what it cannot reach
        raise SourceUnavailable(f"{exc}; {both}") from exc
    except MathJudgeError as exc:
        raise MathJudgeError(f"{exc}; {both}") from exc


def _digest_error(origin: str, actual: str, expected: str) -> MathJudgeError:
    return MathJudgeError(
        f"{origin}: sha256 {actual} does not match the pinned {expected}; "
        "the file is not the pinned upstream version"
    )


def download(url: str, dest: Path, sha256: str) -> None:
    """Fetch `url` to `dest`; the bytes land at `dest` only if they have the pinned digest."""
    import http.client  # here, not at the top: scoring reads this module for `sha256_file`
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    try:
        with atomic_path(dest) as tmp:
            with (
                tmp.open("wb") as out,
                urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_S) as response,
            ):
                shutil.copyfileobj(response, out)
            actual = sha256_file(tmp)
            if actual != sha256:
                raise _digest_error(url, actual, sha256)
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        raise SourceUnavailable(f"could not download {url}: {exc}") from exc


def resolve(source: Source, source_dir: Path | None = None) -> dict[str, ResolvedFile]:
    """Local paths of every source file, verified against its pinned sha256.

    A mirror wins when one is configured; otherwise files are downloaded once into the cache
    (keyed by digest, so a cached file is reused only if it is exactly the pinned one).
    """
    mirror = find_mirror_dir(source, source_dir)
    resolved: dict[str, ResolvedFile] = {}
    for spec in source.files:
        if mirror is not None:
            path = mirror / spec.path
            if not path.is_file():
                raise MathJudgeError(f"{path}: missing from the mirror folder {mirror}")
            actual = sha256_file(path)
            if spec.sha256 and actual != spec.sha256:
                raise _digest_error(str(path), actual, spec.sha256)
            resolved[spec.path] = ResolvedFile(path, actual, f"mirror:{mirror}")
            continue
        if not spec.sha256:
            resolved[spec.path] = _download_unpinned(source, spec)
            continue
        cached = cache_dir() / "downloads" / spec.sha256 / Path(spec.path).name
        if cached.is_file() and sha256_file(cached) != spec.sha256:
            cached.unlink()  # damaged cache entry: fetch it again
        if not cached.is_file():
            try:
                download(spec.url, cached, spec.sha256)
            except MathJudgeError as exc:
                root = mirror_root()
                hint = f" (and {root} has no {source.mirror_name}/ mirror folder)" if root else ""
                raise type(exc)(f"{exc}{hint}") from exc
        resolved[spec.path] = ResolvedFile(cached, spec.sha256, spec.url)
    return resolved


def _download_unpinned(source: Source, spec: SourceFile) -> ResolvedFile:
    """A file of a revision not pinned yet: fetched afresh (no digest to key a cache by)."""
    url_key = hashlib.sha256(spec.url.encode()).hexdigest()[:16]
    target = cache_dir() / "downloads" / "unpinned" / url_key / Path(spec.path).name
    import http.client
    import urllib.error
    import urllib.request

    request = urllib.request.Request(spec.url, headers={"User-Agent": USER_AGENT})
    try:
        with (
            atomic_path(target) as tmp,
            tmp.open("wb") as out,
            urllib.request.urlopen(request, timeout=DOWNLOAD_TIMEOUT_S) as response,
        ):
            shutil.copyfileobj(response, out)
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        raise SourceUnavailable(
            f"could not download {spec.url} ({source.repo} at {source.revision}): {exc}"
        ) from exc
    return ResolvedFile(target, sha256_file(target), spec.url)


@dataclass(frozen=True)
class Snapshot:
    """A Hugging Face dataset repo as files on disk: a mirror folder or a downloaded snapshot."""

    folder: Path
    revision: str  # the resolved commit when downloaded; "mirror" for a local copy
    files: dict[str, ResolvedFile]  # every file, relative POSIX path -> digest and origin


def _snapshot_mirror(source: Source, source_dir: Path | None) -> Path | None:
    def holds_data(folder: Path) -> bool:
        return folder.is_dir() and any(p.is_file() for p in folder.rglob("*"))

    if source_dir is not None:
        for candidate in (source_dir / source.mirror_name, source_dir):
            if holds_data(candidate):
                return candidate
        raise MathJudgeError(
            f"{source_dir}: no {source.repo} snapshot in it or in {source.mirror_name}/"
        )
    root = mirror_root()
    if root is not None and holds_data(root / source.mirror_name):
        return root / source.mirror_name
    return None


def resolve_snapshot(
    source: Source, source_dir: Path | None = None, patterns: tuple[str, ...] | None = None
) -> Snapshot:
    """The dataset repo `source.repo`: a local mirror when configured (a folder laid out like the
    repo: README.md and data files), else `huggingface_hub.snapshot_download` at the pinned
    revision (only the files matching `patterns` when given, e.g. one file of a repo that holds
    several datasets). The digest of every file goes into the manifest, so a build names its
    exact input.
    """
    folder = _snapshot_mirror(source, source_dir)
    revision, origin = "mirror", f"mirror:{folder}"
    if folder is None:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

        try:
            folder = Path(
                snapshot_download(
                    source.repo,
                    repo_type="dataset",
                    revision=source.revision,
                    cache_dir=cache_dir() / "hub",
                    allow_patterns=list(patterns) if patterns else None,
                )
            )
        except (HfHubHTTPError, LocalEntryNotFoundError, OSError, ValueError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            hint = (
                f" or MATHJUDGE_MIRROR (now {mirror_root()})"
                if mirror_root()
                else " or MATHJUDGE_MIRROR"
            )
            raise SourceUnavailable(
                f"{source.mirror_name}: could not download the Hugging Face dataset "
                f"{source.repo} at {source.revision} ({reason}); to build offline, point "
                f"--source-dir{hint} at a folder holding a {source.mirror_name}/ copy of it"
            ) from exc
        revision, origin = folder.name, f"huggingface:{source.repo}@{folder.name}"
    files = {
        path.relative_to(folder).as_posix(): ResolvedFile(path, sha256_file(path), origin)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        and ".cache" not in path.relative_to(folder).parts
        and (not patterns or any(fnmatch(path.relative_to(folder).as_posix(), p) for p in patterns))
    }
    return Snapshot(folder, revision, files)
