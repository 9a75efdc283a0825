"""The dataset's items as scoring reads them, set up once per scoring.

`connect` gives a DuckDB connection holding `items` (the item columns the scorer reads, the
Arrow table itself, not a copy) and `cluster_index` (cluster -> ci over every cluster of the
dataset, sorted: the order the bootstrap draws in), and beside it, in numpy, each item's
cluster index and the scopes whose subset is fixed per cluster. `scored_rows` then puts
predictions next to their items by position, in dataset order, without a join.

Scopes fixed per cluster (StepMathBench's problem type, ProofBench's contest) hold whole
clusters in each subset, so a subset's statistics per cluster are the cluster's overall ones.
A scorer whose statistics depend on a group's rows alone (`Scorer.stats_from_rows`) gets them
computed once, for `overall`, and the engine sums them over each subset's clusters.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mathjudge.spec.scorer import Scorer


@dataclass(frozen=True)
class Limits:
    """DuckDB's memory for a large scoring: past `memory` it spills to `spill_dir`."""

    memory: str  # a DuckDB size, e.g. "1.5GB"
    spill_dir: Path


# Blocks of clusters at most (see FixedScopes): each costs a matrix product per chunk of
# bootstrap replicates, so a scope with thousands of subsets is computed, not derived.
MAX_BLOCKS = 4096


@dataclass(frozen=True)
class FixedScopes:
    """Scopes whose subset is the same for every item of a cluster, and the clusters in blocks
    that agree on every one of them: `order` lists the clusters block after block, block b
    from `bounds[b]` to `bounds[b + 1]`."""

    names: tuple[str, ...]
    subsets: tuple[list[str], ...]  # each scope's subsets
    block_subset: np.ndarray  # (scopes, blocks): each block's subset in each scope
    order: np.ndarray
    bounds: np.ndarray


@dataclass(frozen=True)
class ScoringTables:
    con: duckdb.DuckDBPyConnection
    items: pa.Table  # item_id and the scorer's item columns, in dataset order
    item_cluster: np.ndarray  # per item: its cluster index, -1 for an item without a cluster
    n_clusters: int
    fixed: FixedScopes | None  # scopes derived from overall (see the module note)

    def close(self) -> None:
        self.con.close()

    def matrix_rows(self) -> np.ndarray:
        """Each cluster's row in a per-cluster matrix: the clusters in `fixed.order`, whose
        blocks are then runs of rows, or else in cluster order."""
        rows = np.arange(self.n_clusters)
        if self.fixed is not None:
            rows[self.fixed.order] = np.arange(self.n_clusters)
        return rows


_shared: duckdb.DuckDBPyConnection | None = None  # the process's database, once opened
_shared_lock = threading.Lock()


