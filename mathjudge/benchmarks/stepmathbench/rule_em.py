"""RuleEM: a deterministic, rule-based final-answer judge for StepMathBench.

In the spirit of the StepMathAgent paper's "RuleEM" baseline: the final answer is extracted
and compared with the reference answers by `answers.normalised`. Only Calculation items are
judged, as in the paper.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from mathjudge.answers.normalised import answers_match, extract_final_answer
from mathjudge.spec.benchmark import BaselineContext


def judge(rows: Iterable[Mapping]) -> list[dict]:
    """Judge the final answer of every Calculation row, in input order.

    RuleEM is defined only for Calculation items (the paper does not apply it to proofs or
    open-ended questions), so other rows produce no verdict.
    """
    verdicts = []
    for row in rows:
        if row.get("type") != "Calculation":
            continue
        predicted = extract_final_answer(row.get("model_output") or "")
        references = row.get("answers")  # may be None, a list or an array (from pandas)
        references = [] if references is None else list(references)
        correct = predicted is not None and answers_match(predicted, references)
        verdicts.append({"item_id": row["item_id"], "answer_correct": correct})
    return verdicts


def baseline(rows: Iterable[Mapping], _ctx: BaselineContext) -> list[dict]:
    """`judge` as a demo baseline (it needs no source files)."""
    return judge(rows)
