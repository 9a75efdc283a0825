"""`mathjudge demo`: the whole pipeline on whatever sources are reachable.

Build every registered benchmark (mirror or network), run the deterministic baselines, import
the judge outputs that papers publish (the specs that name `outputs`), and submit them all to a
leaderboard repository (`leaderboard/`, with `mathjudge submit`'s layout); then sync that
repository into the results store and render the site, exactly as `mathjudge repo sync`
does, so the demo's site is reproduced from its repository's files alone. Each step reports
what it did; a benchmark whose source cannot be reached is skipped with the reason, not
silently. Run again, it keeps each baseline's predictions whose data and code are unchanged
(`judges.reuse`) and scores only the folders that changed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mathjudge import registry
from mathjudge.api import publish_site
from mathjudge.base.config import mirror_root
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.progress import console, progress_bar
from mathjudge.benchmarks.published import Converted, github_files, write_all
from mathjudge.dataio import mirror
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.judges import reuse
from mathjudge.judges.baselines import run_baseline
from mathjudge.judges.predictions import write_jsonl
from mathjudge.repo.folder import META, SUBMISSIONS, meta_yaml, read_meta
from mathjudge.repo.submit import submit
from mathjudge.repo.sync import sync
from mathjudge.spec.benchmark import Baseline, BenchmarkSpec
from mathjudge.spec.folder import SubmissionMeta

REPO = "leaderboard"  # the demo's leaderboard repository, under its working folder


def _counted(
    rows: list[dict[str, Any]], advance: Callable[[int], None]
) -> Iterator[dict[str, Any]]:
    """Feed rows to a judge while moving its progress bar."""
    for row in rows:
        yield row
        advance(1)


@dataclass
class DemoReport:
    built: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    scored: list[str] = field(default_factory=list)  # folders scored by this run
    unchanged: list[str] = field(default_factory=list)  # folders scored by an earlier one
    kept: list[str] = field(default_factory=list)  # baselines whose predictions were reused
    site: Path | None = None
    reported: int = 0
    arxiv_survivors: int | None = None


# The demo mines the arXiv API listing of the shared mirror over one year (stage 1 only: the
# LLM stages need a model).
LISTING = Path("arxiv-metadata-samples") / "arxiv_api_math_NT_RT_listing_2025-2026.jsonl"
DEMO_WINDOW = (dt.date(2025, 1, 1), dt.date(2025, 12, 31))


def _shared_listing(source_dir: Path | None) -> Path | None:
    root = source_dir or mirror_root()
    return root / LISTING if root is not None and (root / LISTING).is_file() else None


def _reported_folder(source_dir: Path | None) -> Path | None:
    """Result tables transcribed from papers live in the mirror's `reported/` folder."""
    root = source_dir or mirror_root()
    folder = root / "reported" if root else None
    return folder if folder is not None and folder.is_dir() else None


def _published_judges(
    spec: BenchmarkSpec,
    workdir: Path,
    source_dir: Path | None,
    report: DemoReport,
    say: Callable[[str], None],
) -> None:
    """Import the judge outputs a benchmark's paper publishes and submit each, as any judge;
    skipped with the reason when the output files are not reachable."""
    assert spec.outputs is not None
    try:
        converted = registry.resolve(spec.name, spec.outputs)(spec.name, source_dir)
    except MathJudgeError as exc:
        report.skipped[f"{spec.name} published outputs"] = str(exc)
        say(f"[yellow]skipped[/] published outputs of {spec.name}: {exc}")
        return
    folder = workdir / "predictions" / spec.name / "published"
    for judge, done in zip(converted, write_all(converted, folder), strict=True):
        meta = _published_meta(spec, judge, _repo(workdir), done.slug)
        _submit(spec, done.predictions, meta, workdir, done.slug, partial=done.partial, say=say)


