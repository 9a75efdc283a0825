"""`mathjudge judge ...`: run a reference judge on a built benchmark and write a submission
(predictions JSONL + meta.json) that `mathjudge evaluate --meta` takes as it is. Imported only
when a `judge` command runs: the judges pull in the model client."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from mathjudge import registry
from mathjudge.base.config import cache_dir, default_datasets_dir
from mathjudge.base.progress import progress_bar
from mathjudge.judges.catalog import JUDGES, make
from mathjudge.judges.proof_grader import CONTEXTS
from mathjudge.judges.step_agent import MODULES

API_BASE_ENV = "MATHJUDGE_LLM_API_BASE"
API_KEY_ENV = "MATHJUDGE_LLM_API_KEY"


@click.group()
def judge() -> None:
    """Reference judges (LLM judges through litellm, and rule-based ones)."""


@judge.command("list")
def judge_list() -> None:
    """Each judge and the benchmarks it writes."""
    from mathjudge.judges.runner import benchmarks_of

    for name, factory in sorted(JUDGES.items()):
        needs = "model" if factory.uses_model else "no model"
        click.echo(f"{name:20} {needs:9} {', '.join(benchmarks_of(name))}")


@judge.command("run")
@click.argument("judge_name", metavar="JUDGE", type=click.Choice(sorted(JUDGES)))
@click.argument("benchmark", type=click.Choice(registry.names()))
@click.option(
    "--model",
    help="litellm model name, e.g. openai/gpt-4o-mini, anthropic/..., "
    "or openai/<name> with --api-base for a local server.",
)
@click.option(
    "--runs",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Independent judgments per item (an ensemble; each run cached apart).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=8,
    show_default=True,
    help="Model calls in flight at most.",
)
@click.option("--limit", type=click.IntRange(min=1), help="Judge only the first N items.")
@click.option(
    "--cache",
    "cache",
    type=click.Path(file_okay=False, path_type=Path),
    help="Answer cache (default: $MATHJUDGE_CACHE/llm).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Predictions file (default: predictions/BENCH/JUDGE--MODEL.jsonl); "
    "meta.json and failures are written beside it.",
)
@click.option("--api-base", help=f"OpenAI-compatible endpoint (default: ${API_BASE_ENV}).")
@click.option("--temperature", type=float, help="Sampling temperature (default: the model's).")
@click.option("--max-tokens", type=click.IntRange(min=1), help="Cap on answer tokens.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=300.0,
    show_default=True,
    help="Seconds per model call attempt.",
)
@click.option(
    "--attempts",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Answers asked for per call when one cannot be parsed.",
)
@click.option(
    "--context",
    type=click.Choice(CONTEXTS),
    help="proof-grader: reference material shown (default ref+ms).",
)
@click.option(
    "--threshold",
    type=click.IntRange(0, 7),
    help="proof-grader on opc: lowest grade counted as a correct proof (default 6).",
)
@click.option(
    "--module",
    "modules",
    multiple=True,
    type=click.Choice(sorted(MODULES)),
    help="step-agent: add an optional check (repeatable).",
)
@click.option(
    "--rollouts",
    type=click.IntRange(min=1),
    help="cbu: answers per neighbourhood question and candidate (default 4).",
)
@click.option(
    "--datasets",
    "datasets_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=default_datasets_dir,
    show_default="./datasets or $MATHJUDGE_DATASETS",
)
@click.option("--quiet", is_flag=True, help="No progress bar.")
def judge_run(
    judge_name: str,
    benchmark: str,
    model: str | None,
    runs: int,
    concurrency: int,
    limit: int | None,
    cache: Path | None,
    out: Path | None,
    api_base: str | None,
    temperature: float | None,
    max_tokens: int | None,
    timeout: float,
    attempts: int,
    context: str | None,
    threshold: int | None,
    modules: tuple[str, ...],
    rollouts: int | None,
    datasets_dir: Path,
    quiet: bool,
) -> None:
    """Run JUDGE on BENCHMARK's built items and write a valid predictions file."""
    from mathjudge.judges.runner import dataset_rows, default_out, run_judge, write_outputs
    from mathjudge.llm.client import LlmClient

    options = {
        "context": context,
        "threshold": threshold,
        "modules": modules,
        "rollouts": rollouts,
    }
    judge_ = make(judge_name, options)
    if judge_.uses_model and not model:
        raise click.UsageError(f"judge {judge_name!r} needs --model")
    if not judge_.uses_model and model:
        raise click.UsageError(f"judge {judge_name!r} uses no model; drop --model")
    dataset, rows, total = dataset_rows(benchmark, datasets_dir, limit=limit)
    client = None
    if judge_.uses_model:
        assert model is not None
        params = {
            k: v
            for k, v in (("temperature", temperature), ("max_tokens", max_tokens))
            if v is not None
        }
        api_base = api_base or os.environ.get(API_BASE_ENV) or None
        client = LlmClient(
            model,
            cache_dir=cache or cache_dir() / "llm",
            params=params,
            api_base=api_base,
            api_key=os.environ.get(API_KEY_ENV) or None,
            concurrency=concurrency,
            timeout=timeout,
        )
    with progress_bar(f"{judge_name} on {benchmark}", len(rows) * runs, quiet=quiet) as advance:
        result = run_judge(
            judge_, benchmark, rows, client=client, runs=runs, attempts=attempts, progress=advance
        )
    out = out or default_out(benchmark, judge_name, model)
    extra: dict[str, Any] = {
        "dataset": {"version": dataset.version, "content_hash": dataset.content_hash},
        "api_base": client.api_base if client else None,
        "limit": limit,
        "partial": result.partial or len(rows) < total,
    }
    report = judge_.report(result.details)  # a judge's own tallies (e.g. cbu's answers)
    if report:
        extra["judge_report"] = report
    paths = write_outputs(result, out, extra_meta=extra)
    click.echo(result.summary())
    if report:
        click.echo(f"{judge_name}: " + ", ".join(f"{k} {v}" for k, v in report.items()))
    click.echo(f"wrote {paths.predictions} and {paths.meta}")
    if paths.failures:
        click.echo(f"failures: {paths.failures}")
    partial = " --allow-partial" if extra["partial"] else ""
    click.echo(
        f"next: mathjudge evaluate {benchmark} {paths.predictions} --judge '{judge_name} "
        f"({model or 'rules'})' --meta {paths.meta}{partial}"
    )
