"""`mathjudge build`: datasets from their pinned sources."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge import registry
from mathjudge.config import default_datasets_dir
from mathjudge.errors import MathJudgeError


@click.command()
@click.argument("benchmark", type=click.Choice([*registry.dataset_names(), "all"]))
@click.option(
    "--source-dir",
    "--source",
    type=click.Path(file_okay=False, path_type=Path),
    help="Local mirror: the benchmark's folder or a root with one folder per benchmark "
    "(default: $MATHJUDGE_MIRROR, else the pinned upstream URLs). expertmath: the problem "
    "package folder; hard2verify: the folder holding your decrypted file.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=default_datasets_dir,
    show_default="./datasets or $MATHJUDGE_DATASETS",
    help="Where to write datasets.",
)
@click.option(
    "--push-to-hub",
    "repo",
    metavar="REPO",
    help="Also upload to this Hugging Face dataset repo (uses HF_TOKEN / HF_ENDPOINT).",
)
@click.option(
    "--i-have-permission-to-redistribute",
    "permission",
    is_flag=True,
    help="With --push-to-hub: upload a dataset whose card states no redistributable license "
    "because its authors allowed you to.",
)
@click.option(
    "--with-pdfs",
    is_flag=True,
    help="For benchmarks whose items are papers: also fetch the PDFs of permissively licensed "
    "papers (pdfs/ and pdfs.json beside the data).",
)
def build(
    benchmark: str,
    source_dir: Path | None,
    out: Path,
    repo: str | None,
    permission: bool,
    with_pdfs: bool,
) -> None:
    """Build BENCHMARK into OUT/BENCHMARK (Parquet, data card, manifest)."""
    names = registry.dataset_names() if benchmark == "all" else (benchmark,)
    if repo and len(names) > 1:
        raise click.UsageError("--push-to-hub takes one benchmark at a time")
    with_papers = [n for n in registry.dataset_names() if registry.get(n).pdfs]
    if with_pdfs and benchmark != "all" and benchmark not in with_papers:
        raise click.UsageError(f"--with-pdfs applies to {', '.join(with_papers)} only")
    if permission and not repo:
        raise click.UsageError("--i-have-permission-to-redistribute goes with --push-to-hub")
    from mathjudge.dataio.redistribution import refusal
    from mathjudge.dataio.writer import write_dataset

    for name in names:
        spec = registry.get(name)
        if repo and spec.local_only:
            raise MathJudgeError(f"{name}: {spec.local_only}; --push-to-hub refuses it")
        built = spec.builder().build(source_dir)
        refused = refusal(name, built.card_info.license) if repo else None
        if refused and not permission:
            raise MathJudgeError(refused)  # before anything is written
        if with_pdfs and spec.pdfs:
            path = spec.resolve(spec.pdfs)(built, out)
        else:
            path = write_dataset(built, out)
        click.echo(f"built {name} -> {path}")
        if repo:
            from mathjudge.dataio.hub import push_to_hub

            click.echo(f"pushed {name} -> {push_to_hub(path, repo, permission=permission)}")
