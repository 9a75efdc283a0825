"""`mathjudge demo`: the main job on the embedded default data."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.cli.options import QUIET


@click.command()
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Where datasets/, predictions/, leaderboard/, results.duckdb, site/ go.",
)
@click.option(
    "--source-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="A mirror root: one folder per benchmark, laid out like the shared data (default: "
    "$MATHJUDGE_MIRROR, else the pinned upstream files are downloaded).",
)
@QUIET
def demo(workdir: Path, source_dir: Path | None, quiet: bool) -> None:
    """Build what is reachable, run the baselines, evaluate, render the site."""
    from mathjudge.demo import run_demo

    report = run_demo(workdir, source_dir=source_dir, quiet=quiet)
    click.echo(
        f"built {len(report.built)} dataset(s), scored {len(report.scored)} submission(s) "
        f"({len(report.unchanged)} unchanged, scored before), imported {report.reported} "
        f"reported result(s); {len(report.kept)} baseline(s) kept from an earlier run "
        "(same data and code)"
    )
    assert report.site is not None
    click.echo(f"open the leaderboard: {report.site.resolve().as_uri()}")
