"""MathCheck-GSM process-judging scoring, the authors' measure (arXiv:2407.08733): per problem
variant, the share of solutions whose predicted first wrong step is the gold one exactly; the
task's score is the unweighted mean of the four variants' values.

`error_step` is the step number as the solution prints it (the gold is "Step k"), or -1 for
"every step is correct" (never the gold: each process solution has an error); null is no
prediction (an unreadable reply), counted as wrong and as unparsed. Runs combine by majority
(see `step_index`).
"""

from __future__ import annotations

from typing import Annotated, ClassVar

import numpy as np
import pyarrow as pa
from pydantic import AfterValidator, Field, field_validator

from mathjudge.benchmarks.mathcheck_gsm import VARIANT_ORDER
from mathjudge.benchmarks.mathcheck_gsm.metrics import mean_of_variants
from mathjudge.benchmarks.stats import ratio
from mathjudge.benchmarks.step_index import MAJORITY, NO_ANSWER, NO_ERROR, as_stored
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import Scorer, grouped_sums_sql

CLUSTER = "group_id"
MAX_STEP = 10_000


class Prediction(PredictionRow):
    """The first wrong step as the solution numbers it (1, 2, ...), -1 for none, null for no
    prediction."""

    error_step: Annotated[int | None, AfterValidator(as_stored)] = Field(
        description="the printed number of the first wrong step; -1 = no wrong step; null = no "
        "prediction"
    )

    arrow_types: ClassVar[dict[str, pa.DataType]] = {"error_step": pa.int16()}
    requires_one_of: ClassVar[tuple[str, ...]] = ("error_step",)

    @field_validator("error_step", mode="before")
    @classmethod
    def _a_step_or_none(cls, value: object) -> object:
        number = isinstance(value, int) and not isinstance(value, bool)
        if number and value != NO_ERROR and not 1 <= value <= MAX_STEP:  # type: ignore[operator]
            raise ValueError(
                f"must be a step number (1 to {MAX_STEP}), -1 for no wrong step, or null"
            )
        return value


def _statistics() -> dict[str, str]:
    out: dict[str, str] = {}
    for j, name in enumerate(VARIANT_ORDER):
        v = f"variant_name = '{name}'"
        out |= {f"n{j}": f"count_if({v})", f"hit{j}": f"count_if({v} AND error_step = label)"}
    return out | {
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
        "accuracy": mean_of_variants(cells, present),
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
