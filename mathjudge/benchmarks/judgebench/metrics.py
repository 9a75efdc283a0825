"""JudgeBench scoring, the authors' rule (arXiv:2410.12784; `utils/metrics.py` upstream): a
judge's games on a pair are summed, +1 for a decision that agrees with the label, -1 for the
opposite and 0 for a tie (`A=B`) or no decision; the pair is correct when the sum is above 0.
Accuracy = correct pairs / pairs, per category and overall: a null decision stays in the
denominator.

A judge gives `decisions`, one per game and each in the ORIGINAL order of the pair (a judge
shown (B, A) must map "A>B" as shown back to "B>A"), or a score per response, `score_a` and
`score_b`. Scores are read as the published reward-model files are: two games, the response
shown first wins a game when its score is strictly higher, else the one shown second. So the
higher score wins both games, and an exact tie gives "B>A" as shown in both games, which maps
back to one vote each way: a 0 sum, never correct.

Either form is validated into one number per pair, the preference: the sum over games of +1
(A>B) and -1 (B>A). A pair is correct when the preference has the label's sign; several runs are
combined by the mean preference (its sign is the vote over all games).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import numpy as np
import pyarrow as pa
from pydantic import AfterValidator, Field, model_validator

from mathjudge.benchmarks.stats import ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import Scorer, grouped_sums_sql

Decision = Literal["A>B", "B>A", "A=B"]
VOTE = {"A>B": 1, "B>A": -1, "A=B": 0, None: 0}
CATEGORIES = ("knowledge", "reasoning", "math", "coding")


def preference(decisions: list[Decision | None]) -> int:
    """Sum of the games' votes in the original order: +1 A>B, -1 B>A, 0 tie or none."""
    return sum(VOTE[d] for d in decisions)


def score_decisions(score_a: float, score_b: float) -> list[str]:
    """The two games the published reward-model files record, mapped to the original order:
    shown (A, B) the first wins if strictly higher; shown (B, A) likewise, then mapped back."""
    first = "A>B" if score_a > score_b else "B>A"
    second_as_shown = "A>B" if score_b > score_a else "B>A"
    return [first, {"A>B": "B>A", "B>A": "A>B"}[second_as_shown]]


class Prediction(PredictionRow):
    """One pair: `decisions` (per game, in the original order) or `score_a` and `score_b`.
    `raw_decisions` (the decisions as shown to the judge) is kept but not scored."""

    decisions: (
        Annotated[list[Decision | None], Field(min_length=1), AfterValidator(preference)] | None
    ) = Field(default=None, description="per game: A>B, B>A, A=B or null, in the original order")
    score_a: float | None = Field(default=None, description="score of response A")
    score_b: float | None = Field(default=None, description="score of response B")
    raw_decisions: list[str | None] | None = Field(default=None, description="kept, not scored")

    arrow_types: ClassVar[dict[str, pa.DataType]] = {
        "decisions": pa.int8(),
        "score_a": pa.float64(),
        "score_b": pa.float64(),
        "raw_decisions": pa.list_(pa.string()),
    }
    # Only `decisions` is scored: a file of scores alone goes through the row validator, which
    # turns the scores into decisions (below).
    requires_one_of: ClassVar[tuple[str, ...]] = ("decisions",)
    per_row_optional: ClassVar[tuple[str, ...]] = ("raw_decisions",)

    @model_validator(mode="before")
    @classmethod
    def _scores_to_decisions(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        given = [k for k in ("score_a", "score_b") if data.get(k) is not None]
        if not given:
            if data.get("decisions") is None:
                raise ValueError("give decisions, or score_a and score_b")
            return data
        if data.get("decisions") is not None:
            raise ValueError("give decisions or score_a and score_b, not both")
        if len(given) == 1:
            raise ValueError("give both score_a and score_b")
        try:
            a, b = float(data["score_a"]), float(data["score_b"])
        except (TypeError, ValueError):
            return data  # the field validators report the bad score
        return {**data, "decisions": score_decisions(a, b)}


CLUSTER = "pair_id"
ITEM_COLUMNS = ("pair_id", "category", "label")
SCORED_FIELDS = ("decisions",)
SCOPES: dict[str, str] = {}

_STATISTICS = {
    "pairs": "count(*)",
    "correct": "count_if((label = 'A>B' AND decisions > 0) OR (label = 'B>A' AND decisions < 0))",
} | {
    f"{c}_{kind}": f"count_if(category = '{c}'{cond})"
    for c in CATEGORIES
    for kind, cond in (
        ("pairs", ""),
        (
            "correct",
            " AND ((label = 'A>B' AND decisions > 0) OR (label = 'B>A' AND decisions < 0))",
        ),
    )
}


def stats_sql(fields: tuple[str, ...]) -> str:
    return grouped_sums_sql(_STATISTICS)


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Accuracies from summed counts; elementwise, for point estimates and replicates."""

    out = {"accuracy": ratio(sums["correct"], sums["pairs"])}
    for c in CATEGORIES:
        out[f"{c}_accuracy"] = ratio(sums[f"{c}_correct"], sums[f"{c}_pairs"])
    return out


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
)
