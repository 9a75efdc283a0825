"""MathCheck-GSM process-judging scoring, the authors' measure (arXiv:2407.08733): per problem
variant, the share of solutions whose predicted first wrong step is the gold one exactly; the
task's score is the unweighted mean of the four variants' values.

`error_step` is the step number as the solution prints it (the gold is "Step k"), or -1 for
"every step is correct" (never the gold: each process solution has an error); null is no
prediction (an unreadable reply), counted as wrong and as unparsed. Runs combine by majority
(see `step_index`).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mathjudge.benchmarks.mathcheck_gsm import VARIANT_ORDER
from mathjudge.benchmarks.stats import mean_where, per_value, ratio
from mathjudge.benchmarks.step_index import MAJORITY, NO_ANSWER, NO_ERROR, StepPrediction
from mathjudge.spec.scorer import Scorer, grouped_sums_sql

CLUSTER = "group_id"


class Prediction(StepPrediction):
    """The first wrong step as the solution numbers it (1, 2, ...), -1 for none, null for no
    prediction."""

    FIRST_STEP: ClassVar[int] = 1


def _statistics() -> dict[str, str]:
    cells = per_value("variant_name", VARIANT_ORDER, {"n": "true", "hit": "error_step = label"})
    return cells | {
        "items": "count(*)",
        "unparsed": f"count_if(error_step = {NO_ANSWER})",
        "no_error": f"count_if(error_step = {NO_ERROR})",
    }


def stats_sql(fields: tuple[str, ...]) -> str:
    return grouped_sums_sql(_statistics())


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    cells = [ratio(sums[f"hit{j}"], sums[f"n{j}"]) for j in range(len(VARIANT_ORDER))]
    present = [sums[f"n{j}"] > 0 for j in range(len(VARIANT_ORDER))]
    return {
        "accuracy": mean_where(cells, present),
        "unparsed_rate": ratio(sums["unparsed"], sums["items"]),
        "no_error_rate": ratio(sums["no_error"], sums["items"]),
    }


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=(CLUSTER, "variant_name", "label"),
    scored_fields=("error_step",),
    stats_sql=stats_sql,
    finalize=finalize,
    scopes={"variant_name": "variant_name"},
    reducer=MAJORITY,
)
