"""Publish a built dataset folder to a Hugging Face dataset repo, exactly as it was built, and
tag the commit with the dataset's version.

The folder is checked against its manifest before anything is sent, so the Hub only ever
receives a complete, untampered build, and the commit names the content_hash of what it holds.
The data card is the one exception: its usage section is rewritten for the repo (its id, the
release's revision), and the card must pass the offline Hub checks before anything is sent.
A version is published once: a repo that already has the version's tag with other content or
another card is refused (bump the version instead, docs/versioning.md).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import httpx2
from huggingface_hub import CommitOperationAdd, HfApi

from mathjudge import __version__
from mathjudge.base import sidefiles
from mathjudge.base.atomic import atomic_dir
from mathjudge.base.config import cache_dir, doc_url
from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.cardcheck import check_card
from mathjudge.dataio.cards import citation, for_repo
from mathjudge.dataio.redistribution import card_license, refusal
from mathjudge.dataio.sources import sha256_file


@dataclass(frozen=True)
class VerifiedBuild:
    """A build folder whose files all match its manifest: what may be uploaded, and its name."""

    benchmark: str
    version: str
    content_hash: str
    paths: tuple[str, ...]  # relative POSIX paths: README.md, manifest.json, the data files
    manifest: dict[str, Any]

    @property
    def files(self) -> list[tuple[str, str]]:
        """(config, path) of every data file, as the card's usage section lists them."""
        return [(str(f["config"]), str(f["path"])) for f in self.manifest["files"]]


