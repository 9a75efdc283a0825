"""`mathjudge submit`: write a validated submission folder into a leaderboard repository."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.cli.options import BENCH, DATASETS


@click.command()
@BENCH
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--meta",
    "meta",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="meta.yaml describing the judge (the fields: docs/submitting.md).",
)
@click.option(
    "--to",
    "repo",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The leaderboard repository (the folder holding submissions/).",
)
@click.option("--slug", help="Folder name under submissions/BENCH/ (default: from the judge).")
@click.option(
    "--details",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The judge's details file (default: FILE's X.details.jsonl sibling, if any).",
)
@click.option("--allow-partial", is_flag=True, help="Accept a file that skips some items.")
@click.option(
    "--runs-agg",
    type=click.Choice(["mean", "median", "majority"]),
    default="mean",
    show_default=True,
    help="How several runs of one item are combined when it is scored.",
)
@DATASETS
def submit(
    benchmark: str,
    file: Path,
    meta: Path,
    repo: Path,
    slug: str | None,
    details: Path | None,
    allow_partial: bool,
    runs_agg: str,
    datasets_dir: Path,
) -> None:
    """Validate predictions, meta and details, then write submissions/BENCH/SLUG/ into a
    leaderboard repository (a changed submission becomes its next version)."""
    from mathjudge.repo.submit import submit as write

    done = write(
        benchmark,
        file,
        meta,
        repo,
        datasets_dir=datasets_dir,
        slug=slug,
        details=details,
        allow_partial=allow_partial,
        runs_agg=runs_agg,
    )
    coverage = done.n_items / done.n_expected if done.n_expected else 0.0
    extra = f", {done.details} details rows" if done.details else ""
    click.echo(
        f"{done.folder}: {done.status} (version {done.version}); {done.n_items}/"
        f"{done.n_expected} items ({coverage:.1%}), fields: {', '.join(done.fields)}{extra}"
    )
    if done.placeholders:
        from mathjudge.repo.schemamessages import guide

        click.echo(
            f"warning: {meta} still holds the values meta.example.yaml gives for "
            f"{', '.join(done.placeholders)}: replace them with your judge's and submit again "
            f"(the fields: {guide()})",
            err=True,
        )
