"""Overall metrics of every single run, many runs per query.

Scoring each run on its own costs a few DuckDB statements per run: fine for 5 runs, hours for
10,000. Where a run's predictions are its rows as given (no run reducer of the scorer's own, one row
per item and run), a batch of runs is scored in one statistics query instead: run `i` of the batch
becomes subset `i` of the overall scope and its clusters are renumbered `i * C + ci` (C clusters per
run), so no statistic can mix two runs, whether the scorer groups by (scope, subset, ci), partitions
by ci, or emits `overall`/`all` rows of its own. Each run's per-cluster statistics are then summed
in cluster order, exactly as a single-run scoring sums them.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mathjudge.scoring.tables import ScoringTables, scored_rows
from mathjudge.spec.scorer import Scorer

RUNS_PER_QUERY = 500


def split_by_run(table: pa.Table, block_rows: int = 1 << 20) -> Iterator[tuple[int, pa.Table]]:
    """(run, its rows) in run order: one stable sort of the row numbers, then blocks of whole
    runs (about `block_rows` rows) taken at once and sliced. A filter per run would be
    quadratic in the number of runs, a take per run slow on a table of many chunks, and a
    sorted copy of the whole table would double its memory."""
    order = pc.sort_indices(table.column("run"))  # stable: a run's rows keep their order
    runs = pc.take(table.column("run"), order).to_numpy()
    starts = np.flatnonzero(np.r_[True, runs[1:] != runs[:-1]])
    ends = np.r_[starts[1:], len(runs)]
    first = 0
    while first < len(starts):
        last = int(np.searchsorted(ends, ends[first] + block_rows, side="right"))
        last = max(last, first + 1)  # at least one run, however long
        base = int(starts[first])
        block = table.take(order.slice(base, int(ends[last - 1]) - base))
        for start, end in zip(starts[first:last].tolist(), ends[first:last].tolist(), strict=True):
            yield int(runs[start]), block.slice(start - base, end - start)
        first = last


def batched(scorer: Scorer) -> bool:
    """Whether a run's predictions are its own rows, so runs can share one query."""
    return scorer.reducer is None and scorer.prediction.one_row_per_run


def per_run_overall(
    tables: ScoringTables, scorer: Scorer, fields: tuple[str, ...], table: pa.Table
) -> Iterator[tuple[int, dict[str, float], dict[str, int]]]:
    """(run, overall metric values, each metric's n) for every run, in run order."""
    names = scorer.metric_names(fields)
    batch: list[tuple[int, pa.Table]] = []
    for run, rows in split_by_run(table):
        batch.append((run, rows))
        if len(batch) == RUNS_PER_QUERY:
            yield from _score_batch(tables, scorer, fields, batch, names)
            batch = []
    if batch:
        yield from _score_batch(tables, scorer, fields, batch, names)


def _predictions(rows: pa.Table, position: int, fields: tuple[str, ...]) -> pa.Table:
    """A run's rows as the per-item table of a single-run scoring: numbers as DOUBLE (what
    averaging one value gives), booleans as they are."""
    columns = {"item_id": rows.column("item_id")}
    for name in fields:
        column = rows.column(name)
        columns[name] = column if pa.types.is_boolean(column.type) else column.cast(pa.float64())
    out = pa.table(columns)
    return out.append_column("run_pos", pa.array(np.full(len(out), position, np.int64)))


def _score_batch(
    tables: ScoringTables,
    scorer: Scorer,
    fields: tuple[str, ...],
    batch: list[tuple[int, pa.Table]],
    names: list[str],
) -> Iterator[tuple[int, dict[str, float], dict[str, int]]]:
    preds = pa.concat_tables([_predictions(rows, i, fields) for i, (_, rows) in enumerate(batch)])
    n_clusters, con = tables.n_clusters, tables.con
    # The rows of each run in the order the engine scores them, so its sums are the same.
    con.register("run_rows", scored_rows(tables, preds))
    try:
        con.execute(
            f"""CREATE OR REPLACE TEMP VIEW scoped AS
                SELECT 'overall' AS scope, CAST(run_pos AS VARCHAR) AS subset,
                       * EXCLUDE (run_pos) REPLACE (run_pos * {int(n_clusters)} + ci AS ci)
                FROM run_rows"""
        )
        stats = con.execute(
            f"SELECT * FROM ({scorer.stats_sql(fields)}) WHERE scope = 'overall'"
        ).fetchnumpy()
    finally:
        con.unregister("run_rows")
    stat_names = [c for c in stats if c not in ("scope", "subset", "ci", "n_items")]
    ci = np.asarray(stats["ci"], dtype=np.int64)
    position, cluster = ci // n_clusters, ci % n_clusters
    # Rows as in the engine's matrix, so that each run's sums are added in the same order.
    dense = np.zeros((len(batch), n_clusters, len(stat_names)))
    dense[position, tables.matrix_rows()[cluster], :] = np.column_stack(
        [np.asarray(stats[n], dtype=np.float64) for n in stat_names]
    )
    sums = np.stack([dense[i].sum(axis=0) for i in range(len(batch))])
    n_items = np.bincount(
        position, weights=np.asarray(stats["n_items"], dtype=np.float64), minlength=len(batch)
    )
    values = scorer.finalize({n: sums[:, j] for j, n in enumerate(stat_names)}, fields)
    for i, (run, _) in enumerate(batch):
        counts = scorer.metric_counts(dict(zip(stat_names, sums[i], strict=True)), int(n_items[i]))
        yield run, {m: float(values[m][i]) for m in names}, counts
