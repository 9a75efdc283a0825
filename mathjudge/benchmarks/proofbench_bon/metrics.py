"""ProofBench best-of-n selection (arXiv:2510.13888, Section 4), computed exactly.

A problem has N samples, each scored by the judge and by experts. The judge picks, from a
uniformly random n-subset, its highest-scored sample (ties to the lower `sample_index`). Ranking
the N samples by (score desc, sample_index asc), rank r is picked iff it is in the subset and no
better rank is, which has probability C(N - r, n - 1) / C(N, n). Per problem and n = 1..N:
- bon_score: the expected expert score of the judge's pick (the paper estimates it by sampling
  subsets; this is its exact value)
- bon_oracle: the same with the experts' own ranking, the best any judge can do (ties among the
  experts' scores cannot change it)
- bon_first_n_mean: the mean expert score of samples 0..n-1, our reading of the paper's mean
  baseline (no selection: what n samples are worth on average)
Values are 0-7 points, averaged over problems; scope `bon`, subsets `n=1`..`n=N`. The overall
scope repeats the full pool, n = N (the paper's headline is n = 16), so that summaries and the
per-run spread have one number per metric. In a partial submission a problem's pool is its
scored samples, and it counts towards n = k only for k up to that pool's size.
"""

from __future__ import annotations

import numpy as np

# The same row contract as the grading set: one `score` per sample.
from mathjudge.benchmarks.proofbench.metrics import Prediction as Prediction
from mathjudge.benchmarks.stats import ratio
from mathjudge.spec.scorer import Scorer

CLUSTER = "problem_id"
ITEM_COLUMNS = ("problem_id", "sample_index", "expert_score")
SCORED_FIELDS = ("score",)
SCOPES: dict[str, str] = {}
METRICS = ("bon_score", "bon_oracle", "bon_first_n_mean")


def _binomial(a: str, b: str) -> str:
    """C(a, b) for integers a >= 0, as SQL; rounding lgamma's result makes it exact while it is
    below 2^53 (N <= 50 samples)."""
    return (
        f"CASE WHEN ({b}) > ({a}) THEN 0 "
        f"ELSE round(exp(lgamma(({a}) + 1) - lgamma(({b}) + 1) - lgamma(({a}) - ({b}) + 1))) END"
    )


def _pick_probability(rank: str) -> str:
    return f"{_binomial(f'pool - {rank}', 'n - 1')} / {_binomial('pool', 'n')}"


def stats_sql(fields: tuple[str, ...]) -> str:
    """Per problem (cluster) and n: the three expectations, emitted under `bon`/`n=k` and,
    for n = N, under `overall`/`all`."""
    return f"""
        WITH samples AS (
            SELECT ci, CAST(expert_score AS DOUBLE) AS e,
                   count(*) OVER (PARTITION BY ci) AS pool,
                   row_number() OVER (PARTITION BY ci ORDER BY score DESC, sample_index)
                       AS judge_rank,
                   row_number() OVER (PARTITION BY ci ORDER BY expert_score DESC, sample_index)
                       AS oracle_rank,
                   row_number() OVER (PARTITION BY ci ORDER BY sample_index) AS position
            FROM scoped WHERE scope = 'overall'
        ),
        sizes AS (SELECT DISTINCT ci, pool FROM samples),
        subset_sizes AS (SELECT ci, pool, unnest(range(1, pool + 1)) AS n FROM sizes),
        per_problem AS (
            SELECT ci, n, any_value(pool) AS pool,
                   sum(e * {_pick_probability("judge_rank")}) AS bon_score,
                   sum(e * {_pick_probability("oracle_rank")}) AS bon_oracle,
                   avg(e) FILTER (WHERE position <= n) AS bon_first_n_mean
            FROM samples JOIN subset_sizes USING (ci, pool)
            GROUP BY ci, n
        ),
        labelled AS (
            SELECT 'bon' AS scope, 'n=' || n AS subset, * FROM per_problem
            UNION ALL
            SELECT 'overall' AS scope, 'all' AS subset, * FROM per_problem WHERE n = pool
        )
        SELECT scope, subset, ci, pool AS n_items, 1 AS problems,
               bon_score AS bon_score_sum, bon_oracle AS bon_oracle_sum,
               bon_first_n_mean AS bon_first_n_mean_sum
        FROM labelled"""


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Averages over problems of the per-problem expectations; elementwise on any shape."""
    per_problem = ratio(np.ones_like(sums["problems"]), sums["problems"])
    return {m: sums[f"{m}_sum"] * per_problem for m in METRICS}


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
)
