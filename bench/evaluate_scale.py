"""Scale benchmark: `mathjudge evaluate` on a synthetic StepMathBench-sized-up dataset.

Generates a built `stepmathbench` dataset (default 200,000 problems x 5 generators = 1,000,000
items) and a predictions JSONL, then

1. times `evaluate_file` end to end (B bootstrap replicates), split into its phases, with the
   process's peak RSS;
2. times a straightforward pandas/scipy implementation of the same metrics (read JSONL, merge,
   groupby, `scipy.stats.pearsonr`, ...) whose cluster bootstrap rebuilds the resampled rows and
   recomputes every metric per replicate, using exactly mathjudge's cluster draws; it runs only
   `--baseline-reps` replicates and extrapolates linearly to B;
3. checks that both give the same numbers: every point estimate and item count, and every metric
   of the baseline's replicates against mathjudge's replicates with the same indices.

Exit status 1 if the numbers differ; missed time targets are reported, not failed.

    python bench/evaluate_scale.py                      # full size (about 75 s on 2 cores)
    python bench/evaluate_scale.py --problems 2000      # quick check
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import functools
import hashlib
import io
import json
import os
import pstats
import resource
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from scipy import stats

from mathjudge import registry
from mathjudge.evaluate import bootstrap, dataset, evaluator, scoring
from mathjudge.evaluate.results import EvaluationResult

BENCHMARK = "stepmathbench"
JUDGE = "bench"
TARGET_SECONDS = 10.0
TARGET_SPEEDUP = 20.0
RTOL = 1e-9
GENERATOR_FORMAT = 1  # bump when the synthetic data changes, so cached workdirs regenerate

# Proportions of the real dataset (1,000 solutions of 200 problems by 5 generators).
TYPES = ("Calculation", "Proof", "Open-ended")
TYPE_PER_MILLE = (725, 250, 25)
LEVEL_PER_MILLE = (80, 300, 620)  # levels 1, 2, 3
GENERATORS = ("GPT-4o", "o1-mini", "Claude-3.5", "Gemini-1.5", "Llama-3.1")
GOLD_SCORE_COUNTS = (71, 53, 103, 75, 89, 41, 30, 21, 24, 14, 479)  # gold_score 0..10

# scope -> column of the merged frame (None: one subset "all"); as in the scorer's SCOPES.
SCOPE_COLUMNS: dict[str, str | None] = {
    "overall": None,
    "type": "type",
    "generator": "generator",
    "level": "level",
}
# (prediction field, gold column, metric key prefix), as in the scorer's TARGETS.
TARGETS = (("score", "gold_score", ""), ("answer_correct", "gold_score_01", "answer_"))

Key = tuple[str, str, str]  # (scope, subset, metric)
Group = tuple[str, str]  # (scope, subset)


# ---------------------------------------------------------------------------------------------
# Synthetic data


@dataclass(frozen=True)
class Paths:
    datasets_dir: Path
    parquet: Path
    predictions: Path


def bench_paths(workdir: Path) -> Paths:
    datasets_dir = workdir / "datasets"
    return Paths(
        datasets_dir=datasets_dir,
        parquet=datasets_dir / BENCHMARK / "data/solutions/test-00000-of-00001.parquet",
        predictions=workdir / "predictions.jsonl",
    )


def _exact_counts(n: int, per_mille: tuple[int, ...]) -> np.ndarray:
    """Counts in the given proportions summing to exactly n (remainder to the largest class)."""
    counts = np.array([n * p // 1000 for p in per_mille])
    counts[int(np.argmax(per_mille))] += n - counts.sum()
    return counts


def synthesize(n_problems: int, per_problem: int, seed: int) -> tuple[pa.Table, pd.DataFrame]:
    """The `solutions` items (StepMathBench columns that scoring reads) and a judge's predictions.

    Problems have a type and level; items are (problem, generator) pairs whose gold scores follow
    the real marginal distribution, correlated within a problem. The judge reproduces the gold
    score exactly on about a third of the items and is noisy elsewhere.
    """
    rng = np.random.default_rng(seed)
    n = n_problems * per_problem
    generators = list(GENERATORS) + [f"Generator-{k}" for k in range(len(GENERATORS), per_problem)]
    problem_type = rng.permutation(
        np.repeat(np.arange(len(TYPES)), _exact_counts(n_problems, TYPE_PER_MILLE))
    )
    problem_level = rng.permutation(
        np.repeat(np.arange(1, 4), _exact_counts(n_problems, LEVEL_PER_MILLE))
    ).astype(np.int8)
    problem = np.repeat(np.arange(n_problems), per_problem)
    generator = np.tile(np.arange(per_problem), n_problems)

    skill = rng.normal(0.0, 0.3, per_problem)
    ease = rng.normal(0.0, 0.8, n_problems) - 0.2 * (problem_level - 2)
    latent = ease[problem] + skill[generator] + rng.normal(0.0, 0.6, n)
    quantile = stats.norm.cdf(latent / latent.std())
    cumulative = np.cumsum(GOLD_SCORE_COUNTS) / sum(GOLD_SCORE_COUNTS)
    gold = np.minimum(np.searchsorted(cumulative, quantile), 10).astype(np.int8)
    answer_p = np.where(gold == 10, 0.95, 0.1 + 0.04 * gold)
    gold_01 = (rng.random(n) < answer_p).astype(np.int8)

    noisy = np.clip(np.round(gold + rng.normal(0.0, 2.0, n), 1), 0.0, 10.0)
    pred_score = np.where(rng.random(n) < 0.35, gold.astype(np.float64), noisy)
    pred_answer = np.where(rng.random(n) < 0.85, gold_01 == 1, gold_01 == 0)

    # Ids as upstream: "math-01" (so sorted order != numeric order) and "stepmath-1".
    problem_ids = np.array([f"math-{i + 1:02d}" for i in range(n_problems)], dtype=object)
    item_ids = [f"stepmath-{i + 1}" for i in range(n)]
    items = pa.table(
        {
            "item_id": pa.array(item_ids, pa.string()),
            "problem_id": pa.array(problem_ids[problem], pa.string()),
            "generator": pa.array(np.array(generators, dtype=object)[generator], pa.string()),
            "type": pa.array(np.array(TYPES, dtype=object)[problem_type[problem]], pa.string()),
            "level": pa.array(problem_level[problem], pa.int8()),
            "gold_score": pa.array(gold, pa.int8()),
            "gold_score_01": pa.array(gold_01, pa.int8()),
        }
    )
    order = rng.permutation(n)  # a submission need not follow the dataset's order
    predictions = pd.DataFrame(
        {
            "item_id": np.array(item_ids, dtype=object)[order],
            "score": pred_score[order],
            "answer_correct": pred_answer[order],
        }
    )
    return items, predictions


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(functools.partial(handle.read, 1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def generate(workdir: Path, n_problems: int, per_problem: int, seed: int) -> bool:
    """Write the dataset and predictions under `workdir` unless already there; True if written.

    The manifest holds what `open_dataset` reads; `content_hash` is the Parquet file's digest
    (the real one hashes canonical JSON rows, which is slow at this size and not measured).
    """
    from mathjudge.builders.writer import PARQUET_OPTIONS  # imports `datasets`; child only

    paths = bench_paths(workdir)
    params = {"problems": n_problems, "per_problem": per_problem, "seed": seed}
    params["format"] = GENERATOR_FORMAT
    marker = workdir / "bench_params.json"
    if (
        marker.is_file()
        and json.loads(marker.read_text()) == params
        and paths.parquet.is_file()
        and paths.predictions.is_file()
    ):
        return False
    marker.unlink(missing_ok=True)
    items, predictions = synthesize(n_problems, per_problem, seed)
    paths.parquet.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(items, paths.parquet, **PARQUET_OPTIONS)
    digest = _sha256(paths.parquet)
    manifest = {
        "benchmark": BENCHMARK,
        "version": f"synthetic-{n_problems}x{per_problem}-seed{seed}",
        "builder": {"name": "bench/evaluate_scale.py"},
        "files": [
            {
                "path": str(paths.parquet.relative_to(paths.datasets_dir / BENCHMARK)),
                "config": "solutions",
                "split": "test",
                "rows": items.num_rows,
                "sha256": digest,
            }
        ],
        "content_hash": f"sha256:{digest}",
    }
    manifest_path = paths.datasets_dir / BENCHMARK / "manifest.json"
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    predictions.to_json(paths.predictions, orient="records", lines=True)
    marker.write_text(json.dumps(params) + "\n")
    return True


# ---------------------------------------------------------------------------------------------
# mathjudge


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


@dataclass
class MathjudgeRun:
    wall: float
    phases: dict[str, float]
    rss_before_mb: float
    rss_peak_mb: float
    result: EvaluationResult
    groups: list[Group]
    replicates: dict[str, np.ndarray]  # metric -> (B, groups), as `score` computed them


@contextlib.contextmanager
def instrumented(phases: dict[str, float], captured: dict[str, Any]) -> Iterator[None]:
    """Time (and keep the result of) the library functions `evaluate_file` goes through.

    Patches the names where they are looked up at call time and restores them afterwards; the
    wrappers add a few microseconds per call, nothing per row.
    """
    targets: list[tuple[Any, str, str]] = [
        (evaluator, "open_dataset", "open_dataset"),
        (dataset.BuiltDataset, "item_ids", "item_ids"),
        (evaluator, "load_submission", "load_submission"),
        (evaluator, "score", "score"),
        (scoring, "cluster_statistics", "cluster_statistics"),
        (scoring, "replicate_sums", "replicate_sums"),
    ]

    def timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            out = fn(*args, **kwargs)
            phases[label] = phases.get(label, 0.0) + time.perf_counter() - start
            captured[label] = out
            return out

        return wrapper

    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
    try:
        for (owner, name, label), (_, _, original) in zip(targets, saved, strict=True):
            setattr(owner, name, timed(label, original))
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def replicate_metrics(
    scorer: ModuleType, fields: tuple[str, ...], names: list[str], n_groups: int, sums: np.ndarray
) -> dict[str, np.ndarray]:
    """What `scoring.score` does with `replicate_sums`' output: statistics -> metrics."""
    shaped = sums.reshape(sums.shape[0], n_groups, len(names))
    return scorer.finalize({n: shaped[..., j] for j, n in enumerate(names)}, fields)


