"""`mathjudge reported import`: the papers' own result tables into the store."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.cli.options import STORE
from mathjudge.errors import MathJudgeError


@click.group()
def reported() -> None:
    """Results transcribed from the source papers (stored with source = reported)."""


@reported.command("import")
@click.option(
    "--source-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Mirror root holding reported/ (default: $MATHJUDGE_MIRROR).",
)
@STORE
def reported_import(source_dir: Path | None, store: Path) -> None:
    """Import every reported table into the store (idempotent)."""
    from mathjudge.config import mirror_root
    from mathjudge.publish.reported import import_reported

    root = source_dir or mirror_root()
    if root is None or not (root / "reported").is_dir():
        raise MathJudgeError("no reported/ folder: pass --source-dir or set MATHJUDGE_MIRROR")
    count = import_reported(root / "reported", store)
    click.echo(f"imported {count} reported results into {store}")
