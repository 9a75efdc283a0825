"""`mathjudge results remove`: repair a results store by taking submissions out of it."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mathjudge.base.display import neutral_lines
from mathjudge.base.errors import MathJudgeError
from mathjudge.cli.options import STORE

if TYPE_CHECKING:
    from mathjudge.store.read import StoredEntry


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
    """Remove stored submissions, each named exactly by its judge or its submission id, with
    their scores, predictions and details (one transaction), once no site is being built from
    the store. A judge name that other stored judges look like must be given by id (they are
    listed); a name that matches nothing lists the nearest. A result synced from a leaderboard
    repository comes back with the next sync unless its folder is removed too."""
    from mathjudge import store as results_store
    from mathjudge.store import read
    from mathjudge.store.lock import check_store_path

    if not store.is_file():
        raise MathJudgeError(f"{store}: no results store here")
    check_store_path(store)
    with read.reading(store) as con:
        stored = read.entries(con, benchmark=benchmark, source=source)
    where = (f" on {benchmark}" if benchmark else "") + (f" ({source})" if source else "")
    found: dict[str, read.StoredEntry] = {}
    for ref in refs:
        found.update((row.id, row) for row in _picked(ref, stored, where))
    click.echo(neutral_lines(f"{len(found)} submission(s) in {store}:\n" + _listed(found.values())))
    if not yes:
        click.confirm("Remove them with their scores, predictions and details?", abort=True)
    results_store.delete(store, list(found))
    click.echo(
        neutral_lines(f"removed {len(found)} submission(s) from {store}: " + ", ".join(found))
    )


def _picked(ref: str, stored: list[StoredEntry], where: str) -> list[StoredEntry]:
    """The submissions `ref` names exactly, by id or judge name; never a guess. A name that
    matches nothing, or that other stored judges look like, is refused with the candidates
    listed (names with their misleading characters escaped) and their ids to pick by."""
    from mathjudge.base.names import close_to, look_alikes, shown

    exact = [row for row in stored if ref in (row.id, row.judge)]
    judges = sorted({row.judge for row in stored})
    if not exact:
        near = [row for row in stored if row.judge in close_to(ref, judges)]
        listed = f"; the nearest:\n{_listed(near)}\nname one exactly, or by its id" if near else ""
        raise MathJudgeError(
            f"{shown(ref)}: no stored submission has exactly this judge name or id{where}; "
            f"nothing was removed{listed}"
        )
    alike = set(look_alikes(ref, judges)) if any(row.judge == ref for row in exact) else set()
    if alike:
        rows = [*exact, *(row for row in stored if row.judge in alike)]
        raise MathJudgeError(
            f"{shown(ref)}: other stored judges look like this name{where}, so it does not "
            f"say which to remove; nothing was removed. Name the one to remove by its id:\n"
            f"{_listed(rows)}"
        )
    return exact


def _listed(rows: Iterable[StoredEntry]) -> str:
    from mathjudge.base.names import shown

    return "\n".join(
        f"  {r.id}  {r.benchmark}  {r.source}  {shown(r.judge)}  saved {r.created}  "
        f"({r.scores} scores)"
        for r in rows
    )
