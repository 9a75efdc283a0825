"""Score a validated submission: DuckDB computes per-cluster statistics, numpy bootstraps them.

The engine builds the table `scoped`: one row per (scope, subset, item) with the item's columns,
its cluster index `ci` (clusters = every cluster of the dataset, sorted) and the submission's
run-combined prediction fields. The benchmark's `Scorer` (see `spec.scorer`) turns `scoped`
into additive per-(scope, subset, cluster) statistics with one SQL query and maps summed
statistics to metric values with `finalize`; everything else here is shared by every benchmark.

Runs are combined by the reducer the user names (`--runs-agg`, field by field) unless the
scorer has its own (`Scorer.reducer`); a scorer's `options` (allowed values, the first the
default) are checked by `resolve_options` and handed to its reducer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb
import numpy as np
import pyarrow as pa

from mathjudge.base.errors import MathJudgeError
from mathjudge.scoring import spread
from mathjudge.scoring.bootstrap import Interval, percentile_interval, replicate_sums
from mathjudge.scoring.runs import aggregate_sql
from mathjudge.spec.results import Score
from mathjudge.spec.scorer import Extras, Scorer

if TYPE_CHECKING:
    from mathjudge.validate.submission import Submission


@dataclass(frozen=True)
class ClusterStats:
    """Per-cluster additive statistics of one scored table, ready to bootstrap."""

    groups: list[tuple[str, str]]  # (scope, subset), in display order
    names: list[str]  # statistic names
    n_items: np.ndarray  # items per group
    matrix: np.ndarray  # clusters x (groups * statistics)

    def metrics(
        self, scorer: Scorer, fields: tuple[str, ...], sums: np.ndarray
    ) -> dict[str, np.ndarray]:
        shaped = sums.reshape(*sums.shape[:-1], len(self.groups), len(self.names))
        return scorer.finalize({n: shaped[..., j] for j, n in enumerate(self.names)}, fields)

    def counts(self, scorer: Scorer, g: int) -> dict[str, int]:
        """Each metric's n in group `g` (see `Scorer.metric_counts`)."""
        sums = self.matrix.sum(axis=0).reshape(len(self.groups), len(self.names))[g]
        return scorer.metric_counts(dict(zip(self.names, sums, strict=True)), int(self.n_items[g]))


def _natural(text: str) -> tuple[int | str, ...]:
    """Sort key putting "n=2" before "n=10"."""
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", text))


