"""math-verify's time limit, one for every answer check in mathjudge.

Its timeouts are SIGALRM alarms: wall-clock seconds, and only in the main thread (elsewhere a
check runs unbounded, which `normalised.safe_to_parse` keeps safe)."""

from __future__ import annotations

import threading

TIMEOUT_S = 2  # seconds math-verify may spend on one parse or comparison


def timeout() -> int | None:
    """The limit to hand math-verify here: TIMEOUT_S in the main thread, else None."""
    return TIMEOUT_S if threading.current_thread() is threading.main_thread() else None
