"""Open Proof Corpus scoring: proof verification as a binary verdict, with the metrics of
`binary`; scopes overall and author model, problems as bootstrap clusters."""

from __future__ import annotations

from mathjudge.evaluate.metrics.binary import (
    CLUSTER,
    ITEM_COLUMNS,
    SCOPES,
    SCORED_FIELDS,
    Prediction,
    extras,
    finalize,
    metric_names,
    stats_sql,
)

DEFAULT_SEED = 4

__all__ = [
    "CLUSTER",
    "DEFAULT_SEED",
    "ITEM_COLUMNS",
    "SCOPES",
    "SCORED_FIELDS",
    "Prediction",
    "extras",
    "finalize",
    "metric_names",
    "stats_sql",
]
