"""`mathjudge leaderboard build`: the static site from the results store."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.cli.options import STORE
from mathjudge.errors import MathJudgeError


@click.group()
def leaderboard() -> None:
    """The static leaderboard site."""


@leaderboard.command("build")
@STORE
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("site"),
    show_default=True,
)
@click.option(
    "--release",
    metavar="NAME",
    help="Also freeze this build as site/releases/NAME/ (refused if NAME exists).",
)
def leaderboard_build(store: Path, out: Path, release: str | None) -> None:
    """Publish the leaderboard document (scores, ranks) into the store and render the site
    from it; built datasets are not needed."""
    from mathjudge.site import publish_site
    from mathjudge.store.lock import check_store_path

    if not store.is_file():
        raise MathJudgeError(f"{store}: no results store; run `mathjudge evaluate` first")
    check_store_path(store)
    index = publish_site(store, out, release=release)
    click.echo(f"site written: {index.resolve().as_uri()}")
