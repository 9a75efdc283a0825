"""`mathjudge reported import`: the papers' own result tables into the store."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.cli.options import SOURCE_DIR, STORE


@click.group()
def reported() -> None:
    """Results transcribed from the source papers (stored with source = reported)."""


@reported.command("import")
@SOURCE_DIR
@STORE
def reported_import(source_dir: Path | None, store: Path) -> None:
    """Import every reported table into the store (idempotent). The tables are the mirror's
    reported/ folder: --source-dir is a mirror root or that folder itself."""
    from mathjudge import registry
    from mathjudge.dataio import mirror
    from mathjudge.document.reported import import_reported

    known = mirror.known_folders(registry.dataset_names())
    source = mirror.reported(source_dir, known, option="--source-dir")
    assert source.folder is not None
    click.echo(f"reported tables: {source.how}")
    count = import_reported(source.folder, store)
    click.echo(f"imported {count} reported results into {store}")
