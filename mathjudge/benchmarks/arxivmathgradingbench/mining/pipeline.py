"""`mathjudge arxiv filter`: arXiv metadata in, an ArxivMathGradingBench-style split out, of
papers whose later version says it corrected an error in a named result.

Stage 1 keeps comments that look like corrections (regex, DuckDB). Versions of one paper that
repeat the same comment announce one correction, made by the earliest of them. Stage 2 (only
with a model) keeps the comments a model labels a major or minor error correction. Stage 3
keeps papers with a permissive license, finds the error locations in the comment (regex, the
model where the regex finds none) and writes the split. Every candidate of stage 1 stays in
`candidates.parquet` with the stage it reached and why it stopped, and `funnel.json` counts
every step, so a run can be audited and, from its manifest, reproduced.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.atomic import atomic_path
from mathjudge.base.config import cache_dir as default_cache_dir
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.mining import readers
from mathjudge.benchmarks.arxivmathgradingbench.mining.candidates import (
    Candidate,
    Step,
    write_candidates,
)
from mathjudge.benchmarks.arxivmathgradingbench.mining.licenses import LicenseLookup
from mathjudge.benchmarks.arxivmathgradingbench.mining.mined_split import (
    BENCHMARK,
    VERSION,
    input_pins,
    split_build,
    split_row,
)
from mathjudge.benchmarks.arxivmathgradingbench.mining.stage1 import (
    DEFAULT_PATTERNS,
    Patterns,
    run_stage1,
)
from mathjudge.benchmarks.arxivmathgradingbench.mining.stages import (
    MODEL_STEPS,
    ModelOptions,
    distinct_corrections,
    model_stages,
)
from mathjudge.dataio.writer import write_dataset

HARVEST_FILE = "harvest.jsonl"
CANDIDATES_FILE = "candidates.parquet"
FUNNEL_FILE = "funnel.json"


@dataclass(frozen=True)
class HarvestOptions:
    """A live harvest from the arXiv API over the run's window (see `readers.harvest`)."""

    base_url: str = readers.API_URL
    query: str = readers.MATH_QUERY
    page_size: int = 100
    delay_s: float = readers.DEFAULT_DELAY_S
    user_agent: str = readers.USER_AGENT


@dataclass(frozen=True)
class FilterReport:
    out_dir: Path
    funnel: dict[str, Any]  # what funnel.json holds
    candidates: list[dict[str, Any]]  # the rows of candidates.parquet
    dataset: Path | None  # the built split; None when stage 3 did not run
    usage_lines: tuple[str, ...] = ()  # model usage, one line per model step


def _harvest(
    harvest: HarvestOptions, since: dt.date | None, until: dt.date | None, out_dir: Path
) -> tuple[Path, int]:
    """Harvest the window into `out_dir/harvest.jsonl` (kept: it is an input of the run)."""
    if since is None or until is None:
        raise MathJudgeError("a harvest needs both --since and --until")
    path = out_dir / HARVEST_FILE
    records = readers.harvest(
        since,
        until,
        base_url=harvest.base_url,
        query=harvest.query,
        page_size=harvest.page_size,
        delay_s=harvest.delay_s,
        user_agent=harvest.user_agent,
    )
    return path, readers.write_records(records, path)


def _remove_stale_split(out_dir: Path) -> None:
    """A split left by an earlier run with a model would contradict this run's funnel."""
    manifest = out_dir / BENCHMARK / "manifest.json"
    if (
        manifest.is_file()
        and json.loads(manifest.read_text(encoding="utf-8")).get("benchmark") == BENCHMARK
    ):
        shutil.rmtree(out_dir / BENCHMARK)


def run_filter(
    inputs: Sequence[Path],
    *,
    since: dt.date | None,
    until: dt.date | None,
    out_dir: Path,
    classify_model: str | None = None,
    patterns: Patterns = DEFAULT_PATTERNS,
    cache_dir: Path | None = None,
    concurrency: int = 8,
    api_base: str | None = None,
    harvest: HarvestOptions | None = None,
    licenses: LicenseLookup | None = None,
    input_format: str | None = None,
    quiet: bool = True,
) -> FilterReport:
    """Run the pipeline over `inputs` (files in any mix of formats, detected unless
    `input_format` is given) and, with `harvest`, a live harvest of the window, into
    `out_dir`: candidates.parquet, funnel.json and, when a model is given, the split at
    `out_dir/arxivmathgradingbench-mined/`. Without a model the run stops after stage 1. With
    `licenses`, candidates whose inputs state no license (API listings) have it looked up."""
    sources = [readers.open_input(path, input_format) for path in inputs]
    origins: dict[Path, str] = {}
    harvested = 0
    if harvest is not None:
        path, harvested = _harvest(harvest, since, until, out_dir)
        if harvested:
            sources.append(readers.open_input(path, readers.Format.RECORDS))
            origins[path] = f"harvest:{harvest.base_url}"
    if not sources:
        raise MathJudgeError("no inputs: give metadata files, --harvest, or both")
    stage1 = run_stage1(sources, since=since, until=until, patterns=patterns)
    candidates = [Candidate.of(r) for r in stage1.survivors]
    steps = [Step(1, "read", stage1.read)]
    if stage1.skipped:
        note = f"{len(stage1.skipped)} unreadable line(s) skipped: " + "; ".join(
            stage1.skipped[:10]
        )
        steps.append(Step(1, "unreadable_lines", len(stage1.skipped), note=note))
    steps += [Step(1, s.name, s.kept, s.dropped_examples) for s in stage1.steps]
    live = distinct_corrections(candidates, steps)
    if classify_model is None:
        note = "not run: no classification model given, the run stopped after stage 1"
        steps += [Step(stage, name, None, note=note) for stage, name in MODEL_STEPS]
        stage2: dict[str, Any] = {"run": False, "model": None, "prompt_sha256": None}
        stage3: dict[str, Any] = {"run": False}
        final = None
    else:
        model = ModelOptions(
            classify_model, cache_dir or default_cache_dir() / "llm", concurrency, api_base, quiet
        )
        live, stage2, stage3 = model_stages(live, model, patterns, steps, licenses)
        final = len(live)
    funnel = {
        "pipeline": {"name": "mathjudge arxiv filter", "version": VERSION},
        "inputs": input_pins(sources, origins),
        "skipped_lines": list(stage1.skipped),
        "harvest": None if harvest is None else {**vars(harvest), "records": harvested},
        "window": {"since": str(since) if since else None, "until": str(until) if until else None},
        "patterns": patterns.as_dict(),
        "steps": [s.to_json() for s in steps],
        "stage2": stage2,
        "stage3": stage3,
        "final": final,
    }
    dataset = None
    if classify_model is None:
        _remove_stale_split(out_dir)
    else:
        dataset = write_dataset(split_build(funnel, [split_row(c) for c in live]), out_dir)
    rows = write_candidates(candidates, out_dir / CANDIDATES_FILE)
    with atomic_path(out_dir / FUNNEL_FILE) as tmp:
        tmp.write_text(json.dumps(funnel, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    usage = (stage2.get("usage_line"), stage3.get("locations_model", {}).get("usage_line"))
    return FilterReport(out_dir, funnel, rows, dataset, tuple(u for u in usage if u))
