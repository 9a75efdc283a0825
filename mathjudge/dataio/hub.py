"""Publish a built dataset folder to a Hugging Face dataset repo, exactly as it was built.

The folder is checked against its manifest before anything is sent, so the Hub only ever
receives a complete, untampered build, and the commit names the content_hash of what it holds.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import httpx2
from huggingface_hub import HfApi

from mathjudge import __version__, sidefiles
from mathjudge.dataio.redistribution import card_license, refusal
from mathjudge.dataio.sources import sha256_file
from mathjudge.errors import MathJudgeError


@dataclass(frozen=True)
class VerifiedBuild:
    """A build folder whose files all match its manifest: what may be uploaded, and its name."""

    benchmark: str
    version: str
    content_hash: str
    paths: tuple[str, ...]  # relative POSIX paths: README.md, manifest.json, the data files


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
    return VerifiedBuild(benchmark, version, content_hash, paths)


def push_to_hub(
    folder: Path,
    repo_id: str,
    *,
    token: str | None = None,
    endpoint: str | None = None,
    private: bool = False,
    permission: bool = False,
) -> str:
    """Upload a verified build to the dataset repo `repo_id` (created if needed) and return the
    commit URL. `endpoint` overrides the Hub address (a private Hub or a test stand-in). A build
    whose card states no redistributable license is refused unless `permission` (the user has
    the authors' permission)."""
    build = verify_build(folder)
    refused = refusal(build.benchmark, card_license(folder))
    if refused and not permission:
        raise MathJudgeError(refused)
    message = f"Upload {build.benchmark} {build.version} (content_hash {build.content_hash})"
    api = HfApi(
        endpoint=endpoint, token=token, library_name="mathjudge", library_version=__version__
    )
    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        commit = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=folder,
            # Exact paths, escaped so that fnmatch treats none of their characters as a pattern.
            allow_patterns=[glob.escape(path) for path in build.paths],
            commit_message=message,
        )
    # httpx2.HTTPError covers both HTTP status errors (HfHubHTTPError) and unreachable hosts;
    # ValueError is how the client reports a malformed repo id or a card the Hub rejects.
    except (httpx2.HTTPError, OSError, ValueError) as exc:
        raise MathJudgeError(f"could not push {folder} to dataset repo {repo_id}: {exc}") from exc
    return commit.commit_url
