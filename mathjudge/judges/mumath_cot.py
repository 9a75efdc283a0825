"""`mumath-cot`: the μ-MATH chain-of-thought judge. A first call compares the solution with
the golden answer step by step in free text; a second, separate call reads that judgment and
maps it to yes / no / inconclusive (written as verdict true / false / null)."""

from __future__ import annotations

from typing import Any, ClassVar

from mathjudge.judges.base import Ask, Fields, JudgeBase, JudgeFailure, user
from mathjudge.judges.parsing import three_way
from mathjudge.llm.answers import AnswerError
from mathjudge.prompts import load_prompt
from mathjudge.spec.cases import Case, Target

JUDGE_PROMPT = "judge_mumath_cot"
EXTRACT_PROMPT = "judge_mumath_extract"


def _free_text(answer: str) -> str:
    if not answer.strip():
        raise AnswerError("the answer is empty")
    return answer


class MumathCot(JudgeBase):
    name: ClassVar[str] = "mumath-cot"
    uses_model: ClassVar[bool] = True

    @property
    def prompts(self) -> tuple[str, ...]:
        return (JUDGE_PROMPT, EXTRACT_PROMPT)

    def params(self) -> dict[str, Any]:
        return {}

    def applies(self, case: Case) -> bool:
        return True

    async def judge(self, case: Case, target: Target, ask: Ask | None) -> Fields:
        assert ask is not None
        if not case.reference_answer:
            raise JudgeFailure("the item has no golden answer")
        text = load_prompt(JUDGE_PROMPT).fill(
            problem=case.problem, golden_answer=case.reference_answer, solution=case.solution
        )
        judgment = await ask(user(text), _free_text, step="judgment")
        extract = load_prompt(EXTRACT_PROMPT).fill(judgment=judgment)
        verdict = await ask(user(extract), three_way, step="extraction")
        return {"verdict": verdict}
