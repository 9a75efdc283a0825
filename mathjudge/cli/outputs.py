"""`mathjudge import-outputs`: the judge outputs a paper publishes, as ordinary submissions."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge import registry


@click.command("import-outputs")
@click.argument(
    "benchmark", type=click.Choice([s.name for s in registry.specs() if s.outputs is not None])
)
@click.argument(
    "source_dir", metavar="DIR", type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder for <judge>.jsonl and <judge>.meta.json.",
)
def import_outputs(benchmark: str, source_dir: Path, out: Path) -> None:
    """Turn the judge outputs a paper publishes into submissions: predictions and meta for
    each judge BENCHMARK's paper published. DIR is the benchmark's mirror folder or a root
    holding it."""
    from mathjudge.benchmarks.published import write_all

    spec = registry.get(benchmark)
    assert spec.outputs is not None
    for done in write_all(registry.resolve(spec.name, spec.outputs)(benchmark, source_dir), out):
        click.echo(
            f"{done.judge}: {done.n_rows} predictions -> {done.predictions}, {done.meta.name}"
        )
