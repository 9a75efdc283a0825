"""`mathjudge compare`: resolve two judges (a name or submission id in the store, or a
predictions file) and compare them with the paired statistics of `scoring.paired`.

A stored judge is compared on the per-item predictions it was scored on (its latest
submission); a file is validated against the built dataset, its runs combined with `mean` as
`evaluate` does by default, so two files compare without a store.

Benchmarks whose scorer pools runs over k itself (ArxivMathGradingBench's union, Hard2Verify's
pessimistic union) are compared on per-item counts instead: each side's counts per item at k =
that side's number of runs, from a file through the scorer with the chosen options (e.g. the
matcher), or from the store, where they are exactly the per-item predictions saved (a stored
side must have been scored with the same options). Only items both sides answered are paired
(a no-error row answers a paper). The `overall` scope is always compared; the scope `k` too
when both sides are files with the same number of runs, where each k is the same pooling.
Scorers with a per-item reducer of their own (MR-MATH) are compared on the per-item columns it
gives (`RunReducer.field_columns`); from the store, on those it keeps.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from mathjudge import registry
from mathjudge.base.config import check_bootstrap
from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.reader import BuiltDataset, open_dataset
from mathjudge.scoring.engine import (
    ClusterStats,
    cluster_statistics,
    combined_predictions,
    resolve_options,
)
from mathjudge.scoring.evaluator import scored_items
from mathjudge.scoring.paired import Comparison, Side, paired_differences
from mathjudge.scoring.tables import connect
from mathjudge.spec.request import DEFAULT_BOOTSTRAP, PredictionSource
from mathjudge.spec.scorer import Scorer
from mathjudge.store import read
from mathjudge.validate.predictions import load_predictions

FILE_RUNS_AGG = "mean"  # `evaluate`'s default, so a file compares as it would be scored


@dataclass(frozen=True)
class _Judged:
    side: Side
    fields: tuple[str, ...]
    # item_id + fields (counts for a pooling scorer), one row per answered item: what the
    # metrics are computed on
    predictions: pa.Table
    # pooling scorers, files only: the per-(item, k) counts and the number of runs n
    per_k: pa.Table | None = None
    runs: int | None = None


def compare(
    benchmark: str,
    a: str | PredictionSource,
    b: str | PredictionSource,
    *,
    store: Path,
    datasets_dir: Path,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = None,
    options: dict[str, str] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> Comparison:
    """Compare judge `a` with judge `b` (A - B) on the items both judged.

    Each of `a`, `b` is a judge name (or submission id) in `store`, or predictions (a file or
    rows in memory); a `Path` is always a file, a string that names both is refused as
    ambiguous. `options` are
    the scorer's (as for `evaluate`), used on files and required of stored submissions.
    """
    check_bootstrap(n_boot, seed)
    spec = registry.get(benchmark)
    scorer = registry.scorer(spec.name)
    options = resolve_options(scorer, options)
    pooled = scorer.reducer if scorer.pools_k else None
    dataset = open_dataset(spec.dataset, datasets_dir)
    seed = spec.seed if seed is None else seed
    items = scored_items(spec, scorer, dataset)
    scoring = connect(items, scorer)
    con = scoring.con
    try:
        judged_a, judged_b = (
            _resolve(con, benchmark, ref, store, dataset, items, scorer, options) for ref in (a, b)
        )
        fields = tuple(f for f in judged_a.fields if f in judged_b.fields)
        if not fields:
            raise MathJudgeError(
                f"nothing to compare: A gives {', '.join(judged_a.fields)}, "
                f"B gives {', '.join(judged_b.fields)}"
            )
        shared = _shared_items(judged_a.predictions, judged_b.predictions)
        columns = (
            pooled.counts
            if pooled is not None
            else tuple(c for f in fields for c in scorer.columns_of(f))
        )
        tables = [_restrict(j.predictions, columns, shared) for j in (judged_a, judged_b)]
        # Per-k counts pair only where k means the same pooling on both sides.
        same_k = judged_a.runs is not None and judged_a.runs == judged_b.runs

        def statistics(judged: _Judged, table: pa.Table) -> ClusterStats:
            if pooled is not None:
                _use_counts(con, scorer, judged.per_k if same_k else None)
            return cluster_statistics(scoring, scorer, fields, table)

        stats_a = statistics(judged_a, tables[0])
        n_problems = con.execute("SELECT count(DISTINCT ci) FROM scoped").fetchall()[0][0]
        stats_b = statistics(judged_b, tables[1])
    finally:
        scoring.close()
    if not stats_a.same_layout(stats_b):
        raise MathJudgeError(f"{benchmark}: its statistics depend on the predictions; cannot pair")
    rows = paired_differences(scorer, fields, stats_a, stats_b, n_boot, seed, on_progress)
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
        unit=scorer.cluster,
        rows=tuple(rows),
        options=options,
    )


def _use_counts(con: duckdb.DuckDBPyConnection, scorer: Scorer, per_k: pa.Table | None) -> None:
    """Put one side's per-(item, k) counts where the scorer's statistics read them; with none,
    an empty table, so only the `overall` scope is formed."""
    assert scorer.reducer is not None
    counts, table = scorer.reducer.counts, scorer.reducer.counts_table
    if per_k is None:
        per_k = pa.table(
            {"item_id": pa.array([], pa.string()), "k": pa.array([], pa.int64())}
            | {c: pa.array([], pa.int64()) for c in counts}
        )
    con.register("side_counts", per_k)
    try:
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS "
            f"SELECT item_id, k, {', '.join(counts)} FROM side_counts"
        )
    finally:
        con.unregister("side_counts")


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
    ref: str | PredictionSource,
    store: Path,
    dataset: BuiltDataset,
    items: pa.Table,
    scorer: Scorer,
    options: dict[str, str],
) -> _Judged:
    if not isinstance(ref, str):
        return _from_file(con, ref, items, scorer, options)
    is_file = Path(ref).is_file()
    found = None
    known: list[str] = []
    if store.is_file():
        with read.reading(store) as db:
            found = read.find_latest(db, benchmark, ref)
            if found is not None and not is_file:
                return _from_store(db, found, store, dataset, scorer, options)
            known = read.judge_names(db, benchmark)
    if found is not None:
        raise MathJudgeError(
            f"{ref!r} is both a predictions file and a judge in {store}; pass the file as "
            f"{Path(ref).resolve()} or the judge as its submission id {found.id}"
        )
    if is_file:
        return _from_file(con, Path(ref), items, scorer, options)
    where = (
        f"no judge of {benchmark} by that name in {store} (judges: {_listing(known)})"
        if store.is_file()
        else f"no results store at {store}"
    )
    raise MathJudgeError(f"{ref!r}: no such predictions file, and {where}")


def _listing(names: list[str], shown: int = 20) -> str:
    more = f", ... ({len(names) - shown} more)" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more if names else "none"


def _from_store(
    db: duckdb.DuckDBPyConnection,
    found: read.StoredRef,
    store: Path,
    dataset: BuiltDataset,
    scorer: Scorer,
    options: dict[str, str],
) -> _Judged:
    sid, judge = found.id, found.judge
    where = f"judge {judge!r} (submission {sid} in {store})"
    if found.source == "reported":
        raise MathJudgeError(
            f"{where} is a reported result copied from a paper: it has no per-item predictions "
            "to compare"
        )
    if found.content_hash != dataset.content_hash:
        raise MathJudgeError(
            f"{where} was scored on dataset content_hash {found.content_hash}, but the built "
            f"dataset at {dataset.root} has {dataset.content_hash}; re-evaluate it on this dataset"
        )
    scored_with = found.bootstrap.get("options", {})
    if scored_with != options:
        raise MathJudgeError(
            f"{where} was scored with {_options(scored_with)}, not {_options(options)}: compare "
            "it with the options it was scored with (or re-evaluate it with these)"
        )
    values = read.stored_predictions(db, sid)
    if scorer.pools_k:
        return _counts_from_store(values, Side(judge, "store", sid, 0), where, scorer)
    # A field counts as stored when every column holding it is (lists are not stored).
    fields = tuple(
        f for f in scorer.scored_fields if all(c in values for c in scorer.columns_of(f))
    )
    if not fields:
        raise MathJudgeError(f"{where} has no per-item predictions stored; re-evaluate it")
    held = [c for f in fields for c in scorer.columns_of(f)]
    items = sorted(set().union(*(values[c] for c in held)))
    columns = {"item_id": pa.array(items, pa.string())}
    for c in held:
        stored = pa.array([values[c].get(i) for i in items], pa.float64())
        # Booleans were stored as 0/1; numbers stay DOUBLE, as the engine scored them (a run
        # mean of an integer field is fractional and cannot go back to the field's type).
        kind = scorer.prediction.arrow_types.get(c)
        columns[c] = stored.cast(pa.bool_()) if kind and pa.types.is_boolean(kind) else stored
    return _Judged(Side(judge, "store", sid, len(items)), fields, pa.table(columns))


def _options(options: dict[str, str]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in options.items()) or "no options"


def _counts_from_store(
    values: dict[str, dict[str, float | None]], side: Side, where: str, scorer: Scorer
) -> _Judged:
    """The stored per-paper counts at k = n, for the papers the file answered (all of them in
    submissions saved before `judged` was recorded)."""
    assert scorer.reducer is not None
    counts = scorer.reducer.counts
    if any(c not in values for c in counts):
        raise MathJudgeError(f"{where} has no per-item counts stored; re-evaluate it")
    judged = values.get("judged")
    items = sorted(i for i in values[counts[0]] if judged is None or judged.get(i))
    columns = {"item_id": pa.array(items, pa.string())}
    for c in counts:
        columns[c] = pa.array([values[c][i] for i in items], pa.int64())
    side = Side(side.label, side.origin, side.ref, len(items))
    return _Judged(side, scorer.scored_fields, pa.table(columns))


def _from_file(
    con: duckdb.DuckDBPyConnection,
    predictions: PredictionSource,
    items: pa.Table,
    scorer: Scorer,
    options: dict[str, str],
) -> _Judged:
    # Partial files are fine: only the items both judges answered are compared.
    submission = load_predictions(
        predictions, scorer.prediction, items.column("item_id"), allow_partial=True
    )
    side = Side(submission.name, "file", submission.sha256, submission.n_items)
    fields = scorer.fields_of(submission.fields)
    pooled = scorer.reducer if scorer.pools_k else None
    if pooled is not None:
        # A file of no-error rows only gives no field, and is still a judge's answer.
        counts = pooled.combine(con, submission.table, fields, options)
        per_k = con.sql(
            f"SELECT item_id, k, {', '.join(pooled.counts)} FROM {pooled.counts_table}"
        ).to_arrow_table()
        # `judged` tells "answered: no error" from "not answered" where a scorer has both
        answered = (
            counts.filter(counts.column("judged")) if "judged" in counts.column_names else counts
        )
        return _Judged(side, scorer.scored_fields, answered, per_k=per_k, runs=submission.runs)
    if not fields:
        raise MathJudgeError(
            f"{submission.name}: gives none of the scored fields {scorer.scored_fields}"
        )
    preds = combined_predictions(con, submission.table, scorer, fields, FILE_RUNS_AGG, options)
    return _Judged(side, fields, preds)
