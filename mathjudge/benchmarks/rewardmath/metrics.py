"""RewardMATH scoring: accuracy and MRR of the correct solution among a problem's ten, for a
score per solution and for every aggregation of step scores (see `reward_scoring`)."""

from __future__ import annotations

from mathjudge.benchmarks.reward_scoring import (
    Prediction,
    finalize_for,
    reducer,
    stats_sql_for,
)
from mathjudge.spec.scorer import Scorer

CLUSTER = "problem_index"
CORRECT = "is_correct"

SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=(CLUSTER, CORRECT),
    scored_fields=("score", "step_scores"),
    stats_sql=stats_sql_for(CLUSTER, CORRECT),
    finalize=finalize_for(mrr=True),
    reducer=reducer(CLUSTER, CORRECT),
)
