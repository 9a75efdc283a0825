"""`mathjudge arxiv filter`: the arXiv mining pipeline that finds candidates for this benchmark
(a command group the spec contributes to the `mathjudge` command)."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.benchmarks.arxivmathgradingbench.mining.licenses import OAI_URL as _ARXIV_OAI_URL
from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import API_URL as _ARXIV_API_URL
from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import (
    DEFAULT_DELAY_S as _ARXIV_DELAY_S,
)
from mathjudge.benchmarks.arxivmathgradingbench.mining.stage1 import DEFAULT_PATTERNS as _PATTERNS
from mathjudge.benchmarks.arxivmathgradingbench.mining.stage1 import Patterns

QUIET = click.option("--quiet", is_flag=True, help="No progress bars or step messages.")


@click.group()
def arxiv() -> None:
    """Mine arXiv metadata for papers whose later version corrects an error."""


@arxiv.command("filter")
@click.argument("inputs", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--since", type=click.DateTime(["%Y-%m-%d"]), help="First version date kept.")
@click.option("--until", type=click.DateTime(["%Y-%m-%d"]), help="Last version date kept.")
@click.option("--harvest", is_flag=True, help="Also harvest the window from the arXiv API.")
@click.option(
    "--harvest-url",
    default=_ARXIV_API_URL,
    show_default=True,
    help="arXiv API query endpoint for --harvest (e.g. a mirror).",
)
@click.option(
    "--harvest-delay",
    type=click.FloatRange(min=0),
    default=_ARXIV_DELAY_S,
    show_default=True,
    help="Seconds between requests to arXiv (harvest, license lookup; arXiv asks for 3).",
)
@click.option(
    "--format",
    "input_format",
    type=click.Choice(["kaggle", "listing", "records"]),
    help="Format of every INPUT (default: detected per file).",
)
@click.option("--correction-pattern", default=_PATTERNS.correction, show_default=True)
@click.option("--result-pattern", default=_PATTERNS.formal_result, show_default=True)
@click.option(
    "--revision-pattern",
    default=_PATTERNS.revision,
    show_default=True,
    help="Marks a later version when the version number says 1.",
)
@click.option("--category-prefix", default=_PATTERNS.category_prefix, show_default=True)
@click.option(
    "--lookup-licenses",
    is_flag=True,
    help="Ask arXiv's OAI-PMH interface for the license of candidates whose inputs state none "
    "(API listings); without it they count as not permissive.",
)
@click.option("--oai-url", default=_ARXIV_OAI_URL, show_default=True, help="OAI-PMH endpoint.")
@click.option("--classify-model", help="litellm model for stage 2 (without it: stage 1 only).")
@click.option("--api-base", help="OpenAI-compatible endpoint for the model (e.g. a local server).")
@click.option("--concurrency", type=click.IntRange(min=1), default=8, show_default=True)
@click.option(
    "--cache",
    "cache",
    type=click.Path(file_okay=False, path_type=Path),
    help="LLM answer cache (default: $MATHJUDGE_CACHE/llm).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("arxiv-filter"),
    show_default=True,
)
@QUIET
def arxiv_filter(
    inputs: tuple[Path, ...],
    since,
    until,
    harvest: bool,
    harvest_url: str,
    harvest_delay: float,
    input_format: str | None,
    correction_pattern: str,
    result_pattern: str,
    revision_pattern: str,
    category_prefix: str,
    lookup_licenses: bool,
    oai_url: str,
    classify_model: str | None,
    api_base: str | None,
    concurrency: int,
    cache: Path | None,
    out: Path,
    quiet: bool,
) -> None:
    """Regex stage in DuckDB, then (with a model) LLM classification, license filter and
    location extraction; writes candidates.parquet, funnel.json and the mined split.

    Patterns are case-insensitive RE2, searched in the comment."""
    from mathjudge.base.config import cache_dir
    from mathjudge.benchmarks.arxivmathgradingbench.mining.licenses import LicenseLookup
    from mathjudge.benchmarks.arxivmathgradingbench.mining.pipeline import (
        HarvestOptions,
        run_filter,
    )

    if harvest and (since is None or until is None):
        raise click.UsageError("--harvest needs both --since and --until")
    if not inputs and not harvest:
        raise click.UsageError("give metadata files, --harvest, or both")

    cache = cache or cache_dir() / "llm"
    licenses = LicenseLookup(cache, oai_url, harvest_delay) if lookup_licenses else None
    report = run_filter(
        list(inputs),
        since=since.date() if since else None,
        until=until.date() if until else None,
        out_dir=out,
        classify_model=classify_model,
        cache_dir=cache,
        concurrency=concurrency,
        api_base=api_base,
        harvest=HarvestOptions(base_url=harvest_url, delay_s=harvest_delay) if harvest else None,
        licenses=licenses,
        input_format=input_format,
        patterns=Patterns(correction_pattern, result_pattern, revision_pattern, category_prefix),
        quiet=quiet,
    )
    skipped = report.funnel.get("skipped_lines", [])
    for line in skipped[:20]:
        click.echo(f"warning: skipped unreadable line {line}", err=True)
    if len(skipped) > 20:
        click.echo(f"warning: ... and {len(skipped) - 20} more (funnel.json lists all)", err=True)
    for step in report.funnel["steps"]:
        shown = step["count"] if step["count"] is not None else step.get("note", "")
        click.echo(f"stage {step['stage']} {step['name']:>22}: {shown}")
    for line in report.usage_lines:
        click.echo(line)
    click.echo(f"wrote {out}/candidates.parquet and {out}/funnel.json")
    if report.dataset is not None:
        click.echo(f"mined split -> {report.dataset}")
