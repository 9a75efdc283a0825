"""Judge names as a reader sees them, and as one judge's identity.

Papers, converters and submitters write one judge many ways ("Internlm2-7b-reward",
"InternLM2-7B-Reward", "internlm2 7b reward"), and a hostile name can be another judge's with a
look-alike character. `canonical` reads the spellings as one (the alias lookup, the judge
pages' file names); `identity` reads both spellings and look-alikes as one: the
one-folder-per-judge rule of a leaderboard repository and the build check that refuses two
such names on one board compare it, so a board never shows two judges a reader cannot tell
apart.

A name can be told from another by its code points and still look the same on a page: a
Cyrillic о or a Greek ο for the Latin o, U+2010 for the hyphen, an invisible mark (U+034F,
U+FE0F) added, a blank-looking character (U+3164, U+2800) for a space. So names are compared
by their *skeleton*, after Unicode Technical Standard #39 (Security Mechanisms): compatibility
forms folded (NFKC) and case ignored, then every character replaced by the prototype of its
class of look-alikes in Unicode's confusables data (shipped by `confusable_homoglyphs`), and
spacing collapsed. Two names with one skeleton are one judge to a reader.

Characters that show nothing, or nothing but blank space, are refused outright in a name
(`invisible_problem`): a name is what a reader can see. And where a name is printed for a
maintainer to act on, its misleading characters are shown as escapes (`shown`), so two
look-alike names never print alike.
"""

from __future__ import annotations

import difflib
import functools
import json
import unicodedata
from importlib import resources

import regex

# How alike two canonical names must be (difflib's ratio) for `close` to call one a likely
# spelling of the other: "gpt4o1-10rating" and "gpt4o110rating" are, "gpt4o" and "o1mini" not.
CLOSE = 0.85

# Blank: every space (White_Space), the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) and
# the braille blank U+2800 (a symbol, not a space, to Unicode, but blank on every page).
_BLANK = regex.compile(r"[\p{White_Space}\u115f\u1160\u3164\uffa0\u2800]")
# Nothing at all: the rest of Unicode's Default_Ignorable_Code_Point (U+034F, U+FE0F, U+17B4,
# U+180B, U+200B ...).
_NOTHING = regex.compile(r"\p{Default_Ignorable_Code_Point}")
# The left-to-right marks the data file puts around right-to-left characters.
_LRM = "\u200e"


@functools.cache
def _prototypes() -> dict[str, str]:
    """character -> the prototype of its class of look-alikes, from Unicode's confusables
    (TS #39). The data lists each pair both ways; each class is a star around its prototype
    (a character or a sequence such as "rn" for "m"), so the classes are the connected
    groups and the prototype is the member that several others map to, else the sequence,
    else the ASCII one, else the lowest."""
    data = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    pairs = json.loads(data)
    parent: dict[str, str] = {}

    def root(text: str) -> str:
        while parent.setdefault(text, text) != text:
            parent[text] = parent[parent[text]]
            text = parent[text]
        return text

    degree: dict[str, int] = {}
    for key, found in pairs.items():
        source = key.replace(_LRM, "")
        for entry in found:
            target = entry["c"].replace(_LRM, "")
            degree[source] = degree.get(source, 0) + 1
            parent[root(source)] = root(target)
    groups: dict[str, list[str]] = {}
    for member in parent:
        groups.setdefault(root(member), []).append(member)
    out: dict[str, str] = {}
    for members in groups.values():
        prototype = min(
            members,
            key=lambda m: (degree.get(m, 0) <= 1, len(m) == 1, not m.isascii(), m),
        )
        out.update((m, prototype) for m in members if len(m) == 1 and m != prototype)
    return out


def skeleton(name: str) -> str:
    """What `name` looks like, as a key: two names that look alike have one skeleton.
    NFKC and case folded, blank characters read as spaces and invisible ones dropped, each
    character replaced by its look-alike prototype (twice over, as prototypes may fold
    further), spacing collapsed."""
    prototypes = _prototypes()
    text = unicodedata.normalize("NFKC", name).casefold()
    for _ in range(2):
        text = unicodedata.normalize("NFD", text)
        text = "".join(_seen(ch, prototypes) for ch in text)
        text = unicodedata.normalize("NFD", text).casefold()
    return " ".join(text.split())


