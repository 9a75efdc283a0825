"""Publishing the site: the one sequence `leaderboard build` and the demo share. Kept apart from
the demo so that building the site never loads the judges or the model client."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mathjudge.leaderboard.render import build_site
from mathjudge.publish.document import publish


def publish_and_render(
    store: Path,
    out: Path,
    *,
    release: str | None = None,
    local_texts: bool = False,
    on_skip: Callable[[str], None] = lambda _: None,
) -> Path:
    """Publish the leaderboard document into `store` (scores, ranks: `publish.document`) and
    render it at `out` (`leaderboard`); returns the index page's path. `local_texts`: keep the
    texts of local-only datasets (see `leaderboard.build_site`). `on_skip` hears of each stored
    submission that cannot be rendered and is left out."""
    publish(store, on_skip)
    return build_site(store, out, release=release, local_texts=local_texts)