def run_mathjudge(
    paths: Paths, n_boot: int, boot_seed: int | None, scorer: ModuleType
) -> MathjudgeRun:
    phases: dict[str, float] = {}
    captured: dict[str, Any] = {}
    rss_before = peak_rss_mb()
    with instrumented(phases, captured):
        start = time.perf_counter()
        result = evaluator.evaluate_file(
            BENCHMARK,
            paths.predictions,
            JUDGE,
            datasets_dir=paths.datasets_dir,
            n_boot=n_boot,
            seed=boot_seed,
        )
        wall = time.perf_counter() - start
    rss_peak = peak_rss_mb()
    cluster_stats = captured.pop("cluster_statistics")
    groups, names = cluster_stats.groups, cluster_stats.names
    fields = tuple(f for f in scorer.SCORED_FIELDS if f in result.fields)
    replicates = replicate_metrics(
        scorer, fields, names, len(groups), captured.pop("replicate_sums")
    )
    captured.clear()
    return MathjudgeRun(wall, phases, rss_before, rss_peak, result, groups, replicates)


def profile_mathjudge(paths: Paths, n_boot: int, boot_seed: int | None, top: int) -> str:
    """cProfile of one more `evaluate_file` call (main thread only; bootstrap workers show up
    as waiting in `replicate_sums`)."""
    profiler = cProfile.Profile()
    profiler.enable()
    evaluator.evaluate_file(
        BENCHMARK,
        paths.predictions,
        JUDGE,
        datasets_dir=paths.datasets_dir,
        n_boot=n_boot,
        seed=boot_seed,
    )
    profiler.disable()
    out = io.StringIO()
    report = pstats.Stats(profiler, stream=out).strip_dirs()
    report.sort_stats("cumulative").print_stats(top)
    report.sort_stats("tottime").print_stats(top)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# pandas/scipy baseline


