"""Cheap whole-file checks that decide whether Arrow's readers may see a submission at all.

Arrow's JSON reader crashes the process on some inputs (a first line `null`, arrays nested
thousands deep) and neither its JSON nor its CSV reader checks that bytes outside the parsed
columns are UTF-8. So the columnar fast path only reads a file these checks call plain; any
other file goes to the row validator, which reports each problem with its line. The checks
go over the bytes in line-aligned chunks and run in C and numpy, a small cost beside the parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from mathjudge.base.safejson import max_depth

CHUNK = 8 << 20
BOM = b"\xef\xbb\xbf"
FAST_PATH_DEPTH = 16
# Anchored on "\n" (a piece is searched with one prepended): `(?m)^` is several times slower.
_NOT_AN_OBJECT_START = re.compile(rb"\n[ \t\r]*[^{ \t\r\n]")
_INDENTED_OBJECT_START = re.compile(rb"\n[ \t\r]+\{")


@dataclass(frozen=True)
class BadByte:
    """The first byte that is not UTF-8: 1-based line and column (in bytes)."""

    line: int
    column: int
    byte: int

    def __str__(self) -> str:
        return f"not UTF-8 text (byte 0x{self.byte:02x} at column {self.column})"


def _pieces(data: bytes) -> Iterator[tuple[bytes, bool]]:
    """(piece, whole lines) over the bytes after a leading BOM. A piece ends at a newline; a
    line longer than a chunk is cut at a character boundary (`whole lines` False), so no
    piece is ever much larger than CHUNK."""
    start = len(BOM) if data.startswith(BOM) else 0
    while start < len(data):
        end = min(start + CHUNK, len(data))
        if end < len(data):
            newline = data.rfind(b"\n", start, end) + 1
            if newline > start:
                yield data[start:newline], True
                start = newline
                continue
            line_end = data.find(b"\n", end)
            if line_end == -1 or line_end + 1 - start > 2 * CHUNK:
                cut = end
                while cut > start and data[cut - 1] & 0xC0 == 0x80:
                    cut -= 1  # back off continuation bytes
                cut = max(cut - 1, start + 1)  # and the lead byte of the character they continue
                yield data[start:cut], False
                start = cut
                continue
            end = line_end + 1
        yield data[start:end], True
        start = end


def invalid_utf8(data: bytes) -> BadByte | None:
    """Where the bytes stop being UTF-8 (a leading BOM is allowed), or None."""
    lines = 0
    column = 0  # bytes of the current line in earlier pieces cut from it
    for piece, whole in _pieces(data):
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError as exc:
            start = piece.rfind(b"\n", 0, exc.start) + 1
            if start:
                column = 0
            line = lines + piece.count(b"\n", 0, exc.start) + 1
            return BadByte(line, column + exc.start - start + 1, piece[exc.start])
        lines += piece.count(b"\n")
        column = 0 if whole else column + len(piece)
    return None


def plain_json_lines(data: bytes, depth: int = FAST_PATH_DEPTH) -> int | None:
    """The number of non-blank lines if the bytes are UTF-8 and every non-blank line starts an
    object nested at most `depth` deep; None for anything else."""
    count = 0
    for piece, whole in _pieces(data):
        if not whole:
            return None
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            return None
        codes = np.frombuffer(piece, dtype=np.uint8)
        starts = np.r_[0, np.flatnonzero(codes == ord("\n")) + 1]
        starts = starts[starts < len(codes)]
        if (codes[starts] == ord("{")).all():
            objects = len(starts)  # the common case, checked in numpy
        else:  # blank or indented lines, or a line that is not an object
            lines = b"\n" + piece
            if _NOT_AN_OBJECT_START.search(lines):
                return None
            objects = lines.count(b"\n{") + len(_INDENTED_OBJECT_START.findall(lines))
        # As many brackets as objects can only be the objects' own braces: depth 1, no scan.
        opened = np.count_nonzero(codes == ord("{")) + np.count_nonzero(codes == ord("["))
        if opened > objects and max_depth(piece) > depth:
            return None
        count += objects
    return count


def line_pieces(data: bytes, size: int) -> Iterator[bytes]:
    """The bytes in pieces of about `size` that end at a newline (a line longer than `size`
    is one piece), so a reader can take them one at a time."""
    start = 0
    while start < len(data):
        end = min(start + size, len(data))
        if end < len(data):
            cut = data.rfind(b"\n", start, end) + 1
            end = cut if cut > start else (data.find(b"\n", end) + 1 or len(data))
        yield data[start:end]
        start = end
