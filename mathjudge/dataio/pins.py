"""A benchmark's pins, read from `source.yaml` in its folder: the dataset's own version and the
upstream source (repository, revision, files and their sha256) it is built from.

Pins are data, not code, so moving to a new upstream commit (docs/updating-a-source.md) or
bumping the version (docs/versioning.md) edits one file and no builder. A GitHub file's URL is
derived from the pins (`raw.githubusercontent.com/<repo>/<revision>/<upstream path>`), so a
revision names every file of the source at once.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.sources import Source, SourceFile

PINS_FILE = "source.yaml"
KINDS = ("github", "huggingface", "package")
SEMVER = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
SHA256 = re.compile(r"[0-9a-f]{64}")
RAW_GITHUB = "https://raw.githubusercontent.com/{repo}/{revision}/{upstream}"


@dataclass(frozen=True)
class PinnedFile:
    path: str  # relative path in the mirror folder
    upstream: str  # path in the upstream repository
    sha256: str


@dataclass(frozen=True)
class Pins:
    """What `source.yaml` says. `releases` is False where the content is the user's own (a
    problem package, a decrypted copy), so no release of it can be recorded here."""

    benchmark: str
    version: str
    kind: str
    repo: str
    revision: str
    mirror: str
    files: tuple[PinnedFile, ...]
    outputs: tuple[PinnedFile, ...]  # published judge outputs (`import-outputs`), not data
    releases: bool
    path: Path
    # Hugging Face dataset repos holding the items where the benchmark lives on the Hub while
    # `source` (a GitHub commit) is what the offline mirror holds: built from when no mirror
    # folder has the commit's files (see `sources.commit_mirror`).
    hub: tuple[Source, ...] = ()

    @property
    def source(self) -> Source:
        """The source the dataset is built from (its data files only)."""
        return self._source(self.files)

    @property
    def outputs_source(self) -> Source:
        """The same repository with the published judge outputs beside the data files."""
        return self._source(self.files + self.outputs)

    def at(self, revision: str) -> Pins:
        """These pins moved to another upstream revision, with digests not yet known: the
        files are taken as found and their digests reported (`build --revision`)."""
        files = tuple(replace(f, sha256="") for f in self.files)
        return replace(self, revision=revision, files=files)

    def file(self, path: str) -> PinnedFile:
        return next(f for f in self.files + self.outputs if f.path == path)

    def url(self, file: PinnedFile) -> str:
        if self.kind != "github":
            return ""
        return RAW_GITHUB.format(repo=self.repo, revision=self.revision, upstream=file.upstream)

    def _source(self, files: tuple[PinnedFile, ...]) -> Source:
        return Source(
            kind=self.kind,
            repo=self.repo,
            revision=self.revision,
            mirror_name=self.mirror,
            files=tuple(SourceFile(f.path, self.url(f), f.sha256) for f in files),
        )


def pins_path(benchmark: str) -> Path:
    return Path(str(resources.files(f"mathjudge.benchmarks.{benchmark}").joinpath(PINS_FILE)))


@functools.cache
def load_pins(benchmark: str) -> Pins:
    """The pins of `benchmark`, checked field by field; a bad file is a located error."""
    path = pins_path(benchmark)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise MathJudgeError(f"{path}: cannot read the pins ({exc})") from None
    return parse_pins(benchmark, data, path)


def parse_pins(benchmark: str, data: Any, path: Path) -> Pins:
    def bad(field: str, message: str) -> MathJudgeError:
        return MathJudgeError(f"{path} [{field}]: {message}")

    if not isinstance(data, dict):
        raise bad("", "expected a mapping with version and source")
    version = data.get("version")
    if not isinstance(version, str) or not SEMVER.fullmatch(version):
        raise bad("version", f"{version!r} is not a MAJOR.MINOR.PATCH version (quote it)")
    source = data.get("source")
    if not isinstance(source, dict):
        raise bad("source", "expected a mapping")
    kind = source.get("kind")
    if kind not in KINDS:
        raise bad("source.kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    text = {}
    for key in ("repo", "revision", "mirror"):
        value = source.get(key, "" if kind == "package" else None)
        if not isinstance(value, str) or (kind != "package" and not value.strip()):
            raise bad(f"source.{key}", "must be non-empty text")
        text[key] = value
    releases = data.get("releases", True)
    if not isinstance(releases, bool):
        raise bad("releases", "must be true or false")

    def files(key: str) -> tuple[PinnedFile, ...]:
        entries = source.get(key) or []
        if not isinstance(entries, list):
            raise bad(f"source.{key}", "expected a list of files")
        out = []
        for i, entry in enumerate(entries):
            where = f"source.{key}[{i}]"
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                raise bad(where, "each file needs a path")
            upstream = entry.get("upstream", entry["path"])
            digest = entry.get("sha256")
            if not isinstance(upstream, str) or not upstream:
                raise bad(f"{where}.upstream", "must be text")
            if not isinstance(digest, str) or not SHA256.fullmatch(digest):
                raise bad(f"{where}.sha256", f"{digest!r} is not 64 lower-case hex digits")
            out.append(PinnedFile(entry["path"], upstream, digest))
        return tuple(out)

    pinned, outputs = files("files"), files("outputs")
    paths = [f.path for f in pinned + outputs]
    if len(set(paths)) != len(paths):
        raise bad("source", "a file path is listed twice")
    hub = data.get("hub") or []
    if not isinstance(hub, list):
        raise bad("hub", "expected a list of Hugging Face dataset repos")
    hub_sources = []
    for i, entry in enumerate(hub):
        where = f"hub[{i}]"
        if not isinstance(entry, dict):
            raise bad(where, "expected a mapping with repo, revision and mirror")
        values: dict[str, str] = {}
        for key in ("repo", "revision", "mirror"):
            value = entry.get(key)
            if not isinstance(value, str) or not value.strip():
                raise bad(f"{where}.{key}", "must be non-empty text")
            values[key] = value
        hub_sources.append(
            Source("huggingface", values["repo"], values["revision"], values["mirror"], ())
        )
    return Pins(
        benchmark=benchmark,
        version=version,
        kind=kind,
        repo=text["repo"],
        revision=text["revision"],
        mirror=text["mirror"],
        files=pinned,
        outputs=outputs,
        releases=releases,
        path=path,
        hub=tuple(hub_sources),
    )