def verify_build(folder: Path) -> VerifiedBuild:
    """Check every file the manifest lists against its recorded sha256.

    Only the data card, the manifest and the listed files are returned, so leftovers in the
    folder can never ride along with an upload.
    """
    manifest_path = folder / "manifest.json"
    if not manifest_path.is_file():
        raise MathJudgeError(f"{folder}: no manifest.json; build the dataset before pushing it")
    try:
        manifest = sidefiles.read_json(manifest_path, sidefiles.MANIFEST_MAX_BYTES, "manifest")
    except MathJudgeError as exc:
        raise MathJudgeError(f"{manifest_path}: not a mathjudge manifest ({exc})") from None
    try:
        benchmark, version, content_hash = (
            str(manifest[key]) for key in ("benchmark", "version", "content_hash")
        )
        files = [(str(entry["path"]), str(entry["sha256"])) for entry in manifest["files"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise MathJudgeError(f"{manifest_path}: not a mathjudge manifest ({exc!r})") from exc
    if not (folder / "README.md").is_file():
        raise MathJudgeError(f"{folder}: no README.md data card; the build is incomplete")
    for path, expected in files:
        relative = PurePosixPath(path)
        if relative.is_absolute() or ".." in relative.parts:
            raise MathJudgeError(f"{manifest_path}: file path {path!r} leaves the dataset folder")
        local = folder / relative
        if not local.is_file():
            raise MathJudgeError(f"{local}: listed in manifest.json but missing; rebuild first")
        actual = sha256_file(local)
        if actual != expected:
            raise MathJudgeError(
                f"{local}: sha256 {actual} differs from the manifest's {expected}; "
                "the file changed after the build, rebuild instead of pushing it"
            )
    paths = ("README.md", "manifest.json", *(path for path, _ in files))
    return VerifiedBuild(benchmark, version, content_hash, paths, manifest)


def card_for(folder: Path, build: VerifiedBuild, repo_id: str) -> str:
    """The data card as it is pushed to `repo_id`, refused unless it passes the Hub checks."""
    card = for_repo(
        (folder / "README.md").read_text(encoding="utf-8"),
        build.benchmark,
        build.version,
        build.files,
        repo_id,
    )
    problems = check_card(card, build.manifest, citation(build.benchmark))
    if problems:
        raise MathJudgeError(
            f"{folder / 'README.md'}: the data card fails the Hub checks, nothing was pushed:\n  "
            + "\n  ".join(problems)
        )
    return card


def push_to_hub(
    folder: Path,
    repo_id: str,
    *,
    token: str | None = None,
    endpoint: str | None = None,
    private: bool = False,
    permission: bool = False,
) -> str:
    """Upload a verified build to the dataset repo `repo_id` (created if needed), tag the commit
    with the dataset version and return the commit URL (the tagged one when this exact release
    is there already). `endpoint` overrides the Hub address (a private Hub or a test stand-in).
    A build whose card states no redistributable license is refused unless `permission` (the
    user has the authors' permission)."""
    build = verify_build(folder)
    refused = refusal(build.benchmark, card_license(folder))
    if refused and not permission:
        raise MathJudgeError(refused)
    card = card_for(folder, build, repo_id)
    message = f"Upload {build.benchmark} {build.version} (content_hash {build.content_hash})"
    api = HfApi(
        endpoint=endpoint, token=token, library_name="mathjudge", library_version=__version__
    )
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        tagged = _tagged_commit(api, repo_id, build.version)
        if tagged is not None:
            _same_release(api, repo_id, build, card)
            return f"{api.endpoint}/datasets/{repo_id}/commit/{tagged}"
        operations = [CommitOperationAdd("README.md", card.encode("utf-8"))] + [
            CommitOperationAdd(path, folder / path) for path in build.paths if path != "README.md"
        ]
        commit = api.create_commit(repo_id, operations, commit_message=message, repo_type="dataset")
        api.create_tag(
            repo_id,
            tag=build.version,
            tag_message=message,
            revision=commit.oid,
            repo_type="dataset",
        )
    # httpx2.HTTPError covers both HTTP status errors (HfHubHTTPError) and unreachable hosts;
    # ValueError is how the client reports a malformed repo id or a card the Hub rejects.
    except (httpx2.HTTPError, OSError, ValueError) as exc:
        raise MathJudgeError(f"could not push {folder} to dataset repo {repo_id}: {exc}") from exc
    return commit.commit_url


def _tagged_commit(api: HfApi, repo_id: str, version: str) -> str | None:
    refs = api.list_repo_refs(repo_id, repo_type="dataset")
    return next((t.target_commit for t in refs.tags if t.name == version), None)


def _same_release(api: HfApi, repo_id: str, build: VerifiedBuild, card: str) -> None:
    """The release already tagged `build.version` must be this build (same content hash and
    card): a published version is never replaced."""
    with tempfile.TemporaryDirectory(prefix="mathjudge-release-") as tmp:
        found = {
            name: Path(
                api.hf_hub_download(
                    repo_id, name, repo_type="dataset", revision=build.version, local_dir=tmp
                )
            ).read_text(encoding="utf-8")
            for name in ("README.md", "manifest.json")
        }
    published = json.loads(found["manifest.json"]).get("content_hash")
    differs = [
        what
        for what, same in (
            (f"content ({published})", published == build.content_hash),
            ("data card", found["README.md"] == card),
        )
        if not same
    ]
    if differs:
        raise MathJudgeError(
            f"{repo_id} already has release {build.version} with another "
            f"{' and another '.join(differs)}; a published version is never replaced: bump the "
            f"version ({doc_url('versioning.md')}) and build again"
        )


def fetch_release(
    repo_id: str,
    version: str,
    dataset: str,
    *,
    token: str | None = None,
    endpoint: str | None = None,
) -> Path:
    """The release `version` of `dataset` as published on the Hub repo `repo_id` (its tag),
    downloaded once into the cache and checked against its manifest; returns a datasets folder
    holding it as `<dataset>/`, for `open_dataset`. A cached copy is re-verified on every use."""
    from huggingface_hub import snapshot_download

    root = cache_dir() / "releases" / repo_id.replace("/", "--") / version
    folder = root / dataset
    if not (folder / "manifest.json").is_file():
        with atomic_dir(folder) as tmp:
            try:
                snapshot_download(
                    repo_id,
                    repo_type="dataset",
                    revision=version,
                    local_dir=tmp,
                    token=token,
                    endpoint=endpoint,
                )
            except (httpx2.HTTPError, OSError, ValueError) as exc:
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                raise MathJudgeError(
                    f"could not fetch release {version} of dataset repo {repo_id}: {reason}"
                ) from exc
    build = verify_build(folder)
    if (build.benchmark, build.version) != (dataset, version):
        raise MathJudgeError(
            f"{repo_id} at {version} holds {build.benchmark} {build.version}, not {dataset} "
            f"{version}"
        )
    return root
