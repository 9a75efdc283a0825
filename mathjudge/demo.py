"""`mathjudge demo`: the whole pipeline on whatever sources are reachable.

Build every registered benchmark (mirror or network), run the deterministic baselines, evaluate
them into the results store and render the site. Each step reports what it did; a benchmark
whose source cannot be reached is skipped with the reason, not silently.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mathjudge import registry
from mathjudge.builders.writer import write_dataset
from mathjudge.config import mirror_root
from mathjudge.errors import MathJudgeError
from mathjudge.evaluate.dataset import open_dataset
from mathjudge.evaluate.evaluator import evaluate_file
from mathjudge.evaluate.reported import import_reported
from mathjudge.evaluate.results import write_json_atomic
from mathjudge.evaluate.store import save
from mathjudge.judges.baselines import BASELINES
from mathjudge.judges.length import BASELINES as LENGTH_BASELINES
from mathjudge.judges.predictions import write_jsonl
from mathjudge.leaderboard.render import build_site
from mathjudge.progress import console, progress_bar


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
        builder = spec.builder_module()
        try:
            path = write_dataset(builder.build(source_dir), datasets_dir)
        except MathJudgeError as exc:
            # A benchmark that ships an example (ExpertMath's package) falls back to it.
            example = getattr(builder, "EXAMPLE_PACKAGE", None)
            if example is None:
                report.skipped[name] = str(exc)
                say(f"[yellow]skipped[/] {name}: {exc}")
                continue
            path = write_dataset(builder.build(example), datasets_dir)
            say(f"built {name} from the shipped example (none in the mirror) -> {path}")
        else:
            say(f"built {name} -> {path}")
        report.built.append(name)

    for baseline in (*BASELINES, *LENGTH_BASELINES):
        spec = registry.get(baseline.benchmark)
        if spec.dataset_name not in report.built:
            continue
        dataset = open_dataset(spec.dataset_name, datasets_dir)
        items = pq.read_table(dataset.parquet(spec.items_config)).to_pylist()
        preds_path = workdir / "predictions" / baseline.benchmark / f"{baseline.key}.jsonl"
        with progress_bar(f"judge {baseline.key}", len(items), quiet=quiet) as advance:
            n = write_jsonl(preds_path, baseline.judge(_counted(items, advance), source_dir))
        say(f"ran {baseline.judge_name} on {baseline.benchmark}: {n} predictions -> {preds_path}")
        with progress_bar(f"bootstrap {baseline.key}", n_boot, quiet=quiet) as advance:
            result = evaluate_file(
                baseline.benchmark,
                preds_path,
                baseline.judge_name,
                datasets_dir=datasets_dir,
                allow_partial=baseline.partial,
                n_boot=n_boot,
                meta={"baseline": baseline.key, "description": baseline.description},
                on_progress=advance,
            )
        save(store, result)  # first: no JSON claims a result the store does not hold
        write_json_atomic(
            workdir / "results" / baseline.benchmark / f"{baseline.key}.json", result.to_json()
        )
        report.evaluated.append((baseline.benchmark, baseline.judge_name))
        say(f"evaluated {baseline.judge_name}: coverage {result.coverage:.1%} -> {store}")

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
    report.site = build_site(store, workdir / "site", datasets=datasets_dir)
    return report
