"""A second process that renders benchmark and item pages while this one renders the rest.

Item pages are most of a site (one per item: thousands of files), and rendering is pure Python,
so one process cannot use a second core. Every page is a pure function of the exported data
files, so a separate process can render a share of them from `site/data/` alone: the benchmark
pages with their plots (so only it imports matplotlib) and a share of the item pages. It is
started before the document is published so that its imports overlap that work, and it is told
what to render once the data files exist. Whatever it fails on becomes a
`MathJudgeError` here, inside the atomic site build, so a failure leaves no partial site.

The process runs `mathjudge.leaderboard.pageworker`; this module imports nothing of the site
code, so the two can depend on `render` without a cycle.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from types import TracebackType

from mathjudge.errors import MathJudgeError

WORKER = "mathjudge.leaderboard.pageworker"
DONE = "done"


class PageProcess:
    """The worker process: `render(site, pages=..., items=...)` hands it work, `wait()`
    returns when the pages are written (or raises naming what failed); use it as a context
    manager so the process never outlives the build. Its stderr goes to a temporary file, not
    a pipe, so no amount of warnings can block it."""

    def __init__(self) -> None:
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115 - open while the process runs
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", WORKER],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                text=True,
                encoding="utf-8",
            )
        except OSError as exc:
            self._stderr.close()
            raise MathJudgeError(f"could not start the process rendering pages ({exc})") from None
        self._pending = False

    def render(self, site: Path, *, pages: list[str], items: list[str]) -> None:
        """Starts rendering into `site` the benchmark pages and plots of `pages` and the item
        pages of `items` (benchmark names)."""
        request = json.dumps({"site": str(site), "pages": pages, "items": items})
        try:
            assert self._proc.stdin is not None
            self._proc.stdin.write(request + "\n")
            self._proc.stdin.flush()
        except OSError as exc:
            raise self._failure(f"could not be reached ({exc})") from exc
        self._pending = True

    def wait(self) -> None:
        """Returns once the pages asked for are written."""
        if not self._pending:
            return
        self._pending = False
        assert self._proc.stdout is not None
        answer = self._proc.stdout.readline().strip()
        if answer != DONE:
            raise self._failure("stopped before finishing")

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin is not None
            try:
                self._proc.stdin.close()  # end of requests: the worker exits
                self._proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()

    def __enter__(self) -> PageProcess:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc is not None and self._proc.poll() is None:
            self._proc.kill()  # the build failed: its pages are not wanted
        self.close()

    def _failure(self, what: str) -> MathJudgeError:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._stderr.seek(0)
        said = self._stderr.read().decode("utf-8", errors="replace")
        lines = [line for line in said.splitlines() if line.strip()]
        last = f": {lines[-1]}" if lines else ""
        code = self._proc.returncode
        return MathJudgeError(f"the process rendering pages {what} (exit {code}){last}")
