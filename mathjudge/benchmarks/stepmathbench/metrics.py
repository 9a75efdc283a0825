"""StepMathBench scoring (StepMathAgent paper, Section 5.1 metrics).

Against `gold_score` (0-10) when a submission gives `score`, and against the final-answer label
`gold_score_01` when it gives `answer_correct` (as 0/1):
- avg_score: mean predicted score (the paper compares it with the gold mean, `gold_avg_score`)
- corr: Pearson correlation of predicted and gold scores (undefined for a constant predictor)
- mse: mean squared error, in score points squared (0-10 scale) or in 0/1 units
- overlap: share of items whose predicted score equals the gold score exactly
Keys for `answer_correct` carry the prefix `answer_`. Values are in natural units; the paper's
tables show avg_score x10 and the rest x100, which is presentation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
import pyarrow as pa
from pydantic import Field

from mathjudge.benchmarks.stats import correlation_sql, pearson, ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import Scorer, grouped_sums_sql

StepLabel = Literal["correct", "incorrect", "correct_but_meaningless"]


class Prediction(PredictionRow):
    """One StepMathBench prediction: `score` and/or `answer_correct` (same fields on every row)."""

    score: float | None = Field(default=None, ge=0, le=10, description="process score, 0-10")
    answer_correct: bool | None = Field(default=None, description="final answer judged correct")
    step_labels: list[StepLabel] | None = Field(
        default=None, description="optional per-step labels; recorded, not scored yet"
    )

    arrow_types: ClassVar[dict[str, pa.DataType]] = {
        "score": pa.float64(),
        "answer_correct": pa.bool_(),
        "step_labels": pa.list_(pa.string()),
    }
    requires_one_of: ClassVar[tuple[str, ...]] = ("score", "answer_correct")


CLUSTER = "problem_id"
# Item columns the statistics read (the text columns are never loaded for scoring).
ITEM_COLUMNS = ("problem_id", "type", "generator", "level", "gold_score", "gold_score_01")
SCORED_FIELDS = ("score", "answer_correct")
# scope name -> SQL expression over the dataset's item columns
SCOPES = {"type": "type", "generator": "generator", "level": "CAST(level AS VARCHAR)"}


@dataclass(frozen=True)
class Target:
    field: str
    gold: str
    prefix: str
    binary: bool = False  # prediction and gold are both 0 or 1 (see `stats_sql`)

    @property
    def pred_sql(self) -> str:
        return f"CAST({self.field} AS DOUBLE)"

    @property
    def gold_sql(self) -> str:
        return f"CAST({self.gold} AS DOUBLE)"


TARGETS = (
    Target("score", "gold_score", ""),
    Target("answer_correct", "gold_score_01", "answer_", binary=True),
)


def targets(fields: tuple[str, ...]) -> tuple[Target, ...]:
    return tuple(t for t in TARGETS if t.field in fields)


def stats_sql(fields: tuple[str, ...]) -> str:
    """Additive per-cluster statistics, as SQL aggregates over the scored item rows.

    Where prediction and gold are both 0 or 1 (the final-answer verdict against its label),
    p * p = p, g * g = g and (p - g)^2 = p + g - 2pg, and p = g exactly where that is 0, all in
    whole numbers: `n`, `sp`, `sg` and `spg` give the other four sums exactly (`_sums`), so they
    are neither aggregated nor resampled."""
    out: dict[str, str] = {}
    for t in targets(fields):
        p, g, k = t.pred_sql, t.gold_sql, t.prefix
        if t.binary:
            out |= {
                f"{k}n": f"count({p})",
                f"{k}sp": f"sum({p})",
                f"{k}sg": f"sum({g})",
                f"{k}spg": f"sum({p} * {g})",
            }
            continue
        out |= correlation_sql(p, g, k) | {
            f"{k}sse": f"sum(({p} - {g}) * ({p} - {g}))",
            f"{k}hits": f"count_if({p} = {g})",
        }
    return grouped_sums_sql(out)


def _sums(sums: dict[str, np.ndarray], t: Target) -> dict[str, np.ndarray]:
    """The target's eight sums: a binary target's four others from its four (`stats_sql`)."""
    if not t.binary:
        return sums
    k = t.prefix
    n, sp, sg, spg = (sums[f"{k}{name}"] for name in ("n", "sp", "sg", "spg"))
    sse = sp + sg - 2 * spg
    return {
        f"{k}n": n,
        f"{k}sp": sp,
        f"{k}sg": sg,
        f"{k}spg": spg,
        f"{k}spp": sp,
        f"{k}sgg": sg,
        f"{k}sse": sse,
        f"{k}hits": n - sse,
    }


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Metric values from summed statistics; works elementwise on arrays of any shape."""
    out: dict[str, np.ndarray] = {}
    for t in targets(fields):
        k, s = t.prefix, _sums(sums, t)
        n = s[f"{k}n"]
        out[f"{k}avg_score"] = ratio(s[f"{k}sp"], n)
        # A (numerically) constant predictor or gold has no correlation.
        out[f"{k}corr"] = pearson(s, k)
        out[f"{k}mse"] = ratio(s[f"{k}sse"], n)
        out[f"{k}overlap"] = ratio(s[f"{k}hits"], n)
        out[f"{k}gold_avg_score"] = ratio(s[f"{k}sg"], n)
    return out


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
    stats_from_rows=True,
)