def baseline_load(paths: Paths) -> pd.DataFrame:
    """Predictions joined to the dataset's items, one row per item."""
    preds = pd.read_json(
        paths.predictions,
        lines=True,
        dtype={"item_id": str, "score": "float64", "answer_correct": bool},
        precise_float=True,
    )
    items = pd.read_parquet(paths.parquet)
    return items.merge(preds, on="item_id", how="inner")


def _pearson(x: pd.Series, y: pd.Series) -> float:
    if len(x) < 2:
        return float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        return float(stats.pearsonr(x, y).statistic)


def baseline_metrics(frame: pd.DataFrame) -> tuple[dict[Key, float], dict[Group, int]]:
    """Every metric for every (scope, subset), straight from the item rows."""
    values: dict[Key, float] = {}
    counts: dict[Group, int] = {}
    for scope, column in SCOPE_COLUMNS.items():
        if column is None:
            parts: Iterator[tuple[Any, pd.DataFrame]] = iter([("all", frame)])
        else:
            parts = iter(frame.groupby(column, sort=True, observed=True))
        for subset_key, part in parts:
            subset = str(subset_key)
            counts[(scope, subset)] = len(part)
            for pred_col, gold_col, prefix in TARGETS:
                pred = part[pred_col].astype("float64")
                gold = part[gold_col].astype("float64")
                values[(scope, subset, f"{prefix}avg_score")] = float(pred.mean())
                values[(scope, subset, f"{prefix}corr")] = _pearson(pred, gold)
                values[(scope, subset, f"{prefix}mse")] = float(((pred - gold) ** 2).mean())
                values[(scope, subset, f"{prefix}overlap")] = float((pred == gold).mean())
                values[(scope, subset, f"{prefix}gold_avg_score")] = float(gold.mean())
    return values, counts


