"""Score a validated submission: DuckDB computes per-cluster statistics, numpy bootstraps them.

The benchmark's scoring module supplies the additive statistics (as SQL aggregates), the scopes
and `finalize` (statistics -> metrics); everything else here is shared by every benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import duckdb
import numpy as np

from mathjudge.evaluate.bootstrap import percentile_interval, replicate_sums
from mathjudge.evaluate.dataset import BuiltDataset
from mathjudge.evaluate.runs import aggregate_sql
from mathjudge.evaluate.submission import Submission


@dataclass(frozen=True)
class Score:
    scope: str
    subset: str
    metric: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


def _clean(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def cluster_statistics(
    con: duckdb.DuckDBPyConnection, scorer: ModuleType, fields: tuple[str, ...]
) -> tuple[list[tuple[str, str]], list[str], np.ndarray, np.ndarray]:
    """Groups (scope, subset), statistic names, item counts per group, and the
    clusters x (groups * statistics) matrix, clusters being every cluster of the dataset in
    sorted order. Expects the table `joined` (items with their aggregated predictions)."""
    stats = scorer.stat_sql(fields)
    scope_rows = ["SELECT 'overall' AS scope, 'all' AS subset, * FROM joined"] + [
        f"SELECT '{name}' AS scope, CAST({expr} AS VARCHAR) AS subset, * FROM joined"
        for name, expr in scorer.SCOPES.items()
    ]
    con.execute(
        f"""CREATE TEMP TABLE cluster_index AS
            SELECT {scorer.CLUSTER} AS cluster,
                   row_number() OVER (ORDER BY {scorer.CLUSTER}) - 1 AS ci
            FROM (SELECT DISTINCT {scorer.CLUSTER} FROM items)"""
    )
    aggregates = ", ".join(f"{sql} AS {name}" for name, sql in stats.items())
    con.execute(
        f"""CREATE TEMP TABLE cluster_stats AS
            WITH scoped AS ({" UNION ALL ".join(scope_rows)})
            SELECT scope, subset, ci, count(*) AS n_items, {aggregates}
            FROM scoped JOIN cluster_index ON scoped.{scorer.CLUSTER} = cluster_index.cluster
            GROUP BY scope, subset, ci"""
    )
    order = ["overall", *scorer.SCOPES]
    groups = sorted(
        (
            tuple(g)
            for g in con.execute("SELECT DISTINCT scope, subset FROM cluster_stats").fetchall()
        ),
        key=lambda g: (order.index(g[0]), g[1]),
    )
    con.execute("CREATE TEMP TABLE group_index (scope VARCHAR, subset VARCHAR, gi INTEGER)")
    con.executemany(
        "INSERT INTO group_index VALUES (?, ?, ?)", [[*g, i] for i, g in enumerate(groups)]
    )
    names = list(stats)
    table = con.execute(
        f"""SELECT ci, gi, n_items, {", ".join(names)}
            FROM cluster_stats JOIN group_index USING (scope, subset)"""
    ).fetchnumpy()
    n_clusters = con.execute("SELECT count(*) FROM cluster_index").fetchone()[0]
    ci = np.asarray(table["ci"], dtype=np.int64)
    gi = np.asarray(table["gi"], dtype=np.int64)
    matrix = np.zeros((n_clusters, len(groups), len(names)))
    matrix[ci, gi, :] = np.column_stack([np.asarray(table[n], dtype=np.float64) for n in names])
    n_items = np.bincount(
        gi, weights=np.asarray(table["n_items"], dtype=np.float64), minlength=len(groups)
    )
    return groups, names, n_items.astype(int), matrix.reshape(n_clusters, -1)


def score(
    dataset: BuiltDataset,
    items_config: str,
    scorer: ModuleType,
    submission: Submission,
    *,
    runs_agg: str,
    n_boot: int,
    seed: int,
    on_progress: Callable[[int], None] | None = None,
) -> list[Score]:
    fields = tuple(f for f in scorer.SCORED_FIELDS if f in submission.fields)
    model = scorer.Prediction
    con = duckdb.connect()
    try:
        con.register("submitted", submission.table)
        con.read_parquet(str(dataset.parquet(items_config))).select(
            ", ".join(("item_id", *scorer.ITEM_COLUMNS))
        ).create_view("items")
        con.execute(
            "CREATE VIEW preds AS "
            + aggregate_sql({f: model.arrow_types[f] for f in fields}, runs_agg)
        )
        # Materialised once: every scope reads it.
        con.execute("CREATE TEMP TABLE joined AS SELECT * FROM items JOIN preds USING (item_id)")
        groups, names, n_items, matrix = cluster_statistics(con, scorer, fields)
    finally:
        con.close()

    def metrics(sums: np.ndarray) -> dict[str, np.ndarray]:
        shaped = sums.reshape(*sums.shape[:-1], len(groups), len(names))
        return scorer.finalize({n: shaped[..., j] for j, n in enumerate(names)}, fields)

    point = metrics(matrix.sum(axis=0))
    replicates = metrics(replicate_sums(matrix, n_boot, seed, on_progress))
    scores = []
    for metric in scorer.metric_names(fields):
        ci = percentile_interval(replicates[metric])
        for g, (scope, subset) in enumerate(groups):
            scores.append(
                Score(
                    scope,
                    subset,
                    metric,
                    _clean(point[metric][g]),
                    _clean(ci.low[g]),
                    _clean(ci.high[g]),
                    int(n_items[g]),
                )
            )
    order = {name: i for i, name in enumerate(scorer.metric_names(fields))}
    scores.sort(key=lambda s: (groups.index((s.scope, s.subset)), order[s.metric]))
    return scores
