"""`mathjudge import-outputs`: the judge outputs a paper publishes, as ordinary submissions."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge import registry
from mathjudge.cli.options import SOURCE_DIR


@click.command("import-outputs")
@click.argument(
    "benchmark", type=click.Choice([s.name for s in registry.specs() if s.outputs is not None])
)
@click.argument(
    "folder", metavar="[DIR]", required=False, type=click.Path(file_okay=False, path_type=Path)
)
@SOURCE_DIR
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for <judge>.jsonl and <judge>.meta.json.",
)
def import_outputs(benchmark: str, folder: Path | None, source_dir: Path | None, out: Path) -> None:
    """Turn the judge outputs a paper publishes into submissions: predictions and meta for
    each judge BENCHMARK's paper published. DIR, if given, is read as --source-dir is."""
    from mathjudge.benchmarks.published import write_all
    from mathjudge.dataio import mirror

    if folder is not None and source_dir is not None and folder != source_dir:
        raise click.UsageError("give the source folder once: DIR or --source-dir")
    spec = registry.get(benchmark)
    assert spec.outputs is not None
    known = mirror.known_folders(registry.dataset_names())
    source = mirror.for_dataset(spec.dataset, folder or source_dir, known)
    click.echo(f"{benchmark}: source {source.how}")
    for done in write_all(registry.resolve(spec.name, spec.outputs)(benchmark, source.folder), out):
        partial = " (part of the items, as published: --allow-partial)" if done.partial else ""
        click.echo(
            f"{done.judge}: {done.n_rows} predictions{partial} -> {done.predictions}, "
            f"{done.meta.name}"
        )
