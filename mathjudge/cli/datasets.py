"""`mathjudge build`: datasets from their pinned sources."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from mathjudge import registry
from mathjudge.base.config import default_datasets_dir, doc_url
from mathjudge.base.errors import MathJudgeError, SourceUnavailable
from mathjudge.cli.options import SOURCE_DIR, non_empty

if TYPE_CHECKING:
    from mathjudge.dataio.pins import Pins
    from mathjudge.dataio.writer import Build
    from mathjudge.spec.benchmark import BenchmarkSpec


@click.command()
@click.argument("benchmark", type=click.Choice([*registry.dataset_names(), "all"]))
@SOURCE_DIR
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
    callback=non_empty,
    help="Build from this upstream revision (a commit of the GitHub repo, a revision of the "
    "Hub repo) instead of the pinned one: the files are taken as found and their sha256s "
    "printed as the pins to put in source.yaml (docs: updating-a-source.md). The version rule "
    "still applies; such a build is never pushed.",
)
@click.option(
    "--record-version",
    "record",
    is_flag=True,
    help="After the build, record it as the latest release in the benchmark's releases.json "
    "(maintainers, when publishing a new version; docs: versioning.md).",
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
    """Build BENCHMARK into OUT/BENCHMARK (Parquet, data card, manifest); `all` builds every
    benchmark whose source is reachable and reports the rest (exit 1 if any build failed).

    The build must follow the versioning rule (docs: versioning.md): a version recorded in the
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
            f"in source.yaml first ({doc_url('updating-a-source.md')})"
        )
    if revision and len(names) > 1:
        raise click.UsageError("--revision takes one benchmark at a time")
    options = _Options(source_dir, out, repo, permission, revision, record, with_pdfs)
    if benchmark != "all":
        _build_one(benchmark, options)
        return
    report: dict[str, dict[str, str]] = {"built": {}, "skipped": {}, "failed": {}}
    for name in names:
        try:
            report["built"][name] = _build_one(name, options)
        except SourceUnavailable as exc:
            report["skipped"][name] = str(exc)
            click.echo(f"skipped {name}: {exc}")
        except MathJudgeError as exc:
            report["failed"][name] = str(exc)
            click.echo(f"failed {name}: {exc}", err=True)
    counts = "; ".join(
        f"{kind} {len(found)}" + (f" ({', '.join(found)})" if found else "")
        for kind, found in report.items()
    )
    click.echo(f"build all: {counts}")
    if report["failed"] or not report["built"]:
        raise MathJudgeError(
            f"build all: {len(report['failed'])} failed (see above)"
            if report["failed"]
            else "build all: no source was reachable; set MATHJUDGE_MIRROR or --source-dir to a "
            "mirror root, or build where the upstream hosts can be reached"
        )


@dataclass(frozen=True)
class _Options:
    source_dir: Path | None
    out: Path
    repo: str | None
    permission: bool
    revision: str | None
    record: bool
    with_pdfs: bool


def _build_one(name: str, o: _Options) -> str:
    """Build one dataset as the options say, printing its source and outcome; the path."""
    from mathjudge.dataio import mirror, releases
    from mathjudge.dataio.pins import load_pins
    from mathjudge.dataio.redistribution import refusal
    from mathjudge.dataio.writer import write_dataset

    spec = registry.get(name)
    if o.repo and spec.local_only:
        raise MathJudgeError(f"{name}: {spec.local_only}; --push-to-hub refuses it")
    source = mirror.for_dataset(name, o.source_dir, mirror.known_folders(registry.dataset_names()))
    click.echo(f"{name}: source {source.how}")
    if o.revision:
        built = _at_revision(spec, load_pins(name), o.revision, source.folder)
    else:
        built = registry.builder(spec.name).build(source.folder)
    note = releases.check(built)  # before anything is written
    refused = refusal(name, built.card_info.license) if o.repo else None
    if refused and not o.permission:
        raise MathJudgeError(refused)  # before anything is written
    if o.with_pdfs and spec.pdfs:
        path = registry.resolve(spec.name, spec.pdfs)(built, o.out)
    else:
        path = write_dataset(built, o.out)
    click.echo(f"built {name} -> {path} ({note})")
    if o.record:
        click.echo(f"recorded {name} {built.version} in {releases.record(built)}")
    if o.repo:
        from mathjudge.dataio.hub import push_to_hub

        click.echo(f"pushed {name} -> {push_to_hub(path, o.repo, permission=o.permission)}")
    return str(path)


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
