"""Paired comparison of two judges on one benchmark.

Two judges' CIs overlapping says little about whether one is better: both are scored on the same
items, so most of their sampling noise is shared. Here both are restricted to the items both
judged, turned into per-cluster statistics by the engine, and bootstrapped with *one* set of
cluster (problem) resamples, so every replicate scores A and B on the same problems. For each
metric in each (scope, subset) the result is the difference d = A - B with

- a 95% percentile interval of the replicate differences d*;
- a two-sided bootstrap p-value p = min(1, 2 * min(P*(d* <= 0), P*(d* >= 0))), P* being the share
  of replicates where d* is defined. The tail shares move in steps of 1/B, so p moves in steps
  of 2/B: when no replicate falls on the far side of 0 the estimate would be 0, and p is reported
  as an upper bound, p < 2/B, never as 0.

A judge is a name in the results store (its latest submission for the benchmark, compared on the
per-item predictions it was scored on) or a predictions file (validated against the built dataset,
runs combined with `mean` as `evaluate` does by default), so two files compare without a store.

Benchmarks whose scorer combines runs itself (`combine_runs`, ArxivMathGradingBench) are compared
on per-item counts instead: each side's (tp, fn, fp) per paper at k = that side's number of runs,
from a file through the scorer with the chosen options (e.g. the matcher), or from the store, where
they are exactly the per-item predictions saved (a stored side must have been scored with the
same options). Only items both sides answered are paired (a no-error row answers a paper). The
`overall` scope is always compared; the scope `k` too when both sides are files with the same
number of runs, where each k is the same pooling for both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mathjudge import registry
from mathjudge.errors import MathJudgeError
from mathjudge.evaluate import store as results_store
from mathjudge.evaluate.bootstrap import percentile_interval, replicate_sums
from mathjudge.evaluate.dataset import BuiltDataset, open_dataset
from mathjudge.evaluate.evaluator import DEFAULT_BOOTSTRAP
from mathjudge.evaluate.scoring import (
    ClusterStats,
    aggregated_predictions,
    cluster_statistics,
    connect,
    resolve_options,
    scored_fields,
)
from mathjudge.evaluate.store_lock import open_store
from mathjudge.evaluate.submission import load_submission

FILE_RUNS_AGG = "mean"  # `evaluate`'s default, so a file compares as it would be scored
JUDGES = "SELECT DISTINCT judge FROM submissions WHERE benchmark = ? ORDER BY judge"
SUBMISSION = """SELECT id, judge, created, source, content_hash, bootstrap FROM submissions
                WHERE benchmark = ? AND {key} = ? ORDER BY created DESC, id DESC"""


@dataclass(frozen=True)
class Side:
    """Where one judge's predictions came from, so a comparison can be traced back."""

    label: str  # judge name (store) or file path
    origin: str  # "store" or "file"
    ref: str  # submission id (store) or the file's sha256
    n_items: int  # items it judged, before restricting to the shared ones


@dataclass(frozen=True)
class Difference:
    scope: str
    subset: str
    metric: str
    a_value: float | None
    b_value: float | None
    diff: float | None  # a_value - b_value
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_is_bound: bool  # no replicate on the far side of 0: the p-value is below `p_value` (2/B)
    n_items: int


