"""RewardBench-math scoring: accuracy of the chosen solution over the rejected one (strictly),
for a score per solution and every aggregation of step scores (see `reward_scoring`)."""

from __future__ import annotations

from mathjudge.benchmarks.reward_scoring import (
    Prediction,
    finalize_for,
    reducer,
    stats_sql_for,
)
from mathjudge.spec.scorer import Scorer

CLUSTER = "problem_id"
CORRECT = "is_chosen"

SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=(CLUSTER, CORRECT, "subject", "level"),
    scored_fields=("score", "step_scores"),
    stats_sql=stats_sql_for(CLUSTER, CORRECT),
    finalize=finalize_for(mrr=False),
    scopes={"subject": "subject", "level": "level"},
    reducer=reducer(CLUSTER, CORRECT),
)
