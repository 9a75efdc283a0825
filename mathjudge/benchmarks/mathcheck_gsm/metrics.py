"""MathCheck-GSM outcome-judging scoring, the authors' measure (arXiv:2407.08733; their
`scripts/results_evaluate.py`, restated): per problem variant, the macro-F1 of the classes
Correct and Incorrect as sklearn's `f1_score(labels=[0, 1], average="macro")` gives it, where an
unreadable reply is a third label (a miss for its gold class, a prediction of neither); the
task's score is the unweighted mean of the four variants' values. The F1 of a class is
2 * hits / (predicted + actual), 0 when both are 0 (sklearn's zero division).

The verdict is the μ-MATH / OPC vote (+1 correct, -1 incorrect, 0 no prediction); runs combine
by the mean vote. Per-variant statistics are additive, so the bootstrap over seed problems
recomputes the mean of variants in every replicate.
"""

from __future__ import annotations

import numpy as np

from mathjudge.benchmarks.mathcheck_gsm import SPEC, VARIANT_ORDER
from mathjudge.benchmarks.verdict_metrics import Prediction
from mathjudge.spec.scorer import Scorer, grouped_sums_sql

CLUSTER = "group_id"


def _statistics() -> dict[str, str]:
    out = {}
    for j, name in enumerate(VARIANT_ORDER):
        v = f"variant_name = '{name}'"
        out |= {
            f"pos{j}": f"count_if({v} AND label)",
            f"neg{j}": f"count_if({v} AND NOT label)",
            f"tp{j}": f"count_if({v} AND label AND verdict > 0)",
            f"tn{j}": f"count_if({v} AND NOT label AND verdict < 0)",
            f"pp{j}": f"count_if({v} AND verdict > 0)",
            f"pn{j}": f"count_if({v} AND verdict < 0)",
        }
    return out | {"items": "count(*)", "unparsed": "count_if(verdict = 0)"}


STATISTICS = _statistics()


def stats_sql(fields: tuple[str, ...]) -> str:
    return grouped_sums_sql(STATISTICS)


def class_f1(hits: np.ndarray, predicted: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """2 * hits / (predicted + actual), 0 where both are 0."""
    den = predicted + actual
    return np.where(den > 0, 2 * hits / np.where(den > 0, den, 1), 0.0)


def mean_of_variants(cells: list[np.ndarray], present: list[np.ndarray]) -> np.ndarray:
    """The mean of the variant cells that have items (NaN where none has)."""
    values = np.stack(cells)
    has = np.stack(present)
    count = has.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, np.where(has, values, 0).sum(axis=0) / count, np.nan)


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    cells, present = [], []
    for j in range(len(VARIANT_ORDER)):
        pos, neg = sums[f"pos{j}"], sums[f"neg{j}"]
        f1_pos = class_f1(sums[f"tp{j}"], sums[f"pp{j}"], pos)
        f1_neg = class_f1(sums[f"tn{j}"], sums[f"pn{j}"], neg)
        cells.append((f1_pos + f1_neg) / 2)
        present.append(pos + neg > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        items = np.where(sums["items"] > 0, sums["items"], np.nan)
        return {
            "macro_f1": mean_of_variants(cells, present),
            "unparsed_rate": sums["unparsed"] / items,
        }


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=(CLUSTER, "variant_name", "label"),
    scored_fields=("verdict",),
    metrics=SPEC.metrics,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes={"variant_name": "variant_name"},
)