@dataclass(frozen=True)
class Comparison:
    benchmark: str
    dataset_version: str
    content_hash: str
    a: Side
    b: Side
    fields: tuple[str, ...]  # prediction fields both judges give, the ones compared
    n_shared_items: int
    n_shared_problems: int
    n_boot: int
    seed: int
    unit: str  # the resampled cluster column
    rows: tuple[Difference, ...]  # groups in display order (overall first), metrics in order
    options: dict[str, str] = field(default_factory=dict)  # the scorer's, e.g. the matcher

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "dataset_version": self.dataset_version,
            "content_hash": self.content_hash,
            "a": asdict(self.a),
            "b": asdict(self.b),
            "fields": list(self.fields),
            "shared": {"items": self.n_shared_items, "problems": self.n_shared_problems},
            "bootstrap": {
                "B": self.n_boot,
                "seed": self.seed,
                "unit": self.unit,
                "paired": True,
                "ci": "percentile 95% of A-B",
                "p_value": "two-sided: min(1, 2*min(P*(d<=0), P*(d>=0))); bound 2/B when 0",
                "options": dict(self.options),
            },
            "rows": [asdict(r) for r in self.rows],
        }

    def format_table(self) -> str:
        """A plain-text table for the terminal: every (scope, subset), overall first."""
        head = ("scope", "subset", "metric", "A", "B", "A-B", "95% CI of A-B", "p", "n")
        body = [
            (
                r.scope,
                r.subset,
                r.metric,
                _fmt(r.a_value),
                _fmt(r.b_value),
                _fmt(r.diff),
                "n/a" if r.ci_low is None else f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]",
                _fmt_p(r),
                str(r.n_items),
            )
            for r in self.rows
        ]
        widths = [max(len(row[i]) for row in (head, *body)) for i in range(len(head))]

        def line(cells: tuple[str, ...]) -> str:
            return "  ".join(
                c.ljust(w) if i < 3 else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()

        intro = [
            f"{self.benchmark}: A = {_describe(self.a)}; B = {_describe(self.b)}",
            f"paired on {self.n_shared_items} shared items of {self.n_shared_problems} problems; "
            f"fields: {', '.join(self.fields)}"
            + "".join(f"; {k}: {v}" for k, v in self.options.items() if v),
            f"one paired bootstrap over {self.unit} (B={self.n_boot}, seed={self.seed}); "
            "two-sided bootstrap p-values",
        ]
        return "\n".join([*intro, "", line(head), *(line(cells) for cells in body)])


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _fmt_p(row: Difference) -> str:
    if row.p_value is None:
        return "n/a"
    return f"<{row.p_value:.3g}" if row.p_is_bound else f"{row.p_value:.3g}"


def _describe(side: Side) -> str:
    where = f"submission {side.ref}" if side.origin == "store" else f"sha256 {side.ref[:12]}"
    return f"{side.label} ({side.origin}, {where}, {side.n_items} items)"


@dataclass(frozen=True)
class _Judged:
    side: Side
    fields: tuple[str, ...]
    # item_id + fields (counts for a `combine_runs` scorer), one row per answered item: what the
    # metrics are computed on
    predictions: pa.Table
    # `combine_runs` scorers, files only: the per-(item, k) counts and the number of runs n
    per_k: pa.Table | None = None
    runs: int | None = None


def compare(
    benchmark: str,
    a: str | Path,
    b: str | Path,
    *,
    store: Path,
    datasets_dir: Path,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = None,
    options: dict[str, str] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> Comparison:
    """Compare judge `a` with judge `b` (A - B) on the items both judged.

    Each of `a`, `b` is a judge name (or submission id) in `store`, or a predictions file; a
    `Path` is always a file, a string that names both is refused as ambiguous. `options` are
    the scorer's (as for `evaluate`), used on files and required of stored submissions.
    """
    if n_boot < 1:
        raise MathJudgeError("--bootstrap must be at least 1")
    spec = registry.get(benchmark)
    scorer = spec.scorer_module()
    options = resolve_options(scorer, options)
    counted = hasattr(scorer, "combine_runs")
    dataset = open_dataset(spec.dataset_name, datasets_dir)
    seed = scorer.DEFAULT_SEED if seed is None else seed
    con = connect(dataset, spec.items_config, scorer)
    try:
        judged_a, judged_b = (
            _resolve(con, benchmark, ref, store, dataset, spec.items_config, scorer, options)
            for ref in (a, b)
        )
        fields = tuple(f for f in judged_a.fields if f in judged_b.fields)
        if not fields:
            raise MathJudgeError(
                f"nothing to compare: A gives {', '.join(judged_a.fields)}, "
                f"B gives {', '.join(judged_b.fields)}"
            )
        shared = _shared_items(judged_a.predictions, judged_b.predictions)
        columns = scorer.COUNTS if counted else fields
        tables = [_restrict(j.predictions, columns, shared) for j in (judged_a, judged_b)]
        # Per-k counts pair only where k means the same pooling on both sides.
        same_k = judged_a.runs is not None and judged_a.runs == judged_b.runs

        def statistics(judged: _Judged, table: pa.Table) -> ClusterStats:
            if counted:
                _use_counts(con, scorer, judged.per_k if same_k else None)
            return cluster_statistics(con, scorer, fields, table)

        stats_a = statistics(judged_a, tables[0])
        n_problems = con.execute("SELECT count(DISTINCT ci) FROM scoped").fetchall()[0][0]
        stats_b = statistics(judged_b, tables[1])
    finally:
        con.close()
    if (stats_a.groups, stats_a.names) != (stats_b.groups, stats_b.names) or not np.array_equal(
        stats_a.n_items, stats_b.n_items
    ):
        raise MathJudgeError(f"{benchmark}: its statistics depend on the predictions; cannot pair")
    rows = _differences(scorer, fields, stats_a, stats_b, n_boot, seed, on_progress)
    return Comparison(
        benchmark=benchmark,
        dataset_version=dataset.version,
        content_hash=dataset.content_hash,
        a=judged_a.side,
        b=judged_b.side,
        fields=fields,
        n_shared_items=len(shared),
        n_shared_problems=int(n_problems),
        n_boot=n_boot,
        seed=seed,
        unit=scorer.CLUSTER,
        rows=tuple(rows),
        options=options,
    )


def _use_counts(con: duckdb.DuckDBPyConnection, scorer: ModuleType, per_k: pa.Table | None) -> None:
    """Put one side's per-(item, k) counts where the scorer's statistics read them; with none,
    an empty table, so only the `overall` scope is formed."""
    if per_k is None:
        per_k = pa.table(
            {"item_id": pa.array([], pa.string()), "k": pa.array([], pa.int64())}
            | {c: pa.array([], pa.int64()) for c in scorer.COUNTS}
        )
    con.register("side_counts", per_k)
    try:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {scorer.COUNTS_TABLE} AS "
            f"SELECT item_id, k, {', '.join(scorer.COUNTS)} FROM side_counts"
        )
    finally:
        con.unregister("side_counts")


def _differences(
    scorer: ModuleType,
    fields: tuple[str, ...],
    stats_a: ClusterStats,
    stats_b: ClusterStats,
    n_boot: int,
    seed: int,
    on_progress: Callable[[int], None] | None,
) -> list[Difference]:
    k = stats_a.matrix.shape[1]
    # One call, so A and B share every resample. B enters as B - A and is added back: where the
    # judges agree those columns are exactly 0, so identical judges give d* = 0 exactly, which
    # summing B's own columns would not guarantee (BLAS may round the two halves differently).
    sums = replicate_sums(
        np.hstack([stats_a.matrix, stats_b.matrix - stats_a.matrix]), n_boot, seed, on_progress
    )
    rep_a = stats_a.metrics(scorer, fields, sums[:, :k])
    rep_b = stats_b.metrics(scorer, fields, sums[:, :k] + sums[:, k:])
    point_a = stats_a.metrics(scorer, fields, stats_a.matrix.sum(axis=0))
    point_b = stats_b.metrics(scorer, fields, stats_b.matrix.sum(axis=0))
    names = scorer.metric_names(fields)
    per_metric = {m: metric_differences(rep_a[m] - rep_b[m]) for m in names}
    rows = []
    for g, (scope, subset) in enumerate(stats_a.groups):
        for m in names:
            a_value, b_value = _clean(point_a[m][g]), _clean(point_b[m][g])
            low, high, p, bound = (x[g] for x in per_metric[m])
            diff = None
            if a_value is not None and b_value is not None and not np.isnan(p):
                diff = a_value - b_value
            defined = diff is not None  # CI and p only next to a defined difference
            rows.append(
                Difference(
                    scope=scope,
                    subset=subset,
                    metric=m,
                    a_value=a_value,
                    b_value=b_value,
                    diff=diff,
                    ci_low=_clean(low) if defined else None,
                    ci_high=_clean(high) if defined else None,
                    p_value=float(p) if defined else None,
                    p_is_bound=defined and bool(bound),
                    n_items=int(stats_a.n_items[g]),
                )
            )
    return rows


def metric_differences(
    diffs: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group (column) of replicate differences A - B: CI bounds, p-value (NaN without
    defined replicates), bound flag. The leaderboard's tie groups use the same test."""
    interval = percentile_interval(diffs)
    n_defined = (~np.isnan(diffs)).sum(axis=0)
    tail = np.minimum((diffs <= 0).sum(axis=0), (diffs >= 0).sum(axis=0))
    bound = tail == 0  # the estimate would be 0: report its resolution 2/B as a bound instead
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.minimum(1.0, 2 * np.where(bound, 1, tail) / n_defined)
    p[n_defined == 0] = np.nan
    return interval.low, interval.high, p, bound


def _clean(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def _shared_items(a: pa.Table, b: pa.Table) -> list[str]:
    shared = sorted(set(a.column("item_id").to_pylist()) & set(b.column("item_id").to_pylist()))
    if not shared:
        raise MathJudgeError("A and B judged no item in common: nothing to compare")
    return shared


def _restrict(table: pa.Table, columns: tuple[str, ...], items: list[str]) -> pa.Table:
    keep = pc.is_in(table.column("item_id"), value_set=pa.array(items, pa.string()))
    return table.select(["item_id", *columns]).filter(keep)


def _resolve(
    con: duckdb.DuckDBPyConnection,
    benchmark: str,
    ref: str | Path,
    store: Path,
    dataset: BuiltDataset,
    items_config: str,
    scorer: ModuleType,
    options: dict[str, str],
) -> _Judged:
    if isinstance(ref, Path):
        return _from_file(con, ref, dataset, items_config, scorer, options)
    is_file = Path(ref).is_file()
    found = None
    known: list[str] = []
    if store.is_file():
        try:
            with open_store(store, read_only=True) as db:
                found = _latest(db, benchmark, ref)
                if found is not None and not is_file:
                    return _from_store(db, found, store, dataset, scorer, options)
                known = [r[0] for r in db.execute(JUDGES, [benchmark]).fetchall()]
        except duckdb.Error as exc:
            raise MathJudgeError(
                f"{store}: cannot read as a mathjudge results store ({exc})"
            ) from exc
    if found is not None:
        raise MathJudgeError(
            f"{ref!r} is both a predictions file and a judge in {store}; pass the file as "
            f"{Path(ref).resolve()} or the judge as its submission id {found[0]}"
        )
    if is_file:
        return _from_file(con, Path(ref), dataset, items_config, scorer, options)
    where = (
        f"no judge of {benchmark} by that name in {store} (judges: {_listing(known)})"
        if store.is_file()
        else f"no results store at {store}"
    )
    raise MathJudgeError(f"{ref!r}: no such predictions file, and {where}")


def _listing(names: list[str], shown: int = 20) -> str:
    more = f", ... ({len(names) - shown} more)" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more if names else "none"


def _latest(db: duckdb.DuckDBPyConnection, benchmark: str, ref: str) -> tuple | None:
    """The latest submission of judge `ref` (or the submission with id `ref`), if any."""
    rows = db.execute(SUBMISSION.format(key="judge"), [benchmark, ref]).fetchall()
    rows = rows or db.execute(SUBMISSION.format(key="id"), [benchmark, ref]).fetchall()
    if len(rows) > 1 and rows[0][2] == rows[1][2]:
        tied = ", ".join(r[0] for r in rows if r[2] == rows[0][2])
        raise MathJudgeError(
            f"judge {ref!r} has several latest submissions saved at the same time ({tied}); "
            "pass one of these submission ids instead"
        )
    return rows[0] if rows else None


def _from_store(
    db: duckdb.DuckDBPyConnection,
    found: tuple,
    store: Path,
    dataset: BuiltDataset,
    scorer: ModuleType,
    options: dict[str, str],
) -> _Judged:
    sid, judge, _, source, content_hash, bootstrap = found
    where = f"judge {judge!r} (submission {sid} in {store})"
    if source == "reported":
        raise MathJudgeError(
            f"{where} is a reported result copied from a paper: it has no per-item predictions "
            "to compare"
        )
    if content_hash != dataset.content_hash:
        raise MathJudgeError(
            f"{where} was scored on dataset content_hash {content_hash}, but the built dataset "
            f"at {dataset.root} has {dataset.content_hash}; re-evaluate it on this dataset"
        )
    scored_with = json.loads(bootstrap).get("options", {})
    if scored_with != options:
        raise MathJudgeError(
            f"{where} was scored with {_options(scored_with)}, not {_options(options)}: compare "
            "it with the options it was scored with (or re-evaluate it with these)"
        )
    values = results_store.load_predictions(db, sid)
    if hasattr(scorer, "combine_runs"):
        return _counts_from_store(values, Side(judge, "store", sid, 0), where, scorer)
    fields = scored_fields(scorer, tuple(values))
    if not fields:
        raise MathJudgeError(f"{where} has no per-item predictions stored; re-evaluate it")
    items = sorted(set().union(*(values[f] for f in fields)))
    columns = {"item_id": pa.array(items, pa.string())}
    for f in fields:
        stored = pa.array([values[f].get(i) for i in items], pa.float64())
        # Booleans were stored as 0/1; numbers stay DOUBLE, as the engine scored them (a run
        # mean of an integer field is fractional and cannot go back to the field's type).
        boolean = pa.types.is_boolean(scorer.Prediction.arrow_types[f])
        columns[f] = stored.cast(pa.bool_()) if boolean else stored
    return _Judged(Side(judge, "store", sid, len(items)), fields, pa.table(columns))


def _options(options: dict[str, str]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in options.items()) or "no options"


def _counts_from_store(
    values: dict[str, dict[str, float | None]], side: Side, where: str, scorer: ModuleType
) -> _Judged:
    """The stored per-paper counts at k = n, for the papers the file answered (all of them in
    submissions saved before `judged` was recorded)."""
    if any(c not in values for c in scorer.COUNTS):
        raise MathJudgeError(f"{where} has no per-item counts stored; re-evaluate it")
    judged = values.get("judged")
    items = sorted(i for i in values[scorer.COUNTS[0]] if judged is None or judged.get(i))
    columns = {"item_id": pa.array(items, pa.string())}
    for c in scorer.COUNTS:
        columns[c] = pa.array([values[c][i] for i in items], pa.int64())
    side = Side(side.label, side.origin, side.ref, len(items))
    return _Judged(side, tuple(scorer.SCORED_FIELDS), pa.table(columns))


def _from_file(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    dataset: BuiltDataset,
    items_config: str,
    scorer: ModuleType,
    options: dict[str, str],
) -> _Judged:
    # Partial files are fine: only the items both judges answered are compared.
    submission = load_submission(
        path, scorer.Prediction, dataset.item_ids(items_config), allow_partial=True
    )
    side = Side(str(path), "file", submission.sha256, submission.n_items)
    fields = scored_fields(scorer, submission.fields)
    if hasattr(scorer, "combine_runs"):
        # A file of no-error rows only gives no field, and is still a judge's answer.
        counts = scorer.combine_runs(con, submission.table, fields, options)
        per_k = con.sql(
            f"SELECT item_id, k, {', '.join(scorer.COUNTS)} FROM {scorer.COUNTS_TABLE}"
        ).to_arrow_table()
        # `judged` tells "answered: no error" from "not answered" where a scorer has both
        answered = (
            counts.filter(counts.column("judged")) if "judged" in counts.column_names else counts
        )
        return _Judged(
            side, tuple(scorer.SCORED_FIELDS), answered, per_k=per_k, runs=submission.runs
        )
    if not fields:
        raise MathJudgeError(f"{path}: gives none of the scored fields {scorer.SCORED_FIELDS}")
    preds = aggregated_predictions(con, submission.table, scorer, fields, FILE_RUNS_AGG)
    return _Judged(side, fields, preds)
