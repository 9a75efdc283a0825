"""What the scale benchmarks (`evaluate_scale.py`, `_proofbench_scale.py`) share: writing a
synthetic built dataset, timing `evaluate_file` by phase, mathjudge's cluster draws for the
baselines, the number checks and the report.

Not a library module: imported by the scripts in this folder (run from the repository root).
"""

from __future__ import annotations

import cProfile
import functools
import hashlib
import io
import json
import os
import pstats
import resource
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import _measure
import numpy as np
import pandas as pd
from _measure import JUDGE, Measured

from mathjudge.scoring import bootstrap, evaluator

TARGET_SPEEDUP = 100.0
RTOL = 1e-9

Key = tuple[str, str, str]  # (scope, subset, metric)
Group = tuple[str, str]  # (scope, subset)


# ---------------------------------------------------------------------------------------------
# Synthetic data


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(functools.partial(handle.read, 1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def is_cached(marker: Path, params: dict[str, Any], *files: Path) -> bool:
    """True if `marker` records exactly `params` and every file exists."""
    return (
        marker.is_file()
        and json.loads(marker.read_text()) == params
        and all(f.is_file() for f in files)
    )


def write_manifest(
    datasets_dir: Path, benchmark: str, config: str, parquet: Path, rows: int, version: str
) -> None:
    """The manifest `open_dataset` reads. `content_hash` is the Parquet file's digest (the real
    one hashes canonical JSON rows, which is slow at this size and not what is measured)."""
    root = datasets_dir / benchmark
    digest = sha256_of(parquet)
    manifest = {
        "benchmark": benchmark,
        "version": version,
        "builder": {"name": "bench/evaluate_scale.py"},
        "files": [
            {
                "path": str(parquet.relative_to(root)),
                "config": config,
                "split": "test",
                "rows": rows,
                "sha256": digest,
            }
        ],
        "content_hash": f"sha256:{digest}",
    }
    (root / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def in_child(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` in a fresh process, so its memory does not count in this one's peak RSS."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(fn, *args).result()


# ---------------------------------------------------------------------------------------------
# mathjudge


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def print_load() -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before the runs: {load} ({os.cpu_count()} CPUs)")


def run_mathjudge(
    benchmark: str,
    predictions: Path,
    datasets_dir: Path,
    n_boot: int,
    boot_seed: int | None,
    json_out: Path | None = None,
) -> Measured:
    """One timed `evaluate_file` call in a fresh process (see `_measure`)."""
    return in_child(
        _measure.evaluate, benchmark, predictions, datasets_dir, n_boot, boot_seed, json_out
    )


def profile_mathjudge(
    benchmark: str,
    predictions: Path,
    datasets_dir: Path,
    n_boot: int,
    boot_seed: int | None,
    top: int,
) -> str:
    """cProfile of one more `evaluate_file` call (main thread only; bootstrap workers show up
    as waiting in `replicate_sums`)."""
    profiler = cProfile.Profile()
    profiler.enable()
    evaluator.evaluate_file(
        benchmark, predictions, JUDGE, datasets_dir=datasets_dir, n_boot=n_boot, seed=boot_seed
    )
    profiler.disable()
    out = io.StringIO()
    report = pstats.Stats(profiler, stream=out).strip_dirs()
    report.sort_stats("cumulative").print_stats(top)
    report.sort_stats("tottime").print_stats(top)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# Baselines: mathjudge's cluster draws, resampled rows, timing


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

    def draw_ids(self, draws: np.ndarray) -> np.ndarray:
        """For each row of `rows(draws)`, the position of its draw: a cluster drawn twice is two
        clusters of the resample."""
        return np.repeat(np.arange(len(draws)), self.sizes[draws])


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


Metrics = tuple[dict[Key, float], dict[Group, int]]


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


def run_baseline(
    load: Callable[[], pd.DataFrame],
    point_metrics: Callable[[pd.DataFrame], Metrics],
    replicate_metrics: Callable[[pd.DataFrame, ClusterResampler, np.ndarray, Metrics], Metrics],
    cluster: str,
    n_boot: int,
    seed: int,
    indices: list[int],
) -> BaselineRun:
    """Time `load`, the point estimates and replicates `indices` (mathjudge's draws).

    `replicate_metrics(frame, resampler, draws, point)` builds the resample and recomputes every
    metric; drawing is left out of the timing (about a millisecond per replicate; favours the
    baseline slightly).
    """
    start = time.perf_counter()
    frame = load()
    load_s = time.perf_counter() - start

    start = time.perf_counter()
    point = point_metrics(frame)
    point_s = time.perf_counter() - start

    resampler = ClusterResampler(frame, cluster)
    draws = cluster_draws(resampler.n_clusters, n_boot, seed, indices)
    run = BaselineRun(load_s, point_s, [], *point)
    for r in indices:
        start = time.perf_counter()
        run.replicates[r], _ = replicate_metrics(frame, resampler, draws[r], point)
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


def check_numbers(mj: Measured, base: BaselineRun | None) -> list[Check]:
    """mathjudge against the baseline: every point estimate, item count and checked
    replicate."""
    if base is None:
        return []
    point: dict[Key, float] = {}
    n_items: dict[Group, int] = {}
    for scope, subset, metric, value, _, _, n in mj.scores:
        point[(scope, subset, metric)] = float("nan") if value is None else value
        n_items[(scope, subset)] = n
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


def _flat(rows: list[tuple[Any, ...]]) -> dict[Key, float]:
    """Every value, CI bound and n of score rows (scope, subset, metric, value, low, high, n)."""
    out: dict[Key, float] = {}
    for scope, subset, metric, value, low, high, n in rows:
        for part, x in (("value", value), ("ci_low", low), ("ci_high", high), ("n", n)):
            out[(scope, subset, f"{metric}.{part}")] = float("nan") if x is None else float(x)
    return out


def check_reference(mj: Measured, reference: Path) -> Check:
    """mathjudge against another version's scores of the same data (`--save-scores`, or the
    file `mathjudge evaluate --json` writes): every value, CI bound and n, to RTOL."""
    rows = [
        (r["scope"], r["subset"], r["metric"], r["value"], r["ci_low"], r["ci_high"], r["n"])
        for r in json.loads(reference.read_text(encoding="utf-8"))["scores"]
    ]
    return compare(f"every score and CI against {reference}", _flat(rows), _flat(mj.scores))


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def _speedup_line(ratio: float | None, target: float | None, how: str) -> str:
    if ratio is None:
        return "speedup       n/a (no baseline)"
    if target is None:
        return f"speedup       {ratio:8.1f} x    (no target; {how})"
    return f"speedup       {ratio:8.1f} x    target >= {target:g} x   {_verdict(ratio >= target)}  ({how})"


@dataclass(frozen=True)
class Targets:
    seconds: float
    rss_mb: float
    speedup: float | None = TARGET_SPEEDUP  # None: the ratio is shown, with no target


def report(
    mj: Measured,
    base: BaselineRun | None,
    baseline_load_label: str,
    checks: list[Check],
    sizes: str,
    n_boot: int,
    targets: Targets,
    scaled_replicate: tuple[float, str] | None = None,
) -> tuple[bool, list[str]]:
    """Print the mathjudge, baseline, checks and summary sections; returns (same numbers,
    summary lines). `scaled_replicate`: the seconds of a baseline replicate and how they were
    obtained, for a run whose baseline runs none."""
    print("\n== mathjudge: evaluate_file (a fresh process) ==")
    print(f"{'wall time':40s} {mj.wall:9.2f} s")
    print(f"{'cpu time (all threads)':40s} {mj.cpu:9.2f} s")
    print(f"{'  phase':40s} {'wall':>9s}   {'cpu':>7s}   peak RSS while it ran")
    for label, seconds, cpu, rss, depth in _measure.phase_rows(mj):
        print(f"{'  ' * depth + label:40s} {seconds:9.2f} s {cpu:7.2f} s {rss:7.0f} MB")
    print(
        f"{'peak RSS (ru_maxrss)':40s} {mj.rss_peak_mb:9.0f} MB  "
        f"(imports, before the call: {mj.rss_before_mb:.0f} MB)"
    )

    total = None
    how = ""
    if base is not None and base.rep_s:
        total = base.extrapolated(n_boot)
        how = f"baseline extrapolated from {len(base.rep_s)} replicates"
    elif base is not None and scaled_replicate is not None:
        per_rep, source = scaled_replicate
        total = base.load_s + base.point_s + per_rep * n_boot
        how = f"load and point estimates measured, {per_rep:.2f} s per replicate from {source}"
    if base is not None:
        print("\n== baseline: pandas/scipy ==")
        print(f"{baseline_load_label:40s} {base.load_s:9.2f} s")
        print(f"{'point estimates':40s} {base.point_s:9.2f} s")
        if base.rep_s:
            measured = base.load_s + base.point_s + sum(base.rep_s)
            print(
                f"{'per bootstrap replicate (mean)':40s} {base.per_rep_s:9.2f} s"
                f"  (min {min(base.rep_s):.2f}, max {max(base.rep_s):.2f})"
            )
            print(f"{f'MEASURED total ({len(base.rep_s)} replicates)':40s} {measured:9.2f} s")
            print(
                f"{f'EXTRAPOLATED total (B = {n_boot})':40s} "
                f"{base.extrapolated(n_boot):9.2f} s"
                f"  = {base.load_s + base.point_s:.2f} + {base.per_rep_s:.3f} x {n_boot}"
            )
        print(f"{'peak RSS (process, after baseline)':40s} {base.rss_peak_mb:9.0f} MB")

    print(f"\n== same numbers (relative tolerance {RTOL:g}) ==")
    for c in checks:
        status = "PASS" if c.ok else "FAIL"
        print(f"{c.label}: {c.n_values} values, max rel diff {c.max_rel:.2e}  {status}")
        for problem in c.problems:
            print(f"    {problem}")
    same = all(c.ok for c in checks)

    ratio = None if total is None else total / mj.wall
    summary = [
        f"{sizes}, B = {n_boot}",
        f"wall time     {mj.wall:8.2f} s    target <= {targets.seconds:g} s      "
        f"{_verdict(mj.wall <= targets.seconds)}",
        f"cpu time      {mj.cpu:8.2f} s    (all threads)",
        f"peak RSS      {mj.rss_peak_mb:8.0f} MB   target <= {targets.rss_mb:g} MB   "
        f"{_verdict(mj.rss_peak_mb <= targets.rss_mb)}",
        _speedup_line(ratio, targets.speedup, how),
        f"load average  {mj.load[0]:.2f} at the start, {mj.load[1]:.2f} at the end "
        f"({os.cpu_count()} CPUs)",
        f"same numbers: {('yes' if same else 'NO') if checks else 'not checked'}",
        "table row: | wall | cpu | peak RSS | ratio | load |",
        f"           | {mj.wall:.2f} s | {mj.cpu:.1f} s | {mj.rss_peak_mb:,.0f} MB | "
        f"{'n/a' if ratio is None else f'{ratio:,.0f}x'} | {mj.load[0]:.1f} |",
    ]
    print("\n== summary ==")
    print("\n".join(summary))
    return same, summary


# ---------------------------------------------------------------------------------------------
# One benchmark run: mathjudge in a fresh process, the baseline, the checks, the report


@dataclass(frozen=True)
class Baseline:
    """The pandas/scipy implementation of a benchmark's metrics (see `run_baseline`)."""

    load: Callable[[], pd.DataFrame]
    point: Callable[[pd.DataFrame], Metrics]
    replicate: Callable[[pd.DataFrame, ClusterResampler, np.ndarray, Metrics], Metrics]
    load_label: str
    cluster: str = "problem_id"


@dataclass(frozen=True)
class Outcome:
    same: bool
    summary: list[str]
    baseline_replicate_s: float | None  # a baseline replicate's mean seconds, when measured
    rows: int  # predictions


def run_benchmark(
    label: str,
    benchmark: str,
    predictions: Path,
    datasets_dir: Path,
    args: Any,
    targets: Targets,
    sizes: str,
    baseline: Baseline,
    rows: int,
    scaled_replicate: tuple[float, str] | None = None,
) -> Outcome:
    """mathjudge's call, then (unless `args.no_baseline`) the baseline, the checks (also
    against `args.reference`/<label>.json when given) and the report."""
    print_load()
    json_out = args.save_scores / f"{label}.json" if args.save_scores else None
    if json_out is not None:
        json_out.parent.mkdir(parents=True, exist_ok=True)
    print("\nrunning mathjudge evaluate_file in a fresh process ...", flush=True)
    mj = run_mathjudge(
        benchmark, predictions, datasets_dir, args.bootstrap, args.boot_seed, json_out
    )
    base = None
    if not args.no_baseline:
        indices = spread_indices(args.bootstrap, args.baseline_reps)
        print(f"running the pandas/scipy baseline ({len(indices)} replicates) ...", flush=True)
        base = run_baseline(
            baseline.load,
            baseline.point,
            baseline.replicate,
            baseline.cluster,
            args.bootstrap,
            mj.seed,
            indices,
        )
    checks = check_numbers(mj, base)
    if args.reference is not None:
        checks.append(check_reference(mj, args.reference / f"{label}.json"))
    same, summary = report(
        mj,
        base,
        baseline.load_label,
        checks,
        sizes,
        args.bootstrap,
        targets,
        scaled_replicate,
    )
    if args.profile:
        print(f"\n== cProfile of evaluate_file (top {args.profile}) ==")
        print(
            profile_mathjudge(
                benchmark, predictions, datasets_dir, args.bootstrap, args.boot_seed, args.profile
            )
        )
    per_rep = base.per_rep_s if base is not None and base.rep_s else None
    return Outcome(same, summary, per_rep, rows)
