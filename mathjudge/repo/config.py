"""The leaderboard repository's own settings: `leaderboard.yaml` at its root, which `repo init`
writes and `repo sync` reads.

It holds what the site cannot know from the submissions: the address of the repository itself,
which the Submit page links (clone it, open a pull request against it). The file is read like
any file of the repository (no link followed, size checked first, strict YAML) and its one
field is checked to be an https:// address before it reaches a page.
"""

from __future__ import annotations

import re
from pathlib import Path

from mathjudge.base import safeyaml
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable
from mathjudge.repo import confined

CONFIG = "leaderboard.yaml"
MAX_BYTES = 64 * 1024
MAX_URL = 300
# https://host[:port][/path], the path in the characters a repository address uses.
URL = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~%+/-]*)?")
FIELDS = ("repository",)
EXAMPLE = "https://github.com/OWNER/NAME"


def url_problem(text: str) -> str | None:
    """Why `text` is not the https:// address of a repository, or None."""
    if len(text) > MAX_URL or not URL.fullmatch(text):
        return (
            f"{printable(repr(text[:MAX_URL]))} is not the https:// address of a git repository "
            f"(for example {EXAMPLE})"
        )
    return None


def repository_url(text: str, where: str) -> str:
    """`text` when it is the https:// address of a repository; else an error naming `where`."""
    problem = url_problem(text)
    if problem:
        raise MathJudgeError(f"{where}: {problem}")
    return text


def config_text(url: str | None) -> str:
    """What `repo init` writes: the address when given, else how to set it."""
    lines = [
        "# This leaderboard's settings (read by `mathjudge repo sync`).",
        "# repository: the https:// address of this repository, which the site's Submit page",
        "# links for cloning it and opening pull requests.",
    ]
    if url is None:
        lines.append(f"# repository: {EXAMPLE}")
    else:
        lines.append(f"repository: {repository_url(url, '--repo-url')}")
    return "\n".join(lines) + "\n"


def repository_of(repo: Path) -> str | None:
    """The repository address `leaderboard.yaml` gives (None: no file, or no address)."""
    path = repo / CONFIG
    with confined.folder(repo) as fd:
        if not any(name == CONFIG for name, _ in confined.entries(fd)):
            return None
        data = confined.read_file(fd, CONFIG, path, MAX_BYTES, "settings file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise MathJudgeError(f"{confined.shown(path)}: not UTF-8 text") from None
    loaded = safeyaml.load(text, confined.shown(path))
    if loaded is None:
        return None
    if not isinstance(loaded, dict):
        raise MathJudgeError(f"{confined.shown(path)}: expected keys such as `repository: URL`")
    unknown = [k for k in loaded if k not in FIELDS]
    if unknown:
        raise MathJudgeError(
            f"{confined.shown(path)}: unknown key {printable(repr(unknown[0]))}; the keys are "
            f"{', '.join(FIELDS)}"
        )
    url = loaded.get("repository")
    if url is None:
        return None
    if not isinstance(url, str):
        raise MathJudgeError(
            f"{confined.shown(path)}: repository: expected an https:// address such as {EXAMPLE}"
        )
    return repository_url(url, f"{confined.shown(path)}: repository")
