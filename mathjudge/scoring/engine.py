"""Score a validated submission: DuckDB computes per-cluster statistics, numpy bootstraps them.

The engine builds the view `scoped`: one row per (scope, subset, item) with the item's columns,
its cluster index `ci` (clusters = every cluster of the dataset, sorted) and the submission's
run-combined prediction fields (`scoring.tables` puts predictions beside their items). The
benchmark's `Scorer` (see `spec.scorer`) turns `scoped` into additive per-(scope, subset,
cluster) statistics with one SQL query (`scoring.matrix` reads them into a matrix) and maps
summed statistics to metric values with `finalize`; everything else here is shared by every
benchmark. Scopes fixed per cluster are derived from `overall` where the scorer allows it
(`Scorer.stats_from_rows`): see `ClusterStats`.

Runs are combined by the reducer the user names (`--runs-agg`, field by field) unless the
scorer has its own (`Scorer.reducer`); a scorer's `options` (allowed values, the first the
default) are checked by `resolve_options` and handed to its reducer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mathjudge.base.errors import MathJudgeError
from mathjudge.scoring import matrix, spread
from mathjudge.scoring.bootstrap import Blocks, Interval, percentile_interval, replicate_sums
from mathjudge.scoring.runs import aggregate_sql
from mathjudge.scoring.tables import FixedScopes, Limits, ScoringTables, connect, scored_rows
from mathjudge.spec.results import Score
from mathjudge.spec.scorer import Extras, Scorer

if TYPE_CHECKING:
    from mathjudge.validate.predictions import Predictions


@dataclass(frozen=True)
class ClusterStats:
    """Per-cluster additive statistics of one scored table, ready to bootstrap.

    `matrix` holds the groups computed per cluster, in display order. The groups of scopes
    fixed per cluster (`fixed`, see `scoring.tables`) are unions of blocks of clusters whose
    statistics are their overall ones (`derived`: each one's position and blocks); with
    `fixed` the matrix's rows are the clusters in `fixed.order`.
    """

    groups: list[tuple[str, str]]  # (scope, subset), in display order
    names: list[str]  # statistic names
    n_items: np.ndarray  # items per group
    matrix: np.ndarray  # clusters x (computed groups * statistics)
    fixed: FixedScopes | None = None
    derived: list[tuple[int, np.ndarray]] = field(default_factory=list)

    @property
    def computed(self) -> list[int]:
        """The positions of the matrix's groups in `groups`."""
        derived = {g for g, _ in self.derived}
        return [g for g in range(len(self.groups)) if g not in derived]

    def metrics(
        self, scorer: Scorer, fields: tuple[str, ...], sums: np.ndarray
    ) -> dict[str, np.ndarray]:
        """Metric values from summed statistics of every group (`totals`, `replicates`)."""
        shaped = sums.reshape(*sums.shape[:-1], len(self.groups), len(self.names))
        return scorer.finalize({n: shaped[..., j] for j, n in enumerate(self.names)}, fields)

    def counts(self, scorer: Scorer, g: int) -> dict[str, int]:
        """Each metric's n in group `g` (see `Scorer.metric_counts`)."""
        sums = self.totals.reshape(len(self.groups), len(self.names))[g]
        return scorer.metric_counts(dict(zip(self.names, sums, strict=True)), int(self.n_items[g]))

    @cached_property
    def totals(self) -> np.ndarray:
        """The statistics of every group summed over its clusters: the point estimates' sums."""
        blocks = None
        if self.fixed is not None and self.derived:
            per_row = self.matrix[:, self.block_columns(0)]
            blocks = np.add.reduceat(per_row, self.fixed.bounds[:-1], axis=0)
        return self.arrange(self.matrix.sum(axis=0), blocks)

    def arrange(self, computed: np.ndarray, blocks: np.ndarray | None) -> np.ndarray:
        """(..., groups * statistics) in display order from the sums of the computed groups
        (..., computed * statistics) and of the overall statistics per block (..., blocks,
        statistics)."""
        k = len(self.names)
        lead = computed.shape[:-1]
        out = np.empty((*lead, len(self.groups), k))
        out[..., self.computed, :] = computed.reshape(*lead, len(self.computed), k)
        for g, which in self.derived:
            assert blocks is not None
            out[..., g, :] = blocks[..., which, :].sum(axis=-2)
        return out.reshape(*lead, len(self.groups) * k)

    def block_columns(self, offset: int) -> np.ndarray:
        """The overall group's columns, which blocks are summed on, in a matrix where this
        one's columns start at `offset` (none without derived groups)."""
        if not self.derived:
            return np.arange(0)
        k = len(self.names)
        start = offset + self.computed.index(self.groups.index(OVERALL)) * k
        return np.arange(start, start + k)

    def same_layout(self, other: ClusterStats) -> bool:
        """Whether `other` has the same groups, statistics, items per group and blocks, so that
        the two can be paired column by column."""
        return (
            (self.groups, self.names, self.computed) == (other.groups, other.names, other.computed)
            and self.fixed is other.fixed
            and np.array_equal(self.n_items, other.n_items)
            and [g for g, _ in self.derived] == [g for g, _ in other.derived]
            and all(
                np.array_equal(a, b)
                for (_, a), (_, b) in zip(self.derived, other.derived, strict=True)
            )
        )


OVERALL = ("overall", "all")


def replicates(
    stats: Sequence[ClusterStats],
    n_boot: int,
    seed: int,
    on_progress: Callable[[int], None] | None = None,
) -> list[np.ndarray]:
    """Each one's (n_boot, groups * statistics) sums under one shared set of cluster resamples
    (paired comparisons and ranks need every judge on the same resamples), all scored with
    the same tables."""
    fixed = stats[0].fixed
    if any(s.fixed is not fixed for s in stats):
        raise ValueError("statistics of different scoring tables cannot share resamples")
    offsets = np.cumsum([0, *(s.matrix.shape[1] for s in stats)]).tolist()
    side_by_side = stats[0].matrix if len(stats) == 1 else np.hstack([s.matrix for s in stats])
    columns = [s.block_columns(at) for s, at in zip(stats, offsets, strict=False)]
    blocks = None
    if fixed is not None and any(len(c) for c in columns):
        blocks = Blocks(fixed.order, fixed.bounds, np.concatenate(columns))
    sums = replicate_sums(side_by_side, n_boot, seed, on_progress, blocks)
    per_block = None
    if blocks is not None:
        per_block = sums[:, offsets[-1] :].reshape(n_boot, blocks.n_blocks, len(blocks.columns))
    out = []
    at = 0
    for s, start, stop, own in zip(stats, offsets[:-1], offsets[1:], columns, strict=True):
        mine = None if per_block is None else per_block[..., at : at + len(own)]
        out.append(s.arrange(sums[:, start:stop], mine))
        at += len(own)
    return out


def _natural(text: str) -> tuple[int | str, ...]:
    """Sort key putting "n=2" before "n=10"."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _clean(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def resolve_options(scorer: Scorer, given: dict[str, str] | None) -> dict[str, str]:
    """Every option the scorer takes, set to the given value or its default. An option whose
    allowed values are None takes free text (e.g. a model name) and defaults to ""."""
    allowed = scorer.options
    given = given or {}
    for name, value in given.items():
        if name not in allowed:
            known = ", ".join(sorted(allowed)) or "none"
            raise MathJudgeError(f"unknown scoring option {name!r} (this benchmark takes: {known})")
        choices = allowed[name]
        if choices is not None and value not in choices:
            raise MathJudgeError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return {name: given.get(name, values[0] if values else "") for name, values in allowed.items()}


def combined_predictions(
    con: duckdb.DuckDBPyConnection,
    table: pa.Table,
    scorer: Scorer,
    fields: tuple[str, ...],
    runs_agg: str,
    options: dict[str, str],
) -> pa.Table:
    """The per-item table scored: the scorer's own reducer, else runs ensembled."""
    if scorer.reducer is not None:
        return scorer.reducer.combine(con, table, fields, options)
    return aggregated_predictions(con, table, scorer, fields, runs_agg)


def aggregated_predictions(
    con: duckdb.DuckDBPyConnection,
    table: pa.Table,
    scorer: Scorer,
    fields: tuple[str, ...],
    runs_agg: str,
) -> pa.Table:
    """One row per item: the runs of `table` combined field by field (a table that is one
    row per item already, see `_one_per_item`, as it is)."""
    if _one_per_item(table, scorer, fields):
        return table.select(["item_id", *fields])
    types = {f: scorer.prediction.arrow_types[f] for f in fields}
    con.register("submitted", table)
    out = con.sql(aggregate_sql(types, runs_agg)).to_arrow_table()
    con.unregister("submitted")
    return out


def _one_per_item(table: pa.Table, scorer: Scorer, fields: tuple[str, ...]) -> bool:
    """Whether `table` holds a single run of a one-row-per-run benchmark whose fields are
    numbers and booleans: one row per item, as every reducer gives them back."""
    types = [scorer.prediction.arrow_types[f] for f in fields]
    return (
        scorer.prediction.one_row_per_run
        and all(pa.types.is_float64(t) or pa.types.is_boolean(t) for t in types)
        and _n_runs(table) == 1
    )


def cluster_statistics(
    tables: ScoringTables,
    scorer: Scorer,
    fields: tuple[str, ...],
    preds: pa.Table,
    positions: np.ndarray | None = None,
    *,
    on_step: Callable[[str, int], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> ClusterStats:
    """The scorer's statistics of `preds` (one row per item; `positions`: their items'
    positions, if known) per cluster, in every group, reported as the step "statistics".
    Leaves the view `scoped` on the connection (over the rows registered as `joined`)."""
    con, fixed = tables.con, tables.fixed
    rows = scored_rows(tables, preds, positions)
    con.register("joined", rows)
    derived_scopes = set(fixed.names) if fixed is not None else set()
    scope_rows = ["SELECT 'overall' AS scope, 'all' AS subset, * FROM joined"] + [
        f"SELECT '{name}' AS scope, CAST({expr} AS VARCHAR) AS subset, * FROM joined"
        for name, expr in scorer.scopes.items()
        if name not in derived_scopes
    ]
    con.execute(f"CREATE OR REPLACE TEMP VIEW scoped AS {' UNION ALL '.join(scope_rows)}")
    order = ["overall", *scorer.scopes]

    def key(g: tuple[str, str]) -> tuple[int, str, tuple[int | str, ...]]:
        return (order.index(g[0]) if g[0] in order else len(order), g[0], _natural(g[1]))

    filled = matrix.read(tables, scorer, fields, rows, key, on_step, on_progress)
    derived: list[tuple[tuple[str, str], np.ndarray, float]] = []
    if fixed is not None and tables.n_clusters and OVERALL in filled.groups:
        per_block = np.add.reduceat(filled.row_items, fixed.bounds[:-1])
        for j, scope in enumerate(fixed.names):
            for s, subset in enumerate(fixed.subsets[j]):
                which = np.flatnonzero(fixed.block_subset[j] == s)
                if per_block[which].sum() > 0:
                    derived.append(((scope, subset), which, float(per_block[which].sum())))
    groups = sorted([*filled.groups, *(g for g, _, _ in derived)], key=key)
    position = {g: i for i, g in enumerate(groups)}
    n_items = np.zeros(len(groups))
    n_items[[position[g] for g in filled.groups]] = filled.n_items
    for g, _, items in derived:
        n_items[position[g]] = items
    return ClusterStats(
        groups,
        filled.names,
        n_items.astype(int),
        filled.matrix.reshape(tables.n_clusters, -1),
        fixed,
        [(position[g], which) for g, which, _ in derived],
    )


def _rows(
    stats: ClusterStats,
    scorer: Scorer,
    metric_names: list[str],
    point: dict[str, np.ndarray],
    ci: dict[str, Interval],
) -> list[Score]:
    out = []
    for g, (scope, subset) in enumerate(stats.groups):
        counts = stats.counts(scorer, g)
        for metric in metric_names:
            low = high = None
            if metric in ci:
                low, high = _clean(ci[metric].low[g]), _clean(ci[metric].high[g])
            out.append(
                Score(
                    scope,
                    subset,
                    metric,
                    _clean(point[metric][g]),
                    low,
                    high,
                    counts[metric],
                )
            )
    return out


def _run_spread(
    tables: ScoringTables,
    scorer: Scorer,
    fields: tuple[str, ...],
    table: pa.Table,
    options: dict[str, str],
) -> list[Score]:
    """Overall metrics of every single run, and their mean and std across runs (no CIs): how
    much one run of the judge varies, next to the ensembled result."""
    per_run: list[dict[str, float]] = []
    rows = []
    names = scorer.metric_names(fields)
    if spread.batched(scorer):
        runs = spread.per_run_overall(tables, scorer, fields, table)
    else:
        runs = _one_run_at_a_time(tables, scorer, fields, table, options)
    for run, values, counts in runs:
        per_run.append(values)
        rows += [
            Score("run", f"run={run}", m, _clean(v), None, None, counts[m])
            for m, v in values.items()
        ]
    for m in names:
        column = np.array([r[m] for r in per_run])
        defined = column[~np.isnan(column)]
        mean = float(defined.mean()) if len(defined) else float("nan")
        std = float(defined.std(ddof=1)) if len(defined) > 1 else float("nan")
        rows += [
            Score("run_spread", "mean", m, _clean(mean), None, None, len(defined)),
            Score("run_spread", "std", m, _clean(std), None, None, len(defined)),
        ]
    return rows


def _one_run_at_a_time(
    tables: ScoringTables,
    scorer: Scorer,
    fields: tuple[str, ...],
    table: pa.Table,
    options: dict[str, str],
) -> Iterator[tuple[int, dict[str, float], dict[str, int]]]:
    """Each run through the scorer's own reducer, as a one-run submission would be."""
    names = scorer.metric_names(fields)
    for run, only in spread.split_by_run(table):
        preds = combined_predictions(tables.con, only, scorer, fields, "mean", options)
        stats = cluster_statistics(tables, scorer, fields, preds)
        point = stats.metrics(scorer, fields, stats.totals)
        g = stats.groups.index(OVERALL)
        yield run, {m: float(point[m][g]) for m in names}, stats.counts(scorer, g)


@dataclass(frozen=True)
class Scored:
    scores: list[Score]
    predictions: pa.Table  # one row per item, runs combined: what the scores were computed on
    extras: Extras  # benchmark-specific tables (e.g. a confusion matrix)


def score(
    items: pa.Table,
    scorer: Scorer,
    predictions: Predictions,
    *,
    runs_agg: str,
    n_boot: int,
    seed: int,
    options: dict[str, str] | None = None,
    on_progress: Callable[[int], None] | None = None,
    on_step: Callable[[str, int], None] | None = None,
    limits: Limits | None = None,
) -> Scored:
    """The scores of a validated `predictions` on `items`: point estimates, percentile CIs from
    `n_boot` cluster-bootstrap replicates drawn with `seed`, and the spread across runs.
    `on_progress` counts the replicates; with `on_step`, called as each long step starts (its
    description and total), it counts every step's units. `limits` bound DuckDB's memory."""
    table = predictions.table
    fields = scorer.fields_of(predictions.fields)
    options = resolve_options(scorer, options)
    tables = connect(items, scorer, limits)
    try:
        preds = combined_predictions(tables.con, table, scorer, fields, runs_agg, options)
        # The validated rows themselves where they are one per item: their positions are known.
        same_rows = scorer.reducer is None and _one_per_item(table, scorer, fields)
        positions = predictions.item_index if same_rows else None
        stats = cluster_statistics(
            tables,
            scorer,
            fields,
            preds,
            positions,
            on_step=on_step,
            on_progress=on_progress if on_step is not None else None,
        )
        # Optional hook: tables computed from `scoped` that are not metrics with CIs.
        extras = scorer.extras(tables.con, fields) if scorer.extras is not None else {}
        spread = _run_spread(tables, scorer, fields, table, options) if _n_runs(table) > 1 else []
    finally:
        tables.close()
    names = scorer.metric_names(fields)
    point = stats.metrics(scorer, fields, stats.totals)
    if on_step is not None:
        on_step("bootstrap", n_boot)
    (sums,) = replicates([stats], n_boot, seed, on_progress)
    replicated = stats.metrics(scorer, fields, sums)
    # Counts (e.g. problems where a statistic is defined) are facts of the data, not estimates.
    ci = {m: percentile_interval(replicated[m]) for m in names if m not in scorer.no_ci}
    return Scored(_rows(stats, scorer, names, point, ci) + spread, preds, extras)


def _n_runs(table: pa.Table) -> int:
    return len(pc.unique(table.column("run")))
