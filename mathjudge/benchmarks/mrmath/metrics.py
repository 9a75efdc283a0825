"""MR-MATH scoring, the authors' rules (ReasonEval, arXiv:2404.05692): for each set (invalid,
redundant) and level (solution, step), macro-F1 of binary predictions and ROC-AUC of scores.

Positive = a valid solution or step (invalid set), a solution without redundant steps or a
useful step (redundant set). Only evaluated steps count (a flawed solution's steps after its
first error have no gold label).

- macro-F1 = mean of the F1 of the positive and of the negative class. A missing prediction
  (null) is an error for its true class and counts as a prediction of the other class: with P / N
  positives / negatives and tp / tn the right positive / negative predictions,
  F1+ = 2 tp / (tp + P + N - tn) and F1- = 2 tn / (tn + N + P - tp), as the authors' scorer.
- ROC-AUC = the share of (positive, negative) pairs whose positive has the higher score, ties ½,
  pooled over all evaluated items of the set.

The bootstrap is exact for AUC too, although AUC is not a sum over questions: with w_c the
number of times question c is drawn, the pooled AUC of a replicate is
sum_{c,d} w_c w_d U[c, d] / ((sum_c w_c P_c) (sum_c w_c N_c)), where U[c, d] sums the pair
credits between the positives of question c and the negatives of question d. So each question c
contributes the additive statistics U[c, d] for every d (`auc_<set>_<level>_<d>`) and the
indicator of d = c (`one_<d>`); the engine's summed statistics then hold sum_c w_c U[c, d] and
w_d, and `finalize` takes their dot product. The same holds in paired comparisons and ranks,
which resample with the same engine.

Runs are combined here (`combine_runs`), step by step: binary predictions by majority vote (a
tie is no prediction), scores by their mean. Step predictions become per-solution counts of
right positive and negative steps (`step_tp`, `step_tn`); these, `solution_pred` (a vote: +1
positive, -1 negative, 0 none) and `solution_score` are the per-item values the store keeps.
The combined `step_scores` lists are scored but not stored, so step-level AUC is computed from
submitted files only.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated, ClassVar

import duckdb
import numpy as np
import pyarrow as pa
from pydantic import AfterValidator, Field

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.stats import f1, ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import RunReducer, Scorer

SETS = ("invalid", "redundant")
LEVELS = ("solution", "step")
BINARY = {"solution": "solution_pred", "step": "step_preds"}
SCORES = {"solution": "solution_score", "step": "step_scores"}


def _vote(value: bool | None) -> int:
    """true -> +1, false -> -1, null (no prediction) -> 0."""
    if value is None:
        return 0
    return 1 if value else -1


def _votes(values: list[bool | None]) -> list[int]:
    return [_vote(v) for v in values]


class Prediction(PredictionRow):
    """One MR-MATH solution: binary predictions and/or scores, for the solution and/or for each
    of its steps. Positive = valid (invalid set) / no redundant step (redundant set). A null
    `solution_pred` or null entry of `step_preds` is "no prediction", counted as an error.

    Validated binary predictions are kept as votes (+1 / -1 / 0), as in the binary scorer,
    because validation reads a null field as "not given".
    """

    solution_pred: Annotated[bool | None, AfterValidator(_vote)] = Field(
        default=None, description="true = positive, false = negative, null = no prediction"
    )
    solution_score: float | None = Field(default=None, description="higher = more likely positive")
    step_preds: Annotated[list[bool | None], AfterValidator(_votes)] | None = Field(
        default=None, min_length=1, description="one per step: true / false / null"
    )
    step_scores: list[float] | None = Field(
        default=None, min_length=1, description="one per step, higher = more likely positive"
    )
    raw_verdict: str | None = Field(default=None, description="kept, not scored")
    raw_error_steps: str | None = Field(default=None, description="kept, not scored")

    arrow_types: ClassVar[dict[str, pa.DataType]] = {
        "solution_pred": pa.int8(),
        "solution_score": pa.float64(),
        "step_preds": pa.list_(pa.int8()),
        "step_scores": pa.list_(pa.float64()),
        "raw_verdict": pa.string(),
        "raw_error_steps": pa.string(),
    }
    requires_one_of: ClassVar[tuple[str, ...]] = (
        "solution_pred",
        "solution_score",
        "step_preds",
        "step_scores",
    )
    per_row_optional: ClassVar[tuple[str, ...]] = ("raw_verdict", "raw_error_steps")


CLUSTER = "problem_id"
ITEM_COLUMNS = ("problem_id", "set", "solution_label", "step_labels", "n_steps")
SCORED_FIELDS = ("solution_pred", "solution_score", "step_preds", "step_scores")
SCOPES: dict[str, str] = {}
RUNS_AGG = "majority vote (tie = no prediction) and mean score, per step"
# The per-item columns `combine_runs` turns a field into (the others keep their own name).
FIELD_COLUMNS = {"step_preds": ("step_tp", "step_tn")}
_OUT_TYPES = {
    "solution_pred": pa.int8(),
    "solution_score": pa.float64(),
    "step_tp": pa.int32(),
    "step_tn": pa.int32(),
    "step_scores": pa.list_(pa.float64()),
}


def _sign(total: int) -> int:
    return (total > 0) - (total < 0)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _combined(
    item: str, by_run: list[dict], gold: tuple[list[int | None], int], fields
) -> dict[str, object]:
    labels, n_steps = gold
    out: dict[str, object] = {"item_id": item}
    if "solution_pred" in fields:
        out["solution_pred"] = _sign(sum(r["solution_pred"] for r in by_run))
    if "solution_score" in fields:
        out["solution_score"] = _mean([r["solution_score"] for r in by_run])
    if "step_preds" in fields:
        votes = [_sign(sum(r["step_preds"][j] for r in by_run)) for j in range(n_steps)]
        out["step_tp"] = sum(1 for g, v in zip(labels, votes, strict=True) if g == 1 and v > 0)
        out["step_tn"] = sum(1 for g, v in zip(labels, votes, strict=True) if g == 0 and v < 0)
    if "step_scores" in fields:
        out["step_scores"] = [_mean([r["step_scores"][j] for r in by_run]) for j in range(n_steps)]
    return out


def combine_runs(
    con: duckdb.DuckDBPyConnection,
    table: pa.Table,
    fields: tuple[str, ...],
    options: dict[str, str],
) -> pa.Table:
    """One row per solution: runs combined step by step, step predictions counted against the
    gold labels. Fails, naming the solutions, when a step list's length is not the number of
    steps (the labels could not be aligned)."""
    gold = {
        item: (list(labels), n)
        for item, labels, n in con.execute(
            "SELECT item_id, step_labels, n_steps FROM items"
        ).fetchall()
    }
    runs: dict[str, list[dict]] = defaultdict(list)
    wrong = []
    for row in table.select(["item_id", "run", *fields]).to_pylist():
        n_steps = gold[row["item_id"]][1]
        for name in ("step_preds", "step_scores"):
            if name in fields and len(row[name]) != n_steps:
                wrong.append(f"{row['item_id']} ({name}: {len(row[name])} for {n_steps} steps)")
        runs[row["item_id"]].append(row)
    if wrong:
        shown = "; ".join(wrong[:5]) + (" ..." if len(wrong) > 5 else "")
        raise MathJudgeError(
            f"step predictions must give one entry per step; {len(wrong)} do not: {shown}"
        )
    rows = [_combined(item, by_run, gold[item], fields) for item, by_run in runs.items()]
    columns = ["item_id", *(c for f in fields for c in FIELD_COLUMNS.get(f, (f,)))]
    schema = pa.schema([("item_id", pa.string()), *((c, _OUT_TYPES[c]) for c in columns[1:])])
    return pa.Table.from_pylist(rows, schema=schema)


def _counts(s: str, level: str, fields: tuple[str, ...]) -> dict[str, str]:
    """Additive counts of one set and level: positives, negatives and, with binary
    predictions, the right positive and negative predictions."""
    where = f"set = '{s}'"
    if level == "solution":
        out = {
            "pos": f"count_if({where} AND solution_label)",
            "neg": f"count_if({where} AND NOT solution_label)",
        }
        if "solution_pred" in fields:
            out |= {
                "tp": f"count_if({where} AND solution_label AND solution_pred > 0)",
                "tn": f"count_if({where} AND NOT solution_label AND solution_pred < 0)",
            }
    else:
        out = {
            kind: f"coalesce(sum(len(list_filter(step_labels, lambda x: x = {g}))) "
            f"FILTER (WHERE {where}), 0)"
            for kind, g in (("pos", 1), ("neg", 0))
        }
        if "step_preds" in fields:
            out |= {
                kind: f"coalesce(sum({kind_col}) FILTER (WHERE {where}), 0)"
                for kind, kind_col in (("tp", "step_tp"), ("tn", "step_tn"))
            }
    return {f"{s}_{level}_{k}": sql for k, sql in out.items()}


# Pair credit of a (positive, negative) score pair: 1 when the positive scores higher, ½ on a tie.
_CREDIT = "CASE WHEN p.score > n.score THEN 1.0 WHEN p.score = n.score THEN 0.5 ELSE 0.0 END"


def _auc_units(levels: list[str]) -> str:
    """Scored units (solutions, evaluated steps) with their set, gold 1/0 and score."""
    parts = []
    if "solution" in levels:
        parts.append(
            """SELECT scope, subset, ci, set, 'solution' AS level,
                      solution_label::INT AS gold, solution_score AS score FROM scoped"""
        )
    if "step" in levels:
        parts.append(
            """SELECT * FROM (
                   SELECT scope, subset, ci, set, 'step' AS level,
                          unnest(step_labels) AS gold, unnest(step_scores) AS score FROM scoped
               ) WHERE gold IS NOT NULL"""
        )
    return " UNION ALL ".join(parts)


def stats_sql(fields: tuple[str, ...]) -> str:
    """Per question: the counts, and for AUC the pair credits toward every question's negatives
    (wide, one column per question holding negatives) with the question's own indicator."""
    counts = {
        name: sql
        for s in SETS
        for level in LEVELS
        if BINARY[level] in fields or SCORES[level] in fields
        for name, sql in _counts(s, level, fields).items()
    }
    base = ", ".join(f"{sql} AS {name}" for name, sql in counts.items())
    base_sql = f"SELECT scope, subset, ci, count(*) AS n_items, {base} FROM scoped GROUP BY ALL"
    auc_levels = [level for level in LEVELS if SCORES[level] in fields]
    if not auc_levels:
        return base_sql
    # A dynamic PIVOT reads its source on its own, so the cells query is self-contained.
    cells = f"""
        WITH units AS ({_auc_units(auc_levels)})
        SELECT p.scope, p.subset, p.ci,
               'auc_' || p.set || '_' || p.level || '_' || lpad(n.ci::VARCHAR, 6, '0') AS col,
               sum({_CREDIT}) AS value
        FROM units p JOIN units n
          ON p.scope = n.scope AND p.subset = n.subset AND p.set = n.set
         AND p.level = n.level AND p.gold = 1 AND n.gold = 0
        GROUP BY ALL
        UNION ALL
        SELECT DISTINCT scope, subset, ci, 'one_' || lpad(ci::VARCHAR, 6, '0'), 1.0
        FROM units WHERE gold = 0
        UNION ALL
        SELECT DISTINCT scope, subset, ci, 'one_none', 0.0 FROM scoped"""
    return f"""
        WITH base AS ({base_sql}),
        wide AS (PIVOT ({cells}) ON col USING sum(value) GROUP BY scope, subset, ci)
        SELECT base.*, coalesce(COLUMNS('^(auc|one)_'), 0)
        FROM base LEFT JOIN wide USING (scope, subset, ci)"""


