"""ProofBench part of the scale benchmark, run as `evaluate_scale.py --bench proofbench`.

A synthetic built `proofbench` dataset (default 125,000 problems x 8 generators = 1,000,000
proofs) and a predictions JSONL; `evaluate_file("proofbench", ...)` timed by phase against a
pandas/scipy implementation of the same per-problem, macro-averaged metrics (MAE, RMSE, bias,
WTA(<=1), `scipy.stats.kendalltau(variant="b")`) whose cluster bootstrap recomputes everything
on the resampled rows with mathjudge's draws.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from _scale_common import (
    Baseline,
    ClusterResampler,
    Group,
    Key,
    Metrics,
    Outcome,
    Targets,
    in_child,
    is_cached,
    run_benchmark,
    write_manifest,
)
from scipy import stats

BENCHMARK = "proofbench"
CONFIG = "grading"
TARGETS = Targets(seconds=8.0, rss_mb=1000.0, speedup=1000.0)  # issue 30's, 2 quiet cores
DEFAULTS = {"problems": 125_000, "per_problem": 8, "baseline_reps": 3, "no_baseline": False}
GENERATOR_FORMAT = 1  # bump when the synthetic data changes, so cached workdirs regenerate

# The real dataset's three generators, then five more of the same kind.
GENERATORS = (
    "o3",
    "gemini-2.5-pro",
    "DeepSeek-R1-0528",
    "claude-opus-4",
    "gpt-5",
    "grok-4",
    "qwen3-235b-a22b",
    "kimi-k2",
)
CONTESTS = ("IMO", "ISL", "USAMO", "USAJMO", "USA-TST", "Putnam", "EGMO", "APMO")
CONTEST_PER_MILLE = (180, 120, 150, 90, 80, 200, 80, 100)
YEARS = tuple(range(2000, 2026))  # weighted towards recent years
# Expert scores 0..7 are bimodal on olympiad proofs: mostly 0 or 7, few partial credits.
EXPERT_PER_MILLE = (330, 110, 70, 50, 40, 40, 60, 300)
FORCED_CONSTANT_SHARE = 0.005  # of problems, each: constant expert / constant prediction

# scope -> column of the merged frame (None: one subset "all"); as the scorer's SCOPES.
SCOPE_COLUMNS: dict[str, str | None] = {
    "overall": None,
    "generator": "generator",
    "contest": "contest",
    "year": "year",
}
PER_PROBLEM = ("mae", "rmse", "wta1", "kendall_tau_b", "bias")
COUNTS = ("kendall_tau_b_problems", "kendall_tau_b_omitted")


@dataclass(frozen=True)
class Paths:
    datasets_dir: Path
    parquet: Path
    predictions: Path
    marker: Path
    facts: Path


def bench_paths(workdir: Path) -> Paths:
    datasets_dir = workdir / "datasets"
    return Paths(
        datasets_dir=datasets_dir,
        parquet=datasets_dir / BENCHMARK / f"data/{CONFIG}/test-00000-of-00001.parquet",
        predictions=workdir / "proofbench-predictions.jsonl",
        marker=workdir / "proofbench-params.json",
        facts=workdir / "proofbench-facts.json",
    )


# ---------------------------------------------------------------------------------------------
# Synthetic data


def _exact_counts(n: int, per_mille: tuple[int, ...]) -> np.ndarray:
    counts = np.array([n * p // 1000 for p in per_mille])
    counts[int(np.argmax(per_mille))] += n - counts.sum()
    return counts


def _json_numbers(values: np.ndarray) -> np.ndarray:
    """Whole numbers as ints (written `5`), the rest as floats (`5.5`): judges emit both."""
    return np.array([int(v) if v.is_integer() else v for v in values.tolist()], dtype=object)


def synthesize(
    n_problems: int, per_problem: int, seed: int
) -> tuple[pa.Table, pd.DataFrame, dict[str, Any]]:
    """The `grading` items (the columns scoring reads), a judge's predictions, and facts.

    Problems have a contest and year and a difficulty; a proof's expert score (0-7, bimodal)
    follows difficulty, its generator's skill and noise. The judge over-scores by a
    generator-dependent bias, copies the expert score on about a third of the proofs and is
    noisy elsewhere, in whole or half points. Small integer scales give many ties within a
    problem; a few problems are forced to a constant expert score or a constant prediction, on
    top of the ones that come out constant anyway, so tau-b is undefined there.
    """
    rng = np.random.default_rng(seed)
    n = n_problems * per_problem
    generators = list(GENERATORS) + [f"Generator-{k}" for k in range(len(GENERATORS), per_problem)]
    generators = generators[:per_problem]
    contest = rng.permutation(
        np.repeat(np.arange(len(CONTESTS)), _exact_counts(n_problems, CONTEST_PER_MILLE))
    )
    year_weight = np.linspace(1.0, 3.0, len(YEARS))
    year = np.array(YEARS, dtype=np.int16)[
        rng.choice(len(YEARS), n_problems, p=year_weight / year_weight.sum())
    ]
    problem = np.repeat(np.arange(n_problems), per_problem)
    generator = np.tile(np.arange(per_problem), n_problems)

    difficulty = rng.normal(0.0, 0.7, n_problems)
    skill = rng.permutation(np.linspace(-0.8, 0.8, per_problem))
    latent = skill[generator] - difficulty[problem] + rng.normal(0.0, 1.0, n)
    quantile = stats.norm.cdf(latent / latent.std())
    cumulative = np.cumsum(EXPERT_PER_MILLE) / sum(EXPERT_PER_MILLE)
    expert = np.minimum(np.searchsorted(cumulative, quantile), 7).astype(np.int8)

    n_forced = max(1, round(FORCED_CONSTANT_SHARE * n_problems)) if n_problems >= 2 else 0
    forced = rng.permutation(n_problems)[: 2 * n_forced]
    by_problem = expert.reshape(n_problems, per_problem)  # a view: writes go to `expert`
    by_problem[forced[:n_forced]] = rng.choice([0, 7], n_forced)[:, None]

    bias = rng.uniform(0.3, 0.8, per_problem)
    raw = expert + bias[generator] + rng.normal(0.0, 1.1, n)
    step = np.where(rng.random(n) < 0.5, 1.0, 0.5)
    noisy = np.clip(np.round(raw / step) * step, 0.0, 7.0)
    score = np.where(rng.random(n) < 0.35, expert.astype(np.float64), noisy)
    scores = score.reshape(n_problems, per_problem)  # a view of `score`
    scores[forced[n_forced:]] = rng.integers(0, 8, len(forced) - n_forced)[:, None]

    # Ids as upstream, `USAMO-2025-2`; sorted cluster order differs from generation order.
    serial = pd.Series(contest * 10_000 + year).groupby(contest * 10_000 + year).cumcount() + 1
    names = np.array(CONTESTS, dtype=object)[contest]
    problem_ids = np.array(
        [f"{c}-{y}-{k}" for c, y, k in zip(names, year.tolist(), serial.tolist(), strict=True)],
        dtype=object,
    )
    generator_names = np.array(generators, dtype=object)[generator]
    item_ids = problem_ids[problem] + "::" + generator_names
    items = pa.table(
        {
            "item_id": pa.array(item_ids, pa.string()),
            "problem_id": pa.array(problem_ids[problem], pa.string()),
            "contest": pa.array(names[problem], pa.string()),
            "year": pa.array(year[problem], pa.int16()),
            "generator": pa.array(generator_names, pa.string()),
            "expert_score": pa.array(expert, pa.int8()),
        }
    )
    order = rng.permutation(n)  # a submission need not follow the dataset's order
    predictions = pd.DataFrame({"item_id": item_ids[order], "score": _json_numbers(score[order])})

    constant_expert = (by_problem == by_problem[:, :1]).all(axis=1)
    constant_score = (scores == scores[:, :1]).all(axis=1)
    pairs = per_problem * (per_problem - 1) // 2
    upper = np.triu_indices(per_problem, 1)

    def tied_share(values: np.ndarray) -> float:
        return float((values[:, upper[0]] == values[:, upper[1]]).mean()) if pairs else 0.0

    facts = {
        "contests": len(np.unique(contest)),
        "years": len(np.unique(year)),
        "expert_counts": np.bincount(expert, minlength=8).tolist(),
        "integer_scores": float(np.mean(score == np.round(score))),
        "constant_expert": int(constant_expert.sum()),
        "constant_score": int(constant_score.sum()),
        "undefined": int((constant_expert | constant_score).sum()) if pairs else n_problems,
        "tied_expert": tied_share(by_problem),
        "tied_score": tied_share(scores),
        "mean_error": float((score - expert).mean()),
    }
    return items, predictions, facts


def generate(workdir: Path, n_problems: int, per_problem: int, seed: int) -> bool:
    """Write the dataset and predictions under `workdir` unless already there; True if written."""
    from mathjudge.dataio.writer import PARQUET_OPTIONS  # imports `datasets`; child only

    paths = bench_paths(workdir)
    params = {"problems": n_problems, "per_problem": per_problem, "seed": seed}
    params["format"] = GENERATOR_FORMAT
    if is_cached(paths.marker, params, paths.parquet, paths.predictions, paths.facts):
        return False
    paths.marker.unlink(missing_ok=True)
    items, predictions, facts = synthesize(n_problems, per_problem, seed)
    paths.parquet.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(items, paths.parquet, **PARQUET_OPTIONS)
    write_manifest(
        paths.datasets_dir,
        BENCHMARK,
        CONFIG,
        paths.parquet,
        items.num_rows,
        f"synthetic-{n_problems}x{per_problem}-seed{seed}",
    )
    predictions.to_json(paths.predictions, orient="records", lines=True)
    paths.facts.write_text(json.dumps(facts) + "\n")
    paths.marker.write_text(json.dumps(params) + "\n")
    return True


# ---------------------------------------------------------------------------------------------
# pandas/scipy baseline


def baseline_load(paths: Paths) -> pd.DataFrame:
    """Predictions joined to the dataset's items, one row per proof."""
    preds = pd.read_json(
        paths.predictions,
        lines=True,
        dtype={"item_id": str, "score": "float64"},
        precise_float=True,
    )
    items = pd.read_parquet(paths.parquet)
    return items.merge(preds, on="item_id", how="inner")


