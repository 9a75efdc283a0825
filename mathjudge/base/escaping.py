"""Escaping untrusted text for printing: the one function every message uses on names, versions,
paths and values it did not write itself (the lowest layer, so errors can use it too)."""

from __future__ import annotations


def printable(text: str) -> str:
    """Untrusted text (a name, version, path or value) as it may appear in a printed message:
    every character that is not printable (line breaks, tabs, NUL, escape sequences,
    bidirectional overrides...) written as its Python escape (\\n, \\x1b, \\u202e), so that no
    part of it can begin a line of its own (a GitHub workflow command such as `::error`) or
    drive a terminal."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