class ClusterResampler:
    """Rows of a resample given drawn cluster indices (clusters in sorted order)."""

    def __init__(self, frame: pd.DataFrame, cluster: str) -> None:
        codes, uniques = pd.factorize(frame[cluster], sort=True)
        self.n_clusters = len(uniques)
        self.order = np.argsort(codes, kind="stable")
        self.sizes = np.bincount(codes, minlength=self.n_clusters)
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])

    def rows(self, draws: np.ndarray) -> np.ndarray:
        lengths = self.sizes[draws]
        ends = np.cumsum(lengths)
        shift = np.repeat(self.starts[draws] - (ends - lengths), lengths)
        return self.order[np.arange(ends[-1]) + shift]


def cluster_draws(
    n_clusters: int, n_boot: int, seed: int, indices: list[int]
) -> dict[int, np.ndarray]:
    """mathjudge's cluster draws for replicates `indices` of B = n_boot: chunks of
    `bootstrap.CHUNK` replicates, each chunk seeded from SeedSequence(seed).spawn(n_chunks)."""
    sizes = [min(bootstrap.CHUNK, n_boot - start) for start in range(0, n_boot, bootstrap.CHUNK)]
    seeds = np.random.SeedSequence(seed).spawn(len(sizes))
    wanted = set(indices)
    out: dict[int, np.ndarray] = {}
    start = 0
    for chunk_seed, size in zip(seeds, sizes, strict=True):
        here = [i for i in wanted if start <= i < start + size]
        if here:
            rng = np.random.default_rng(chunk_seed)
            for r in range(start, max(here) + 1):
                draws = rng.integers(0, n_clusters, size=n_clusters, dtype=np.int32)
                if r in wanted:
                    out[r] = draws
        start += size
    return out


def spread_indices(n_boot: int, k: int) -> list[int]:
    """k replicate indices spread over 0..B-1 (so several chunks and seeds are checked)."""
    if k <= 0:
        return []
    return sorted({int(i) for i in np.linspace(0, n_boot - 1, min(k, n_boot)).round()})


@dataclass
class BaselineRun:
    load_s: float
    point_s: float
    rep_s: list[float]
    point: dict[Key, float]
    counts: dict[Group, int]
    replicates: dict[int, dict[Key, float]] = field(default_factory=dict)
    rss_peak_mb: float = 0.0

    @property
    def per_rep_s(self) -> float:
        return float(np.mean(self.rep_s)) if self.rep_s else float("nan")

    def extrapolated(self, n_boot: int) -> float:
        return self.load_s + self.point_s + self.per_rep_s * n_boot


def run_baseline(paths: Paths, n_boot: int, seed: int, indices: list[int]) -> BaselineRun:
    start = time.perf_counter()
    frame = baseline_load(paths)
    load_s = time.perf_counter() - start

    start = time.perf_counter()
    point, counts = baseline_metrics(frame)
    point_s = time.perf_counter() - start

    resampler = ClusterResampler(frame, "problem_id")
    # Drawing is excluded from the timing (about a millisecond per replicate; favours the
    # baseline slightly).
    draws = cluster_draws(resampler.n_clusters, n_boot, seed, indices)
    run = BaselineRun(load_s, point_s, [], point, counts)
    for r in indices:
        start = time.perf_counter()
        sample = frame.take(resampler.rows(draws[r]))
        run.replicates[r], _ = baseline_metrics(sample)
        run.rep_s.append(time.perf_counter() - start)
        print(f"  baseline replicate {r:4d}: {run.rep_s[-1]:6.2f} s", flush=True)
    run.rss_peak_mb = peak_rss_mb()
    return run


