"""The `mathjudge` command. Thin on purpose: parse arguments, call the library, print.

Exit codes: 0 ok, 1 invalid input or unreachable source (the message says what and where),
2 usage error (click's default).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from mathjudge import __version__, registry
from mathjudge.arxiv.licenses import OAI_URL as _ARXIV_OAI_URL
from mathjudge.arxiv.readers import API_URL as _ARXIV_API_URL
from mathjudge.arxiv.readers import DEFAULT_DELAY_S as _ARXIV_DELAY_S
from mathjudge.arxiv.stage1 import DEFAULT_PATTERNS as _PATTERNS
from mathjudge.arxiv.stage1 import Patterns
from mathjudge.config import default_datasets_dir
from mathjudge.errors import MathJudgeError, UsageError
from mathjudge.evaluate.runs import RUNS_AGGREGATES
from mathjudge.progress import progress_bar

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
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Bootstrap resamples (problems resampled with replacement).",
)
SEED = click.option("--seed", type=int, help="Bootstrap seed (default: the benchmark's).")
JSON_OUT = click.option(
    "--json",
    "json_out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the result as JSON here.",
)
PDF_BENCHMARK = "arxivmathgradingbench"
MATCHER = click.option(
    "--matcher",
    type=click.Choice(["strict", "llm"]),
    help="arxivmathgradingbench: how predicted error locations are matched (default strict); "
    "compare needs a stored judge scored with the same.",
)
MATCH_MODEL = click.option(
    "--match-model",
    help="With --matcher llm: the litellm model that decides matches (endpoint from "
    "MATHJUDGE_LLM_API_BASE / MATHJUDGE_LLM_API_KEY).",
)
QUIET = click.option("--quiet", is_flag=True, help="No progress bars or step messages.")
BENCH = click.argument("benchmark", type=click.Choice(sorted(registry.BENCHMARKS)))


class _Group(click.Group):
    """Turns MathJudgeError into an `error:` message on stderr and exit code 1 (2 for an
    unusable setting, as for a usage error)."""

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)
        except MathJudgeError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="mathjudge")
def main() -> None:
    """Benchmarks, evaluator and leaderboard for judges of mathematical work."""


@main.command()
@click.argument("benchmark", type=click.Choice([*sorted(registry.datasets()), "all"]))
@click.option(
    "--source-dir",
    "--source",
    type=click.Path(file_okay=False, path_type=Path),
    help="Local mirror: the benchmark's folder or a root with one folder per benchmark "
    "(default: $MATHJUDGE_MIRROR, else the pinned upstream URLs). expertmath: the problem "
    "package folder; hard2verify: the folder holding your decrypted file.",
)
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
    "(StepMathBench, ProofBench, ArxivMathGradingBench) because its authors allowed you to.",
)
@click.option(
    "--with-pdfs",
    is_flag=True,
    help=f"{PDF_BENCHMARK}: also fetch the arXiv PDFs of permissively licensed papers "
    "(pdfs/ and pdfs.json beside the data).",
)
def build(
    benchmark: str,
    source_dir: Path | None,
    out: Path,
    repo: str | None,
    permission: bool,
    with_pdfs: bool,
) -> None:
    """Build BENCHMARK into OUT/BENCHMARK (Parquet, data card, manifest)."""
    names = sorted(registry.datasets()) if benchmark == "all" else [benchmark]
    if repo and len(names) > 1:
        raise click.UsageError("--push-to-hub takes one benchmark at a time")
    if with_pdfs and benchmark not in (PDF_BENCHMARK, "all"):
        raise click.UsageError(f"--with-pdfs applies to {PDF_BENCHMARK} only")
    if permission and not repo:
        raise click.UsageError("--i-have-permission-to-redistribute goes with --push-to-hub")
    from mathjudge.builders.redistribution import refusal
    from mathjudge.builders.writer import write_dataset

    for name in names:
        module = registry.get(name).builder_module()
        if repo and not getattr(module, "REDISTRIBUTABLE", True):
            raise MathJudgeError(f"{name}: {module.LOCAL_ONLY_REASON}; --push-to-hub refuses it")
        built = module.build(source_dir)
        refused = refusal(name, built.card_info.license) if repo else None
        if refused and not permission:
            raise MathJudgeError(refused)  # before anything is written
        if with_pdfs and name == PDF_BENCHMARK:
            from mathjudge.builders.arxiv_pdfs import write_with_pdfs

            path = write_with_pdfs(built, out)
        else:
            path = write_dataset(built, out)
        click.echo(f"built {name} -> {path}")
        if repo:
            from mathjudge.builders.hub import push_to_hub

            click.echo(f"pushed {name} -> {push_to_hub(path, repo, permission=permission)}")


@main.command()
@BENCH
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--allow-partial", is_flag=True, help="Accept a file that skips some items.")
@DATASETS
def validate(benchmark: str, file: Path, allow_partial: bool, datasets_dir: Path) -> None:
    """Check a predictions FILE against BENCHMARK without scoring it."""
    from mathjudge.evaluate.evaluator import validate_file

    sub = validate_file(benchmark, file, datasets_dir, allow_partial=allow_partial)
    click.echo(
        f"{file}: valid — {sub.table.num_rows} rows, {sub.n_items}/{sub.n_expected} items "
        f"({sub.coverage:.1%}), {sub.runs} run(s), fields: {', '.join(sub.fields)}"
    )
    if sub.ignored_columns:
        click.echo(f"note: ignored columns {', '.join(sub.ignored_columns)}")


@main.command()
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
    type=click.Choice(RUNS_AGGREGATES),
    default="mean",
    show_default=True,
    help="How several runs of one item are combined.",
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
    from mathjudge.evaluate.evaluator import evaluate_file, read_meta
    from mathjudge.evaluate.results import write_json_atomic
    from mathjudge.evaluate.store import save
    from mathjudge.evaluate.store_lock import check_store_path, lock_timeout

    lock_timeout()  # an unusable setting fails now, not after the scoring
    check_store_path(store)
    with progress_bar("bootstrap", n_boot, quiet=quiet) as advance:
        result = evaluate_file(
            benchmark,
            file,
            judge,
            datasets_dir=datasets_dir,
            allow_partial=allow_partial,
            runs_agg=runs_agg,
            n_boot=n_boot,
            seed=seed,
            meta=read_meta(meta),
            options=_scorer_options(matcher, match_model),
            on_progress=advance,
        )
    sid = save(store, result)  # first: no JSON claims a result the store does not hold
    if json_out:
        write_json_atomic(json_out, result.to_json())
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
    click.echo(f"coverage {result.coverage:.1%}{partial}; saved as submission {sid} in {store}")


@main.command()
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
    from mathjudge.evaluate.compare import compare as run_compare
    from mathjudge.evaluate.results import write_json_atomic

    with progress_bar("paired bootstrap", n_boot, quiet=quiet) as advance:
        result = run_compare(
            benchmark,
            a,
            b,
            store=store,
            datasets_dir=datasets_dir,
            n_boot=n_boot,
            seed=seed,
            options=_scorer_options(matcher, match_model),
            on_progress=advance,
        )
    if json_out:
        write_json_atomic(json_out, result.to_json())
    click.echo(result.format_table())


def _scorer_options(matcher: str | None, match_model: str | None) -> dict[str, str] | None:
    """The scorer options given on the command line (None: the scorer's defaults)."""
    given = {"matcher": matcher, "match_model": match_model}
    return {k: v for k, v in given.items() if v} or None


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


@main.group()
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
    from mathjudge.arxiv.licenses import LicenseLookup
    from mathjudge.arxiv.pipeline import HarvestOptions, run_filter
    from mathjudge.config import cache_dir

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
    for step in report.funnel["steps"]:
        shown = step["count"] if step["count"] is not None else step.get("note", "")
        click.echo(f"stage {step['stage']} {step['name']:>22}: {shown}")
    for line in report.usage_lines:
        click.echo(line)
    click.echo(f"wrote {out}/candidates.parquet and {out}/funnel.json")
    if report.dataset is not None:
        click.echo(f"mined split -> {report.dataset}")


@main.group()
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
    from mathjudge.builders.expertmath_realmath import generate_package
    from mathjudge.config import cache_dir

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


@main.group()
def reported() -> None:
    """Results transcribed from the source papers (stored with source = reported)."""


@reported.command("import")
@click.option(
    "--source-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Mirror root holding reported/ (default: $MATHJUDGE_MIRROR).",
)
@STORE
def reported_import(source_dir: Path | None, store: Path) -> None:
    """Import every reported table into the store (idempotent)."""
    from mathjudge.config import mirror_root
    from mathjudge.evaluate.reported import import_reported

    root = source_dir or mirror_root()
    if root is None or not (root / "reported").is_dir():
        raise MathJudgeError("no reported/ folder: pass --source-dir or set MATHJUDGE_MIRROR")
    count = import_reported(root / "reported", store)
    click.echo(f"imported {count} reported results into {store}")


@main.group()
def leaderboard() -> None:
    """The static leaderboard site."""


@leaderboard.command("build")
@STORE
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("site"),
    show_default=True,
)
@DATASETS
@click.option(
    "--release",
    metavar="NAME",
    help="Also freeze this build as site/releases/NAME/ (refused if NAME exists).",
)
def leaderboard_build(store: Path, out: Path, datasets_dir: Path, release: str | None) -> None:
    """Render the site from the results store."""
    from mathjudge.leaderboard.render import build_site

    if not store.is_file():
        raise MathJudgeError(f"{store}: no results store; run `mathjudge evaluate` first")
    from mathjudge.evaluate.store_lock import check_store_path

    check_store_path(store)
    index = build_site(store, out, datasets=datasets_dir, release=release)
    click.echo(f"site written: {index.resolve().as_uri()}")


@main.command()
@click.option(
    "--workdir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Where datasets/, predictions/, results.duckdb, site/ go.",
)
@click.option(
    "--source-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Mirror root (default: $MATHJUDGE_MIRROR, else upstream URLs).",
)
@QUIET
def demo(workdir: Path, source_dir: Path | None, quiet: bool) -> None:
    """Build what is reachable, run the baselines, evaluate, render the site."""
    from mathjudge.demo import run_demo

    report = run_demo(workdir, source_dir=source_dir, quiet=quiet)
    click.echo(
        f"built {len(report.built)} dataset(s), evaluated {len(report.evaluated)} submission(s), "
        f"imported {report.reported} reported result(s)"
    )
    assert report.site is not None
    click.echo(f"open the leaderboard: {report.site.resolve().as_uri()}")


from mathjudge.judges.cli import judge  # noqa: E402  (the `judge` group lives with the judges)

main.add_command(judge)
