"""Cluster (problem-level) percentile bootstrap over additive per-cluster statistics.

Every metric mathjudge reports is a function of sums over clusters (counts, sums of products,
per-problem values), so a bootstrap replicate is a vector of multinomial cluster counts times
the cluster-by-statistic matrix: one matrix product per chunk of replicates instead of
re-running the metric on resampled rows. Replicates are drawn over *all* clusters of the
dataset in a fixed order, so two judges scored with the same seed see the same resamples
(needed for paired comparisons).

Chunks have a fixed size and their own seeds spawned from the root seed, so results do not
depend on thread count or scheduling.

A chunk's counts are kept as small integers and widened to floats one block of clusters at a
time: with millions of clusters, float weights for a whole chunk would take gigabytes, and the
matrix is still read once per chunk, not once per replicate.
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
BLOCK = 1 << 14  # clusters whose weights are widened to float64 at once


@dataclass(frozen=True)
class Interval:
    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class Blocks:
    """The matrix's rows in blocks of clusters: row i holds cluster `order[i]`, rows
    `bounds[b]:bounds[b + 1]` form block b, and the columns `columns` are also summed block by
    block. A subset of problems that is a union of blocks (the problems of one type) then
    needs no columns of its own: its statistics are its problems' overall ones."""

    order: np.ndarray  # cluster of each row
    bounds: np.ndarray  # n_blocks + 1 row offsets
    columns: np.ndarray  # indices of the columns summed per block

    @property
    def n_blocks(self) -> int:
        return len(self.bounds) - 1


def _draw_counts(seed: np.random.SeedSequence, reps: int, n_clusters: int) -> np.ndarray:
    """(reps, n_clusters) multinomial counts: how often each cluster is drawn per replicate, in
    the narrowest integer type that holds them (uint8 unless a count passes 255)."""
    rng = np.random.default_rng(seed)
    counts = np.empty((reps, n_clusters), dtype=np.uint8)
    for r in range(reps):
        # int64 draws are the same stream as int32 ones (one 32-bit draw each below 2**32),
        # and bincount takes them as they are (int32 it first copies to intp).
        drawn = np.bincount(
            rng.integers(0, n_clusters, size=n_clusters, dtype=np.int64), minlength=n_clusters
        )
        if counts.dtype == np.uint8 and int(drawn.max(initial=0)) > 255:
            counts = counts.astype(np.int32)
        counts[r] = drawn
    return counts


class _Plan:
    """What every chunk multiplies: the matrix by runs of at most BLOCK rows that never cross a
    block's edge, each run's product also added to its block's sums."""

    def __init__(self, matrix: np.ndarray, blocks: Blocks | None) -> None:
        self.matrix, self.blocks = matrix, blocks
        self.n_clusters, self.k = matrix.shape
        cuts = set(range(0, self.n_clusters, BLOCK)) | {self.n_clusters}
        if blocks is not None:
            cuts |= set(blocks.bounds.tolist())
        self.cuts = sorted(cuts)
        self.block_of: list[int] = []  # the block each run of rows lies in
        self.width = self.k
        if blocks is not None:
            starts = np.searchsorted(blocks.bounds, self.cuts[:-1], side="right") - 1
            self.block_of = starts.tolist()
            self.width += blocks.n_blocks * len(blocks.columns)

    def chunk(self, seed: np.random.SeedSequence, reps: int) -> np.ndarray:
        counts = _draw_counts(seed, reps, self.n_clusters)
        blocks = self.blocks
        if blocks is not None:
            # per row: the draws of its cluster (`take` along an axis: 18 ms a chunk at 200,000
            # clusters, where the equivalent fancy index took 95 ms)
            counts = np.take(counts, blocks.order, axis=1)
        out = np.zeros((reps, self.width))
        for i, (lo, hi) in enumerate(zip(self.cuts[:-1], self.cuts[1:], strict=True)):
            product = counts[:, lo:hi].astype(np.float64) @ self.matrix[lo:hi]
            out[:, : self.k] += product
            if blocks is not None:
                at = self.k + self.block_of[i] * len(blocks.columns)
                out[:, at : at + len(blocks.columns)] += product[:, blocks.columns]
        return out


def replicate_sums(
    matrix: np.ndarray,
    n_boot: int,
    seed: int,
    on_chunk: Callable[[int], None] | None = None,
    blocks: Blocks | None = None,
) -> np.ndarray:
    """(n_boot, k) column sums of `matrix` (clusters x statistics) under cluster resampling,
    followed with `blocks` by (n_blocks x its columns) sums of each block.

    One worker thread per core draws a chunk's counts and multiplies them out (numpy releases
    the GIL for both), with BLAS held to one thread: BLAS's own threads would compete with the
    workers for the cores, which degrades badly on a shared machine, and a fixed BLAS thread
    count also makes the sums bitwise reproducible. At most a few chunks are in flight.
    """
    plan = _Plan(matrix, blocks)
    sizes = [min(CHUNK, n_boot - start) for start in range(0, n_boot, CHUNK)]
    jobs = iter(zip(np.random.SeedSequence(seed).spawn(len(sizes)), sizes, strict=True))
    out = np.empty((n_boot, plan.width), dtype=np.float64)
    workers = max(1, min(len(sizes), os.cpu_count() or 1))
    with threadpool_limits(limits=1, user_api="blas"), ThreadPoolExecutor(workers) as pool:
        pending = deque(pool.submit(plan.chunk, s, n) for s, n in islice(jobs, 2 * workers))
        start = 0
        while pending:
            sums = pending.popleft().result()
            if (job := next(jobs, None)) is not None:
                pending.append(pool.submit(plan.chunk, *job))
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
