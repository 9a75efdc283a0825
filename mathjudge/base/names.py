"""A judge's identity: its name with what does not tell judges apart taken out.

Papers, converters and submitters write one judge many ways ("Internlm2-7b-reward",
"InternLM2-7B-Reward", "internlm2 7b reward"); read as an identity those are one judge. The
alias lookup, the one-folder-per-judge rule of a leaderboard repository and the build check
that refuses two such names on one board all compare names through `canonical`, so they cannot
disagree about what "the same name" means.
"""

from __future__ import annotations

import difflib
import unicodedata

# How alike two canonical names must be (difflib's ratio) for `close` to call one a likely
# spelling of the other: "gpt4o1-10rating" and "gpt4o110rating" are, "gpt4o" and "o1mini" not.
CLOSE = 0.85


def canonical(name: str) -> str:
    """The name compatibility-normalised (NFKC: full-width letters, ligatures), case-folded,
    with spaces and punctuation removed: letters and digits only. A name of punctuation alone
    keeps its folded text, so that it still names something."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    kept = "".join(ch for ch in folded if ch.isalnum())
    return kept or " ".join(folded.split())


def close(a: str, b: str) -> bool:
    """Whether two different names are likely one judge spelt two ways (a new submission's
    name beside one the leaderboard knows): alike once canonical, but not equal."""
    x, y = canonical(a), canonical(b)
    return x != y and difflib.SequenceMatcher(None, x, y).ratio() >= CLOSE
