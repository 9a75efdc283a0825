"""`mathjudge repo init`: a new leaderboard repository, ready to push.

It holds the submissions layout, a README for submitters, a meta.yaml to copy, the GitHub
Actions workflow, a CODEOWNERS file that puts `scorer/` and `.github/` under review, and
`scorer/`: the wheel of this very mathjudge and `requirements.lock`, which pins that wheel by
its sha256 and every dependency by version and hash (the runtime lock shipped with mathjudge,
`template/scorer.lock`). mathjudge is not on PyPI, so the repository carries its scorer: the
workflow, and every submitter, install exactly that and nothing that floats.

Where the wheel comes from (`wheel_source`), always this mathjudge's version:
- `--wheel FILE`: that wheel;
- `--git URL@COMMIT`: built from the sources at that commit;
- else the sources mathjudge runs from (a clone, installed editable), built here;
- else what the installed mathjudge was installed from, as pip recorded it (PEP 610
  `direct_url.json`): the wheel file if it is still there, the git URL at its commit, or the
  source folder; otherwise init says how to name a source.
A wheel is built with the build backend the project pins (hatchling, in `requirements.lock`):
the installed one, or else that pinned version, installed by hash into a scratch folder, so a
clone whose mathjudge was installed without it (pip's build isolation) builds the same wheel.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import metadata, resources, util
from pathlib import Path
from urllib.parse import unquote, urlparse

import mathjudge
from mathjudge.base.atomic import atomic_dir
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable
from mathjudge.repo.config import CONFIG, config_text
from mathjudge.repo.folder import SUBMISSIONS

# template file -> where it goes in the repository (dot-files are stored without the dot, so
# neither git nor the wheel builder treats them as this project's own)
LAYOUT = {
    "README.md": "README.md",
    "meta.example.yaml": "meta.example.yaml",
    "gitignore": ".gitignore",
    "workflow.yml": ".github/workflows/leaderboard.yml",
}
CODEOWNERS = ".github/CODEOWNERS"
SCORER = "scorer"
LOCK = f"{SCORER}/requirements.lock"
WHEEL = re.compile(r"mathjudge-(?P<version>[^-]+)-py3-none-any\.whl")
# A GitHub user (@name), team (@org/team) or e-mail address, as CODEOWNERS takes them.
OWNER = re.compile(r"@[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9._-]{1,100})?|[^@\s]+@[^@\s]+")
UNSET_OWNER = "@OWNER"
COMMIT = re.compile(r"[0-9a-f]{40}")
# The pinned build backend and what it needs, by name in requirements.lock.
BACKEND = "hatchling"


@dataclass(frozen=True)
class Initialised:
    repo: Path
    wheel: str  # its path in the repository
    sha256: str
    origin: str  # where the wheel came from, in words
    owners: tuple[str, ...]  # the code owners of scorer/ and .github/ (empty: still to set)


@dataclass(frozen=True)
class WheelSource:
    """A wheel to copy (`wheel`) or sources to build one from (`root`), and in words where it
    comes from."""

    origin: str
    wheel: Path | None = None
    root: Path | None = None


def template_text(name: str) -> str:
    return resources.files("mathjudge.repo").joinpath("template", name).read_text("utf-8")


def checkout_root() -> Path | None:
    """The source checkout mathjudge runs from (an editable install), else None."""
    root = Path(mathjudge.__file__).resolve().parents[1]
    return root if _is_checkout(root) else None


def _is_checkout(root: Path) -> bool:
    pyproject = root / "pyproject.toml"
    return pyproject.is_file() and 'name = "mathjudge"' in pyproject.read_text("utf-8")


def _backend_path(root: Path, scratch: Path) -> str | None:
    """A folder holding the build backend the project pins, for PYTHONPATH, when it is not
    installed here: installed into `scratch` by hash from the checkout's requirements.lock
    (hatchling and what the lock says it needs); None when it is installed."""
    if util.find_spec(BACKEND) is not None:
        return None
    lock = root / "requirements.lock"
    if not lock.is_file():
        raise MathJudgeError(
            f"{root}: {BACKEND} (mathjudge's build backend) is not installed and there is no "
            f"requirements.lock to install it from; install it: python -m pip install {BACKEND}"
        )
    pins = scratch / "backend.lock"
    pins.write_text(backend_pins(lock.read_text("utf-8")), encoding="utf-8")
    target = scratch / "backend"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--require-hashes",
         "--only-binary", ":all:", "--target", str(target), "-r", str(pins)],
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise MathJudgeError(
            f"{root}: could not install the pinned build backend ({BACKEND}, from "
            f"requirements.lock) to build mathjudge's wheel; pip says:\n{tail}"
        )
    return str(target)


def backend_pins(lock: str) -> str:
    """The entries of a requirements.lock (uv's format: a requirement, its hashes, then `# via`
    lines) for the build backend and the packages it pulls in."""
    entries: list[list[str]] = []
    for line in lock.splitlines():
        if line and not line.startswith((" ", "#")):
            entries.append([line])
        elif entries:
            entries[-1].append(line)
    wanted = []
    for entry in entries:
        name = entry[0].split("==")[0].strip()
        via = {p.strip().lstrip("#").strip().removeprefix("via ").strip() for p in entry[1:]}
        if name == BACKEND or BACKEND in via:
            wanted.append("\n".join(line for line in entry if not line.lstrip().startswith("#")))
    return "\n".join(wanted) + "\n"


def build_wheel(root: Path, into: Path) -> Path:
    """mathjudge's wheel, built from the sources at `root` with the pinned build backend
    (builds are reproducible, so the same sources give the same sha256)."""
    with tempfile.TemporaryDirectory(prefix="mathjudge-backend-") as scratch:
        backend = _backend_path(root, Path(scratch))
        env = dict(os.environ)
        if backend is not None:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [backend, env.get("PYTHONPATH")]))
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        done = subprocess.run(
            [*command, "--quiet", "--wheel-dir", str(into), str(root)],
            capture_output=True,
            text=True,
            env=env,
        )
    wheels = sorted(into.glob("mathjudge-*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise MathJudgeError(f"{root}: could not build mathjudge's wheel:\n{tail}")
    return wheels[0]


def _git(*args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return subprocess.CompletedProcess(["git", *args], 1, "", str(exc))


def _provenance(root: Path) -> str:
    """`commit <sha>` of the checkout (noting uncommitted changes), or why not."""
    commit = _git("-C", str(root), "rev-parse", "HEAD")
    if commit.returncode != 0:
        return f"the sources at {root} (not a git checkout)"
    changed = _git("-C", str(root), "status", "--porcelain", "--", "mathjudge", "pyproject.toml",
                   "docs")  # fmt: skip
    dirty = changed.returncode == 0 and changed.stdout.strip()
    return f"commit {commit.stdout.strip()}" + (" with uncommitted changes" if dirty else "")


def git_source(spec: str, scratch: Path) -> WheelSource:
    """The sources of `URL@COMMIT` (a full 40-hex commit: a branch or tag would float), cloned
    into `scratch`."""
    url, _, commit = spec.rpartition("@")
    if not url or not COMMIT.fullmatch(commit):
        raise MathJudgeError(
            f"--git {printable(spec)}: give the repository's URL and a full commit, "
            "URL@COMMIT (40 hex digits, as `git rev-parse HEAD` prints it), e.g. "
            "https://github.com/OWNER/REPO@0123456789abcdef0123456789abcdef01234567"
        )
    root = scratch / "sources"
    for step in (("clone", "--quiet", "--no-checkout", "--", url, str(root)),
                 ("-C", str(root), "checkout", "--quiet", "--detach", commit)):  # fmt: skip
        done = _git(*step)
        if done.returncode != 0:
            raise MathJudgeError(
                f"--git {printable(spec)}: {' '.join(step[:1])} failed: "
                f"{printable(done.stderr.strip()[-300:])}"
            )
    return WheelSource(origin=f"{url} at commit {commit}", root=root)


def _installed_source(scratch: Path) -> WheelSource:
    """Where the installed mathjudge came from, as pip recorded it (`direct_url.json`)."""
    how = (
        "name the source of this mathjudge: the wheel you installed (--wheel "
        f"mathjudge-{mathjudge.__version__}-py3-none-any.whl; from a clone, `python -m pip "
        "wheel --no-deps --wheel-dir dist .` makes it), or the git URL of its sources at the "
        "commit you installed (--git URL@COMMIT)"
    )
    try:
        text = metadata.distribution("mathjudge").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        text = None
    if not text:
        raise MathJudgeError(
            f"mathjudge {mathjudge.__version__} runs from an installed package that does not "
            f"say where it came from; {how}"
        )
    try:
        found = json.loads(text)
        url = str(found["url"])
    except (ValueError, KeyError, TypeError):
        raise MathJudgeError(
            f"the record of where mathjudge came from is unreadable; {how}"
        ) from None
    vcs = found.get("vcs_info") or {}
    if vcs.get("vcs") == "git" and COMMIT.fullmatch(str(vcs.get("commit_id", ""))):
        return git_source(f"{url.removeprefix('git+')}@{vcs['commit_id']}", scratch)
    local = Path(unquote(urlparse(url).path)) if url.startswith("file://") else None
    if local is not None and "archive_info" in found and local.is_file():
        return WheelSource(origin=f"the wheel mathjudge was installed from ({local})", wheel=local)
    if local is not None and "dir_info" in found and _is_checkout(local):
        return WheelSource(origin=_provenance(local), root=local)
    raise MathJudgeError(
        f"mathjudge {mathjudge.__version__} was installed from {printable(url)}, which is not "
        f"here to pin; {how}"
    )


def wheel_source(scratch: Path, wheel: Path | None = None, git: str | None = None) -> WheelSource:
    """Where init takes the scorer's wheel from (see the module note)."""
    if wheel is not None and git is not None:
        raise MathJudgeError("give --wheel or --git, not both")
    if wheel is not None:
        return WheelSource(origin=f"the wheel {wheel.name} given to init", wheel=wheel)
    if git is not None:
        return git_source(git, scratch)
    root = checkout_root()
    if root is not None:
        return WheelSource(origin=_provenance(root), root=root)
    return _installed_source(scratch)


