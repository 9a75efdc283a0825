"""Scale benchmarks: `mathjudge evaluate` at 1,000,000 items on synthetic built datasets.

`--bench stepmathbench` (200,000 problems x 5 generators), `--bench proofbench` (125,000
problems x 8 proofs, in `_proofbench_scale.py`) or `--bench all` (the default: both, each in a
fresh process). For each benchmark:

1. times `evaluate_file` end to end (B bootstrap replicates), split into its phases, with the
   process's peak RSS;
2. times a straightforward pandas/scipy implementation of the same metrics (read JSONL, merge,
   groupby, `scipy.stats.pearsonr` / `kendalltau`, ...) whose cluster bootstrap rebuilds the
   resampled rows and recomputes every metric per replicate, using exactly mathjudge's cluster
   draws; it runs only `--baseline-reps` replicates and extrapolates linearly to B;
3. checks that both give the same numbers: every point estimate and item count, and every metric
   of the baseline's replicates against mathjudge's replicates with the same indices.

Exit status 1 if the numbers differ; missed time targets are reported, not failed.

    python bench/evaluate_scale.py                                # both, full size
    python bench/evaluate_scale.py --bench stepmathbench          # about 75 s on 2 cores
    python bench/evaluate_scale.py --bench proofbench             # about 6 min (the baseline)
    python bench/evaluate_scale.py --problems 2000                # quick check of both
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import _proofbench_scale as proofbench_scale
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from _scale_common import (
    Baseline,
    Group,
    Key,
    Outcome,
    Targets,
    in_child,
    is_cached,
    run_benchmark,
    write_manifest,
)
from scipy import stats

BENCHMARK = "stepmathbench"
DEFAULTS = {"problems": 200_000, "per_problem": 5, "baseline_reps": 100, "no_baseline": False}
# Ten times as many: the baseline's load and point estimates (minutes, about 8.5 GB), no
# replicates (each about ten times the 1M run's, which --bench all scales instead).
DEFAULTS_10M = {"problems": 2_000_000, "per_problem": 5, "baseline_reps": 0, "no_baseline": False}
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


def generate(workdir: Path, n_problems: int, per_problem: int, seed: int) -> bool:
    """Write the dataset and predictions under `workdir` unless already there; True if written."""
    from mathjudge.dataio.writer import PARQUET_OPTIONS  # imports `datasets`; child only

    paths = bench_paths(workdir)
    params = {"problems": n_problems, "per_problem": per_problem, "seed": seed}
    params["format"] = GENERATOR_FORMAT
    marker = workdir / "bench_params.json"
    if is_cached(marker, params, paths.parquet, paths.predictions):
        return False
    marker.unlink(missing_ok=True)
    items, predictions = synthesize(n_problems, per_problem, seed)
    paths.parquet.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(items, paths.parquet, **PARQUET_OPTIONS)
    write_manifest(
        paths.datasets_dir,
        BENCHMARK,
        "solutions",
        paths.parquet,
        items.num_rows,
        f"synthetic-{n_problems}x{per_problem}-seed{seed}",
    )
    predictions.to_json(paths.predictions, orient="records", lines=True)
    marker.write_text(json.dumps(params) + "\n")
    return True


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


def replicate_metrics(
    frame: pd.DataFrame, resampler: Any, draws: np.ndarray, point: Any
) -> tuple[dict[Key, float], dict[Group, int]]:
    """Metrics of the resample's rows (item-level metrics: duplicates need no relabelling)."""
    return baseline_metrics(frame.take(resampler.rows(draws)))


def run_stepmathbench(args: argparse.Namespace) -> Outcome:
    """The whole StepMathBench benchmark with resolved `args` (1M or 10M by `args.bench`)."""
    n_items = args.problems * args.per_problem
    workdir = args.workdir / "10m" if args.bench == "stepmathbench-10m" else args.workdir
    paths = bench_paths(workdir)

    # Generated in a child process so its memory does not count in this process's peak RSS.
    start = time.perf_counter()
    written = in_child(generate, workdir, args.problems, args.per_problem, args.seed)
    how = "generated" if written else "reused"
    print(f"== data ({how} in {time.perf_counter() - start:.1f} s, not measured) ==")
    print(
        f"{args.problems:,} problems x {args.per_problem} = {n_items:,} items; "
        f"B = {args.bootstrap}; {workdir}"
    )
    print(
        f"dataset parquet {paths.parquet.stat().st_size / 1e6:.1f} MB, "
        f"predictions {paths.predictions.stat().st_size / 1e6:.1f} MB"
    )
    return run_benchmark(
        args.bench,
        BENCHMARK,
        paths.predictions,
        paths.datasets_dir,
        args,
        BENCH_TARGETS[args.bench],
        f"items {n_items:,}, problems {args.problems:,}",
        Baseline(
            lambda: baseline_load(paths),
            baseline_metrics,
            replicate_metrics,
            "load (read_json + read_parquet + merge)",
        ),
        n_items,
        args.scaled_replicate,
    )


# ---------------------------------------------------------------------------------------------
# CLI

