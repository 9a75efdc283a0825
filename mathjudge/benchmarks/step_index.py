"""What ProcessBench and MathCheck's process judging share: a prediction that names the first
wrong step of a solution (or says there is none), read exactly, and combined over runs by a
majority vote.

The engine cannot carry a null, so "no answer" (a reply that named no step) is validated into
the sentinel NO_ANSWER, which never equals a gold step: it stays a wrong prediction and is
counted. Runs of one item are combined by the most frequent value; a tie goes to the smallest
value, so a tie with "no answer" gives no answer, and a tie between two steps the earlier one.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

import duckdb
import pyarrow as pa
from pydantic import AfterValidator, Field, field_validator

from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import RunReducer

NO_ANSWER = -2  # stored for a null prediction; never a gold value
NO_ERROR = -1  # "every step is correct"
MAX_STEP = 10_000
RUNS_AGG = "most frequent step per item (ties: the smallest value; no answer is the smallest)"


def as_stored(step: int | None) -> int:
    """A validated prediction as the engine keeps it (null -> NO_ANSWER)."""
    return NO_ANSWER if step is None else step


class StepPrediction(PredictionRow):
    """The first wrong step of a solution as the benchmark numbers its steps (from
    `FIRST_STEP`: ProcessBench's 0-based paragraphs, MathCheck's printed "Step 1"), -1 for none,
    null for no answer."""

    FIRST_STEP: ClassVar[int] = 0

    error_step: Annotated[int | None, AfterValidator(as_stored)] = Field(
        description="the first wrong step as the benchmark numbers them; -1 = no wrong step; "
        "null = no answer (counted as wrong)"
    )

    arrow_types: ClassVar[dict[str, pa.DataType]] = {"error_step": pa.int16()}
    requires_one_of: ClassVar[tuple[str, ...]] = ("error_step",)

    @field_validator("error_step", mode="before")
    @classmethod
    def _a_step_or_none(cls, value: object) -> object:
        step = value if isinstance(value, int) and not isinstance(value, bool) else None
        if step is not None and step != NO_ERROR and not cls.FIRST_STEP <= step <= MAX_STEP:
            raise ValueError(
                f"must be a step ({cls.FIRST_STEP} to {MAX_STEP}), -1 for no wrong step, or null"
            )
        return value


def _combine(
    con: duckdb.DuckDBPyConnection,
    table: pa.Table,
    fields: tuple[str, ...],
    options: dict[str, str],
) -> pa.Table:
    (field,) = fields
    con.register("step_runs", table.select(["item_id", field]))
    try:
        return con.sql(
            f"""SELECT item_id, {field} FROM (
                    SELECT item_id, {field}, count(*) AS votes FROM step_runs
                    GROUP BY item_id, {field}
                )
                QUALIFY row_number() OVER (
                    PARTITION BY item_id ORDER BY votes DESC, {field} ASC
                ) = 1
                ORDER BY item_id"""
        ).to_arrow_table()
    finally:
        con.unregister("step_runs")


MAJORITY = RunReducer(RUNS_AGG, _combine)
