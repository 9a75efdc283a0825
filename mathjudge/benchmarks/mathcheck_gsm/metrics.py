"""MathCheck-GSM outcome-judging scoring, the authors' measure (arXiv:2407.08733; their
`results_evaluate.py` in the scripts folder of their repository, restated): per problem variant, the
macro-F1 of the classes Correct and Incorrect as sklearn's `f1_score(labels=[0, 1],
average="macro")` gives it, where an unreadable reply is a third label (a miss for its gold class, a
prediction of neither); the task's score is the unweighted mean of the four variants' values. The F1
of a class is 2 * hits / (predicted + actual), 0 when both are 0 (sklearn's zero division).

The verdict is the μ-MATH / OPC vote (+1 correct, -1 incorrect, 0 no prediction); runs combine
by the mean vote. Per-variant statistics are additive, so the bootstrap over seed problems
recomputes the mean of variants in every replicate.
"""

from __future__ import annotations

import numpy as np

from mathjudge.benchmarks.mathcheck_gsm import VARIANT_ORDER
from mathjudge.benchmarks.stats import f1, mean_where, per_value, ratio
from mathjudge.benchmarks.verdict_metrics import Prediction
from mathjudge.spec.scorer import Scorer, grouped_sums_sql

CLUSTER = "group_id"


def _statistics() -> dict[str, str]:
    cells = per_value(
        "variant_name",
        VARIANT_ORDER,
        {
            "pos": "label",
            "neg": "NOT label",
            "tp": "label AND verdict > 0",
            "tn": "NOT label AND verdict < 0",
            "pp": "verdict > 0",
            "pn": "verdict < 0",
        },
    )
    return cells | {"items": "count(*)", "unparsed": "count_if(verdict = 0)"}


STATISTICS = _statistics()


def stats_sql(fields: tuple[str, ...]) -> str:
    return grouped_sums_sql(STATISTICS)


def class_f1(hits: np.ndarray, predicted: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """`stats.f1`, but 0 where a class has neither predictions nor members: sklearn's zero
    division, which the authors' macro-F1 over both labels inherits."""
    return np.where(predicted + actual == 0, 0.0, f1(hits, predicted, actual))


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    cells, present = [], []
    for j in range(len(VARIANT_ORDER)):
        pos, neg = sums[f"pos{j}"], sums[f"neg{j}"]
        f1_pos = class_f1(sums[f"tp{j}"], sums[f"pp{j}"], pos)
        f1_neg = class_f1(sums[f"tn{j}"], sums[f"pn{j}"], neg)
        cells.append((f1_pos + f1_neg) / 2)
        present.append(pos + neg > 0)
    return {
        "macro_f1": mean_where(cells, present),
        "unparsed_rate": ratio(sums["unparsed"], sums["items"]),
    }


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=(CLUSTER, "variant_name", "label"),
    scored_fields=("verdict",),
    stats_sql=stats_sql,
    finalize=finalize,
    scopes={"variant_name": "variant_name"},
)