BENCHES = {
    "stepmathbench": (run_stepmathbench, DEFAULTS),
    "proofbench": (proofbench_scale.run, proofbench_scale.DEFAULTS),
    "stepmathbench-10m": (run_stepmathbench, DEFAULTS_10M),
}
BENCH_TARGETS = {  # issue 30's: on 2 quiet cores
    "stepmathbench": Targets(seconds=5.0, rss_mb=1000.0, speedup=100.0),
    "stepmathbench-10m": Targets(seconds=60.0, rss_mb=4000.0, speedup=None),
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--bench",
        choices=[*BENCHES, "all"],
        default="all",
        help="which benchmark (default: all, each in a fresh process)",
    )
    parser.add_argument(
        "--problems",
        type=int,
        default=None,
        help="problems (clusters); default 200,000 (stepmathbench), 125,000 (proofbench), "
        "2,000,000 (stepmathbench-10m)",
    )
    parser.add_argument(
        "--per-problem",
        type=int,
        default=None,
        help="generators (proofs) per problem; default 5 (stepmathbench), 8 (proofbench)",
    )
    parser.add_argument("--bootstrap", type=int, default=1000, help="B, bootstrap replicates")
    parser.add_argument(
        "--baseline-reps",
        type=int,
        default=None,
        help="bootstrap replicates the baseline actually runs (spread over 0..B-1); 0: its "
        "point estimates only; default 100 (stepmathbench), 3 (proofbench), 0 "
        "(stepmathbench-10m, whose replicate time --bench all takes from the 1M run, x10)",
    )
    parser.add_argument(
        "--no-baseline",
        action="store_true",
        default=None,
        help="skip the pandas/scipy baseline entirely (no speedup, no check against it)",
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
        help="where the synthetic datasets and predictions go (reused if the parameters match)",
    )
    parser.add_argument(
        "--save-scores",
        type=Path,
        default=None,
        metavar="DIR",
        help="write each run's scores as DIR/<bench>.json (what `mathjudge evaluate --json` "
        "writes), to compare another version against",
    )
    parser.add_argument(
        "--reference",
        type=Path,
        default=None,
        metavar="DIR",
        help="check every score and CI against DIR/<bench>.json, another version's scores of "
        "the same data (--save-scores, or `mathjudge evaluate ... --json`)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also run evaluate_file under cProfile and print the top N functions",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="CI: 100 problems (1,000 for stepmathbench-10m), B = 20, one baseline replicate "
        "(seconds; figures meaningless)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.bootstrap, args.baseline_reps = 20, 1
    given = (args.problems, args.per_problem, args.baseline_reps)
    if any(v is not None and v < 1 for v in given[:2]) or args.bootstrap < 1:
        parser.error("sizes must be positive")
    if args.baseline_reps is not None and args.baseline_reps < 0:
        parser.error("--baseline-reps must be 0 or more")
    return args


QUICK_PROBLEMS = {"stepmathbench": 100, "proofbench": 100, "stepmathbench-10m": 1000}


def resolved(
    args: argparse.Namespace, name: str, scaled: tuple[float, str] | None = None
) -> argparse.Namespace:
    """`args` with the benchmark's defaults where an option was not given."""
    defaults = BENCHES[name][1]
    quick = {"problems": QUICK_PROBLEMS[name]} if args.quick and args.problems is None else {}
    return argparse.Namespace(
        **{
            **vars(args),
            "bench": name,
            "scaled_replicate": scaled,
            **{k: v for k, v in defaults.items() if getattr(args, k) is None},
            **quick,
        }
    )


def run_one(
    name: str, args: argparse.Namespace, scaled: tuple[float, str] | None = None
) -> Outcome:
    outcome: Outcome = BENCHES[name][0](resolved(args, name, scaled))
    sys.stdout.flush()
    return outcome


def _child(name: str, args: argparse.Namespace, scaled: tuple[float, str] | None, out: Any) -> None:
    out.put(run_one(name, args, scaled))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.bench != "all":
        return 0 if run_one(args.bench, args).same else 1

    # One fresh process per benchmark: no state carried over.
    context = get_context("spawn")
    results: dict[str, Outcome | None] = {}
    for name in BENCHES:
        print(f"\n######## {name} ########\n", flush=True)
        scaled = None
        one_m = results.get("stepmathbench")
        if name == "stepmathbench-10m" and one_m is not None and one_m.baseline_replicate_s:
            ten = resolved(args, name)
            factor = ten.problems * ten.per_problem / one_m.rows
            scaled = (
                one_m.baseline_replicate_s * factor,
                f"the stepmathbench run's scaled x{factor:g} by rows, not measured",
            )
        queue = context.SimpleQueue()
        child = context.Process(target=_child, args=(name, args, scaled, queue))
        child.start()
        child.join()
        results[name] = queue.get() if not queue.empty() else None
    print("\n######## summary of all benchmarks ########")
    for name, result in results.items():
        print(f"\n{name}:")
        print("\n".join(f"  {line}" for line in result.summary) if result else "  FAILED (crashed)")
    return 0 if all(r is not None and r.same for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
