"""`mathjudge results remove`: repair a results store by taking submissions out of it."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.base.display import neutral_lines
from mathjudge.base.errors import MathJudgeError
from mathjudge.cli.options import STORE


@click.group()
def results() -> None:
    """The results store: repair it from the command line."""


@results.command("remove")
@click.argument("refs", nargs=-1, required=True, metavar="JUDGE|SUBMISSION_ID...")
@click.option("--benchmark", help="Only submissions of this benchmark.")
@click.option(
    "--source",
    type=click.Choice(["reproduced", "reported"]),
    help="Only scored submissions (reproduced) or results transcribed from papers (reported).",
)
@STORE
@click.option("--yes", is_flag=True, help="Remove without asking first.")
def remove(
    refs: tuple[str, ...], benchmark: str | None, source: str | None, store: Path, yes: bool
) -> None:
    """Remove stored submissions, each named by its judge or its submission id, with their
    scores, predictions and details (one transaction). A result synced from a leaderboard
    repository comes back with the next sync unless its folder is removed too."""
    from mathjudge import store as results_store
    from mathjudge.store import read
    from mathjudge.store.lock import check_store_path

    if not store.is_file():
        raise MathJudgeError(f"{store}: no results store here")
    check_store_path(store)
    found: dict[str, read.StoredEntry] = {}
    with read.reading(store) as con:
        for ref in refs:
            rows = read.named(con, ref, benchmark=benchmark, source=source)
            if not rows:
                raise MathJudgeError(
                    f"{ref!r}: no stored submission has this judge name or id"
                    + (f" on {benchmark}" if benchmark else "")
                    + (f" ({source})" if source else "")
                    + "; nothing was removed"
                )
            found.update((row.id, row) for row in rows)
    lines = [
        f"  {r.id}  {r.benchmark}  {r.source}  {r.judge!r}  saved {r.created}  ({r.scores} scores)"
        for r in found.values()
    ]
    click.echo(neutral_lines(f"{len(found)} submission(s) in {store}:\n" + "\n".join(lines)))
    if not yes:
        click.confirm("Remove them with their scores, predictions and details?", abort=True)
    results_store.delete(store, list(found))
    click.echo(
        neutral_lines(f"removed {len(found)} submission(s) from {store}: " + ", ".join(found))
    )