def _published_meta(spec: BenchmarkSpec, judge: Converted, repo: Path, slug: str) -> SubmissionMeta:
    """The submission meta of a judge whose outputs a paper publishes: where they come from
    (`converted_from`, and the commit and files in `config`) and the kind of judge."""
    source_meta = judge.meta
    source = source_meta.get("source") or {}
    link = source.get("repository") or _paper_link(spec)
    files = ", ".join(f["path"] for f in source.get("files", []))
    config = {
        "judging": source_meta.get("judging"),
        "source_commit": source.get("commit"),
        "source_files": files or None,
        "imported_with": source_meta.get("imported_with"),
    }
    return SubmissionMeta(
        judge=judge.judge,
        model=str(source_meta.get("model") or "none"),
        organization=f"the authors of {spec.paper.title if spec.paper else spec.title}",
        link=link,
        date=_date(repo, spec.name, slug),
        config={k: str(v) for k, v in config.items() if v},
        open_weights=None,
        license="not stated upstream (published with the paper's code)",
        contact=link,
        kind=judge.kind,
        converted_from=judge.converted_from,
    )


def _baseline_meta(spec: BenchmarkSpec, baseline: Baseline, repo: Path) -> SubmissionMeta:
    return SubmissionMeta(
        judge=baseline.judge_name,
        model="none",
        organization="mathjudge (a deterministic baseline)",
        link=_paper_link(spec),
        date=_date(repo, spec.name, baseline.key),
        config={"baseline": baseline.key, "rule": baseline.description},
        open_weights=None,
        license="CC0-1.0",
        contact="the mathjudge maintainers",
        kind=baseline.kind,
        converted_from=_source_files(spec) if baseline.from_source else None,
    )


def _source_files(spec: BenchmarkSpec) -> str:
    """Where a benchmark's pinned source files are published (a baseline converting a judgment
    that ships with them names them as `converted_from`)."""
    pins = load_pins(spec.dataset)
    return github_files(pins.repo, pins.revision, [f.upstream for f in pins.files])


def _paper_link(spec: BenchmarkSpec) -> str:
    return f"https://arxiv.org/abs/{spec.paper.arxiv}" if spec.paper else "https://arxiv.org/"


def _repo(workdir: Path) -> Path:
    return workdir / REPO


def _date(repo: Path, benchmark: str, slug: str) -> dt.date:
    """The date of the submission already in the repository (so re-running the demo on
    another day changes nothing), else today."""
    meta = repo / SUBMISSIONS / benchmark / slug / META
    if meta.is_file():
        try:
            return read_meta(meta).date
        except MathJudgeError:
            pass
    return dt.datetime.now(dt.UTC).date()


def _submit(
    spec: BenchmarkSpec,
    predictions: Path,
    meta: SubmissionMeta,
    workdir: Path,
    slug: str,
    *,
    partial: bool,
    say: Callable[[str], None],
) -> None:
    meta_path = predictions.with_name(f"{predictions.stem}.meta.yaml")
    meta_path.write_text(meta_yaml(meta), encoding="utf-8")
    done = submit(
        spec.name,
        predictions,
        meta_path,
        _repo(workdir),
        datasets_dir=workdir / "datasets",
        slug=slug,
        allow_partial=partial,
    )
    say(f"submitted {meta.judge} on {spec.name} ({done.status}) -> {done.folder}")


