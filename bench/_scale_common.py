"""What the scale benchmarks (`evaluate_scale.py`, `proofbench_scale.py`) share: writing a
synthetic built dataset, timing `evaluate_file` by phase, mathjudge's cluster draws for the
baselines, the number checks and the report.

Not a library module: imported by the scripts in this folder (run from the repository root).
"""

from __future__ import annotations

import contextlib
import cProfile
import dataclasses
import functools
import hashlib
import io
import json
import os
import pstats
import resource
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from mathjudge.dataio import reader as dataset
from mathjudge.scoring import bootstrap, engine, evaluator
from mathjudge.spec.results import Evaluation
from mathjudge.spec.scorer import Scorer

JUDGE = "bench"
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

# (owner, attribute, phase label): the library functions `evaluate_file` goes through.
PHASES: list[tuple[Any, str, str]] = [
    (evaluator, "open_dataset", "open_dataset"),
    (dataset.BuiltDataset, "item_ids", "item_ids"),
    (evaluator, "load_submission", "load_submission"),
    (evaluator, "score", "score"),
    (engine, "cluster_statistics", "cluster_statistics"),
    (engine, "replicate_sums", "replicate_sums"),
]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def print_load() -> None:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"load average before the runs: {load} ({os.cpu_count()} CPUs)")


@dataclass
class MathjudgeRun:
    wall: float
    cpu: float  # user + system seconds of every thread: what other load does not inflate much
    phases: dict[str, float]
    rss_before_mb: float
    rss_peak_mb: float
    result: Evaluation
    groups: list[Group]
    replicates: dict[str, np.ndarray]  # metric -> (B, groups), as `score` computed them


@contextlib.contextmanager
def instrumented(
    phases: dict[str, float], captured: dict[str, Any], targets: list[tuple[Any, str, str]]
) -> Iterator[None]:
    """Time (and keep the result of) the library functions `evaluate_file` goes through.

    Patches the names where they are looked up at call time and restores them afterwards; the
    wrappers add a few microseconds per call, nothing per row.
    """

    def timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            out = fn(*args, **kwargs)
            phases[label] = phases.get(label, 0.0) + time.perf_counter() - start
            captured[label] = out
            return out

        return wrapper

    def put(owner: Any, name: str, value: Any) -> None:
        # A scorer is a frozen dataclass: its hooks are swapped in place, and back afterwards.
        if dataclasses.is_dataclass(owner) and not isinstance(owner, type):
            object.__setattr__(owner, name, value)
        else:
            setattr(owner, name, value)

    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
    try:
        for (owner, name, label), (_, _, original) in zip(targets, saved, strict=True):
            put(owner, name, timed(label, original))
        yield
    finally:
        for owner, name, original in saved:
            put(owner, name, original)


def run_mathjudge(
    benchmark: str,
    predictions: Path,
    datasets_dir: Path,
    n_boot: int,
    boot_seed: int | None,
    scorer: Scorer,
    targets: list[tuple[Any, str, str]] = PHASES,
) -> MathjudgeRun:
    """One timed `evaluate_file` call, with its phases and the replicate values it computed."""
    phases: dict[str, float] = {}
    captured: dict[str, Any] = {}
    rss_before = peak_rss_mb()
    with instrumented(phases, captured, targets):
        start, cpu_start = time.perf_counter(), time.process_time()
        result = evaluator.evaluate_file(
            benchmark,
            predictions,
            JUDGE,
            datasets_dir=datasets_dir,
            n_boot=n_boot,
            seed=boot_seed,
        )
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    rss_peak = peak_rss_mb()
    stats: engine.ClusterStats = captured.pop("cluster_statistics")
    fields = scorer.fields_of(result.fields)
    # What `engine.score` does with `replicate_sums`' output: statistics -> metrics.
    replicates = stats.metrics(scorer, fields, captured.pop("replicate_sums"))
    captured.clear()
    return MathjudgeRun(wall, cpu, phases, rss_before, rss_peak, result, stats.groups, replicates)


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


def _verdict(met: bool) -> str:
    return "met" if met else "MISSED"


@dataclass(frozen=True)
class Targets:
    seconds: float
    speedup: float = TARGET_SPEEDUP


def report(
    mj: MathjudgeRun,
    phase_rows: list[tuple[str, float, int]],
    base: BaselineRun,
    baseline_load_label: str,
    checks: list[Check],
    sizes: str,
    n_boot: int,
    targets: Targets,
) -> tuple[bool, list[str]]:
    """Print the mathjudge, baseline, checks and summary sections; returns (same numbers,
    summary lines)."""
    print("\n== mathjudge: evaluate_file ==")
    print(f"{'wall time':40s} {mj.wall:9.2f} s")
    print(f"{'cpu time (all threads)':40s} {mj.cpu:9.2f} s")
    for label, seconds, depth in phase_rows:
        print(f"{'  ' * depth + label:40s} {seconds:9.2f} s")
    print(
        f"{'peak RSS':40s} {mj.rss_peak_mb:9.0f} MB  (before the call: {mj.rss_before_mb:.0f} MB)"
    )

    speedup = base.extrapolated(n_boot) / mj.wall
    reps = len(base.rep_s)
    print("\n== baseline: pandas/scipy ==")
    print(f"{baseline_load_label:40s} {base.load_s:9.2f} s")
    print(f"{'point estimates':40s} {base.point_s:9.2f} s")
    if reps:
        measured = base.load_s + base.point_s + sum(base.rep_s)
        print(
            f"{'per bootstrap replicate (mean)':40s} {base.per_rep_s:9.2f} s"
            f"  (min {min(base.rep_s):.2f}, max {max(base.rep_s):.2f})"
        )
        print(f"{f'MEASURED total ({reps} replicates)':40s} {measured:9.2f} s")
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

    summary = [
        f"{sizes}, B = {n_boot}",
        f"mathjudge wall time   {mj.wall:8.2f} s   target <= {targets.seconds:g} s   "
        f"{_verdict(mj.wall <= targets.seconds)}",
        f"mathjudge cpu time    {mj.cpu:8.2f} s   (all threads; load average at the end "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)",
    ]
    if reps:
        summary.append(
            f"speedup vs baseline   {speedup:8.1f} x   target >= {targets.speedup:g} x   "
            f"{_verdict(speedup >= targets.speedup)}  (baseline extrapolated from {reps} replicates)"
        )
    else:
        summary.append("speedup vs baseline   n/a (--baseline-reps 0)")
    summary.append(f"same numbers: {'yes' if same else 'NO'}")
    print("\n== summary ==")
    print("\n".join(summary))
    return same, summary
