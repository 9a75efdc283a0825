"""ReaLMistake scoring, the authors' rule (arXiv:2404.03602; the analysis code of their
repository, restated): binary error detection, `error` the positive class.

For each run of a judge (the authors run each judge with four prompts):
- precision = right `error` calls / `error` calls, recall = right `error` calls / responses with
  an error, F1 = their harmonic mean, each 0 where it is undefined (no `error` call, no
  response with an error, or both 0), as scikit-learn's zero division gives the authors;
- accuracy = calls equal to the gold label / responses;
- a null call (the judge's answer could not be read) is "no error" for precision, recall and
  F1 and wrong for accuracy, as the authors count it; `unparsed_rate` is the share of them.
A judge's value is the plain mean over its runs of these per-run values (one run: that run's
value): the paper's table entries are the mean over the four prompts. Each run's values are
computed on the responses it answered, so the same rule holds within every subset.

Runs are numbered 0 to 9 (`MAX_RUN`) and each keeps its own statistics: `combine_runs` turns a
judge's rows into per-response columns `error_r0` ... `error_r9` (the vote of that run: +1
error, -1 no error, 0 null; missing where the run did not answer), which are what the store
keeps, so ranks and paired comparisons recompute exactly this mean of per-run metrics in every
bootstrap replicate. The combined `error` column (the sign of the runs' vote sum) is only what
the item explorer shows as the judge's call.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import duckdb
import numpy as np
import pyarrow as pa
from pydantic import AfterValidator, Field, TypeAdapter, ValidationError, model_validator

from mathjudge.benchmarks.realmistake import MAX_RUN
from mathjudge.benchmarks.stats import mean_where, ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import RunReducer, Scorer, grouped_sums_sql

CLUSTER = "task_id"
RUNS = range(MAX_RUN + 1)
RUN_COLUMNS = tuple(f"error_r{r}" for r in RUNS)
METRICS = ("f1", "precision", "recall", "accuracy", "unparsed_rate")
RUNS_AGG = "each run scored on its own, then the mean of the runs' values"


def _vote(error: bool | None) -> int:
    """true -> +1 (error), false -> -1 (no error), null -> 0 (no readable call)."""
    if error is None:
        return 0
    return 1 if error else -1


LABEL_CALLS = {"error": True, "no_error": False, None: None}
_AS_BOOL = TypeAdapter(bool)  # how `error` reads in either format, to compare a label with it


class Prediction(PredictionRow):
    """One call per response and run: `error` (true / false / null) or the authors' `label`
    (`error` / `no_error` / null), the same call in their words, which validation turns into
    `error` (a null in one defers to a call in the other; two different calls are refused). A
    null call is kept (as vote 0): it counts as "no error" for precision, recall and F1 and as
    wrong for accuracy. `run` is the run (e.g. the prompt), 0 to 9.

    A validated call is kept as a vote (+1 error, -1 no error, 0 null), as the binary verdicts
    of other benchmarks are, because validation reads a null field as "not given"; the int8 type
    also sends every file through this model (the columnar fast path takes floats and booleans
    only), which checks the run's range.
    """

    error: Annotated[bool | None, AfterValidator(_vote)] = Field(
        default=None, description="true = the response has an error, false = none, null = no call"
    )
    label: Literal["error", "no_error"] | None = Field(
        default=None, description="the same call in the authors' words"
    )
    run: int | None = Field(
        default=None, ge=0, le=MAX_RUN, description="the run (e.g. the prompt), 0 to 9"
    )

    arrow_types: ClassVar[dict[str, pa.DataType]] = {"error": pa.int8(), "label": pa.string()}
    requires_one_of: ClassVar[tuple[str, ...]] = ("error", "label")

    @model_validator(mode="before")
    @classmethod
    def _label_is_an_error_call(cls, data: Any) -> Any:
        """A valid `label` becomes the row's `error` (an invalid one is left to its field's
        check, which names it)."""
        if not isinstance(data, dict) or "label" not in data:
            return data
        label = data["label"]
        if not (label is None or isinstance(label, str)) or label not in LABEL_CALLS:
            return data
        call = LABEL_CALLS[label]
        folded = {k: v for k, v in data.items() if k != "label"}
        error = data.get("error")
        if error is None:
            folded["error"] = call
            return folded
        try:
            given = _AS_BOOL.validate_python(error)
        except ValidationError:
            return folded  # refused by the field's check, located at `error`
        if call is not None and given != call:
            raise ValueError(f"`error` says {error!r}, `label` says {label!r}: one call, please")
        return folded


def combine_runs(
    con: duckdb.DuckDBPyConnection,
    table: pa.Table,
    fields: tuple[str, ...],
    options: dict[str, str],
) -> pa.Table:
    """One row per response: each run's vote in its own column, and the sign of their sum."""
    slots = ", ".join(f"max(error) FILTER (WHERE run = {r}) AS error_r{r}" for r in RUNS)
    con.register("realmistake_runs", table.select(["item_id", "run", "error"]))
    try:
        return con.sql(
            f"""SELECT item_id, CAST(sign(sum(error)) AS TINYINT) AS error, {slots}
                FROM realmistake_runs GROUP BY item_id ORDER BY item_id"""
        ).to_arrow_table()
    finally:
        con.unregister("realmistake_runs")


def _statistics() -> dict[str, str]:
    out: dict[str, str] = {}
    for r, vote in zip(RUNS, RUN_COLUMNS, strict=True):
        out |= {
            f"n{r}": f"count({vote})",
            f"pos{r}": f"count_if({vote} IS NOT NULL AND label)",
            f"called{r}": f"count_if({vote} > 0)",
            f"tp{r}": f"count_if({vote} > 0 AND label)",
            f"right{r}": f"count_if(({vote} > 0 AND label) OR ({vote} < 0 AND NOT label))",
            f"null{r}": f"count_if({vote} = 0)",
        }
    return out


STATISTICS = _statistics()


def stats_sql(fields: tuple[str, ...]) -> str:
    return grouped_sums_sql(STATISTICS)


def run_metrics(sums: dict[str, np.ndarray], r: int) -> dict[str, np.ndarray]:
    """The metrics of run `r` from its summed statistics, the authors' zeros included."""
    tp, called, pos, n = sums[f"tp{r}"], sums[f"called{r}"], sums[f"pos{r}"], sums[f"n{r}"]
    return {
        "f1": np.where(tp > 0, ratio(2 * tp, called + pos), 0.0),
        "precision": np.where(called > 0, ratio(tp, called), 0.0),
        "recall": np.where(pos > 0, ratio(tp, pos), 0.0),
        "accuracy": ratio(sums[f"right{r}"], n),
        "unparsed_rate": ratio(sums[f"null{r}"], n),
    }


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    per_run = [run_metrics(sums, r) for r in RUNS]
    answered = [sums[f"n{r}"] > 0 for r in RUNS]
    return {m: mean_where([run[m] for run in per_run], answered) for m in METRICS}


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=(CLUSTER, "label", "responses_of", "difficulty"),
    scored_fields=("error",),
    stats_sql=stats_sql,
    finalize=finalize,
    scopes={"responses_of": "responses_of", "difficulty": "difficulty"},
    reducer=RunReducer(RUNS_AGG, combine_runs, field_columns={"error": RUN_COLUMNS}),
)
