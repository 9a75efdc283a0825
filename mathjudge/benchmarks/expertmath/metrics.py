"""ExpertMath-style ranking metrics (Consequence-Based Utility paper): how well a judge's scores
rank a problem's correct candidate solutions above its wrong ones.

A judge gives every candidate a `score` (higher = more likely correct; any real number). Within
one problem (an original or a variant), candidates are ranked by score, highest first, ties
broken by candidate order (`position`, the package's file-name order). Per problem:
- acc_at_1: 1 if the top-ranked candidate is correct, else 0
- recall_at_5: correct candidates among the top five / all correct candidates of the problem
- auc: over every (correct, wrong) pair, 1 if the correct one scores higher, 1/2 on a tie, 0
  otherwise, averaged over the pairs (undefined without both classes)
- human_win: for each correct human-written candidate, 1 if its score is above the mean score of
  the wrong candidates, 1/2 if equal, 0 if below, averaged over the human candidates (undefined
  for a problem with no human candidate)
- mean_win: 1 if the mean score of the correct candidates (human ones included) is above the
  mean score of the wrong ones, 1/2 if equal, 0 if below
Per original, each metric is the mean over its problems where it is defined (the original and
those variants that have candidates); the reported value is the mean over originals where it is
defined. CIs resample originals. Scope `problem_kind`: the same computed on originals only
(`original`) or on variants only (`variant`). With several runs, scores are combined per
candidate by `--runs-agg` before ranking.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pyarrow as pa
from pydantic import Field

from mathjudge.benchmarks.stats import ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import Scorer


class Prediction(PredictionRow):
    """One ExpertMath prediction: the judge's score of one candidate solution."""

    score: float = Field(description="higher = more likely correct; only the order matters")

    arrow_types: ClassVar[dict[str, pa.DataType]] = {"score": pa.float64()}


CLUSTER = "original_id"
ITEM_COLUMNS = ("problem_id", "original_id", "is_variant", "position", "is_human", "correct")
SCORED_FIELDS = ("score",)
SCOPES = {"problem_kind": "CASE WHEN is_variant THEN 'variant' ELSE 'original' END"}
METRICS = ("acc_at_1", "recall_at_5", "auc", "human_win", "mean_win")
TOP_K = 5


def _win(a: str, b: str) -> str:
    """1 / 0.5 / 0 for a above / equal to / below b; NULL when either is NULL."""
    return f"CASE WHEN {a} > {b} THEN 1.0 WHEN {a} = {b} THEN 0.5 WHEN {a} < {b} THEN 0.0 END"


def stats_sql(fields: tuple[str, ...]) -> str:
    """Per (scope, subset, original): each metric's mean over the original's problems, and
    whether it is defined there."""
    per_original = ", ".join(f"avg({m}) AS {m}" for m in METRICS)
    out = ", ".join(
        f"coalesce({m}, 0) AS {m}_sum, CAST({m} IS NOT NULL AS INTEGER) AS {m}_defined"
        for m in METRICS
    )
    return f"""
        WITH ranked AS (
            SELECT scope, subset, ci, problem_id, correct, is_human,
                   CAST(score AS DOUBLE) AS s,
                   row_number() OVER (
                       PARTITION BY scope, subset, problem_id ORDER BY score DESC, position
                   ) AS rank
            FROM scoped
        ),
        per_problem AS (
            SELECT scope, subset, ci, problem_id, count(*) AS n_items,
                   CAST(bool_or(rank = 1 AND correct) AS DOUBLE) AS acc_at_1,
                   CASE WHEN count_if(correct) > 0 THEN
                       CAST(count_if(correct AND rank <= {TOP_K}) AS DOUBLE) / count_if(correct)
                   END AS recall_at_5,
                   avg(s) FILTER (WHERE correct) AS mean_correct,
                   avg(s) FILTER (WHERE NOT correct) AS mean_wrong
            FROM ranked GROUP BY scope, subset, ci, problem_id
        ),
        pairs AS (
            SELECT a.scope, a.subset, a.problem_id, avg({_win("a.s", "b.s")}) AS auc
            FROM ranked a JOIN ranked b
              ON a.scope = b.scope AND a.subset = b.subset AND a.problem_id = b.problem_id
            WHERE a.correct AND NOT b.correct
            GROUP BY a.scope, a.subset, a.problem_id
        ),
        humans AS (
            SELECT h.scope, h.subset, h.problem_id, avg({_win("h.s", "p.mean_wrong")}) AS human_win
            FROM ranked h JOIN per_problem p
              ON h.scope = p.scope AND h.subset = p.subset AND h.problem_id = p.problem_id
            WHERE h.is_human AND h.correct AND p.mean_wrong IS NOT NULL
            GROUP BY h.scope, h.subset, h.problem_id
        ),
        problems AS (
            SELECT per_problem.*, pairs.auc, humans.human_win,
                   {_win("mean_correct", "mean_wrong")} AS mean_win
            FROM per_problem
            LEFT JOIN pairs USING (scope, subset, problem_id)
            LEFT JOIN humans USING (scope, subset, problem_id)
        ),
        originals AS (
            SELECT scope, subset, ci, sum(n_items) AS n_items, {per_original}
            FROM problems GROUP BY scope, subset, ci
        )
        SELECT scope, subset, ci, n_items, {out} FROM originals"""


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Means over the originals where each metric is defined; elementwise on any shape."""
    return {m: ratio(sums[f"{m}_sum"], sums[f"{m}_defined"]) for m in METRICS}


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
)
