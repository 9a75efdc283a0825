"""One meaning for a source folder on the command line, and `build all`.

`--source-dir DIR` (and `repo sync --reported DIR`) is a mirror root or the benchmark's
own folder, in every command that takes it: the folder used is printed, and a root that lacks
the benchmark's folder is an error naming both, never read as the benchmark's data. `build all`
builds what it can reach and reports the rest: built, skipped with the reason, failed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from standins import closed_port_url

from conftest import FIXTURES
from mathjudge import registry
from mathjudge.cli import main


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(autouse=True)
def _no_env_mirror(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))


@pytest.mark.parametrize(
    ("bench", "root", "folder"),
    [
        ("stepmathbench", "mirror", "stepmathbench"),  # pinned GitHub files
        ("mumath", "fixtures", "mumath"),  # a Hugging Face snapshot
        ("hard2verify", "fixtures", "hard2verify"),  # the user's own decrypted file
    ],
)
def test_build_takes_a_mirror_root_or_the_benchmark_folder_and_says_which(
    bench: str, root: str, folder: str, mirror: Path, tmp_path: Path, no_network: object
) -> None:
    base = mirror if root == "mirror" else FIXTURES
    outputs = []
    for given, said in (
        (base, f"{base / folder} (the {folder}/ folder of the mirror root {base})"),
        (base / folder, f"{base / folder} (given as the {folder} folder itself)"),
    ):
        out = tmp_path / given.name
        result = cli("build", bench, "--source-dir", str(given), "--out", str(out))
        assert result.exit_code == 0, result.output
        assert f"{bench}: source {said}" in result.output
        outputs.append((out / bench / "manifest.json").read_text())
    assert outputs[0] == outputs[1]  # the same build either way


@pytest.mark.parametrize("bench", ["mumath", "proofbench"])
def test_a_root_without_the_benchmark_folder_is_named_not_read_as_data(
    bench: str, mirror: Path, tmp_path: Path, no_network: object
) -> None:
    """The shared mirror has no ProofBench or μ-MATH copy: the root must not be taken for the
    dataset (which gave a long datasets cast error and Hub noise)."""
    result = cli("build", bench, "--source-dir", str(mirror), "--out", str(tmp_path))
    assert result.exit_code == 1
    assert result.output.startswith(f"error: {mirror}: a mirror root (it holds "), result.output
    assert f"without a {bench}/ folder" in result.output
    assert "cast" not in result.output.lower() and "Traceback" not in result.output
    assert not (tmp_path / bench).exists()


def test_reported_tables_from_a_root_or_their_folder_in_both_commands(
    mirror: Path, tmp_path: Path
) -> None:
    for given in (mirror, mirror / "reported"):
        store = tmp_path / f"{given.name}.duckdb"
        result = cli("reported", "import", "--source-dir", str(given), "--store", str(store))
        assert result.exit_code == 0, result.output
        assert f"reported tables: {mirror / 'reported'} (" in result.output
        assert "imported" in result.output
    (tmp_path / "board" / "submissions").mkdir(parents=True)
    for given in (mirror, mirror / "reported"):
        result = cli(
            "repo", "sync", str(tmp_path / "board"), "--store", str(tmp_path / "s.duckdb"),
            "--reported", str(given), "--no-site", "--datasets", str(tmp_path / "none"),
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert f"reported tables: {mirror / 'reported'} (" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("reported", "import", "--source-dir", str(empty), "--store", str(store))
    assert result.exit_code == 1
    assert "no result tables (*.csv)" in result.output


def test_import_outputs_reads_either_form(mirror: Path, tmp_path: Path) -> None:
    for given in (mirror, mirror / "mr-math"):
        out = tmp_path / given.name
        result = cli("import-outputs", "mrmath", "--source-dir", str(given), "--out", str(out))
        assert result.exit_code == 0, result.output
        assert f"mrmath: source {mirror / 'mr-math'} (" in result.output
        # twelve judges' predictions, and the step-by-step texts of GPT-4 and GPT-3.5 beside them
        assert len([p for p in out.glob("*.jsonl") if not p.name.endswith(".details.jsonl")]) == 12
        assert sorted(p.name for p in out.glob("*.details.jsonl")) == [
            "gpt3_5_turbo.details.jsonl",
            "gpt4.details.jsonl",
        ]


def test_the_demo_wants_a_root(mirror: Path, tmp_path: Path) -> None:
    result = cli("demo", "--workdir", str(tmp_path), "--source-dir", str(mirror / "reported"))
    assert result.exit_code == 1
    assert "not a mirror root" in result.output
    assert list(tmp_path.iterdir()) == []


def _root(tmp_path: Path, mirror: Path, *names: str) -> Path:
    root = tmp_path / "root"
    root.mkdir()
    for name in names:
        (root / name).symlink_to(mirror / name)
    return root


def test_build_all_builds_what_it_reaches_and_skips_the_rest_with_reasons(
    mirror: Path, tmp_path: Path, no_network: object
) -> None:
    root = _root(tmp_path, mirror, "stepmathbench", "arxivmathgradingbench")
    result = cli("build", "all", "--source-dir", str(root), "--out", str(tmp_path / "ds"))
    assert result.exit_code == 0, result.output
    others = sorted(set(registry.dataset_names()) - {"stepmathbench", "arxivmathgradingbench"})
    assert (
        f"build all: built 2 (arxivmathgradingbench, stepmathbench); skipped {len(others)} "
        f"({', '.join(others)}); failed 0"
    ) in result.output
    for name in others:
        assert f"skipped {name}: {root}: a mirror root (it holds " in result.output
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == [
        "arxivmathgradingbench",
        "stepmathbench",
    ]


def test_build_all_goes_on_past_a_failure_and_exits_1(
    mirror: Path, tmp_path: Path, no_network: object
) -> None:
    root = _root(tmp_path, mirror, "stepmathbench")
    broken = Path(shutil.copytree(mirror / "arxivmathgradingbench", root / "arxivmathgradingbench"))
    (broken / "arxiv_grading_bench.jsonl").chmod(0o644)
    (broken / "arxiv_grading_bench.jsonl").write_text("{}\n")
    result = cli("build", "all", "--source-dir", str(root), "--out", str(tmp_path / "ds"))
    assert result.exit_code == 1
    assert "failed arxivmathgradingbench: " in result.output
    assert "does not match the pinned" in result.output
    assert "built 1 (stepmathbench)" in result.output and "failed 1 (arxivmathgradingbench)" in (
        result.output
    )
    assert "error: build all: 1 failed (see above)" in result.output
    assert (tmp_path / "ds" / "stepmathbench" / "manifest.json").is_file()  # built all the same


@pytest.mark.slow
def test_build_all_with_nothing_reachable_says_so(tmp_path: Path) -> None:
    """No mirror and no network: every download goes to a closed local port and fails."""
    closed = closed_port_url()
    env = {
        "PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HF_HUB_OFFLINE": "1",
        "MATHJUDGE_CACHE": str(tmp_path / "cache"),
        "HTTP_PROXY": closed, "HTTPS_PROXY": closed, "http_proxy": closed, "https_proxy": closed,
    }  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "mathjudge", "build", "all", "--out", str(tmp_path / "ds")],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 1
    assert "built 0; skipped" in done.stdout and "failed 0" in done.stdout
    assert "error: build all: no source was reachable" in done.stderr
    assert "could not download https://raw.githubusercontent.com/" in done.stdout
    assert not (tmp_path / "ds").exists()
