"""Escaping untrusted text for printing: the one function every message uses on names, versions,
paths and values it did not write itself (the lowest layer, so errors can use it too)."""

from __future__ import annotations

from collections.abc import Collection

LISTED = 10  # names a message lists before it counts the rest


def printable(text: str) -> str:
    """Untrusted text (a name, version, path or value) as it may appear in a printed message:
    every character that is not printable (line breaks, tabs, NUL, escape sequences,
    bidirectional overrides...) written as its Python escape (\\n, \\x1b, \\u202e), so that no
    part of it can begin a line of its own (a GitHub workflow command such as `::error`) or
    drive a terminal."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def listed(names: Collection[str], limit: int = LISTED) -> str:
    """Untrusted names as one short line: the first `limit`, each escaped (`printable`), then
    how many more there are; 20,000 file names make a line of a few hundred characters, not
    of 4 MB."""
    shown = ", ".join(printable(name[:200]) for name in list(names)[:limit])
    more = len(names) - limit
    return shown + (f" and {more:,} more" if more > 0 else "")
