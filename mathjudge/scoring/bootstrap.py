"""Cluster (problem-level) percentile bootstrap over additive per-cluster statistics.

Every metric mathjudge reports is a function of sums over clusters (counts, sums of products,
per-problem values), so a bootstrap replicate is a vector of multinomial cluster counts times
the cluster-by-statistic matrix: one matrix product per chunk of replicates instead of
re-running the metric on resampled rows. Replicates are drawn over *all* clusters of the
dataset in a fixed order, so two judges scored with the same seed see the same resamples
(needed for paired comparisons).

Chunks have a fixed size and their own seeds spawned from the root seed, so results do not
depend on thread count or scheduling.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import islice

import numpy as np
from threadpoolctl import threadpool_limits

CHUNK = 50
CI_LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    low: np.ndarray
    high: np.ndarray


def _draw_counts(seed: np.random.SeedSequence, reps: int, n_clusters: int) -> np.ndarray:
    """(reps, n_clusters) multinomial counts: how often each cluster is drawn per replicate."""
    rng = np.random.default_rng(seed)
    counts = np.empty((reps, n_clusters), dtype=np.float64)
    for r in range(reps):
        draws = rng.integers(0, n_clusters, size=n_clusters, dtype=np.int32)
        counts[r] = np.bincount(draws, minlength=n_clusters)
    return counts


def _replicate_chunk(seed: np.random.SeedSequence, reps: int, matrix: np.ndarray) -> np.ndarray:
    return np.asarray(_draw_counts(seed, reps, matrix.shape[0]) @ matrix)


def replicate_sums(
    matrix: np.ndarray,
    n_boot: int,
    seed: int,
    on_chunk: Callable[[int], None] | None = None,
) -> np.ndarray:
    """(n_boot, k) column sums of `matrix` (clusters x statistics) under cluster resampling.

    One worker thread per core draws a chunk's counts and multiplies them out (numpy releases
    the GIL for both), with BLAS held to one thread: BLAS's own threads would compete with the
    workers for the cores, which degrades badly on a shared machine, and a fixed BLAS thread
    count also makes the sums bitwise reproducible. At most a few chunks are in flight.
    """
    sizes = [min(CHUNK, n_boot - start) for start in range(0, n_boot, CHUNK)]
    jobs = iter(zip(np.random.SeedSequence(seed).spawn(len(sizes)), sizes, strict=True))
    out = np.empty((n_boot, matrix.shape[1]), dtype=np.float64)
    workers = max(1, min(len(sizes), os.cpu_count() or 1))
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
        pending = deque(
            pool.submit(_replicate_chunk, s, n, matrix) for s, n in islice(jobs, 2 * workers)
        )
        start = 0
        while pending:
            sums = pending.popleft().result()
            if (job := next(jobs, None)) is not None:
                pending.append(pool.submit(_replicate_chunk, *job, matrix))
            out[start : start + len(sums)] = sums
            start += len(sums)
            if on_chunk:
                on_chunk(len(sums))
    return out


def percentile_interval(replicates: np.ndarray) -> Interval:
    """95% percentile interval per column, ignoring replicates where a metric is undefined."""
    alpha = (1 - CI_LEVEL) / 2 * 100
    with np.errstate(all="ignore"):
        defined = ~np.isnan(replicates)
        low = np.full(replicates.shape[1:], np.nan)
        high = np.full(replicates.shape[1:], np.nan)
        full = defined.all(axis=0)  # the usual case, where the plain percentile is much faster
        if full.any():
            low[full], high[full] = np.percentile(replicates[:, full], [alpha, 100 - alpha], axis=0)
        partly = defined.any(axis=0) & ~full
        if partly.any():
            low[partly], high[partly] = np.nanpercentile(
                replicates[:, partly], [alpha, 100 - alpha], axis=0
            )
    return Interval(low, high)
