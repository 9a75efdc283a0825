"""`mathjudge site build`: the static leaderboard site, rendered from the results store."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.base.display import neutral_lines
from mathjudge.base.errors import MathJudgeError
from mathjudge.cli.options import STORE


@click.group()
def site() -> None:
    """The static leaderboard site, rendered from the results store."""


# The texts of local-only datasets (their spec's `local_only`) stay out of a site meant for
# publishing; a site that never leaves this machine may show them.
LOCAL_TEXTS = click.option(
    "--include-local-texts",
    "local_texts",
    is_flag=True,
    help="Show the texts of local-only datasets (and judges' details on them); only for a site "
    "that stays on this machine.",
)


def _repo_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from mathjudge.repo.config import url_problem

    problem = None if value is None else url_problem(value)
    if problem:
        raise click.BadParameter(problem)
    return value


# The repository the site's Submit page links (clone it, open a pull request).
REPO_URL = click.option(
    "--repo-url",
    metavar="URL",
    callback=_repo_url,
    help="The https:// address of the leaderboard's git repository, which the Submit page "
    "links (repo sync reads it from the repository's leaderboard.yaml when not given).",
)


@site.command("build")
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
@LOCAL_TEXTS
@REPO_URL
def site_build(
    store: Path, out: Path, release: str | None, local_texts: bool, repo_url: str | None
) -> None:
    """Publish the leaderboard document (scores, ranks) into the store and render the site
    from it; built datasets are not needed."""
    from mathjudge.api import publish_site
    from mathjudge.store.lock import check_store_path

    if not store.is_file():
        raise MathJudgeError(f"{store}: no results store; run `mathjudge evaluate` first")
    check_store_path(store)
    index = publish_site(
        store, out, release=release, local_texts=local_texts, on_skip=skipped, repo_url=repo_url
    )
    click.echo(f"site written: {index.resolve().as_uri()}")


def skipped(message: str) -> None:
    """Tell of a stored submission the site leaves out (it cannot be rendered)."""
    click.echo(neutral_lines(f"warning: left out of the site: {message}"), err=True)