def _checked_wheel(wheel: Path) -> Path:
    found = WHEEL.fullmatch(wheel.name)
    if not wheel.is_file() or found is None:
        raise MathJudgeError(f"{wheel}: not a mathjudge wheel (mathjudge-*-py3-none-any.whl)")
    if found["version"] != mathjudge.__version__:
        raise MathJudgeError(
            f"{wheel}: mathjudge {found['version']}, but this is mathjudge "
            f"{mathjudge.__version__}, whose workflow and lock init writes; run the init "
            "of that version"
        )
    return wheel


def scorer_lock(wheel_name: str, sha256: str, origin: str) -> str:
    """requirements.lock of the scorer: the wheel first, then the shipped runtime lock."""
    pins = "\n".join(
        line for line in template_text("scorer.lock").splitlines() if not line.startswith("#")
    )
    return (
        "# The scorer of this leaderboard, written by `mathjudge repo init`.\n"
        f"# mathjudge {mathjudge.__version__}, from {origin},\n"
        "# is the wheel beside this file, pinned by its sha256; its dependencies are pinned by\n"
        "# version and hash for every platform and Python 3.11 or newer. Install it, from the\n"
        "# repository's root, with\n"
        f"#     python -m pip install --require-hashes -r {LOCK}\n"
        f"./{SCORER}/{wheel_name} \\\n"
        f"    --hash=sha256:{sha256}\n"
        f"{pins.strip()}\n"
    )


