"""Hard2Verify scoring (arXiv:2510.13744): finding the incorrect steps of a response, the
positive class being an incorrect step (a 0 label).

A judge labels every step of a response, `step_labels`, 1 = correct, 0 = incorrect, one label
per step of the dataset's `steps`. With several runs the labels are combined pessimistically:
for k = 1..n (runs in index order) a step counts as flagged when any of the first k runs labels
it 0; an item with no labels in the first k runs flags nothing. Counts are pooled over all steps
(or responses) of the scored items:
- step_precision = tp / (tp + fp), step_recall = tp / (tp + fn), with tp a flagged incorrect
  step, fp a flagged correct step, fn an unflagged incorrect step; step_tnr = tn / (tn + fp)
- proof level: a response is incorrect when any human label is 0, and flagged when any of its
  steps is flagged; proof_precision, proof_recall and proof_tnr likewise over responses
- step_balanced_f1 and proof_balanced_f1 = 2 recall tnr / (recall + tnr), the paper's
  class-balanced F1 (symmetric in the two classes)
A ratio with an empty denominator is undefined (null). Scope `k`, subsets `k=1`..`k=n`;
`overall`/`all` is k = n. CIs resample problems (responses to one question together).
"""

from __future__ import annotations

from typing import Annotated, ClassVar

import duckdb
import numpy as np
import pyarrow as pa
from pydantic import Field

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.stats import ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import RunReducer, Scorer


class Prediction(PredictionRow):
    """One Hard2Verify prediction: a 0/1 label for every step of one response."""

    step_labels: list[Annotated[int, Field(ge=0, le=1)]] = Field(
        min_length=1, description="one label per step, 1 = step correct, 0 = incorrect"
    )

    arrow_types: ClassVar[dict[str, pa.DataType]] = {"step_labels": pa.list_(pa.int8())}


CLUSTER = "problem_id"
ITEM_COLUMNS = ("problem_id", "human_labels", "n_steps")
SCORED_FIELDS = ("step_labels",)
SCOPES: dict[str, str] = {}
RUNS_AGG = "pessimistic union"
LEVELS = ("step", "proof")
COUNTS = tuple(f"{level}_{c}" for level in LEVELS for c in ("tp", "fp", "fn", "tn"))
METRICS = tuple(
    f"{level}_{m}" for level in LEVELS for m in ("precision", "recall", "tnr", "balanced_f1")
)
# Per (response, k) counts left on the connection by `combine_runs` for `stats_sql`.
COUNTS_TABLE = "h2v_counts"


def _counts(gold: list[int], flagged: list[bool]) -> dict[str, int]:
    wrong = [g == 0 for g in gold]
    out = {
        "step_tp": sum(w and f for w, f in zip(wrong, flagged, strict=True)),
        "step_fp": sum(f and not w for w, f in zip(wrong, flagged, strict=True)),
        "step_fn": sum(w and not f for w, f in zip(wrong, flagged, strict=True)),
        "step_tn": sum(not w and not f for w, f in zip(wrong, flagged, strict=True)),
    }
    is_wrong, is_flagged = any(wrong), any(flagged)
    out |= {
        "proof_tp": int(is_wrong and is_flagged),
        "proof_fp": int(is_flagged and not is_wrong),
        "proof_fn": int(is_wrong and not is_flagged),
        "proof_tn": int(not is_wrong and not is_flagged),
    }
    return out


def combine_runs(
    con: duckdb.DuckDBPyConnection,
    table: pa.Table,
    fields: tuple[str, ...],
    options: dict[str, str],
) -> pa.Table:
    """Check label counts, leave per-(response, k) counts in `COUNTS_TABLE`, and return the
    counts at k = n, one row per response (what the store keeps as item predictions)."""
    gold = {
        item: list(labels)
        for item, labels in con.execute("SELECT item_id, human_labels FROM items").fetchall()
    }
    runs = sorted(set(table.column("run").to_pylist()))
    labels: dict[str, dict[int, list[int]]] = {}
    mismatched = []
    for item, run, given in zip(
        *(table.column(c).to_pylist() for c in ("item_id", "run", "step_labels")), strict=True
    ):
        if len(given) != len(gold[item]):
            mismatched.append(f"{item} (run {run}: {len(given)} labels, {len(gold[item])} steps)")
        labels.setdefault(item, {})[run] = given
    if mismatched:
        shown = "; ".join(mismatched[:5]) + (" ..." if len(mismatched) > 5 else "")
        raise MathJudgeError(
            f"step_labels must give one label per step; {len(mismatched)} do not: {shown}"
        )
    rows = []
    for item, by_run in labels.items():
        for k in range(1, len(runs) + 1):
            flagged = [False] * len(gold[item])
            for run in runs[:k]:
                for j, label in enumerate(by_run.get(run, ())):
                    flagged[j] = flagged[j] or label == 0
            rows.append({"item_id": item, "k": k, **_counts(gold[item], flagged)})
    counts = pa.Table.from_pylist(
        rows,
        schema=pa.schema(
            [("item_id", pa.string()), ("k", pa.int64()), *((c, pa.int64()) for c in COUNTS)]
        ),
    )
    con.register("new_counts", counts)
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE {COUNTS_TABLE} AS SELECT * FROM new_counts")
    finally:
        con.unregister("new_counts")
    return con.sql(
        f"SELECT item_id, {', '.join(COUNTS)} FROM {COUNTS_TABLE} WHERE k = {len(runs)}"
    ).to_arrow_table()


def stats_sql(fields: tuple[str, ...]) -> str:
    """Per problem (cluster): summed counts at every k under `k`, and at k = n under overall."""
    sums = ", ".join(f"sum({c}) AS {c}" for c in COUNTS)
    columns = ", ".join(COUNTS)
    return f"""
        WITH responses AS (SELECT item_id, ci FROM scoped WHERE scope = 'overall'),
        labelled AS (
            SELECT 'k' AS scope, 'k=' || c.k AS subset, ci, {", ".join(f"c.{x}" for x in COUNTS)}
            FROM {COUNTS_TABLE} c JOIN responses USING (item_id)
            UNION ALL
            SELECT scope, subset, ci, {columns} FROM scoped
        )
        SELECT scope, subset, ci, count(*) AS n_items, {sums}
        FROM labelled GROUP BY scope, subset, ci"""


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Metric values from pooled counts; elementwise, for point estimates and replicates."""

    out: dict[str, np.ndarray] = {}
    with np.errstate(invalid="ignore"):  # comparisons with undefined rates
        for level in LEVELS:
            tp, fp, fn, tn = (sums[f"{level}_{c}"] for c in ("tp", "fp", "fn", "tn"))
            recall, tnr = ratio(tp, tp + fn), ratio(tn, tn + fp)
            out[f"{level}_precision"] = ratio(tp, tp + fp)
            out[f"{level}_recall"] = recall
            out[f"{level}_tnr"] = tnr
            # The harmonic mean of two zeros is zero, not undefined.
            both_zero = (recall == 0) & (tnr == 0)
            out[f"{level}_balanced_f1"] = np.where(
                both_zero, 0.0, ratio(2 * recall * tnr, recall + tnr)
            )
    return {m: out[m] for m in METRICS}


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
    reducer=RunReducer(RUNS_AGG, combine_runs, COUNTS, COUNTS_TABLE),
)