def run_demo(
    workdir: Path,
    *,
    source_dir: Path | None,
    quiet: bool,
    n_boot: int = 1000,
) -> DemoReport:
    """The demo in `workdir`: every dataset the mirror (or a shipped example) can build, its
    baselines and published judges submitted, the arXiv mining, the sync and the site."""
    report = DemoReport()
    datasets_dir = workdir / "datasets"
    store = workdir / "results.duckdb"

    def say(message: str) -> None:
        if not quiet:
            console.print(message, soft_wrap=True, highlight=False)

    known = mirror.known_folders(registry.dataset_names())
    if source_dir is not None:
        mirror.root(source_dir, known)
    for name, spec in registry.datasets().items():
        builder = registry.builder(spec.name)
        try:
            source = mirror.for_dataset(name, source_dir, known)
            path = write_dataset(builder.build(source.folder), datasets_dir)
        except MathJudgeError as exc:
            # A benchmark that ships an example (ExpertMath's package) falls back to it.
            example = registry.example_dir(spec.name)
            if example is None:
                report.skipped[name] = str(exc)
                say(f"[yellow]skipped[/] {name}: {exc}")
                continue
            path = write_dataset(builder.build(example), datasets_dir)
            say(f"built {name} from the shipped example (none in the mirror) -> {path}")
        else:
            say(f"built {name} -> {path}")
        report.built.append(name)
    if not report.built:
        raise MathJudgeError(
            "no benchmark source was reachable; point MATHJUDGE_MIRROR (or --source-dir) at a "
            "mirror folder such as ../shared/data"
        )

    (_repo(workdir) / SUBMISSIONS).mkdir(parents=True, exist_ok=True)
    baselines = [(spec, b) for spec in registry.specs() for b in spec.baselines]
    for spec, baseline in baselines:
        if spec.dataset not in report.built:
            continue
        dataset = open_dataset(spec.dataset, datasets_dir)
        preds_path = workdir / "predictions" / spec.name / f"{baseline.key}.jsonl"
        sidecar = preds_path.with_name(f"{preds_path.stem}.details.jsonl")
        key = reuse.inputs_key(spec.name, baseline, dataset)
        if reuse.kept(preds_path, sidecar, key):
            report.kept.append(f"{spec.name}/{baseline.key}")
            say(f"kept {baseline.judge_name} on {spec.name} (same data and code) -> {preds_path}")
        else:
            items = pq.read_table(dataset.parquet(spec.items_config)).to_pylist()
            with progress_bar(f"judge {baseline.key}", len(items), quiet=quiet) as advance:
                rows, details = run_baseline(spec, baseline, _counted(items, advance), source_dir)
            n = write_jsonl(preds_path, rows)
            if details:
                write_jsonl(sidecar, details)
            else:
                sidecar.unlink(missing_ok=True)
            reuse.record(preds_path, sidecar, key)
            say(f"ran {baseline.judge_name} on {spec.name}: {n} predictions -> {preds_path}")
        meta = _baseline_meta(spec, baseline, _repo(workdir))
        _submit(spec, preds_path, meta, workdir, baseline.key, partial=baseline.partial, say=say)

    for spec in registry.specs():
        if spec.outputs and spec.dataset in report.built:
            _published_judges(spec, workdir, source_dir, report, say)

    listing = _shared_listing(source_dir)
    if listing is not None:
        from mathjudge.benchmarks.arxivmathgradingbench.mining.pipeline import (
            run_filter,  # imported only when there is a listing
        )

        mined = run_filter(
            [listing],
            since=DEMO_WINDOW[0],
            until=DEMO_WINDOW[1],
            out_dir=workdir / "arxiv-filter",
            quiet=quiet,
        )
        report.arxiv_survivors = len(mined.candidates)
        say(
            f"arXiv stage 1 over {listing.name} ({DEMO_WINDOW[0]}..{DEMO_WINDOW[1]}): "
            f"{report.arxiv_survivors} candidate paper versions -> {mined.out_dir}"
        )

    reported = _reported_folder(source_dir)
    synced = sync(
        _repo(workdir),
        store,
        datasets_dir,
        n_boot=n_boot,
        reported=reported,
        say=say,
        progress=lambda label, total: progress_bar(label, total, quiet=quiet),
    )
    report.scored, report.unchanged = synced.evaluated, synced.unchanged
    report.reported = synced.reported
    if reported is not None:
        say(f"imported {report.reported} reported results from {reported}")
    say(
        f"synced {_repo(workdir)}: {len(synced.evaluated)} scored, "
        f"{len(synced.unchanged)} unchanged, {len(synced.removed)} removed -> {store}"
    )
    # The demo's site stays on this machine: it may show the texts of local-only datasets.
    report.site = publish_site(store, workdir / "site", local_texts=True)
    return report
