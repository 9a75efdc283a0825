"""Bytes (a submitted file, a stored table) as an Arrow input stream that Arrow owns.

Arrow's JSON and CSV readers parse on their own thread pool, and some of their tasks outlive
the read: the last of them may drop its reference to the input after Python has begun to shut
down. If the input wraps a Python `bytes` object, dropping it needs the interpreter's lock,
which a finalizing interpreter no longer gives: the process then aborts ("terminate called
without an active exception") after the command has done its work. One copy into an Arrow
buffer (a submission is bounded by its size limit) keeps Python out of those threads.
"""

from __future__ import annotations

import pyarrow as pa


def arrow_input(data: bytes) -> pa.BufferReader:
    buffer = pa.allocate_buffer(len(data))
    pa.FixedSizeBufferWriter(buffer).write(data)
    return pa.BufferReader(buffer)
