"""What `mathjudge repo check` proposes when a submission's judge name is close to one the
leaderboard knows on the same benchmark (`base.names.close`: alike once case, spacing and
punctuation are set aside, but not equal): likely one judge spelt two ways, which would
otherwise stand as two rows. Names equal as identities are refused outright (one folder per
judge, no paper's name); a close name is only likely the same judge, so it gets a proposal,
not a refusal: the declaration that makes a paper's row and ours one judge (a pair in the
benchmark's aliases.yaml), or the folder that already holds the judge.
"""

from __future__ import annotations

import json

from mathjudge.base.escaping import printable
from mathjudge.base.names import close
from mathjudge.document.aliases import table
from mathjudge.repo.folder import Folder


def proposals(folders: list[Folder], checked: list[Folder]) -> list[str]:
    """One note per (checked folder, close name): against the other folders of its benchmark
    and the names the alias table gives its judges there."""
    notes = []
    aliases = table()
    for folder in checked:
        judge = folder.meta.judge
        known = [(s, n, "the alias table") for s, n in aliases.known_names(folder.benchmark)]
        known += [
            ("reproduced", other.meta.judge, f"submissions/{other.name}")
            for other in folders
            if other.benchmark == folder.benchmark and other is not folder
        ]
        for source, name, where in known:
            if not close(judge, name):
                continue
            if source == "reported":
                pair = f"{{reported: {_yaml(name)}, reproduced: {_yaml(judge)}}}"
                notes.append(
                    f"{folder.name}: {printable(repr(judge))} is close to the paper's "
                    f"{printable(repr(name))} on {folder.benchmark}. If it is that judge "
                    "configuration, declare the pair in "
                    f"mathjudge/benchmarks/{folder.benchmark}/aliases.yaml (pairs: - {pair}) "
                    "so the board shows one row with both values and the verdict"
                )
            else:
                notes.append(
                    f"{folder.name}: {printable(repr(judge))} is close to "
                    f"{printable(repr(name))} ({where}) on {folder.benchmark}. If it is the "
                    "same judge, submit it as a new version of that folder or under that "
                    "name; if not, a name that tells them apart helps readers"
                )
    return notes


def _yaml(name: str) -> str:
    """A name as a YAML scalar that reads back as itself (a JSON string is one)."""
    return printable(json.dumps(name, ensure_ascii=False))