def _clean(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def connect(items: pa.Table, scorer: Scorer) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the table `items` (only the columns scoring reads) and the
    table `cluster_index` (cluster -> ci over every cluster of the dataset)."""
    con = duckdb.connect()
    con.register("all_items", items.select(["item_id", *scorer.item_columns]))
    con.execute("CREATE TEMP TABLE items AS SELECT * FROM all_items")
    con.unregister("all_items")
    con.execute(
        f"""CREATE TEMP TABLE cluster_index AS
            SELECT {scorer.cluster} AS cluster,
                   row_number() OVER (ORDER BY {scorer.cluster}) - 1 AS ci
            FROM (SELECT DISTINCT {scorer.cluster} FROM items)"""
    )
    return con


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
    """One row per item: the runs of `table` combined field by field."""
    con.register("submitted", table)
    sql = aggregate_sql({f: scorer.prediction.arrow_types[f] for f in fields}, runs_agg)
    out = con.sql(sql).to_arrow_table()
    con.unregister("submitted")
    return out


def cluster_statistics(
    con: duckdb.DuckDBPyConnection, scorer: Scorer, fields: tuple[str, ...], preds: pa.Table
) -> ClusterStats:
    con.register("preds", preds)
    scope_rows = ["SELECT 'overall' AS scope, 'all' AS subset, * FROM joined"] + [
        f"SELECT '{name}' AS scope, CAST({expr} AS VARCHAR) AS subset, * FROM joined"
        for name, expr in scorer.scopes.items()
    ]
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE scoped AS
            WITH joined AS (
                SELECT items.*, cluster_index.ci, preds.* EXCLUDE (item_id)
                FROM items JOIN preds USING (item_id)
                JOIN cluster_index ON items.{scorer.cluster} = cluster_index.cluster
            )
            {" UNION ALL ".join(scope_rows)}"""
    )
    con.execute(f"CREATE OR REPLACE TEMP TABLE cluster_stats AS {scorer.stats_sql(fields)}")
    con.unregister("preds")
    order = ["overall", *scorer.scopes]
    groups = sorted(
        (
            tuple(g)
            for g in con.execute("SELECT DISTINCT scope, subset FROM cluster_stats").fetchall()
        ),
        key=lambda g: (order.index(g[0]) if g[0] in order else len(order), g[0], _natural(g[1])),
    )
    con.execute(
        "CREATE OR REPLACE TEMP TABLE group_index (scope VARCHAR, subset VARCHAR, gi INTEGER)"
    )
    con.executemany(
        "INSERT INTO group_index VALUES (?, ?, ?)", [[*g, i] for i, g in enumerate(groups)]
    )
    fixed = ("scope", "subset", "ci", "n_items")
    stat_names = [c for c in con.sql("SELECT * FROM cluster_stats").columns if c not in fixed]
    table = con.execute(
        f"""SELECT ci, gi, n_items, {", ".join(stat_names)}
            FROM cluster_stats JOIN group_index USING (scope, subset)"""
    ).fetchnumpy()
    n_clusters = con.execute("SELECT count(*) FROM cluster_index").fetchall()[0][0]
    ci = np.asarray(table["ci"], dtype=np.int64)
    gi = np.asarray(table["gi"], dtype=np.int64)
    matrix = np.zeros((n_clusters, len(groups), len(stat_names)))
    matrix[ci, gi, :] = np.column_stack(
        [np.asarray(table[n], dtype=np.float64) for n in stat_names]
    )
    n_items = np.bincount(
        gi, weights=np.asarray(table["n_items"], dtype=np.float64), minlength=len(groups)
    )
    return ClusterStats(groups, stat_names, n_items.astype(int), matrix.reshape(n_clusters, -1))


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
    con: duckdb.DuckDBPyConnection,
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
        runs = spread.per_run_overall(con, scorer, fields, table)
    else:
        runs = _one_run_at_a_time(con, scorer, fields, table, options)
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
    con: duckdb.DuckDBPyConnection,
    scorer: Scorer,
    fields: tuple[str, ...],
    table: pa.Table,
    options: dict[str, str],
) -> Iterator[tuple[int, dict[str, float], dict[str, int]]]:
    """Each run through the scorer's own reducer, as a one-run submission would be."""
    names = scorer.metric_names(fields)
    for run, only in spread.split_by_run(table):
        preds = combined_predictions(con, only, scorer, fields, "mean", options)
        stats = cluster_statistics(con, scorer, fields, preds)
        point = stats.metrics(scorer, fields, stats.matrix.sum(axis=0))
        g = stats.groups.index(("overall", "all"))
        yield run, {m: float(point[m][g]) for m in names}, stats.counts(scorer, g)


@dataclass(frozen=True)
class Scored:
    scores: list[Score]
    predictions: pa.Table  # one row per item, runs combined: what the scores were computed on
    extras: Extras  # benchmark-specific tables (e.g. a confusion matrix)


def score(
    items: pa.Table,
    scorer: Scorer,
    submission: Submission,
    *,
    runs_agg: str,
    n_boot: int,
    seed: int,
    options: dict[str, str] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> Scored:
    """The scores of a validated `submission` on `items`: point estimates, percentile CIs from
    `n_boot` cluster-bootstrap replicates drawn with `seed`, and the spread across runs."""
    table = submission.table
    fields = scorer.fields_of(submission.fields)
    options = resolve_options(scorer, options)
    con = connect(items, scorer)
    try:
        preds = combined_predictions(con, table, scorer, fields, runs_agg, options)
        stats = cluster_statistics(con, scorer, fields, preds)
        # Optional hook: tables computed from `scoped` that are not metrics with CIs.
        extras = scorer.extras(con, fields) if scorer.extras is not None else {}
        spread = _run_spread(con, scorer, fields, table, options) if _n_runs(table) > 1 else []
    finally:
        con.close()
    names = scorer.metric_names(fields)
    point = stats.metrics(scorer, fields, stats.matrix.sum(axis=0))
    replicates = stats.metrics(
        scorer, fields, replicate_sums(stats.matrix, n_boot, seed, on_progress)
    )
    # Counts (e.g. problems where a statistic is defined) are facts of the data, not estimates.
    ci = {m: percentile_interval(replicates[m]) for m in names if m not in scorer.no_ci}
    return Scored(_rows(stats, scorer, names, point, ci) + spread, preds, extras)


def _n_runs(table: pa.Table) -> int:
    return len(pa.compute.unique(table.column("run")))
