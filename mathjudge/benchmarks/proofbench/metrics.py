"""ProofBench scoring (arXiv:2510.13888, Section 3.2): a judge's 0-7 `score` per proof against
the expert score, per problem, then macro-averaged over problems.

Per problem p with proofs i (within a scope's subset), error d_i = score_i - expert_i:
- mae: mean |d_i|; rmse: sqrt(mean d_i^2); bias: mean d_i (positive = over-scoring), in points
- wta1: share of proofs with |d_i| <= 1 (a fraction; the paper prints %)
- kendall_tau_b: Kendall's tau-b of (score, expert) over the problem's proofs, ties-adjusted:
  (C - D) / sqrt((P - T_score)(P - T_expert)) over the P pairs, with C concordant, D discordant,
  and T_score / T_expert the pairs tied in score / in expert score. It is undefined, and left
  out of the average, when a problem has fewer than 2 proofs or either side is constant;
  `kendall_tau_b_problems` counts the problems it is defined on, `kendall_tau_b_omitted` the
  rest. (A generator subset holds one proof per problem, so tau-b is n/a there.)
Each per-problem value is computed in SQL and emitted as that problem's (cluster's) statistic,
so a sum over clusters divided by their count is the macro average, and the engine's cluster
bootstrap resamples problems with their values unchanged.
"""

from __future__ import annotations

from typing import ClassVar

import duckdb
import numpy as np
import pyarrow as pa
from pydantic import Field

from mathjudge.benchmarks.stats import ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import Scorer

MAX_SCORE = 7


class Prediction(PredictionRow):
    """One ProofBench prediction: the judge's grade of one proof."""

    score: float = Field(ge=0, le=MAX_SCORE, description="grade of the proof, 0-7")

    arrow_types: ClassVar[dict[str, pa.DataType]] = {"score": pa.float64()}


CLUSTER = "problem_id"
ITEM_COLUMNS = ("problem_id", "generator", "contest", "year", "expert_score")
SCORED_FIELDS = ("score",)
SCOPES = {"generator": "generator", "contest": "contest", "year": "CAST(year AS VARCHAR)"}
METRICS = ("mae", "rmse", "wta1", "kendall_tau_b", "bias")
COUNTS = ("kendall_tau_b_problems", "kendall_tau_b_omitted")


def stats_sql(fields: tuple[str, ...]) -> str:
    """Per (scope, subset, problem): the problem's metric values and whether tau-b is defined.

    The pairs are the group's proofs two by two, each pair once: numbered rows (`r`, fixed once
    `graded` is materialised) joined to the rows numbered after them, an integer comparison
    where a comparison of item ids would cost several times more."""
    return """
        WITH graded AS MATERIALIZED (
            SELECT scope, subset, ci, row_number() OVER () AS r,
                   CAST(score AS DOUBLE) AS p, CAST(expert_score AS DOUBLE) AS e
            FROM scoped
        ),
        per_problem AS (
            SELECT scope, subset, ci, count(*) AS n_items,
                   avg(abs(p - e)) AS mae,
                   sqrt(avg((p - e) * (p - e))) AS rmse,
                   avg(CAST(abs(p - e) <= 1 AS DOUBLE)) AS wta1,
                   avg(p - e) AS bias
            FROM graded GROUP BY scope, subset, ci
        ),
        pairs AS (
            SELECT a.scope, a.subset, a.ci,
                   count(*) AS n_pairs,
                   count_if(sign(a.p - b.p) * sign(a.e - b.e) > 0) AS concordant,
                   count_if(sign(a.p - b.p) * sign(a.e - b.e) < 0) AS discordant,
                   count_if(a.p = b.p) AS ties_score,
                   count_if(a.e = b.e) AS ties_expert
            FROM graded a JOIN graded b
              ON a.scope = b.scope AND a.subset = b.subset AND a.ci = b.ci AND a.r < b.r
            GROUP BY a.scope, a.subset, a.ci
        ),
        tau AS (
            SELECT scope, subset, ci,
                   (concordant - discordant)
                   / sqrt(CAST(n_pairs - ties_score AS DOUBLE) * (n_pairs - ties_expert)) AS tau
            FROM pairs
            WHERE n_pairs > ties_score AND n_pairs > ties_expert
        )
        SELECT scope, subset, ci, n_items,
               1 AS problems, mae AS mae_sum, rmse AS rmse_sum, wta1 AS wta1_sum,
               bias AS bias_sum, coalesce(tau.tau, 0) AS tau_sum,
               CAST(tau.tau IS NOT NULL AS INTEGER) AS tau_defined
        FROM per_problem LEFT JOIN tau USING (scope, subset, ci)"""


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Macro averages from summed per-problem values; elementwise on arrays of any shape."""
    problems, defined = sums["problems"], sums["tau_defined"]
    per_problem = ratio(np.ones_like(problems), problems)
    return {
        **{m: sums[f"{m}_sum"] * per_problem for m in ("mae", "rmse", "wta1", "bias")},
        "kendall_tau_b": ratio(sums["tau_sum"], defined),
        "kendall_tau_b_problems": defined,
        "kendall_tau_b_omitted": problems - defined,
    }


def extras(con: duckdb.DuckDBPyConnection, fields: tuple[str, ...]) -> dict[str, list[dict]]:
    """Expert score x predicted score over all proofs, every cell of the 8 x 8 grid (zeros
    included). Predictions are rounded half to even to an integer (2.5 -> 2, 3.5 -> 4)."""
    rows = con.execute(
        f"""WITH grid AS (
                SELECT e.range AS expert, p.range AS predicted
                FROM range({MAX_SCORE + 1}) e CROSS JOIN range({MAX_SCORE + 1}) p
            ),
            seen AS (
                SELECT CAST(expert_score AS BIGINT) AS expert,
                       CAST(round_even(score, 0) AS BIGINT) AS predicted, count(*) AS n
                FROM scoped WHERE scope = 'overall' GROUP BY ALL
            )
            SELECT expert, predicted, coalesce(n, 0) AS count
            FROM grid LEFT JOIN seen USING (expert, predicted)
            ORDER BY expert, predicted"""
    ).fetchall()
    return {
        "confusion_matrix": [
            {"expert": int(e), "predicted": int(p), "count": int(c)} for e, p, c in rows
        ]
    }


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
    extras=extras,
    stats_from_rows=True,
)
