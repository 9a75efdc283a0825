"""Publishing the site: the one sequence `leaderboard build` and the demo share. Kept apart from
the demo so that building the site never loads the judges or the model client."""

from __future__ import annotations

from pathlib import Path

from mathjudge.evaluate.publish import publish
from mathjudge.leaderboard.render import build_site


def publish_site(store: Path, out: Path, *, release: str | None = None) -> Path:
    """Publish the leaderboard document into `store` (scores, ranks: `evaluate.publish`) and
    render it at `out` (`leaderboard`); returns the index page's path."""
    publish(store)
    return build_site(store, out, release=release)
