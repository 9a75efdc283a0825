"""push_to_hub against a local stand-in of the Hub API, with the real StepMathBench build."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from huggingface_hub import constants
from standins import HubStandIn, NetworkGuard, closed_port_url

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.stepmathbench import build as stepmathbench
from mathjudge.cli import main
from mathjudge.dataio.cards import for_repo
from mathjudge.dataio.hub import push_to_hub
from mathjudge.dataio.writer import Table, write_dataset

TOKEN = "hf_standin_token"
REPO = "mathjudge-test/stepmathbench"
# StepMathBench states no license upstream, so every push here says the (test) uploader has
# the authors' permission; the refusal without it is tested below.
SOLUTIONS = "data/solutions/test-00000-of-00001.parquet"
PROBLEMS = "data/problems/test-00000-of-00001.parquet"


@pytest.fixture(autouse=True)
def isolated_hub_client(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """huggingface_hub reads its settings into `constants` at import, so those are patched:
    offline mode would block the stand-in, telemetry makes every request first fetch an agent
    registry from huggingface.co (even with a custom endpoint), and no token may come from the
    machine. The guard fails the test if anything still tries to leave 127.0.0.1."""
    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "hf-home" / "token"))
    guard = NetworkGuard(monkeypatch)
    yield
    assert guard.attempts == [], f"tried to reach {guard.attempts}"


@pytest.fixture(scope="module")
def built(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(stepmathbench.build(mirror), tmp_path_factory.mktemp("datasets"))


@pytest.fixture
def copy_of_build(built: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(built, tmp_path / "stepmathbench"))


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


# The Xet pipeline is used when hf_xet is installed, the single-commit path otherwise.
@pytest.mark.parametrize("disable_xet", [False, True], ids=["xet-pipeline", "single-commit"])
def test_every_file_arrives_byte_identical(
    built: Path, monkeypatch: pytest.MonkeyPatch, disable_xet: bool
) -> None:
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_XET", disable_xet)
    with HubStandIn(token=TOKEN) as hub:
        url = push_to_hub(built, REPO, token=TOKEN, endpoint=hub.url, permission=True)

    local = folder_bytes(built)
    assert set(local) == {"README.md", "manifest.json", SOLUTIONS, PROBLEMS}
    repo = hub.repo(REPO)
    card = pushed_card(built)
    assert repo.files == local | {"README.md": card.encode()}
    assert 'load_dataset("mathjudge-test/stepmathbench", "solutions", split="test", ' in card
    assert "<path or repo>" not in card and '"datasets/stepmathbench"' not in card
    assert not repo.private
    manifest = json.loads(local["manifest.json"])
    (commit,) = repo.commits
    assert commit.summary == (
        f"Upload stepmathbench {stepmathbench.VERSION} (content_hash {manifest['content_hash']})"
    )
    assert url == f"{hub.url}/datasets/{REPO}/commit/{commit.oid}"
    assert repo.tags == {stepmathbench.VERSION: commit.oid}
    assert hub.unhandled == []


def pushed_card(folder: Path) -> str:
    manifest = json.loads((folder / "manifest.json").read_text())
    files = [(f["config"], f["path"]) for f in manifest["files"]]
    card = (folder / "README.md").read_text()
    return for_repo(card, "stepmathbench", manifest["version"], files, REPO)


def test_repushing_the_same_build_makes_no_new_commit(built: Path) -> None:
    with HubStandIn(token=TOKEN) as hub:
        first = push_to_hub(
            built, REPO, token=TOKEN, endpoint=hub.url, private=True, permission=True
        )
        second = push_to_hub(
            built, REPO, token=TOKEN, endpoint=hub.url, private=True, permission=True
        )
    assert first == second
    assert len(hub.repo(REPO).commits) == 1
    assert hub.repo(REPO).private
    assert list(hub.repo(REPO).tags) == [stepmathbench.VERSION]
    assert hub.unhandled == []


def test_files_the_manifest_does_not_list_stay_home(copy_of_build: Path) -> None:
    (copy_of_build / "notes.txt").write_text("scratch")
    stray = copy_of_build / "data" / "old" / "test-00000-of-00001.parquet"
    stray.parent.mkdir()
    stray.write_bytes(b"PAR1 stale PAR1")
    with HubStandIn(token=TOKEN) as hub:
        push_to_hub(copy_of_build, REPO, token=TOKEN, endpoint=hub.url, permission=True)
    assert set(hub.repo(REPO).files) == {"README.md", "manifest.json", SOLUTIONS, PROBLEMS}


def flip_a_byte(folder: Path) -> None:
    """Same size, different content: only the digest can tell."""
    path = folder / SOLUTIONS
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def rewrite_manifest(folder: Path, edit: Callable[[dict], None]) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    edit(manifest)
    (folder / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (flip_a_byte, "solutions/test-00000-of-00001.parquet: sha256 .* differs"),
        (
            lambda f: (f / PROBLEMS).unlink(),
            "problems/test-00000-of-00001.parquet: listed .* missing",
        ),
        (lambda f: (f / "manifest.json").unlink(), "no manifest.json"),
        (lambda f: (f / "manifest.json").write_text("{"), "not a mathjudge manifest"),
        (lambda f: (f / "README.md").unlink(), "no README.md"),
        (
            lambda f: rewrite_manifest(f, lambda m: m["files"][0].update(path="../escape")),
            "leaves the dataset folder",
        ),
    ],
    ids=["parquet-modified", "parquet-missing", "no-manifest", "bad-manifest", "no-card", "escape"],
)
def test_incomplete_or_tampered_build_is_refused_before_any_request(
    copy_of_build: Path, damage: Callable[[Path], object], message: str
) -> None:
    damage(copy_of_build)
    with HubStandIn(token=TOKEN) as hub, pytest.raises(MathJudgeError, match=message):
        push_to_hub(copy_of_build, REPO, token=TOKEN, endpoint=hub.url, permission=True)
    assert hub.requests == []


# 5xx only on repo creation: the client retries 5xx on preupload/commit with backoff (~25 s).
@pytest.mark.parametrize(
    ("token", "fail", "status"),
    [
        ("hf_wrong_token", {}, "401"),
        (TOKEN, {"create": 500}, "500"),
        (TOKEN, {"preupload": 403}, "403"),
        (TOKEN, {"commit": 403}, "403"),
    ],
    ids=["bad-token", "create-500", "preupload-403", "commit-403"],
)
def test_hub_errors_become_mathjudge_errors_naming_the_repo(
    built: Path, token: str, fail: dict[str, int], status: str
) -> None:
    with HubStandIn(token=TOKEN) as hub:
        hub.fail.update(fail)
        with pytest.raises(MathJudgeError, match=f"dataset repo {REPO}.*{status}"):
            push_to_hub(built, REPO, token=token, endpoint=hub.url, permission=True)
    assert all(not repo.commits for repo in hub.repos.values())


def test_unreachable_hub_is_a_mathjudge_error(built: Path) -> None:
    with pytest.raises(MathJudgeError, match=f"dataset repo {REPO}"):
        push_to_hub(built, REPO, token=TOKEN, endpoint=closed_port_url(), permission=True)


def test_a_card_without_a_redistributable_license_is_refused_without_permission(
    built: Path,
) -> None:
    with HubStandIn(token=TOKEN) as hub:
        with pytest.raises(MathJudgeError) as info:
            push_to_hub(built, REPO, token=TOKEN, endpoint=hub.url)
        assert hub.requests == []
    message = str(info.value)
    assert message.startswith("stepmathbench: its data card states the license 'unknown', not one")
    assert "--i-have-permission-to-redistribute" in message


def test_a_card_with_an_open_license_needs_no_permission(copy_of_build: Path) -> None:
    card = copy_of_build / "README.md"
    card.write_text(card.read_text().replace("license: unknown", "license: cc-by-4.0", 1))
    with HubStandIn(token=TOKEN) as hub:
        push_to_hub(copy_of_build, REPO, token=TOKEN, endpoint=hub.url)
    assert set(hub.repo(REPO).files) == {"README.md", "manifest.json", SOLUTIONS, PROBLEMS}


@pytest.mark.parametrize("benchmark", ["stepmathbench", "arxivmathgradingbench"])
def test_the_build_command_refuses_before_writing_anything(
    mirror: Path, tmp_path: Path, benchmark: str
) -> None:
    out = tmp_path / "datasets"
    args = ["build", benchmark, "--source-dir", str(mirror), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--push-to-hub", "me/copy"])
    assert result.exit_code == 1
    assert f"error: {benchmark}: its data card states the license 'unknown'" in result.output
    assert "--i-have-permission-to-redistribute" in result.output
    assert not out.exists()
    result = CliRunner().invoke(main, [*args, "--i-have-permission-to-redistribute"])
    assert result.exit_code == 2 and "goes with --push-to-hub" in result.output


def test_the_tag_pins_the_release_for_readers(built: Path, tmp_path: Path) -> None:
    """`revision=<version>` reads back exactly what was pushed, after main has moved on."""
    from huggingface_hub import HfApi

    with HubStandIn(token=TOKEN) as hub:
        push_to_hub(built, REPO, token=TOKEN, endpoint=hub.url, permission=True)
        repo = hub.repo(REPO)
        tagged = repo.tags[stepmathbench.VERSION]
        api = HfApi(endpoint=hub.url, token=TOKEN)
        api.upload_file(
            path_or_fileobj=b"later", path_in_repo="NOTES.md", repo_id=REPO, repo_type="dataset"
        )
        assert repo.head != tagged
        refs = api.list_repo_refs(REPO, repo_type="dataset")
        path = api.hf_hub_download(
            REPO,
            "manifest.json",
            repo_type="dataset",
            revision=stepmathbench.VERSION,
            local_dir=tmp_path / "read",
        )
    assert [(t.name, t.target_commit) for t in refs.tags] == [(stepmathbench.VERSION, tagged)]
    assert Path(path).read_bytes() == (built / "manifest.json").read_bytes()
    assert hub.unhandled == []


def rewritten(mirror: Path, tmp_path: Path, name: str) -> Path:
    """The StepMathBench build with one solution fewer, under the same version."""
    build = stepmathbench.build(mirror)
    solutions, problems = build.tables
    fewer = Table(solutions.config, solutions.split, solutions.features, solutions.rows[:-1])
    return write_dataset(replace(build, tables=(fewer, problems)), tmp_path / name)


def test_a_published_version_is_never_replaced(built: Path, mirror: Path, tmp_path: Path) -> None:
    other_content = rewritten(mirror, tmp_path, "fewer")
    other_card = Path(shutil.copytree(built, tmp_path / "card" / "stepmathbench"))
    card = other_card / "README.md"
    card.write_text(card.read_text().replace("## License", "One more sentence.\n\n## License", 1))
    with HubStandIn(token=TOKEN) as hub:
        push_to_hub(built, REPO, token=TOKEN, endpoint=hub.url, permission=True)
        for folder, what in ((other_content, "another content"), (other_card, "another data card")):
            with pytest.raises(MathJudgeError) as info:
                push_to_hub(folder, REPO, token=TOKEN, endpoint=hub.url, permission=True)
            assert f"{REPO} already has release {stepmathbench.VERSION} with {what}" in str(
                info.value
            )
            assert "bump the version" in str(info.value)
    assert len(hub.repo(REPO).commits) == 1
    assert hub.unhandled == []


def test_a_card_failing_the_hub_checks_is_refused_before_any_request(
    copy_of_build: Path,
) -> None:
    card = copy_of_build / "README.md"
    card.write_text(card.read_text().replace("- text-scoring", "- proof-grading", 1))
    with HubStandIn(token=TOKEN) as hub, pytest.raises(MathJudgeError) as info:
        push_to_hub(copy_of_build, REPO, token=TOKEN, endpoint=hub.url, permission=True)
    assert "the data card fails the Hub checks, nothing was pushed" in str(info.value)
    assert "task_ids: 'proof-grading' is no subtask" in str(info.value)
    assert hub.requests == []
