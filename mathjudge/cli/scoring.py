"""`validate`, `evaluate` and `compare`: predictions files against a benchmark."""

from __future__ import annotations

from pathlib import Path

import click

from mathjudge.base.progress import progress_bar, steps_bar
from mathjudge.cli.options import (
    BENCH,
    BOOTSTRAP,
    DATASETS,
    JSON_OUT,
    MATCH_MODEL,
    MATCHER,
    QUIET,
    SEED,
    STORE,
    non_empty,
    scorer_options,
)
from mathjudge.cli.startup import skip_pandas_probe
from mathjudge.spec.scorer import FIELDWISE_REDUCERS


@click.command()
@BENCH
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--allow-partial", is_flag=True, help="Accept a file that skips some items.")
@DATASETS
def validate(benchmark: str, file: Path, allow_partial: bool, datasets_dir: Path) -> None:
    """Check a predictions FILE against BENCHMARK without scoring it."""
    skip_pandas_probe()
    from mathjudge.scoring.evaluator import validate_file

    sub = validate_file(benchmark, file, datasets_dir, allow_partial=allow_partial)
    click.echo(
        f"{file}: valid — {sub.table.num_rows} rows, {sub.n_items}/{sub.n_expected} items "
        f"({sub.coverage:.1%}), {sub.runs} run(s), fields: {', '.join(sub.fields)}"
    )


@click.command()
@BENCH
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--judge", required=True, help="Name shown on the leaderboard.")
@click.option(
    "--meta",
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSON object describing the judge (model, prompt, temperature, cost...).",
)
@click.option(
    "--allow-partial", is_flag=True, help="Score the answered items only (marked partial)."
)
@click.option(
    "--runs-agg",
    type=click.Choice(FIELDWISE_REDUCERS),
    default="mean",
    show_default=True,
    help="How several runs of one item are combined.",
)
@click.option(
    "--revision",
    metavar="VERSION",
    callback=non_empty,
    help="Score against this version of the dataset: the build in --datasets must be it, or "
    "with --from-hub the release tagged VERSION on that Hub repo is fetched (and cached).",
)
@click.option(
    "--from-hub",
    metavar="REPO",
    help="With --revision: the Hugging Face dataset repo the release is fetched from "
    "(HF_ENDPOINT / HF_TOKEN apply).",
)
@MATCHER
@MATCH_MODEL
@BOOTSTRAP
@SEED
@JSON_OUT
@STORE
@DATASETS
@QUIET
def evaluate(
    benchmark: str,
    file: Path,
    judge: str,
    meta: Path | None,
    allow_partial: bool,
    runs_agg: str,
    revision: str | None,
    from_hub: str | None,
    matcher: str | None,
    match_model: str | None,
    n_boot: int,
    seed: int | None,
    json_out: Path | None,
    store: Path,
    datasets_dir: Path,
    quiet: bool,
) -> None:
    """Validate and score a predictions FILE for BENCHMARK; save to the store."""
    skip_pandas_probe()
    from rich.console import Console
    from rich.table import Table

    from mathjudge import api
    from mathjudge.scoring.evaluator import read_meta
    from mathjudge.spec.request import EvaluationRequest

    asked = EvaluationRequest(
        benchmark=benchmark,
        predictions=file,
        judge=judge,
        datasets=datasets_dir,
        revision=revision,
        from_hub=from_hub,
        allow_partial=allow_partial,
        runs_agg=runs_agg,
        n_boot=n_boot,
        seed=seed,
        meta=read_meta(meta),
        options=scorer_options(matcher, match_model) or {},
        store=store,
        json_out=json_out,
    )
    with steps_bar(quiet=quiet) as steps:
        result = api.score(asked, on_progress=steps.advance, on_step=steps.start)
    table = Table(title=f"{benchmark} — {result.judge} (overall; every scope in the store/JSON)")
    for column in ("metric", "value", "95% CI", "n"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for s in result.scores:
        if s.scope == "overall":
            table.add_row(
                s.metric, _fmt(s.value), f"[{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]", str(s.n)
            )
    Console().print(table)
    partial = " (PARTIAL)" if result.partial else ""
    click.echo(
        f"coverage {result.coverage:.1%}{partial}; dataset version {result.dataset_version}; "
        f"saved as submission {result.id} in {store}"
    )


@click.command()
@BENCH
@click.argument("a")
@click.argument("b")
@MATCHER
@MATCH_MODEL
@BOOTSTRAP
@SEED
@JSON_OUT
@STORE
@DATASETS
@QUIET
def compare(
    benchmark: str,
    a: str,
    b: str,
    matcher: str | None,
    match_model: str | None,
    n_boot: int,
    seed: int | None,
    json_out: Path | None,
    store: Path,
    datasets_dir: Path,
    quiet: bool,
) -> None:
    """Paired comparison A - B: judge names or submission ids in the store, or files."""
    skip_pandas_probe()
    from mathjudge import api

    with progress_bar("paired bootstrap", n_boot, quiet=quiet) as advance:
        result = api.paired(
            benchmark,
            a,
            b,
            store=store,
            datasets=datasets_dir,
            json_out=json_out,
            n_boot=n_boot,
            seed=seed,
            options=scorer_options(matcher, match_model),
            on_progress=advance,
        )
    click.echo(result.format_table())


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"