def codeowners(owners: tuple[str, ...]) -> str:
    """.github/CODEOWNERS: the scorer and the workflows change only with the owners' review
    (with "Require review from Code Owners" on for main)."""
    names = " ".join(owners) or UNSET_OWNER
    unset = (
        f"# {UNSET_OWNER} is a placeholder: put your GitHub user or team in its place (or run "
        "`mathjudge repo init --owner`).\n"
        if not owners
        else ""
    )
    return (
        "# Written by `mathjudge repo init`. A pull request that changes the scorer or the\n"
        "# workflows needs the review of these owners (Settings -> Branches: require a review\n"
        "# from Code Owners on main); the workflow fails any pull request that changes more\n"
        "# than submissions/.\n"
        f"{unset}"
        f"/{SCORER}/ {names}\n"
        f"/.github/ {names}\n"
    )


def init_repo(
    target: Path,
    wheel: Path | None = None,
    *,
    git: str | None = None,
    owners: tuple[str, ...] = (),
    repo_url: str | None = None,
) -> Initialised:
    """Write a new leaderboard repository at `target` (absent or empty), all or nothing;
    `repo_url`, the repository's own address, goes into its settings (`leaderboard.yaml`)."""
    settings = config_text(repo_url)  # checked before anything is built
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise MathJudgeError(f"{target}: exists and is not an empty folder; init writes a new one")
    for owner in owners:
        if not OWNER.fullmatch(owner):
            raise MathJudgeError(
                f"--owner {printable(owner)}: a GitHub user (@name), team (@org/team) or "
                "e-mail address"
            )
    with tempfile.TemporaryDirectory(prefix="mathjudge-wheel-") as scratch:
        source = wheel_source(Path(scratch), wheel, git)
        if source.wheel is not None:
            built = _checked_wheel(source.wheel)
        else:
            assert source.root is not None
            built = _checked_wheel(build_wheel(source.root, Path(scratch) / "wheel"))
        digest = hashlib.sha256(built.read_bytes()).hexdigest()
        with atomic_dir(target) as tmp:
            for name, dest in LAYOUT.items():
                path = tmp / dest
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(template_text(name), encoding="utf-8")
            (tmp / CODEOWNERS).write_text(codeowners(owners), encoding="utf-8")
            (tmp / SUBMISSIONS).mkdir()
            (tmp / SUBMISSIONS / ".gitkeep").touch()
            (tmp / SCORER).mkdir()
            shutil.copyfile(built, tmp / SCORER / built.name)
            (tmp / LOCK).write_text(
                scorer_lock(built.name, digest, source.origin), encoding="utf-8"
            )
            (tmp / CONFIG).write_text(settings, encoding="utf-8")
    return Initialised(target, f"{SCORER}/{built.name}", digest, source.origin, owners)
