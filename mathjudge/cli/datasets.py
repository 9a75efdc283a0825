"""`mathjudge build`: datasets from their pinned sources."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from mathjudge import registry
from mathjudge.config import default_datasets_dir
from mathjudge.errors import MathJudgeError

if TYPE_CHECKING:
    from mathjudge.dataio.pins import Pins
    from mathjudge.dataio.writer import Build
    from mathjudge.spec.benchmark import BenchmarkSpec


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
    "--revision",
    metavar="REV",
    help="Build from this upstream revision (a commit of the GitHub repo, a revision of the "
    "Hub repo) instead of the pinned one: the files are taken as found and their sha256s "
    "printed as the pins to put in source.yaml (docs/updating-a-source.md). The version rule "
    "still applies; such a build is never pushed.",
)
@click.option(
    "--record-version",
    "record",
    is_flag=True,
    help="After the build, record it as the latest release in the benchmark's releases.json "
    "(maintainers, when publishing a new version; docs/versioning.md).",
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
    revision: str | None,
    record: bool,
    with_pdfs: bool,
) -> None:
    """Build BENCHMARK into OUT/BENCHMARK (Parquet, data card, manifest).

    The build must follow the versioning rule (docs/versioning.md): a version recorded in the
    benchmark's releases.json rebuilds exactly, and a changed build carries the next version."""
    names = registry.dataset_names() if benchmark == "all" else (benchmark,)
    if repo and len(names) > 1:
        raise click.UsageError("--push-to-hub takes one benchmark at a time")
    with_papers = [n for n in registry.dataset_names() if registry.get(n).pdfs]
    if with_pdfs and benchmark != "all" and benchmark not in with_papers:
        raise click.UsageError(f"--with-pdfs applies to {', '.join(with_papers)} only")
    if permission and not repo:
        raise click.UsageError("--i-have-permission-to-redistribute goes with --push-to-hub")
    if revision and repo:
        raise click.UsageError(
            "--revision builds from unpinned files, which are never pushed; pin the revision "
            "in source.yaml first (docs/updating-a-source.md)"
        )
    if revision and len(names) > 1:
        raise click.UsageError("--revision takes one benchmark at a time")
    from mathjudge.dataio import releases
    from mathjudge.dataio.pins import load_pins
    from mathjudge.dataio.redistribution import refusal
    from mathjudge.dataio.writer import write_dataset

    for name in names:
        spec = registry.get(name)
        if repo and spec.local_only:
            raise MathJudgeError(f"{name}: {spec.local_only}; --push-to-hub refuses it")
        if revision:
            built = _at_revision(spec, load_pins(name), revision, source_dir)
        else:
            built = registry.builder(spec.name).build(source_dir)
        note = releases.check(built)  # before anything is written
        refused = refusal(name, built.card_info.license) if repo else None
        if refused and not permission:
            raise MathJudgeError(refused)  # before anything is written
        if with_pdfs and spec.pdfs:
            path = registry.resolve(spec.name, spec.pdfs)(built, out)
        else:
            path = write_dataset(built, out)
        click.echo(f"built {name} -> {path} ({note})")
        if record:
            click.echo(f"recorded {name} {built.version} in {releases.record(built)}")
        if repo:
            from mathjudge.dataio.hub import push_to_hub

            click.echo(f"pushed {name} -> {push_to_hub(path, repo, permission=permission)}")


def _at_revision(spec: BenchmarkSpec, pins: Pins, revision: str, source_dir: Path | None) -> Build:
    """Build from `revision` of the upstream repository, printing the pins it was made from."""
    if not pins.releases or pins.kind == "package":
        raise MathJudgeError(
            f"{spec.name}: built from the user's own copy, so it has no upstream revision to "
            "move to; --revision does not apply"
        )
    built = registry.builder(spec.name).build(source_dir, source=pins.at(revision).source)
    click.echo(f"{spec.name} at {revision}: to pin it, set in {pins.path}:")
    click.echo(f"  revision: {revision}")
    for _, files in built.sources:
        for path, found in sorted(files.items()):
            click.echo(f"  {path}: sha256: {found.sha256}")
    return built