def _auc(sums: dict[str, np.ndarray], s: str, level: str) -> np.ndarray:
    prefix = f"auc_{s}_{level}_"
    pos, neg = sums[f"{s}_{level}_pos"], sums[f"{s}_{level}_neg"]
    credit = np.zeros_like(pos)
    for name, column in sums.items():
        if name.startswith(prefix):
            credit = credit + column * sums["one_" + name.removeprefix(prefix)]
    return ratio(credit, pos * neg)


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Metric values from summed statistics; elementwise, for point estimates and replicates."""
    out: dict[str, np.ndarray] = {}
    for s in SETS:
        for level in LEVELS:
            key = f"{s}_{level}"
            if BINARY[level] in fields:
                pos, neg = sums[f"{key}_pos"], sums[f"{key}_neg"]
                tp, tn = sums[f"{key}_tp"], sums[f"{key}_tn"]
                # predicted positive: tp + (neg - tn); predicted negative: tn + (pos - tp)
                f1_pos = f1(tp, tp + neg - tn, pos)
                f1_neg = f1(tn, tn + pos - tp, neg)
                out[f"{key}_macro_f1"] = (f1_pos + f1_neg) / 2
            if SCORES[level] in fields:
                out[f"{key}_auc"] = _auc(sums, s, level)
    return out


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
    reducer=RunReducer(RUNS_AGG, combine_runs, field_columns=FIELD_COLUMNS),
)
