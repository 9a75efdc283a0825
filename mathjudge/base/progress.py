"""One progress-bar helper so every long step looks and silences (`--quiet`) the same way."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
