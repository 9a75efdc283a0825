"""`answer-equivalence`: no model. Extract the solution's final answer and test it against
the golden answer with math-verify (parse both as LaTeX, then symbolic equivalence); when the
golden answer is a value, an extracted equation `y = ...` is reduced to its last side.

Unlike RuleEM, which adds StepMathBench-specific normalisation, this is math-verify as it comes:
the plain answer-equivalence baseline. It applies to items with a final answer to compare:
μ-MATH (verdict) and StepMathBench Calculation problems (answer_correct). A solution whose
final answer cannot be found is a failure (inconclusive on μ-MATH), not a wrong answer.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mathjudge.answers.alarm import TIMEOUT_S
from mathjudge.answers.plain import equivalent, final_answer
from mathjudge.judges.base import Ask, Fields, JudgeBase, JudgeFailure
from mathjudge.spec.cases import Case, Target


class AnswerEquivalence(JudgeBase):
    name: ClassVar[str] = "answer-equivalence"
    uses_model: ClassVar[bool] = False

    @property
    def prompts(self) -> tuple[str, ...]:
        return ()

    def params(self) -> dict[str, Any]:
        return {"checker": "math-verify", "timeout_s": TIMEOUT_S}

    def applies(self, case: Case) -> bool:
        return case.problem_type in (None, "Calculation")

    async def judge(self, case: Case, target: Target, ask: Ask | None) -> Fields:
        if not case.reference_answers:
            raise JudgeFailure("the item has no golden answer")
        predicted = final_answer(case.solution)
        if predicted is None:
            raise JudgeFailure("no final answer found in the solution")
        correct = any(equivalent(predicted, r) for r in case.reference_answers)
        if target.output == "verdict":
            return {"verdict": correct, "_extracted": predicted}
        return {"answer_correct": correct, "_extracted": predicted}
