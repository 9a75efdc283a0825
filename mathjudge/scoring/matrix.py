"""A scorer's per-cluster statistics (its `stats_sql` over the view `scoped`), read into a
clusters x groups x statistics matrix a batch of rows at a time.

Where a group's statistics depend on its rows alone (`Scorer.stats_from_rows`), every group
lies within one cluster, so the scored rows are handed to DuckDB in slices of whole clusters
(`SLICE_ROWS` rows or so each) and each slice's statistics go straight into the matrix: DuckDB
never holds more than one slice's hash tables, whatever the number of predictions. Other
scorers' statistics are computed in one query over every row.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mathjudge.scoring.tables import ScoringTables
from mathjudge.spec.scorer import Scorer

BATCH = 1 << 17  # statistics rows per Arrow batch
SLICE_ROWS = 1 << 18  # scored rows per statistics query (see the module note)
KEYS = ("scope", "subset", "ci", "n_items")  # the columns of stats_sql that are not statistics

Group = tuple[str, str]


@dataclass(frozen=True)
class Filled:
    groups: list[Group]  # the groups computed, in display order
    names: list[str]  # statistic names
    matrix: np.ndarray  # rows (`ScoringTables.matrix_rows`) x groups x statistics
    n_items: np.ndarray  # items per group
    row_items: np.ndarray  # items of each row's cluster in the `overall` group (0: none)


def read(
    tables: ScoringTables,
    scorer: Scorer,
    fields: tuple[str, ...],
    rows: pa.Table,
    key: Callable[[Group], Any],
    on_step: Callable[[str, int], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> Filled:
    """The statistics of `rows` (registered as `joined`, under the view `scoped`), groups
    sorted by `key`; a step "statistics" counting the queries. Leaves `rows` registered as
    `joined`."""
    con = tables.con
    sql = scorer.stats_sql(fields)
    names = [c for c in con.sql(sql).columns if c not in KEYS]
    if scorer.stats_from_rows:
        found = con.execute("SELECT DISTINCT scope, subset FROM scoped").fetchall()
        fill = _Fill(tables, sorted((tuple(g) for g in found), key=key), names)
        derived = tables.fixed.names if tables.fixed is not None else ()
        in_view = [expr for name, expr in scorer.scopes.items() if name not in derived]
        pieces = _cluster_slices(rows.select(_read_columns(rows, sql, in_view)))
        if on_step is not None:
            on_step("statistics", len(pieces))
        for piece in pieces:
            con.register("joined", piece())
            fill.add(con.sql(sql).to_arrow_reader(BATCH))
            if on_progress is not None:
                on_progress(1)
        con.register("joined", rows)
        return fill.done()
    if on_step is not None:
        on_step("statistics", 0)
    con.execute(f"CREATE OR REPLACE TEMP TABLE cluster_stats AS {sql}")
    try:
        found = con.execute("SELECT DISTINCT scope, subset FROM cluster_stats").fetchall()
        fill = _Fill(tables, sorted((tuple(g) for g in found), key=key), names)
        fill.add(con.sql("SELECT * FROM cluster_stats").to_arrow_reader(BATCH))
    finally:
        con.execute("DROP TABLE cluster_stats")
    return fill.done()


# A star that selects columns (`SELECT *`, `, *`, `t.*`) or COLUMNS(...), not a product or count(*).
_EVERY_COLUMN = re.compile(r"(?:\bSELECT|,)\s*(?:DISTINCT\s+)?\*|\.\*|\bCOLUMNS\s*\(", re.I)


def _read_columns(rows: pa.Table, sql: str, scopes: list[str]) -> list[str]:
    """The columns of `rows` the statistics can read: `ci` and those the SQL or a scope of the
    view (`scopes`) names (every one if the SQL selects them all), so slices copy no more."""
    named = " ".join([sql, *scopes])
    if _EVERY_COLUMN.search(sql):
        return list(rows.column_names)
    return [c for c in rows.column_names if c == "ci" or re.search(rf"\b{re.escape(c)}\b", named)]


def _cluster_slices(rows: pa.Table) -> list[Callable[[], pa.Table]]:
    """`rows` in pieces of whole clusters, about SLICE_ROWS rows each (the rows as they are
    if that is all of them), each taken when called; within a cluster the rows keep their
    order."""
    if rows.num_rows <= SLICE_ROWS:
        return [lambda: rows]
    ci = rows.column("ci").to_numpy()
    order = np.argsort(ci, kind="stable")
    starts = np.flatnonzero(np.diff(ci[order], prepend=-1))  # where each cluster begins
    first = np.searchsorted(starts, np.arange(0, len(ci), SLICE_ROWS))  # at or after each mark
    cuts = np.unique(starts[first[first < len(starts)]]).tolist()
    return [
        functools.partial(rows.take, pa.array(order[lo:hi]))
        for lo, hi in zip(cuts, [*cuts[1:], len(ci)], strict=True)
    ]


class _Fill:
    """The matrix and the counts, filled from batches of statistics rows."""

    def __init__(self, tables: ScoringTables, groups: list[Group], names: list[str]) -> None:
        self.groups, self.names = groups, names
        self.index = {g: i for i, g in enumerate(groups)}
        self.overall = self.index.get(("overall", "all"), -1)
        self.row_of = tables.matrix_rows()
        self.matrix = np.zeros((tables.n_clusters, len(groups), len(names)))
        self.n_items = np.zeros(len(groups))
        self.row_items = np.zeros(tables.n_clusters)

    def add(self, batches: Iterable[pa.RecordBatch]) -> None:
        for batch in batches:
            row = self.row_of[batch.column("ci").to_numpy()]
            gi = self._group(batch.column("scope"), batch.column("subset"))
            count = floats(batch.column("n_items"))
            self.matrix[row, gi, :] = np.column_stack([floats(batch.column(n)) for n in self.names])
            self.n_items += np.bincount(gi, weights=count, minlength=len(self.groups))
            overall = gi == self.overall
            self.row_items[row[overall]] = count[overall]

    def _group(self, scope: pa.Array, subset: pa.Array) -> np.ndarray:
        """Each row's group index, through the few distinct scopes and subsets of a batch."""
        scopes, subsets = pc.dictionary_encode(scope), pc.dictionary_encode(subset)
        lookup = np.array(
            [
                [self.index.get((a, b), -1) for b in subsets.dictionary.to_pylist()]
                for a in scopes.dictionary.to_pylist()
            ],
            dtype=np.int64,
        ).reshape(len(scopes.dictionary), len(subsets.dictionary))
        gi: np.ndarray = lookup[scopes.indices.to_numpy(), subsets.indices.to_numpy()]
        if (gi < 0).any():
            raise ValueError("stats_sql gave a (scope, subset) that scoped does not have")
        return gi

    def done(self) -> Filled:
        return Filled(self.groups, self.names, self.matrix, self.n_items, self.row_items)


def floats(column: pa.Array) -> np.ndarray:
    """A statistic as float64, null as 0 (as DuckDB's numpy fetch reads it). Arrow casts: a
    count's HUGEINT arrives as a decimal, which numpy would turn into Python objects."""
    values = pc.fill_null(column.cast(pa.float64(), safe=False), 0.0)
    out: np.ndarray = values.to_numpy(zero_copy_only=False)
    return out