def _seen(ch: str, prototypes: dict[str, str]) -> str:
    if _BLANK.match(ch):
        return " "
    if _NOTHING.match(ch):
        return ""
    return prototypes.get(ch, ch)


def _invisible(ch: str) -> bool:
    return ch != " " and bool(_BLANK.match(ch) or _NOTHING.match(ch))


def invisible_problem(name: str) -> str | None:
    """Why `name` may not be a judge's name for showing less than it holds, or None: a
    character that is invisible or blank-looking (a space other than U+0020 included)."""
    ch = next((ch for ch in name if _invisible(ch)), None)
    if ch is None:
        return None
    what = unicodedata.name(ch, "an unnamed character").lower()
    return (
        f"contains U+{ord(ch):04X} ({what}), which shows as nothing or as a blank: a judge's "
        "name may hold only visible characters and plain spaces"
    )


def _misleads(ch: str) -> bool:
    """A character that a reader could take for another: not ASCII, and a look-alike,
    a compatibility form, a mark or a blank."""
    if ch.isascii():
        return not ch.isprintable()
    return (
        ch in _prototypes()
        or unicodedata.normalize("NFKC", ch) != ch
        or unicodedata.category(ch)[0] in "MZC"
        or _invisible(ch)
    )


def shown(name: str) -> str:
    """`name` quoted for a message a maintainer acts on, each character that could pass for
    another written as its escape: 'MyGrader (GPT-4\\u043e)' never prints like
    'MyGrader (GPT-4o)'."""
    body = "".join(
        (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}") if _misleads(ch)
        else ch
        for ch in name.replace("\\", "\\\\").replace("'", "\\'")
    )  # fmt: skip
    return f"'{body}'"


def printed(name: str) -> str:
    """`name` as it is where nothing in it could pass for something else, else `shown`."""
    return name if not any(_misleads(ch) for ch in name) else shown(name)


def look_alikes(name: str, others: list[str]) -> list[str]:
    """The names among `others` that look like `name` (one skeleton), `name` itself left out."""
    key = skeleton(name)
    return [o for o in others if o != name and skeleton(o) == key]


def close_to(name: str, others: list[str], n: int = 5) -> list[str]:
    """Look-alikes first, then names a few edits away (as a typo would be) with their own
    look-alikes, at most `n`."""
    alike = look_alikes(name, others)
    by_key: dict[str, list[str]] = {}
    for other in others:
        if other != name and other not in alike:
            by_key.setdefault(skeleton(other), []).append(other)
    near = difflib.get_close_matches(skeleton(name), list(by_key), n=n, cutoff=0.75)
    return [*alike, *(o for key in near for o in by_key[key])][:n]


def canonical(name: str) -> str:
    """The name as one judge's spelling: compatibility-normalised (NFKC: full-width letters,
    ligatures), case-folded, spaces and punctuation removed, letters and digits only. The alias
    lookup and the judge pages' file names use it. A name of punctuation alone keeps its
    folded text, so that it still names something."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(ch for ch in folded if ch.isalnum()) or " ".join(folded.split())


def identity(name: str) -> str:
    """What two judges' names must differ in for a reader to tell them apart: the skeleton
    with spaces and punctuation removed, so "InternLM2 7B" and "internlm2-7b" are one judge,
    and so are "GPT-4o" and "GPT-4\u043e" (a Cyrillic o). The one-folder-per-judge rule and
    the build check compare this."""
    seen = skeleton(name)
    return "".join(ch for ch in seen if ch.isalnum()) or seen


def close(a: str, b: str) -> bool:
    """Whether two different names are likely one judge spelt two ways (a new submission's
    name beside one the leaderboard knows): alike once canonical, but not equal."""
    x, y = canonical(a), canonical(b)
    return x != y and difflib.SequenceMatcher(None, x, y).ratio() >= CLOSE
