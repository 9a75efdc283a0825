"""Options several commands share, declared once."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge import registry
from mathjudge.base.config import MAX_BOOTSTRAP, MAX_SEED, default_datasets_dir

DATASETS = click.option(
    "--datasets",
    "datasets_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=default_datasets_dir,
    show_default="./datasets or $MATHJUDGE_DATASETS",
    help="Folder of built datasets.",
)
STORE = click.option(
    "--store",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("results.duckdb"),
    show_default=True,
    help="Results store (DuckDB file).",
)
BOOTSTRAP = click.option(
    "--bootstrap",
    "n_boot",
    type=click.IntRange(min=1, max=MAX_BOOTSTRAP),
    default=1000,
    show_default=True,
    help=f"Bootstrap resamples (problems resampled with replacement), at most {MAX_BOOTSTRAP:,}.",
)
SEED = click.option(
    "--seed",
    type=click.IntRange(min=0, max=MAX_SEED),
    help=f"Bootstrap seed, 0 to {MAX_SEED:,} (default: the benchmark's).",
)


def non_empty(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A text option that, when given, must say something (`--revision ""` is a mistake)."""
    if value is not None and (not value.strip() or not value.isprintable()):
        raise click.BadParameter("give a non-empty, printable value")
    return value


JSON_OUT = click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the result as JSON here.",
)
MATCHER = click.option(
    "--matcher",
    help="Benchmarks whose scorer matches predictions (arxivmathgradingbench: strict or llm; "
    "default strict); compare needs a stored judge scored with the same.",
)
MATCH_MODEL = click.option(
    "--match-model",
    help="With --matcher llm: the litellm model that decides matches (endpoint from "
    "MATHJUDGE_LLM_API_BASE / MATHJUDGE_LLM_API_KEY).",
)
SOURCE_DIR = click.option(
    "--source-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Read the sources from this folder instead of downloading them: a mirror root (one "
    "folder per benchmark, laid out like the shared data) or the benchmark's own folder; which "
    "one is detected and printed. Default: $MATHJUDGE_MIRROR, else the pinned upstream files "
    "are downloaded. expertmath: your problem package; hard2verify: your decrypted file's folder.",
)
QUIET = click.option("--quiet", is_flag=True, help="No progress bars or step messages.")
BENCH = click.argument("benchmark", type=click.Choice(registry.names()))


def scorer_options(matcher: str | None, match_model: str | None) -> dict[str, str] | None:
    """The scorer options given on the command line (None: the scorer's defaults); the scorer
    checks names and values."""
    given = {"matcher": matcher, "match_model": match_model}
    return {k: v for k, v in given.items() if v} or None
