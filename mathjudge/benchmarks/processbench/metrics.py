"""ProcessBench scoring, the authors' rule (arXiv:2412.06559 §4.1; their `code/run_eval.py`,
restated): a prediction matches only when it equals the label exactly. Per subset, the error
accuracy is the share of erroneous solutions (label != -1) matched, the correct accuracy the
share of correct ones (label = -1) predicted -1, and F1 = 2 * error * correct / (error +
correct), 0 when both are 0. Overall, each is the unweighted mean of the four subsets' values,
as the paper averages F1. A null prediction never matches (see `step_index`: it is stored as -2
and counted); runs combine by majority.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from mathjudge.benchmarks.processbench import SUBSET_ORDER
from mathjudge.benchmarks.stats import mean_where, per_value, ratio
from mathjudge.benchmarks.step_index import MAJORITY, NO_ANSWER, StepPrediction
from mathjudge.spec.scorer import Scorer, grouped_sums_sql

CLUSTER = "problem_id"


class Prediction(StepPrediction):
    """The 0-based index of the earliest wrong paragraph, -1 for none, null for no answer."""

    FIRST_STEP: ClassVar[int] = 0


def _statistics() -> dict[str, str]:
    cells = per_value(
        "subset_name",
        SUBSET_ORDER,
        {
            "err": "label <> -1",
            "err_hit": "label <> -1 AND error_step = label",
            "cor": "label = -1",
            "cor_hit": "label = -1 AND error_step = -1",
        },
    )
    return cells | {
        "errors": "count_if(label <> -1)",
        "corrects": "count_if(label = -1)",
        "no_answer": f"count_if(error_step = {NO_ANSWER})",
    }


STATISTICS = _statistics()


def stats_sql(fields: tuple[str, ...]) -> str:
    return grouped_sums_sql(STATISTICS)


def harmonic(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """2ab / (a + b): 0 where a + b = 0 (both accuracies 0), NaN where either is undefined."""
    total = a + b
    return np.where(total == 0, 0.0, ratio(2 * a * b, total))


def mean_defined(cells: list[np.ndarray]) -> np.ndarray:
    """The mean of the cells where they are defined (NaN where none is)."""
    return mean_where(cells, [~np.isnan(c) for c in cells])


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Per-subset values from their counts (NaN for a subset without items of a kind), then
    each overall value as the mean over the subsets where it is defined."""
    errors, corrects, f1s = [], [], []
    for j in range(len(SUBSET_ORDER)):
        err = ratio(sums[f"err_hit{j}"], sums[f"err{j}"])
        cor = ratio(sums[f"cor_hit{j}"], sums[f"cor{j}"])
        errors.append(err)
        corrects.append(cor)
        f1s.append(harmonic(err, cor))
    return {
        "f1": mean_defined(f1s),
        "error_accuracy": mean_defined(errors),
        "correct_accuracy": mean_defined(corrects),
        "no_answer_rate": ratio(sums["no_answer"], sums["errors"] + sums["corrects"]),
    }


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=(CLUSTER, "subset_name", "label"),
    scored_fields=("error_step",),
    stats_sql=stats_sql,
    finalize=finalize,
    scopes={"subset_name": "subset_name"},
    reducer=MAJORITY,
)
