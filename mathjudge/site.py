"""Publish the leaderboard document, then render the site: the one sequence `leaderboard build`
and the demo share. Kept apart from the demo so that building the site never loads the judges or
the model client."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mathjudge.leaderboard.pageprocess import PageProcess
from mathjudge.leaderboard.render import build_site
from mathjudge.publish.document import publish


def publish_and_render(
    store: Path,
    out: Path,
    *,
    release: str | None = None,
    on_skip: Callable[[str], None] = lambda _: None,
) -> Path:
    """Publish the leaderboard document into `store` (scores, ranks: `publish.document`) and
    render it at `out` (`leaderboard`); returns the index page's path. The page process starts
    first, so that its imports overlap the publishing. `on_skip` hears of each stored
    submission that cannot be rendered and is left out."""
    with PageProcess() as helper:
        publish(store, on_skip)
        return build_site(store, out, release=release, helper=helper)
