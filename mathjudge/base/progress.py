"""One progress-bar helper so every long step looks and silences (`--quiet`) the same way."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console

console = Console(stderr=True)


@contextmanager
def progress_bar(description: str, total: int, *, quiet: bool) -> Iterator[Callable[[int], None]]:
    """Yields `advance(n)`; draws nothing when quiet or when stderr is not a terminal."""
    if quiet or not console.is_terminal:
        yield lambda _n: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield lambda n: bar.advance(task, n)


class Steps:
    """One bar at a time for a job of several long steps: `start(description, total)` puts up
    the bar of the next step (total 0: not counted, only timed), `advance(n)` moves it."""

    def __init__(self, bar: Any | None) -> None:
        self.bar, self.task = bar, None

    def start(self, description: str, total: int) -> None:
        if self.bar is None:
            return
        if self.task is not None:
            self.bar.remove_task(self.task)
        self.task = self.bar.add_task(description, total=total or None)

    def advance(self, n: int) -> None:
        if self.bar is not None and self.task is not None:
            self.bar.advance(self.task, n)


@contextmanager
def steps_bar(*, quiet: bool) -> Iterator[Steps]:
    """A `Steps` that draws nothing when quiet or when stderr is not a terminal."""
    if quiet or not console.is_terminal:
        yield Steps(None)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, TimeElapsedColumn(), console=console, transient=True) as bar:
        yield Steps(bar)
