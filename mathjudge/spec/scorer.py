"""The scorer contract: what the scoring engine (`scoring.engine`) asks of a benchmark.

The engine builds the table `scoped` (one row per scope, subset and item, with the item's
columns, its cluster index `ci` and the run-combined prediction fields); a scorer turns it into
additive per-(scope, subset, cluster) statistics with one SQL query (`stats_sql`) and maps summed
statistics to metric values (`finalize`, elementwise, so the same code gives point estimates and
every bootstrap replicate). Which metrics exist, their order and which get no CI come from the
benchmark spec's `MetricSpec`s, declared once.

Runs of one item are combined field by field by a named reducer the user picks (`mean`,
`median`, `majority`; see `scoring.runs`), unless the scorer names its own `RunReducer`: the
union of the first k runs' locations, a pessimistic union of step labels (both pooled over k:
they leave per-(item, k) counts on the connection for `stats_sql`, and paired comparisons
resample exactly those counts), or MR-MATH's step-by-step vote.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mathjudge.spec.presentation import MetricSpec

if TYPE_CHECKING:
    import duckdb
    import numpy as np
    import pyarrow as pa

    from mathjudge.spec.prediction import PredictionRow

Fields = tuple[str, ...]
Options = dict[str, str]
# Benchmark-specific tables computed from `scoped` (name -> rows), kept with a result.
Extras = dict[str, list[dict[str, Any]]]
# The reducers a user picks with `--runs-agg` for scorers that do not pool runs themselves.
FIELDWISE_REDUCERS = ("mean", "median", "majority")


@dataclass(frozen=True)
class RunReducer:
    """A scorer's own way of combining runs, replacing `--runs-agg`.

    `combine(con, table, fields, options)` gets the validated rows of every run and returns one
    row per item. Two kinds:
    - pooled over k (`counts` set): it also leaves one row per (item, k) with `counts` in the
      temp table `counts_table` for `stats_sql`, and returns the counts at k = the number of
      runs (plus `judged` where an item can be answered with "nothing found"); such a scorer
      scores many predictions per item and is compared on those counts;
    - per item: it returns other per-item columns; `field_columns` names the columns a field
      becomes (e.g. step predictions become counts of right steps), which are what the store
      keeps and what ranks and comparisons read.

    `con` is a cursor on a database other scorings share (`scoring.tables`): what `combine`
    creates there is TEMP (or a registered table), and it sets no database-wide setting.
    """

    name: str  # recorded as the result's runs_agg
    combine: Callable[[duckdb.DuckDBPyConnection, pa.Table, Fields, Options], pa.Table]
    counts: tuple[str, ...] = ()
    counts_table: str = ""
    field_columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def pools_k(self) -> bool:
        return bool(self.counts)


@dataclass(frozen=True)
class Scorer:
    """A benchmark's scorer, `SCORER` in its `metrics.py`. Its metrics are the spec's: the
    registry fills `metrics` in when it loads the scorer, and checks that `finalize` gives
    exactly those keys (`contract_problems`)."""

    prediction: type[PredictionRow]  # the row contract of a submission
    cluster: str  # the item column the bootstrap resamples (the problem)
    item_columns: tuple[str, ...]  # the dataset columns the statistics read
    scored_fields: Fields  # prediction fields that enter the metrics
    stats_sql: Callable[[Fields], str]
    finalize: Callable[[dict[str, np.ndarray], Fields], dict[str, np.ndarray]]
    scopes: Mapping[str, str] = field(default_factory=dict)  # name -> SQL giving the subset
    # Tables computed from `scoped` that are not metrics (e.g. a confusion matrix); on the
    # scoring's cursor, as RunReducer.combine: TEMP tables only, no database-wide setting.
    extras: Callable[[duckdb.DuckDBPyConnection, Fields], Extras] | None = None
    reducer: RunReducer | None = None
    # True when `stats_sql` gives a (scope, subset, ci) group statistics that depend on its rows
    # alone, never on which scope or subset it is: a subset holding whole clusters (the
    # problems of one type) then has their overall statistics, which the engine reuses
    # instead of computing them again for every scope fixed per cluster.
    stats_from_rows: bool = False
    # Option name -> allowed values (the first is the default; None = free text, default "").
    options: Mapping[str, tuple[str, ...] | None] = field(default_factory=dict)
    # From the spec (set by the registry): keys, order, which need a field, CIs, each's n.
    metrics: tuple[MetricSpec, ...] = ()

    def metric_names(self, fields: Fields) -> list[str]:
        """Metric keys the given fields produce, in the spec's order."""
        return [m.key for m in self.metrics if m.field is None or m.field in fields]

    @property
    def no_ci(self) -> frozenset[str]:
        return frozenset(m.key for m in self.metrics if not m.ci)

    @property
    def pools_k(self) -> bool:
        """True when runs are pooled over k into counts: many predictions per item."""
        return self.reducer is not None and self.reducer.pools_k

    def columns_of(self, field: str) -> tuple[str, ...]:
        """The per-item columns that hold `field` once runs are combined."""
        if self.reducer is None:
            return (field,)
        return tuple(self.reducer.field_columns.get(field, (field,)))

    def fields_of(self, given: Fields) -> Fields:
        """The scored fields among those a submission gives."""
        return tuple(f for f in self.scored_fields if f in given)

    def metric_counts(self, sums: Mapping[str, float], n_items: int) -> dict[str, int]:
        """Each metric's n from one group's summed statistics: the statistic its `MetricSpec`
        names (`n_from`), else the items of the group."""
        return {
            m.key: n_items if m.n_from is None else round(float(sums[m.n_from]))
            for m in self.metrics
        }

    def contract_problems(self) -> list[str]:
        """How `finalize` disagrees with the declared metrics, for every scored field alone
        and all together: keys it misses or adds, and an `n_from` statistic it never reads.
        Run on zero sums (no data is needed: `finalize` is elementwise)."""
        import numpy as np

        problems = []
        combos = dict.fromkeys([self.scored_fields, *((f,) for f in self.scored_fields)])
        for fields in combos:
            sums = _Recorded()
            with np.errstate(all="ignore"):
                given = set(self.finalize(sums, fields))
            declared = self.metric_names(fields)
            where = f"with fields {', '.join(fields)}"
            missing = [k for k in declared if k not in given]
            extra = sorted(given - set(declared))
            if missing:
                problems.append(f"finalize gives no {', '.join(missing)} ({where})")
            if extra:
                problems.append(f"finalize gives {', '.join(extra)}, not in the spec ({where})")
            for m in self.metrics:
                if m.key in given and m.n_from is not None and m.n_from not in sums.read:
                    problems.append(
                        f"{m.key}: n_from {m.n_from!r} is no statistic finalize reads ({where})"
                    )
        return list(dict.fromkeys(problems))


class _Recorded(dict[str, "np.ndarray"]):
    """Summed statistics for a dry run of `finalize`: zero for any name, each name read kept."""

    def __init__(self) -> None:
        super().__init__()
        self.read: set[str] = set()

    def __missing__(self, name: str) -> np.ndarray:
        import numpy as np

        self.read.add(name)
        return np.zeros(1)


def grouped_sums_sql(aggregates: dict[str, str]) -> str:
    """The usual statistics query: SQL aggregates over the rows of each (scope, subset, ci)."""
    columns = ", ".join(f"{sql} AS {name}" for name, sql in aggregates.items())
    return f"""SELECT scope, subset, ci, count(*) AS n_items, {columns}
               FROM scoped GROUP BY scope, subset, ci"""
