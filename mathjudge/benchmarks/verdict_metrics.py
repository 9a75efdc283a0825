"""Binary verdict metrics: the scorer of both μ-MATH and the Open Proof Corpus (the metrics of
the U-MATH paper, arXiv:2412.03205, §4).

A judge gives each solution a `verdict`: true (correct), false (incorrect) or null
(inconclusive). The positive class is "the solution is correct" (the item's `label`). A null
verdict is wrong for both classes: it is in neither class's predicted set, so it lowers the
recall of its true class and the precision of neither.

With P / N the numbers of correct / incorrect solutions, `tp` / `tn` the right "correct" /
"incorrect" verdicts and `pp` / `pn` the "correct" / "incorrect" verdicts given:
- tpr = tp / P, tnr = tn / N, ppv = tp / pp, npv = tn / pn
- F1 of a class = 2 * hits / (predicted + actual), the harmonic mean of its precision and
  recall (0 when there are no hits); macro_f1 = mean of the F1 of both classes
- inconclusive_rate = null verdicts / items
A ratio whose denominator is 0 is undefined: NaN, reported as null.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

import duckdb
import numpy as np
import pyarrow as pa
from pydantic import AfterValidator, Field

from mathjudge.benchmarks.stats import confusion_sql, f1, ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import Scorer, grouped_sums_sql


def _vote(verdict: bool | None) -> int:
    """true -> +1, false -> -1, null -> 0 (see `Prediction`)."""
    if verdict is None:
        return 0
    return 1 if verdict else -1


class Prediction(PredictionRow):
    """One verdict per solution. `verdict` must be given on every row; null means inconclusive.

    A validated verdict is kept as a vote (+1 true, -1 false, 0 null), because the engine
    cannot carry a null boolean: validation reads a null field as "not given", and combining
    runs turns it into false. As numbers the null survives: `mean` and `median` give the sign
    of the vote balance (a tie is inconclusive), `majority` the most frequent verdict (a tie
    goes to the lower one, ordered false < null < true).
    """

    verdict: Annotated[bool | None, AfterValidator(_vote)] = Field(
        description="true = solution correct, false = incorrect, null = inconclusive"
    )

    # int8, not a float or bool type: the columnar fast path then always defers to this model.
    arrow_types: ClassVar[dict[str, pa.DataType]] = {"verdict": pa.int8()}
    # Makes the columnar fast path hand files without a (non-null) verdict column to the row
    # validator, which requires the key; an all-null column is valid but not "given" there.
    requires_one_of: ClassVar[tuple[str, ...]] = ("verdict",)


CLUSTER = "problem_id"
ITEM_COLUMNS = ("problem_id", "author_model", "label")
SCORED_FIELDS = ("verdict",)
SCOPES = {"author_model": "author_model"}

# `verdict` is the run-combined vote: > 0 correct, < 0 incorrect, 0 inconclusive.
_STATISTICS = confusion_sql("label", "verdict > 0", "verdict < 0") | {
    "inconclusive": "count_if(verdict = 0)",
}


def stats_sql(fields: tuple[str, ...]) -> str:
    return grouped_sums_sql(_STATISTICS)


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Metric values from summed counts; elementwise, for point estimates and replicates."""

    f1_correct = f1(sums["tp"], sums["pred_pos"], sums["pos"])
    f1_incorrect = f1(sums["tn"], sums["pred_neg"], sums["neg"])
    return {
        "macro_f1": (f1_correct + f1_incorrect) / 2,
        "tpr": ratio(sums["tp"], sums["pos"]),
        "tnr": ratio(sums["tn"], sums["neg"]),
        "ppv": ratio(sums["tp"], sums["pred_pos"]),
        "npv": ratio(sums["tn"], sums["pred_neg"]),
        "inconclusive_rate": ratio(sums["inconclusive"], sums["pos"] + sums["neg"]),
    }


def extras(con: duckdb.DuckDBPyConnection, fields: tuple[str, ...]) -> dict[str, list[dict]]:
    """The confusion matrix of every scope: item counts per (label, verdict)."""
    rows = con.execute(
        """SELECT scope, subset,
                  CASE WHEN label THEN 'correct' ELSE 'incorrect' END AS label,
                  CASE WHEN verdict > 0 THEN 'correct'
                       WHEN verdict < 0 THEN 'incorrect'
                       ELSE 'inconclusive' END AS verdict,
                  count(*) AS n
           FROM scoped GROUP BY ALL ORDER BY ALL"""
    ).fetchall()
    keys = ("scope", "subset", "label", "verdict", "n")
    return {"confusion": [dict(zip(keys, row, strict=True)) for row in rows]}


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
    extras=extras,
)