# ---------------------------------------------------------------------------------------------
# Comparison and report


def _rel_diff(a: float, b: float) -> float:
    if np.isnan(a) and np.isnan(b):
        return 0.0
    if np.isnan(a) or np.isnan(b):
        return float("inf")
    scale = max(abs(a), abs(b))
    return 0.0 if scale == 0 else abs(a - b) / scale


@dataclass
class Check:
    label: str
    n_values: int
    max_rel: float
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems and self.max_rel <= RTOL


def compare(label: str, ours: dict[Key, float], theirs: dict[Key, float]) -> Check:
    problems = []
    if set(ours) != set(theirs):
        only_ours, only_theirs = sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours))
        problems.append(
            f"keys differ: baseline only {only_ours[:5]}, mathjudge only {only_theirs[:5]}"
        )
    worst = 0.0
    for key in sorted(set(ours) & set(theirs)):
        d = _rel_diff(ours[key], theirs[key])
        worst = max(worst, d)
        if d > RTOL and len(problems) < 10:
            problems.append(f"{key}: baseline {ours[key]!r} vs mathjudge {theirs[key]!r}")
    return Check(label, len(ours), worst, problems)


def check_numbers(mj: MathjudgeRun, base: BaselineRun) -> list[Check]:
    point: dict[Key, float] = {}
    n_items: dict[Group, int] = {}
    for s in mj.result.scores:
        point[(s.scope, s.subset, s.metric)] = float("nan") if s.value is None else s.value
        n_items[(s.scope, s.subset)] = s.n
    checks = [compare("point estimates", base.point, point)]
    count_problems = (
        [] if n_items == base.counts else [f"item counts differ: {n_items} vs {base.counts}"]
    )
    checks.append(Check("item counts per subset", len(n_items), 0.0, count_problems))
    if base.replicates:
        ours: dict[Key, float] = {}
        theirs: dict[Key, float] = {}
        for r, values in base.replicates.items():
            for (scope, subset, metric), v in values.items():
                ours[(f"rep{r}:{scope}", subset, metric)] = v
            for g, (scope, subset) in enumerate(mj.groups):
                for metric, array in mj.replicates.items():
                    theirs[(f"rep{r}:{scope}", subset, metric)] = float(array[r, g])
        shown = sorted(base.replicates)
        label = f"bootstrap replicates {shown[0]}..{shown[-1]} ({len(shown)} indices)"
        checks.append(compare(label, ours, theirs))
    return checks


