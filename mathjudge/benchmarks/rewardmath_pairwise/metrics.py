"""RewardMATH pairwise scoring, the authors' rule (`--pairwise` of their scorer, restated): per
game the judge prefers position A or B, or gives no verdict; the game is won when the preferred
position is the correct solution's. A problem is accurate when all its games are won; its
reciprocal rank is 1 / (1 + games lost). A missing verdict loses its game.

`preferred` is validated into a vote, +1 for A, -1 for B and 0 for none (the engine cannot
carry a null); runs are combined by the mean vote, so their majority position wins and a tie is
no verdict.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

import numpy as np
import pyarrow as pa
from pydantic import AfterValidator, Field

from mathjudge.benchmarks.stats import ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import Scorer

VOTE = {"A": 1, "B": -1, None: 0}


def _vote(preferred: str | None) -> int:
    return VOTE[preferred]


class Prediction(PredictionRow):
    """One game: the position the judge prefers; null when it gave no verdict."""

    preferred: Annotated[Literal["A", "B"] | None, AfterValidator(_vote)] = Field(
        description="A or B as shown to the judge; null = no verdict (the game is lost)"
    )

    arrow_types: ClassVar[dict[str, pa.DataType]] = {"preferred": pa.int8()}
    requires_one_of: ClassVar[tuple[str, ...]] = ("preferred",)


CLUSTER = "problem_index"
WON = "((correct_is_a AND preferred > 0) OR (NOT correct_is_a AND preferred < 0))"


def stats_sql(fields: tuple[str, ...]) -> str:
    return f"""WITH g AS (
            SELECT scope, subset, ci, {CLUSTER}, count(*) AS n_items,
                   count_if({WON}) AS won, count_if(preferred = 0) AS nulls
            FROM scoped GROUP BY scope, subset, ci, {CLUSTER}
        )
        SELECT scope, subset, ci, sum(n_items) AS n_items, count(*) AS problems,
               count_if(won = n_items) AS all_won, sum(1.0 / (1 + n_items - won)) AS rr,
               sum(n_items) AS games, sum(won) AS games_won, sum(nulls) AS no_verdict
        FROM g GROUP BY scope, subset, ci"""


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    return {
        "accuracy": ratio(sums["all_won"], sums["problems"]),
        "mrr": ratio(sums["rr"], sums["problems"]),
        "game_accuracy": ratio(sums["games_won"], sums["games"]),
        "no_verdict_rate": ratio(sums["no_verdict"], sums["games"]),
    }


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=(CLUSTER, "correct_is_a"),
    scored_fields=("preferred",),
    stats_sql=stats_sql,
    finalize=finalize,
)