def _kendall_taus(p: np.ndarray, e: np.ndarray, group: np.ndarray, n_groups: int) -> np.ndarray:
    """`scipy.stats.kendalltau(variant="b")` of every group with 2 or more rows (NaN otherwise,
    which is what scipy returns for fewer than 2 rows, without calling it)."""
    taus = np.full(n_groups, np.nan)
    sizes = np.bincount(group, minlength=n_groups)
    order = np.argsort(group, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    p, e = p[order], e[order]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: scipy returns NaN
        for g in np.flatnonzero(sizes >= 2):
            lo, hi = bounds[g], bounds[g + 1]
            taus[g] = stats.kendalltau(p[lo:hi], e[lo:hi], variant="b").statistic
    return taus


def baseline_metrics(frame: pd.DataFrame, cluster: str = "problem_id") -> Metrics:
    """Every metric for every (scope, subset): per problem (`cluster`) within the subset, then
    the mean over the subset's problems (tau-b: over those where it is defined)."""
    p = frame["score"].to_numpy(np.float64)
    e = frame["expert_score"].to_numpy(np.float64)
    d = p - e
    work = pd.DataFrame(
        {
            "cluster": frame[cluster].to_numpy(),
            "d": d,
            "abs": np.abs(d),
            "sq": d * d,
            "wta": (np.abs(d) <= 1).astype(np.float64),
        }
    )
    values: dict[Key, float] = {}
    counts: dict[Group, int] = {}
    for scope, column in SCOPE_COLUMNS.items():
        work["subset"] = "all" if column is None else frame[column].astype(str).to_numpy()
        grouped = work.groupby(["subset", "cluster"], sort=False, observed=True)
        per = grouped.agg(
            n=("d", "size"),
            mae=("abs", "mean"),
            ms=("sq", "mean"),
            wta1=("wta", "mean"),
            bias=("d", "mean"),
        )
        per["rmse"] = np.sqrt(per["ms"])
        per["kendall_tau_b"] = _kendall_taus(p, e, grouped.ngroup().to_numpy(), len(per))
        for subset, part in per.groupby(level="subset", sort=True):
            counts[(scope, str(subset))] = int(part["n"].sum())
            defined = int(part["kendall_tau_b"].notna().sum())
            for metric in PER_PROBLEM:
                values[(scope, str(subset), metric)] = float(part[metric].mean())
            values[(scope, str(subset), "kendall_tau_b_problems")] = float(defined)
            values[(scope, str(subset), "kendall_tau_b_omitted")] = float(len(part) - defined)
    return values, counts


def replicate_metrics(
    frame: pd.DataFrame, resampler: ClusterResampler, draws: np.ndarray, point: Metrics
) -> Metrics:
    """The resample's rows, each drawn problem a cluster of its own (a problem drawn twice is
    two problems), every metric recomputed; subsets no drawn problem falls in are kept, as
    mathjudge reports them (means undefined, counts 0)."""
    sample = frame.take(resampler.rows(draws))
    sample["draw"] = resampler.draw_ids(draws)
    values, counts = baseline_metrics(sample, "draw")
    for scope, subset, metric in point[0]:
        values.setdefault((scope, subset, metric), 0.0 if metric in COUNTS else float("nan"))
    return values, counts


# ---------------------------------------------------------------------------------------------
# Run


def run(args: argparse.Namespace) -> Outcome:
    """The whole ProofBench benchmark with resolved `args`."""
    n_items = args.problems * args.per_problem
    paths = bench_paths(args.workdir)
    start = time.perf_counter()
    written = in_child(generate, args.workdir, args.problems, args.per_problem, args.seed)
    facts = json.loads(paths.facts.read_text())
    how = "generated" if written else "reused"
    print(f"== ProofBench data ({how} in {time.perf_counter() - start:.1f} s, not measured) ==")
    print(
        f"{args.problems:,} problems x {args.per_problem} generators = {n_items:,} proofs; "
        f"{facts['contests']} contests, {facts['years']} years; B = {args.bootstrap}; "
        f"{args.workdir}"
    )
    print(
        f"dataset parquet {paths.parquet.stat().st_size / 1e6:.1f} MB, "
        f"predictions {paths.predictions.stat().st_size / 1e6:.1f} MB"
    )
    print(
        f"expert scores 0..7: {facts['expert_counts']}; predictions whole numbers "
        f"{facts['integer_scores']:.0%}, mean error {facts['mean_error']:+.2f}"
    )
    print(
        f"tied pairs within a problem: expert {facts['tied_expert']:.0%}, "
        f"prediction {facts['tied_score']:.0%}; tau-b undefined on {facts['undefined']:,} "
        f"problems (constant expert {facts['constant_expert']:,}, "
        f"constant prediction {facts['constant_score']:,})"
    )

    return run_benchmark(
        BENCHMARK,
        BENCHMARK,
        paths.predictions,
        paths.datasets_dir,
        args,
        TARGETS,
        f"ProofBench: proofs {n_items:,}, problems {args.problems:,}",
        Baseline(
            lambda: baseline_load(paths),
            baseline_metrics,
            replicate_metrics,
            "load (read_json + read_parquet + merge)",
        ),
        n_items,
    )
