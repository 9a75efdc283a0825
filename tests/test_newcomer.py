"""What a newcomer meets first: the README and the docs it points to, the set-up scripts'
parting words, the license, lint after the demo, and messages that cite the docs.

The reference in docs/ is generated from the code (every command's --help, every benchmark's
spec and prediction model), so these tests fail the moment it drifts.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from click.testing import CliRunner

from conftest import REPO
from mathjudge import registry
from mathjudge.cli import main, reference

README = REPO / "README.md"
DOCS = REPO / "docs"
VENV_BIN = Path(sys.executable).parent


def test_the_readme_is_short_and_its_table_lists_only_what_build_takes() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert reference.render_readme_table() in text
    table = text[text.index(reference.README_START) : text.index(reference.README_END)]
    built = re.findall(r"^\| `([^`]+)` \|", table, flags=re.MULTILINE)
    assert built[1:] == list(registry.dataset_names())  # after the header
    # every benchmark appears, on the dataset it is scored on
    assert set(re.findall(r"`([a-z0-9_]+)`", table)) >= set(registry.names())


def test_the_reference_in_docs_is_what_the_code_says() -> None:
    assert (DOCS / reference.COMMANDS).read_text(encoding="utf-8") == reference.render_commands()
    assert (DOCS / reference.BENCHMARKS).read_text(encoding="utf-8") == (
        reference.render_benchmarks()
    )
    commands = (DOCS / reference.COMMANDS).read_text(encoding="utf-8")
    for path in ("mathjudge build", "mathjudge repo init", "mathjudge repo sync"):
        assert f"\n## {path}\n" in commands


def test_every_relative_link_of_the_readme_and_docs_resolves() -> None:
    broken = []
    for page in [README, *sorted(DOCS.glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text("utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)} -> {target}")
    assert broken == []


def test_the_license_is_the_apache_2_text() -> None:
    text = (REPO / "LICENSE").read_bytes()
    # sha256 of the text the Apache Software Foundation publishes as LICENSE-2.0.txt
    assert hashlib.sha256(text).hexdigest() == (
        "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"
    )
    assert 'license = "Apache-2.0"' in (REPO / "pyproject.toml").read_text()


def test_messages_cite_the_docs_by_a_url_that_opens(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["build", "expertmath", "--source-dir", str(tmp_path), "--out", str(tmp_path)]
    )
    assert result.exit_code == 1
    (url,) = re.findall(r"file://\S+?\.md", result.output)
    assert Path(unquote(urlsplit(url).path)).is_file()
    assert "docs/expertmath-package.md" not in result.output.replace(url, "")


def test_ruff_ignores_what_the_demo_writes(tmp_path: Path) -> None:
    """A `datasets/` folder in the project root made Hugging Face's `datasets` first-party to
    isort, so `ruff check .` failed after the demo; generated folders are not linted."""
    shutil.copyfile(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    module = tmp_path / "mathjudge" / "dataio" / "writer.py"
    module.parent.mkdir(parents=True)
    shutil.copyfile(REPO / "mathjudge" / "dataio" / "writer.py", module)
    (tmp_path / "datasets" / "stepmathbench").mkdir(parents=True)
    (tmp_path / "datasets" / "stepmathbench" / "README.md").write_text("# card\n")
    for folder in ("site", "leaderboard", "predictions"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "made.py").write_text("import sys, os\nx=1\n")
    done = subprocess.run(
        [str(VENV_BIN / "ruff"), "check", "--no-cache", "."],
        cwd=tmp_path, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture
def clone(tmp_path: Path, mirror: Path) -> Path:
    """A clone as the README assumes it: the shared data beside it and `.venv` in it (this
    suite's virtualenv, where `scripts/test` installed mathjudge)."""
    root = tmp_path / "work" / "mathjudge"
    root.mkdir(parents=True)
    (tmp_path / "work" / "shared").mkdir()
    (tmp_path / "work" / "shared" / "data").symlink_to(mirror)
    (root / ".venv").symlink_to(Path(sys.prefix))
    return root


def _readme_block(after: str) -> str:
    """The first ```bash block of the README after the sentence `after`."""
    text = README.read_text(encoding="utf-8")
    rest = text[text.index(after) :]
    return rest[
        rest.index("```bash\n") + len("```bash\n") : rest.index("\n```", rest.index("```bash"))
    ]


def test_the_readme_lines_after_the_demo_give_a_cli_that_reads_the_local_copy(
    clone: Path,
) -> None:
    """After `scripts/demo`, the README's lines put mathjudge on PATH and point it at the
    shared data: its next command builds from there, no download."""
    lines = _readme_block("the lines that put `mathjudge` on your shell's PATH")
    assert ". .venv/bin/activate" in lines
    env = {"PATH": "/usr/bin:/bin", "HOME": str(clone), "HF_HUB_OFFLINE": "1"}
    script = f"{lines}\nmathjudge build stepmathbench --out out\n"
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", script], cwd=clone, env=env, capture_output=True,
        text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stepmathbench: source " in done.stdout and "($MATHJUDGE_MIRROR)" in done.stdout
    assert (clone / "out" / "stepmathbench" / "manifest.json").is_file()


@pytest.mark.slow
def test_the_demo_script_ends_with_the_lines_that_put_mathjudge_on_path(tmp_path: Path) -> None:
    """`scripts/demo` (here with `--help`, so the demo itself does not run) installs into the
    active virtualenv and then prints how to use it from the user's shell."""
    env = {
        "PATH": f"{VENV_BIN}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "VIRTUAL_ENV": sys.prefix,
        "MATHJUDGE_MIRROR": os.environ.get(
            "MATHJUDGE_MIRROR", str(REPO.parent / "shared" / "data")
        ),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    for name in ("PIP_CONFIG_FILE", "PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        if name in os.environ:
            env[name] = os.environ[name]
    done = subprocess.run(
        [str(REPO / "scripts" / "demo"), "--help"], capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Usage: mathjudge demo" in done.stdout
    said = done.stdout[done.stdout.index("to use it from this shell, run:") :].splitlines()[1:]
    here = Path(sys.prefix) == REPO / ".venv"  # the clone's own .venv is named relatively
    assert said[0].strip() == (". .venv/bin/activate" if here else f". {sys.prefix}/bin/activate")
    assert said[1].strip().startswith(f"export MATHJUDGE_MIRROR={env['MATHJUDGE_MIRROR']}")
    shell = "\n".join(said) + "\ncommand -v mathjudge\nmathjudge --version\n"
    used = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", shell], cwd=REPO, capture_output=True, text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )  # fmt: skip
    assert used.returncode == 0, used.stderr
    assert used.stdout.splitlines()[0] == str(VENV_BIN / "mathjudge")


def test_no_page_tells_anyone_to_pip_install_mathjudge_from_an_index() -> None:
    """mathjudge is not on PyPI: what works is the scorer a leaderboard pins."""
    pages = [README, *DOCS.glob("*.md"), *(REPO / "mathjudge").rglob("*.html"),
             *(REPO / "mathjudge" / "repo" / "template").iterdir()]  # fmt: skip
    said = [p.name for p in pages if re.search(r"pip install (-U )?mathjudge", p.read_text())]
    assert said == []
    template = (REPO / "mathjudge/repo/template/README.md").read_text()
    submit = (REPO / "mathjudge/site/templates/submit.html").read_text()
    for page in (template, submit):
        assert "python -m pip install --require-hashes -r scorer/requirements.lock" in page


def test_the_submission_walk_through_leaves_the_clone_alone_and_the_venv_active() -> None:
    """It created the leaderboard inside the mathjudge clone (a repository in a repository)
    and ended with `deactivate`, which dropped the virtualenv the rest of the README needs."""
    block = _readme_block("Create one beside the clone")
    init = next(line for line in block.splitlines() if line.startswith("mathjudge repo init "))
    target = init.split()[3]
    assert target.startswith("../"), init
    assert f"cd {target}" in block and "deactivate" not in block
    # What it reads from the clone, it reads by the clone's path, not by a guess of its name.
    assert block.startswith('CLONE="$PWD"\n') and '"$CLONE/toy.jsonl"' in block
    assert '--datasets "$CLONE/datasets"' in block
    # Its meta is the toy judge's own: `submit` has no example value to warn about.
    meta = yaml.safe_load(block[block.index("<<'META'\n") + 9 : block.index("\nMETA\n")])
    from mathjudge.spec.folder import SubmissionMeta

    assert SubmissionMeta.model_validate(meta).judge == "Short is right"
