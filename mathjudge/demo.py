"""`mathjudge demo`: the whole pipeline on whatever sources are reachable.

Build every registered benchmark (mirror or network), run the deterministic baselines, import
the judge outputs that papers publish (the specs that name `outputs`), evaluate them all into the
results store and render the site. Each step reports what it did; a benchmark whose source
cannot be reached is skipped with the reason, not silently.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mathjudge import registry
from mathjudge.atomic import write_json_atomic
from mathjudge.benchmarks.published import write_all
from mathjudge.config import mirror_root
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.errors import MathJudgeError
from mathjudge.evaluate.evaluator import dataset_snapshot, evaluate_file
from mathjudge.evaluate.reported import import_reported
from mathjudge.judges.baselines import run_baseline
from mathjudge.judges.predictions import write_jsonl
from mathjudge.progress import console, progress_bar
from mathjudge.site import publish_site
from mathjudge.spec.benchmark import BenchmarkSpec
from mathjudge.store import save, save_datasets


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
    evaluated: list[tuple[str, str]] = field(default_factory=list)
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
    quiet: bool,
    n_boot: int,
) -> None:
    """Import the judge outputs a benchmark's paper publishes and evaluate each into the store,
    as any submission; skipped with the reason when the output files are not reachable."""
    assert spec.outputs is not None
    try:
        converted = spec.resolve(spec.outputs)(spec.name, source_dir)
    except MathJudgeError as exc:
        report.skipped[f"{spec.name} published outputs"] = str(exc)
        say(f"[yellow]skipped[/] published outputs of {spec.name}: {exc}")
        return
    folder = workdir / "predictions" / spec.name / "published"
    for judge, done in zip(converted, write_all(converted, folder), strict=True):
        with progress_bar(f"bootstrap {done.slug}", n_boot, quiet=quiet) as advance:
            result = evaluate_file(
                spec.name,
                done.predictions,
                done.judge,
                datasets_dir=workdir / "datasets",
                n_boot=n_boot,
                meta=judge.meta,
                on_progress=advance,
            )
        save(workdir / "results.duckdb", result)
        write_json_atomic(workdir / "results" / spec.name / f"{done.slug}.json", result.to_json())
        report.evaluated.append((spec.name, done.judge))
        say(f"evaluated published judge {done.judge} on {spec.name} -> {done.predictions}")


def run_demo(
    workdir: Path, *, source_dir: Path | None, quiet: bool, n_boot: int = 1000
) -> DemoReport:
    report = DemoReport()
    datasets_dir = workdir / "datasets"
    store = workdir / "results.duckdb"

    def say(message: str) -> None:
        if not quiet:
            console.print(message, soft_wrap=True, highlight=False)

    for name, spec in registry.datasets().items():
        builder = spec.builder()
        try:
            path = write_dataset(builder.build(source_dir), datasets_dir)
        except MathJudgeError as exc:
            # A benchmark that ships an example (ExpertMath's package) falls back to it.
            example = spec.example_dir()
            if example is None:
                report.skipped[name] = str(exc)
                say(f"[yellow]skipped[/] {name}: {exc}")
                continue
            path = write_dataset(builder.build(example), datasets_dir)
            say(f"built {name} from the shipped example (none in the mirror) -> {path}")
        else:
            say(f"built {name} -> {path}")
        report.built.append(name)

    # Every built dataset gets its page on the site, judged or not.
    save_datasets(store, [dataset_snapshot(name, datasets_dir) for name in report.built])

    baselines = [(spec, b) for spec in registry.specs() for b in spec.baselines]
    for spec, baseline in baselines:
        if spec.dataset not in report.built:
            continue
        dataset = open_dataset(spec.dataset, datasets_dir)
        items = pq.read_table(dataset.parquet(spec.items_config)).to_pylist()
        preds_path = workdir / "predictions" / spec.name / f"{baseline.key}.jsonl"
        with progress_bar(f"judge {baseline.key}", len(items), quiet=quiet) as advance:
            n = write_jsonl(
                preds_path, run_baseline(spec, baseline, _counted(items, advance), source_dir)
            )
        say(f"ran {baseline.judge_name} on {spec.name}: {n} predictions -> {preds_path}")
        with progress_bar(f"bootstrap {baseline.key}", n_boot, quiet=quiet) as advance:
            result = evaluate_file(
                spec.name,
                preds_path,
                baseline.judge_name,
                datasets_dir=datasets_dir,
                allow_partial=baseline.partial,
                n_boot=n_boot,
                meta={"baseline": baseline.key, "description": baseline.description},
                on_progress=advance,
            )
        save(store, result)
        out = workdir / "results" / spec.name / f"{baseline.key}.json"
        write_json_atomic(out, result.to_json())
        report.evaluated.append((spec.name, baseline.judge_name))
        say(f"evaluated {baseline.judge_name}: coverage {result.coverage:.1%} -> {store}")

    for spec in registry.specs():
        if spec.outputs and spec.dataset in report.built:
            _published_judges(spec, workdir, source_dir, report, say, quiet, n_boot)

    listing = _shared_listing(source_dir)
    if listing is not None:
        from mathjudge.arxiv.pipeline import run_filter  # imported only when there is a listing

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
    if reported is not None:
        report.reported = import_reported(reported, store)
        say(f"imported {report.reported} reported results from {reported}")

    if not report.built:
        raise MathJudgeError(
            "no benchmark source was reachable; point MATHJUDGE_MIRROR (or --source-dir) at a "
            "mirror folder such as ../shared/data"
        )
    report.site = publish_site(store, workdir / "site")
    return report
