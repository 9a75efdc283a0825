"""`mathjudge expertmath ...`: drafting ExpertMath-style problem packages (a command group the
spec contributes to the `mathjudge` command)."""

from __future__ import annotations

from pathlib import Path

import click


@click.group()
def expertmath() -> None:
    """ExpertMath-style problem packages."""


@expertmath.command("from-realmath")
@click.argument("realmath", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--model", "generator", required=True, help="litellm model that writes questions.")
@click.option(
    "--solver", "solvers", multiple=True, required=True, help="Solver model (repeat for several)."
)
@click.option("--variants", "n_variants", type=click.IntRange(min=1), default=2, show_default=True)
@click.option(
    "--min-agreement",
    type=click.FloatRange(0, 1),
    default=1.0,
    show_default=True,
    help="Share of solvers that must reach a question's answer for it to be kept.",
)
@click.option("--limit", type=click.IntRange(min=1), help="Only the first N theorems.")
@click.option("--api-base", help="OpenAI-compatible endpoint for the models.")
@click.option("--concurrency", type=click.IntRange(min=1), default=8, show_default=True)
@click.option(
    "--cache",
    type=click.Path(file_okay=False, path_type=Path),
    help="LLM answer cache (default: $MATHJUDGE_CACHE/llm).",
)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True)
def expertmath_from_realmath(
    realmath: Path,
    generator: str,
    solvers: tuple[str, ...],
    n_variants: int,
    min_agreement: float,
    limit: int | None,
    api_base: str | None,
    concurrency: int,
    cache: Path | None,
    out: Path,
) -> None:
    """Draft a problem package from RealMath theorems (REALMATH: realmath_processed.json):
    generated questions and variants kept where the solver models agree on the answer."""
    from mathjudge.base.config import cache_dir
    from mathjudge.benchmarks.expertmath.realmath import generate_package

    report = generate_package(
        realmath,
        out,
        generator=generator,
        solvers=list(solvers),
        cache_dir=cache or cache_dir() / "llm",
        n_variants=n_variants,
        min_agreement=min_agreement,
        limit=limit,
        api_base=api_base,
        concurrency=concurrency,
    )
    click.echo(", ".join(f"{k} {v}" for k, v in report.funnel.items()))
    click.echo(f"package draft -> {out} (add candidate solutions before building)")
