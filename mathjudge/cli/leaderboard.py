"""`mathjudge leaderboard build|sync|check`: the static site, from the results store or from a
leaderboard repository of submission folders."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.cli.options import BOOTSTRAP, DATASETS, QUIET, STORE
from mathjudge.errors import MathJudgeError


@click.group()
def leaderboard() -> None:
    """The static leaderboard site."""


# The texts of local-only datasets (their spec's `local_only`) stay out of a site meant for
# publishing; a site that never leaves this machine may show them.
LOCAL_TEXTS = click.option(
    "--include-local-texts",
    "local_texts",
    is_flag=True,
    help="Show the texts of local-only datasets (and judges' details on them); only for a site "
    "that stays on this machine.",
)


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
@LOCAL_TEXTS
def leaderboard_build(store: Path, out: Path, release: str | None, local_texts: bool) -> None:
    """Publish the leaderboard document (scores, ranks) into the store and render the site
    from it; built datasets are not needed."""
    from mathjudge.site import publish_and_render
    from mathjudge.store.lock import check_store_path

    if not store.is_file():
        raise MathJudgeError(f"{store}: no results store; run `mathjudge evaluate` first")
    check_store_path(store)
    index = publish_and_render(store, out, release=release, local_texts=local_texts)
    click.echo(f"site written: {index.resolve().as_uri()}")


REPO = click.argument("repo", type=click.Path(file_okay=False, exists=True, path_type=Path))


@leaderboard.command("sync")
@REPO
@STORE
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("site"),
    show_default=True,
    help="Where the site is written.",
)
@click.option(
    "--reported",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Also import the papers' result tables from this folder (as `reported import`).",
)
@click.option("--no-site", is_flag=True, help="Update the store only.")
@LOCAL_TEXTS
@BOOTSTRAP
@DATASETS
@QUIET
def leaderboard_sync(
    repo: Path,
    store: Path,
    out: Path,
    reported: Path | None,
    no_site: bool,
    local_texts: bool,
    n_boot: int,
    datasets_dir: Path,
    quiet: bool,
) -> None:
    """Score the new or changed submissions of the leaderboard repository REPO into the store,
    drop removed ones, and rebuild the site from it."""
    from mathjudge.progress import progress_bar
    from mathjudge.site import publish_and_render
    from mathjudge.store.lock import check_store_path
    from mathjudge.submissions.sync import sync

    check_store_path(store)
    report = sync(
        repo,
        store,
        datasets_dir,
        n_boot=n_boot,
        reported=reported,
        say=(lambda _: None) if quiet else click.echo,
        progress=lambda label, total: progress_bar(label, total, quiet=quiet),
    )
    click.echo(
        f"{len(report.evaluated)} submission(s) scored, {len(report.unchanged)} unchanged, "
        f"{len(report.removed)} removed"
        + (f"; {report.reported} reported results imported" if reported else "")
    )
    if not no_site:
        index = publish_and_render(store, out, local_texts=local_texts)
        click.echo(f"site written: {index.resolve().as_uri()}")


@leaderboard.command("check")
@REPO
@click.argument("paths", nargs=-1)
@BOOTSTRAP
@DATASETS
def leaderboard_check(repo: Path, paths: tuple[str, ...], n_boot: int, datasets_dir: Path) -> None:
    """Validate every submission folder of REPO and print the scores of those PATHS name
    (files or folders under submissions/, e.g. what a pull request changes; none: all).
    Writes nothing."""
    from mathjudge.submissions.sync import check

    checked = check(repo, datasets_dir, list(paths) if paths else None, n_boot=n_boot)
    for folder, result in checked:
        click.echo(f"\n{folder.name}: {result.judge} (version {folder.record['version']})")
        click.echo(
            f"  coverage {result.coverage:.1%}{' (partial)' if result.partial else ''}, "
            f"{result.n_items} items, fields: {', '.join(result.fields)}"
        )
        for s in result.scores:
            if s.scope == "overall":
                low = "n/a" if s.ci_low is None else f"{s.ci_low:.4f}"
                high = "n/a" if s.ci_high is None else f"{s.ci_high:.4f}"
                value = "n/a" if s.value is None else f"{s.value:.4f}"
                click.echo(f"  {s.metric:<28} {value:>8}  [{low}, {high}]")
    click.echo(f"\nrepository valid; {len(checked)} submission(s) scored")


@leaderboard.command("datasets")
@REPO
@click.argument("paths", nargs=-1)
def leaderboard_datasets(repo: Path, paths: tuple[str, ...]) -> None:
    """Print the datasets the submissions of REPO (or those PATHS name) are scored on, one per
    line, for `mathjudge build`."""
    from mathjudge.submissions.sync import needed_datasets

    for name in needed_datasets(repo, list(paths) if paths else None):
        click.echo(name)
