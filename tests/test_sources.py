"""mathjudge.dataio.sources: pinned downloads (from a local stand-in of raw.githubusercontent.com),
the download cache, and local mirrors via --source-dir and MATHJUDGE_MIRROR."""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from standins import NetworkGuard, StaticServer, closed_port_url

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.stepmathbench import build as stepmathbench
from mathjudge.dataio.sources import Source, resolve, sha256_file
from mathjudge.dataio.writer import content_hash

RAW = "https://raw.githubusercontent.com"
PREFIX = f"/SHU-XUN/StepMathAgent/{stepmathbench.SOURCE.revision}/data/"
NAMES = sorted(f.path for f in stepmathbench.SOURCE.files)


@pytest.fixture(autouse=True)
def download_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No mirror configured, a fresh cache, and nothing may leave 127.0.0.1."""
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    guard = NetworkGuard(monkeypatch)
    yield tmp_path / "cache"
    assert guard.attempts == [], f"tried to reach {guard.attempts}"


@pytest.fixture
def upstream(mirror: Path) -> Iterator[StaticServer]:
    with StaticServer(mirror / "stepmathbench", PREFIX) as server:
        yield server


def served_by(server: StaticServer) -> Source:
    """The pinned source with its URLs moved from raw.githubusercontent.com to `server`."""
    files = []
    for spec in stepmathbench.SOURCE.files:
        assert spec.url == f"{RAW}{PREFIX}{spec.path}", "pin does not have the upstream layout"
        files.append(replace(spec, url=server.url_for(spec.path)))
    return replace(stepmathbench.SOURCE, files=tuple(files))


def cached_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def test_download_checks_digests_and_is_cached(
    upstream: StaticServer, mirror: Path, download_cache: Path
) -> None:
    source = served_by(upstream)
    first = resolve(source)
    assert sorted((r.method, r.path) for r in upstream.requests) == [
        ("GET", PREFIX + name) for name in NAMES
    ]
    for spec in source.files:
        got = first[spec.path]
        assert got.sha256 == spec.sha256 == sha256_file(got.path)
        assert got.origin == spec.url
        assert got.path.is_relative_to(download_cache)
        assert got.path.read_bytes() == (mirror / "stepmathbench" / spec.path).read_bytes()
    assert cached_files(download_cache) == sorted(r.path for r in first.values())

    assert resolve(source) == first
    assert len(upstream.requests) == len(NAMES), "a cache hit must not touch the network"


def test_upstream_serving_other_bytes_is_rejected_and_not_cached(
    mirror: Path, tmp_path: Path, download_cache: Path
) -> None:
    changed = Path(shutil.copytree(mirror / "stepmathbench", tmp_path / "changed"))
    (changed / "stepmath.jsonl").chmod(0o644)
    with (changed / "stepmath.jsonl").open("ab") as handle:
        handle.write(b"\n")
    with StaticServer(changed, PREFIX) as server:
        url = server.url_for("stepmath.jsonl")
        with pytest.raises(MathJudgeError, match=re.escape(url) + ".*not match the pinned"):
            resolve(served_by(server))
    pinned = {f.sha256 for f in stepmathbench.SOURCE.files}
    assert {sha256_file(p) for p in cached_files(download_cache)} <= pinned, "corrupt file cached"

    with StaticServer(mirror / "stepmathbench", PREFIX) as server:
        resolve(served_by(server))  # the rejected bytes left nothing behind to trip over


def test_missing_upstream_file_names_the_url(tmp_path: Path, download_cache: Path) -> None:
    with StaticServer(tmp_path, PREFIX) as server:
        url = server.url_for(stepmathbench.SOURCE.files[0].path)
        with pytest.raises(MathJudgeError, match=f"could not download {re.escape(url)}.*404"):
            resolve(served_by(server))
    assert cached_files(download_cache) == []


def test_unreachable_upstream_fails_fast(download_cache: Path) -> None:
    base = closed_port_url()
    source = replace(
        stepmathbench.SOURCE,
        files=tuple(replace(f, url=f"{base}{PREFIX}{f.path}") for f in stepmathbench.SOURCE.files),
    )
    started = time.monotonic()
    with pytest.raises(MathJudgeError, match=f"could not download {re.escape(base)}"):
        resolve(source)
    assert time.monotonic() - started < 5
    assert cached_files(download_cache) == []


def test_downloaded_build_has_the_mirror_content_hash(upstream: StaticServer, mirror: Path) -> None:
    downloaded = stepmathbench.build(None, source=served_by(upstream))
    assert len(upstream.requests) == len(NAMES)
    mirrored = stepmathbench.build(mirror)
    assert content_hash(downloaded.tables) == content_hash(mirrored.tables)


def test_mirror_env_wins_over_download(
    upstream: StaticServer, mirror: Path, monkeypatch: pytest.MonkeyPatch, download_cache: Path
) -> None:
    monkeypatch.setenv("MATHJUDGE_MIRROR", str(mirror))
    resolved = resolve(served_by(upstream))
    assert {r.path for r in resolved.values()} == {mirror / "stepmathbench" / n for n in NAMES}
    assert upstream.requests == []
    assert cached_files(download_cache) == []


@pytest.mark.parametrize("level", ["mirror-root", "benchmark-folder"])
def test_source_dir_is_the_mirror_root_or_the_benchmark_folder(
    mirror: Path, level: str, download_cache: Path
) -> None:
    source_dir = mirror if level == "mirror-root" else mirror / "stepmathbench"
    resolved = resolve(stepmathbench.SOURCE, source_dir)
    for name in NAMES:
        assert resolved[name].path == mirror / "stepmathbench" / name
        assert resolved[name].origin == f"mirror:{mirror / 'stepmathbench'}"
    assert cached_files(download_cache) == []


def test_source_dir_missing_a_file_names_the_folder(mirror: Path, tmp_path: Path) -> None:
    partial = tmp_path / "partial"
    partial.mkdir()
    shutil.copy(mirror / "stepmathbench" / "question.jsonl", partial)
    with pytest.raises(
        MathJudgeError, match=f"{re.escape(str(partial))}: expected .*stepmath.jsonl"
    ):
        resolve(stepmathbench.SOURCE, partial)


def test_source_dir_with_a_modified_file_is_rejected(mirror: Path, tmp_path: Path) -> None:
    changed = Path(shutil.copytree(mirror / "stepmathbench", tmp_path / "stepmathbench"))
    (changed / "question.jsonl").chmod(0o644)
    (changed / "question.jsonl").write_bytes(b"{}\n")
    with pytest.raises(MathJudgeError, match=re.escape(str(changed / "question.jsonl"))):
        resolve(stepmathbench.SOURCE, tmp_path)


def test_files_of_a_revision_not_yet_pinned_are_taken_as_found(
    upstream: StaticServer, mirror: Path, download_cache: Path
) -> None:
    """`build --revision`: no digest to check, so every build downloads afresh and reports the
    digest it found (what the user then pins)."""
    unpinned = replace(
        served_by(upstream),
        revision="f" * 40,
        files=tuple(replace(f, sha256="") for f in served_by(upstream).files),
    )
    for _ in range(2):
        found = resolve(unpinned)
        for name in NAMES:
            assert found[name].sha256 == sha256_file(mirror / "stepmathbench" / name)
            assert found[name].origin == upstream.url_for(name)
    assert len(upstream.requests) == 2 * len(NAMES)
    built = stepmathbench.build(None, source=unpinned)
    assert content_hash(built.tables) == content_hash(stepmathbench.build(mirror).tables)