def _shared_cursor() -> duckdb.DuckDBPyConnection:
    """A connection for one scoring without limits. A new DuckDB database costs 30-40 ms of CPU
    (it fills its catalog with the built-in functions), which every evaluation paid; a cursor
    on one in-memory database per process costs 0.4 ms and is a connection of its own (its
    temp and registered tables are its own: what scoring and the scorers' hooks create is
    TEMP, and they set no setting of the database, see `spec.scorer`). A scoring with limits
    opens a database of its own: the memory limit and the spill folder are settings of the
    whole database."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = duckdb.connect()
        return _shared.cursor()


def connect(items: pa.Table, scorer: Scorer, limits: Limits | None = None) -> ScoringTables:
    """The tables of the module note for `items` (the dataset's rows)."""
    con = duckdb.connect() if limits is not None else _shared_cursor()
    try:
        # DuckDB's own bar would be printed on stdout, into the command's output; the steps of
        # an evaluation have theirs (`on_step`).
        con.execute("SET enable_progress_bar = false")
        if limits is not None:
            con.execute(f"SET memory_limit = {_literal(limits.memory)}")
            con.execute(f"SET temp_directory = {_literal(str(limits.spill_dir))}")
        table = items.select(["item_id", *scorer.item_columns])
        con.register("items", table)
        item_cluster, n_clusters = _cluster_index(con, table.column(scorer.cluster))
        fixed = None
        if scorer.stats_from_rows:
            fixed = _fixed_scopes(con, table, item_cluster, n_clusters, scorer)
    except BaseException:
        con.close()
        raise
    return ScoringTables(con, table, item_cluster, n_clusters, fixed)


def _cluster_index(
    con: duckdb.DuckDBPyConnection, cluster: pa.ChunkedArray
) -> tuple[np.ndarray, int]:
    """Each item's cluster index and the number of clusters, leaving the table `cluster_index`:
    the distinct clusters (null too, if an item has none) in DuckDB's sort order. The column
    is hashed once (dictionary-encoded); only its distinct values are sorted."""
    encoded = pc.dictionary_encode(cluster).combine_chunks()
    distinct = encoded.dictionary
    if encoded.null_count:  # as SELECT DISTINCT: null is a cluster, whose items join none
        distinct = pa.concat_arrays([distinct, pa.nulls(1, distinct.type)])
    positions = pa.table({"cluster": distinct, "slot": np.arange(len(distinct))})
    con.register("distinct_clusters", positions)
    try:
        con.execute(
            """CREATE TEMP TABLE cluster_index AS
               SELECT cluster, row_number() OVER (ORDER BY cluster) - 1 AS ci, slot
               FROM distinct_clusters"""
        )
    finally:
        con.unregister("distinct_clusters")
    ranked = con.sql("SELECT slot, ci FROM cluster_index").fetchnumpy()
    rank = np.empty(len(distinct), dtype=np.int32)
    rank[np.asarray(ranked["slot"])] = np.asarray(ranked["ci"])
    con.execute("ALTER TABLE cluster_index DROP COLUMN slot")
    indices = pc.fill_null(encoded.indices, -1).to_numpy()
    item_cluster = np.where(indices >= 0, rank[np.maximum(indices, 0)], -1).astype(np.int32)
    return item_cluster, len(distinct)


def _per_item(con: duckdb.DuckDBPyConnection, items: pa.Table, expr: str) -> pa.Array:
    """`expr` over the item columns, in item order (a parallel scan returns rows in any order:
    each row carries its position)."""
    at = items.append_column("item_row", pa.array(np.arange(items.num_rows, dtype=np.int64)))
    con.register("items_at", at)
    try:
        got = con.sql(f"SELECT item_row, {expr} AS value FROM items_at").to_arrow_table()
    finally:
        con.unregister("items_at")
    where = np.empty(items.num_rows, dtype=np.int64)  # each item's row in `got`
    where[got.column("item_row").to_numpy()] = np.arange(items.num_rows)
    return got.column("value").combine_chunks().take(pa.array(where))


def _fixed_scopes(
    con: duckdb.DuckDBPyConnection,
    items: pa.Table,
    item_cluster: np.ndarray,
    n_clusters: int,
    scorer: Scorer,
) -> FixedScopes | None:
    """The scorer's scopes whose subset (never null) is one per cluster over every item, those
    with fewer subsets first while the blocks stay at most MAX_BLOCKS."""
    clustered = item_cluster >= 0
    found = []
    for name, expr in scorer.scopes.items():
        subset = _per_item(con, items, f"CAST({expr} AS VARCHAR)")
        encoded = pc.dictionary_encode(subset)
        if encoded.null_count:
            continue
        codes = encoded.indices.to_numpy()[clustered]
        label = np.zeros(n_clusters, dtype=np.int64)
        label[item_cluster[clustered]] = codes  # some item's subset, for each cluster
        if np.array_equal(label[item_cluster[clustered]], codes):  # every item's, then
            found.append((name, encoded.dictionary.to_pylist(), label))
    kept: list[tuple[str, list[str], np.ndarray]] = []
    block = np.zeros(n_clusters, dtype=np.int64)
    for name, subsets, labels in sorted(found, key=lambda f: len(f[1])):
        joint = np.unique(block * len(subsets) + labels, return_inverse=True)[1]
        if joint.max(initial=0) < MAX_BLOCKS:
            kept.append((name, subsets, labels))
            block = joint.astype(np.int64)
    if not kept:
        return None
    order = np.argsort(block, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(block, minlength=1))])
    return FixedScopes(
        names=tuple(name for name, _, _ in kept),
        subsets=tuple(subsets for _, subsets, _ in kept),
        block_subset=np.stack([labels[order[bounds[:-1]]] for _, _, labels in kept]),
        order=order,
        bounds=bounds,
    )


def scored_rows(
    tables: ScoringTables, preds: pa.Table, positions: np.ndarray | None = None
) -> pa.Table:
    """One row per row of `preds` whose item has a cluster, in dataset order (ties in the
    order given): item_id, the item columns, `ci`, then the other columns of `preds`.
    `positions`, each row's item as its position in `items`, are looked up if not given."""
    if positions is None:
        ids = tables.items.column("item_id")
        found = pc.index_in(preds.column("item_id").cast(ids.type), value_set=ids)
        if found.null_count:
            raise ValueError("predictions name items the dataset does not have")
        positions = found.to_numpy()
    n = tables.items.num_rows
    order, rows = _dataset_order(np.asarray(positions, dtype=np.int64), n)
    keep = tables.item_cluster[rows] >= 0
    if not keep.all():
        order, rows = order[keep], rows[keep]
    every_item_once = len(rows) == n and np.array_equal(rows, np.arange(n))
    items = tables.items if every_item_once else tables.items.take(pa.array(rows))
    out = items.append_column("ci", pa.array(tables.item_cluster[rows].astype(np.int64)))
    given = preds.drop_columns(["item_id"]).take(pa.array(order))
    for name, column in zip(given.column_names, given.columns, strict=True):
        out = out.append_column(name, column)
    return out


def _dataset_order(positions: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """(order, rows): the rows of `positions` sorted by item, ties in the order given, and
    their items. One row per item (the usual case) needs no sort, only a scatter."""
    if len(positions) and np.bincount(positions, minlength=n_items).max() == 1:
        slot = np.full(n_items, -1, dtype=np.int64)
        slot[positions] = np.arange(len(positions))
        rows = np.flatnonzero(slot >= 0)
        return slot[rows], rows
    order = np.argsort(positions, kind="stable")
    return order, positions[order]


def _literal(text: str) -> str:
    """`text` as a SQL string literal (SET takes no parameters)."""
    return "'" + text.replace("'", "''") + "'"