def report(
    args: argparse.Namespace,
    mj: MathjudgeRun,
    base: BaselineRun,
    checks: list[Check],
    n_items: int,
) -> bool:
    p = mj.phases
    score_s = p.get("score", 0.0)
    stats_s, boot_s = p.get("cluster_statistics", 0.0), p.get("replicate_sums", 0.0)
    top = ("open_dataset", "item_ids", "load_submission", "score")
    rows = [
        ("open_dataset (manifest)", p.get("open_dataset", 0.0), 1),
        ("dataset item_ids (DuckDB -> list)", p.get("item_ids", 0.0), 1),
        ("load_submission (parse + validate)", p.get("load_submission", 0.0), 1),
        ("score", score_s, 1),
        ("cluster_statistics (DuckDB + matrix)", stats_s, 2),
        ("replicate_sums (bootstrap)", boot_s, 2),
        ("finalize + percentiles + rows", score_s - stats_s - boot_s, 2),
        ("other (sha256, result)", mj.wall - sum(p.get(k, 0.0) for k in top), 1),
    ]
    print("\n== mathjudge: evaluate_file ==")
    print(f"{'wall time':40s} {mj.wall:9.2f} s")
    for label, seconds, depth in rows:
        print(f"{'  ' * depth + label:40s} {seconds:9.2f} s")
    print(
        f"{'peak RSS':40s} {mj.rss_peak_mb:9.0f} MB  (before the call: {mj.rss_before_mb:.0f} MB)"
    )

    speedup = base.extrapolated(args.bootstrap) / mj.wall
    reps = len(base.rep_s)
    print("\n== baseline: pandas/scipy ==")
    print(f"{'load (read_json + read_parquet + merge)':40s} {base.load_s:9.2f} s")
    print(f"{'point estimates':40s} {base.point_s:9.2f} s")
    if reps:
        measured = base.load_s + base.point_s + sum(base.rep_s)
        print(
            f"{'per bootstrap replicate (mean)':40s} {base.per_rep_s:9.2f} s"
            f"  (min {min(base.rep_s):.2f}, max {max(base.rep_s):.2f})"
        )
        print(f"{f'MEASURED total ({reps} replicates)':40s} {measured:9.2f} s")
        print(
            f"{f'EXTRAPOLATED total (B = {args.bootstrap})':40s} "
            f"{base.extrapolated(args.bootstrap):9.2f} s"
            f"  = {base.load_s + base.point_s:.2f} + {base.per_rep_s:.3f} x {args.bootstrap}"
        )
    print(f"{'peak RSS (process, after baseline)':40s} {base.rss_peak_mb:9.0f} MB")

    print(f"\n== same numbers (relative tolerance {RTOL:g}) ==")
    for c in checks:
        status = "PASS" if c.ok else "FAIL"
        print(f"{c.label}: {c.n_values} values, max rel diff {c.max_rel:.2e}  {status}")
        for problem in c.problems:
            print(f"    {problem}")
    same = all(c.ok for c in checks)

    def verdict(met: bool) -> str:
        return "met" if met else "MISSED"

    print("\n== summary ==")
    print(f"items {n_items:,}, problems {args.problems:,}, B = {args.bootstrap}")
    print(
        f"mathjudge wall time   {mj.wall:8.2f} s   target <= {TARGET_SECONDS:g} s   "
        f"{verdict(mj.wall <= TARGET_SECONDS)}"
    )
    if reps:
        print(
            f"speedup vs baseline   {speedup:8.1f} x   target >= {TARGET_SPEEDUP:g} x   "
            f"{verdict(speedup >= TARGET_SPEEDUP)}  (baseline extrapolated from {reps} replicates)"
        )
    else:
        print("speedup vs baseline   n/a (--baseline-reps 0)")
    print(f"same numbers: {'yes' if same else 'NO'}")
    return same


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=int, default=200_000, help="problems (clusters)")
    parser.add_argument("--per-problem", type=int, default=5, help="generators per problem")
    parser.add_argument("--bootstrap", type=int, default=1000, help="B, bootstrap replicates")
    parser.add_argument(
        "--baseline-reps",
        type=int,
        default=100,
        help="bootstrap replicates the baseline actually runs (spread over 0..B-1); 0: none",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic data")
    parser.add_argument(
        "--boot-seed",
        type=int,
        default=None,
        help="bootstrap seed (default: the benchmark's, as `mathjudge evaluate` uses)",
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "mathjudge-evaluate-scale",
        help="where the synthetic dataset and predictions go (reused if the parameters match)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also run evaluate_file under cProfile and print the top N functions",
    )
    args = parser.parse_args(argv)
    if args.problems < 1 or args.per_problem < 1 or args.bootstrap < 1 or args.baseline_reps < 0:
        parser.error("sizes must be positive (--baseline-reps may be 0)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    n_items = args.problems * args.per_problem
    paths = bench_paths(args.workdir)

    # Generated in a child process so its memory does not count in this process's peak RSS.
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        written = pool.submit(
            generate, args.workdir, args.problems, args.per_problem, args.seed
        ).result()
    how = "generated" if written else "reused"
    print(f"== data ({how} in {time.perf_counter() - start:.1f} s, not measured) ==")
    print(
        f"{args.problems:,} problems x {args.per_problem} = {n_items:,} items; "
        f"B = {args.bootstrap}; {args.workdir}"
    )
    print(
        f"dataset parquet {paths.parquet.stat().st_size / 1e6:.1f} MB, "
        f"predictions {paths.predictions.stat().st_size / 1e6:.1f} MB"
    )

    scorer = registry.get(BENCHMARK).scorer_module()

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before the runs: {load} ({os.cpu_count()} CPUs)")
    print("\nrunning mathjudge evaluate_file ...", flush=True)
    mj = run_mathjudge(paths, args.bootstrap, args.boot_seed, scorer)
    seed = int(mj.result.bootstrap["seed"])

    indices = spread_indices(args.bootstrap, args.baseline_reps)
    print(f"running the pandas/scipy baseline ({len(indices)} replicates) ...", flush=True)
    base = run_baseline(paths, args.bootstrap, seed, indices)

    same = report(args, mj, base, check_numbers(mj, base), n_items)
    if args.profile:
        print(f"\n== cProfile of evaluate_file (top {args.profile}) ==")
        print(profile_mathjudge(paths, args.bootstrap, args.boot_seed, args.profile))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
