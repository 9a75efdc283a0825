"""Scoring a reward per solution against problems with exactly one correct solution: the rules of
the RewardMATH scorer (arXiv:2410.01729; `RewardMATHEvaluation` and `RewardBenchEvaluation` of
the authors' `src/evaluation/eval.py`, restated here in our own code).

A judge gives each solution a `score` (higher = better) or, a process reward model, its
`step_scores` (each in [0, 1], one per step). Step scores are aggregated per solution in every
way the authors' scorer knows (`rewards.AGGREGATIONS`): product, geometric mean (the product to
the power 1/n, as they compute it), minimum, maximum, mean, sigmoid of the mean logit, the mean
odds p/(1-p) floored at 0, and the last step. For the logit and the odds a step score of exactly
0 or 1 is first moved to 1e-12 or 1 - 1e-12 (the published scores never reach either). The
judge's own `score` of a process reward model is its product aggregation.

Per problem, with c the correct solution's score and r_1..r_k the others':
- correct when c > max r (strictly: a tie is a failure), "correct with ties" when c >= max r;
- reciprocal rank 1 / (1 + #{r_j >= c}): the rank of the correct solution with ties broken
  against it, as the authors sort by (score, label) with "rejected" above "chosen".
Accuracy and MRR are the means over problems. A problem whose correct solution has no
prediction (a partial submission) is not scored. Runs are combined by the mean score of a
solution, and by the mean of each aggregation of its step scores.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, ClassVar

import duckdb
import numpy as np
import pyarrow as pa
from pydantic import Field, model_validator

from mathjudge.benchmarks.rewards import AGGREGATIONS, DEFAULT_AGGREGATION
from mathjudge.benchmarks.stats import ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import RunReducer

EDGE = 1e-12
RUNS_AGG = "mean score per solution (and mean of each step-score aggregation)"
STEP_COLUMNS = ("score", *(f"prm_{a}" for a in AGGREGATIONS))

Probability = Annotated[float, Field(ge=0, le=1)]


class Prediction(PredictionRow):
    """One solution: its `score`, or the `step_scores` of a process reward model."""

    score: float | None = Field(default=None, description="the solution's reward; higher = better")
    step_scores: Annotated[list[Probability], Field(min_length=1)] | None = Field(
        default=None, description="a process reward model's score of each step, in [0, 1]"
    )

    arrow_types: ClassVar[dict[str, pa.DataType]] = {
        "score": pa.float64(),
        "step_scores": pa.list_(pa.float64()),
    }
    requires_one_of: ClassVar[tuple[str, ...]] = ("score", "step_scores")

    @model_validator(mode="after")
    def _one_kind(self) -> Prediction:
        if self.score is not None and self.step_scores is not None:
            raise ValueError(
                "give score or step_scores, not both (a process reward model's score is the "
                "product of its step scores)"
            )
        return self


def aggregate(values: np.ndarray, offsets: np.ndarray) -> dict[str, np.ndarray]:
    """Every aggregation of each solution's step scores: `values` are all step scores in one
    array, solution i owning values[offsets[i]:offsets[i + 1]] (never empty)."""
    starts = offsets[:-1]
    lengths = np.diff(offsets).astype(np.float64)
    edged = np.clip(values, EDGE, 1 - EDGE)
    odds = edged / (1 - edged)
    with np.errstate(over="ignore", under="ignore"):
        prod = np.multiply.reduceat(values, starts)
        mean_logit = np.add.reduceat(np.log(odds), starts) / lengths
        return {
            "prod": prod,
            "geometric_mean": prod ** (1 / lengths),
            "min": np.minimum.reduceat(values, starts),
            "max": np.maximum.reduceat(values, starts),
            "mean": np.add.reduceat(values, starts) / lengths,
            "mean_logit": 1 / (1 + np.exp(-mean_logit)),
            "mean_odd": np.maximum(0.0, np.add.reduceat(odds, starts) / lengths),
            "last": values[offsets[1:] - 1],
        }


def _per_run(table: pa.Table, fields: tuple[str, ...]) -> pa.Table:
    columns: dict[str, Any] = {"item_id": table.column("item_id")}
    if "step_scores" in fields:
        steps = table.column("step_scores").combine_chunks()
        offsets = steps.offsets.to_numpy()
        values = steps.values.to_numpy(zero_copy_only=False).astype(np.float64)
        aggregated = aggregate(values, offsets - offsets[0])
        columns["score"] = pa.array(aggregated[DEFAULT_AGGREGATION])
        columns |= {f"prm_{a}": pa.array(v) for a, v in aggregated.items()}
    else:
        columns["score"] = table.column("score")
    return pa.table(columns)


def reducer(cluster: str, correct: str) -> RunReducer:
    """Runs combined per solution; beside the scores, `sides` (+1 / -1) says whether the judge
    put the solution on the right side of its problem's correct one (the correct solution
    above every other, a wrong one below the correct one): what the item explorer shows."""

    def combine(
        con: duckdb.DuckDBPyConnection,
        table: pa.Table,
        fields: tuple[str, ...],
        options: dict[str, str],
    ) -> pa.Table:
        per_run = _per_run(table, fields)
        names = [c for c in per_run.column_names if c != "item_id"]
        means = ", ".join(f"avg({c}) AS {c}" for c in names)
        con.register("reward_runs", per_run)
        try:
            return con.sql(
                f"""WITH r AS (SELECT item_id, {means} FROM reward_runs GROUP BY item_id),
                j AS (
                    SELECT r.*, i.{cluster} AS problem, i.{correct} AS good
                    FROM r JOIN items i USING (item_id)
                ),
                w AS (
                    SELECT *,
                        max(CASE WHEN good THEN score END) OVER (PARTITION BY problem) AS c,
                        max(CASE WHEN NOT good THEN score END) OVER (PARTITION BY problem) AS o
                    FROM j
                )
                SELECT item_id, {", ".join(names)},
                    CAST(CASE WHEN c IS NULL OR o IS NULL THEN NULL
                              WHEN good THEN CASE WHEN score > o THEN 1 ELSE -1 END
                              ELSE CASE WHEN score < c THEN -1 ELSE 1 END END AS TINYINT)
                        AS sides
                FROM w ORDER BY item_id"""
            ).to_arrow_table()
        finally:
            con.unregister("reward_runs")

    return RunReducer(RUNS_AGG, combine, field_columns={"step_scores": STEP_COLUMNS})


def _expressions(fields: tuple[str, ...]) -> dict[str, str]:
    """Statistic suffix -> the per-solution score it ranks by."""
    out = {"": "score"}
    if "step_scores" in fields:
        out |= {f"_{a}": f"prm_{a}" for a in AGGREGATIONS}
    return out


def stats_sql_for(cluster: str, correct: str) -> Callable[[tuple[str, ...]], str]:
    """Per (scope, subset, cluster): problems scored, problems right (strictly and with ties)
    and the sum of reciprocal ranks, for the score and each aggregation."""

    def stats_sql(fields: tuple[str, ...]) -> str:
        exprs = _expressions(fields)
        chosen = ", ".join(
            f"{e} AS v{s}, max(CASE WHEN {correct} THEN {e} END) OVER "
            f"(PARTITION BY scope, subset, {cluster}) AS c{s}"
            for s, e in exprs.items()
        )
        against = ", ".join(
            f"count_if(NOT good AND v{s} >= c{s}) AS ge{s}, "
            f"count_if(NOT good AND v{s} > c{s}) AS gt{s}"
            for s in exprs
        )
        sums = ", ".join(
            f"count_if(ge{s} = 0) AS correct{s}, count_if(gt{s} = 0) AS correct_ties{s}, "
            f"sum(1.0 / (1 + ge{s})) AS rr{s}"
            for s in exprs
        )
        return f"""WITH w AS (
                SELECT scope, subset, ci, {cluster} AS problem, {correct} AS good, {chosen}
                FROM scoped
            ),
            p AS (
                SELECT scope, subset, ci, problem, count(*) AS n_items, {against}
                FROM w GROUP BY scope, subset, ci, problem HAVING count_if(good) > 0
            )
            SELECT scope, subset, ci, sum(n_items) AS n_items, count(*) AS problems, {sums}
            FROM p GROUP BY scope, subset, ci"""

    return stats_sql


def finalize_for(mrr: bool) -> Callable[[dict[str, np.ndarray], tuple[str, ...]], Any]:
    def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
        problems = sums["problems"]
        out = {}
        for suffix in _expressions(fields):
            out[f"accuracy{suffix}"] = ratio(sums[f"correct{suffix}"], problems)
            if mrr:
                out[f"mrr{suffix}"] = ratio(sums[f"rr{suffix}"], problems)
        if mrr:
            out["accuracy_with_ties"] = ratio(sums["correct_ties"], problems)
        return out

    return finalize
