"""`mathjudge repo init`: a new leaderboard repository, ready to push.

It holds the submissions layout, a README for submitters, a meta.yaml to copy, the GitHub
Actions workflow, and `scorer/`: the wheel of this very mathjudge and `requirements.lock`,
which pins that wheel by its sha256 and every dependency by version and hash (the runtime lock
shipped with mathjudge, `template/scorer.lock`). mathjudge is not on PyPI, so the repository
carries its scorer: the workflow, and every submitter, install exactly that and nothing that
floats. The wheel is built from the checkout mathjudge runs from, or given (`--wheel`).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import mathjudge
from mathjudge.base.atomic import atomic_dir
from mathjudge.base.errors import MathJudgeError
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
SCORER = "scorer"
LOCK = f"{SCORER}/requirements.lock"
WHEEL = re.compile(r"mathjudge-(?P<version>[^-]+)-py3-none-any\.whl")


@dataclass(frozen=True)
class Initialised:
    repo: Path
    wheel: str  # its path in the repository
    sha256: str
    origin: str  # where the wheel came from, in words


def template_text(name: str) -> str:
    return resources.files("mathjudge.repo").joinpath("template", name).read_text("utf-8")


def checkout_root() -> Path | None:
    """The source checkout mathjudge runs from (an editable install), else None."""
    root = Path(mathjudge.__file__).resolve().parents[1]
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and 'name = "mathjudge"' in pyproject.read_text("utf-8"):
        return root
    return None


def build_wheel(root: Path, into: Path) -> Path:
    """mathjudge's wheel, built from the checkout at `root` with the installed build backend
    (hatchling, pinned in requirements.lock; builds are reproducible, so the same sources give
    the same sha256)."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    done = subprocess.run(
        [*command, "--quiet", "--wheel-dir", str(into), str(root)],
        capture_output=True,
        text=True,
    )
    wheels = sorted(into.glob("mathjudge-*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise MathJudgeError(
            f"{root}: could not build mathjudge's wheel (needs hatchling, which scripts/test "
            f"and scripts/demo install; or pass --wheel FILE):\n{tail}"
        )
    return wheels[0]


def _provenance(root: Path) -> str:
    """`commit <sha>` of the checkout (noting uncommitted changes), or why not."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30
            )
        except OSError:
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return f"the sources at {root} (not a git checkout)"
    changed = git("status", "--porcelain", "--", "mathjudge", "pyproject.toml", "docs")
    return f"commit {commit}" + (" with uncommitted changes" if changed else "")


def scorer_lock(wheel_name: str, sha256: str, origin: str) -> str:
    """requirements.lock of the scorer: the wheel first, then the shipped runtime lock."""
    pins = "\n".join(
        line for line in template_text("scorer.lock").splitlines() if not line.startswith("#")
    )
    return (
        "# The scorer of this leaderboard, written by `mathjudge repo init`.\n"
        f"# mathjudge {mathjudge.__version__}, built from {origin},\n"
        "# is the wheel beside this file, pinned by its sha256; its dependencies are pinned by\n"
        "# version and hash for every platform and Python 3.11 or newer. Install it, from the\n"
        "# repository's root, with\n"
        f"#     python -m pip install --require-hashes -r {LOCK}\n"
        f"./{SCORER}/{wheel_name} \\\n"
        f"    --hash=sha256:{sha256}\n"
        f"{pins.strip()}\n"
    )


def init_repo(target: Path, wheel: Path | None = None, repo_url: str | None = None) -> Initialised:
    """Write a new leaderboard repository at `target` (absent or empty), all or nothing;
    `repo_url`, the repository's own address, goes into its settings (`leaderboard.yaml`)."""
    settings = config_text(repo_url)  # checked before anything is built
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise MathJudgeError(f"{target}: exists and is not an empty folder; init writes a new one")
    with tempfile.TemporaryDirectory(prefix="mathjudge-wheel-") as scratch:
        if wheel is None:
            root = checkout_root()
            if root is None:
                raise MathJudgeError(
                    "mathjudge is installed from a wheel, not run from its sources: pass "
                    "--wheel FILE, the mathjudge wheel the leaderboard should score with"
                )
            built, origin = build_wheel(root, Path(scratch)), _provenance(root)
        else:
            found = WHEEL.fullmatch(wheel.name)
            if not wheel.is_file() or found is None:
                raise MathJudgeError(
                    f"{wheel}: not a mathjudge wheel (mathjudge-*-py3-none-any.whl)"
                )
            if found["version"] != mathjudge.__version__:
                raise MathJudgeError(
                    f"{wheel}: mathjudge {found['version']}, but this is mathjudge "
                    f"{mathjudge.__version__}, whose workflow and lock init writes; run the init "
                    "of that version"
                )
            built, origin = wheel, f"the wheel {wheel.name} given to init"
        digest = hashlib.sha256(built.read_bytes()).hexdigest()
        with atomic_dir(target) as tmp:
            for name, dest in LAYOUT.items():
                path = tmp / dest
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(template_text(name), encoding="utf-8")
            (tmp / SUBMISSIONS).mkdir()
            (tmp / SUBMISSIONS / ".gitkeep").touch()
            (tmp / SCORER).mkdir()
            shutil.copyfile(built, tmp / SCORER / built.name)
            (tmp / LOCK).write_text(scorer_lock(built.name, digest, origin), encoding="utf-8")
            (tmp / CONFIG).write_text(settings, encoding="utf-8")
    return Initialised(target, f"{SCORER}/{built.name}", digest, origin)
