"""`direct`: the plain LLM-as-judge every paper compares against. One call per item: the
problem, the solution and whatever reference the benchmark has; a score on the benchmark's
scale or a correct / incorrect verdict.

On ExpertMath it rates each candidate 1-10 without any reference (the setting is problems whose
answer is unknown; only the Consequence-Based Utility judge uses the variants' answers); with
`--runs K` the K ratings are `run` rows, averaged by `evaluate` and `compare` (runs-agg mean).
On Hard2Verify it labels every step of the dataset's own segmentation 0/1 in one call."""

from __future__ import annotations

from typing import Any, ClassVar

from mathjudge.judges.base import Ask, Fields, JudgeBase, user
from mathjudge.judges.parsing import score_parser, step_labels_parser, verdict_parser
from mathjudge.prompts import load_prompt
from mathjudge.spec.cases import Case, Target

SCORE_PROMPT = "judge_direct_score"
VERDICT_PROMPT = "judge_direct_verdict"
RATING_PROMPT = "judge_direct_rating"
STEPS_PROMPT = "judge_direct_steps"


def reference_block(case: Case) -> str:
    """The benchmark's reference material as prompt sections; empty when there is none."""
    parts = []
    if case.reference_answer:
        parts.append(f"## Reference answer\n\n{case.reference_answer}")
    if case.reference_solution:
        parts.append(f"## Reference solution\n\n{case.reference_solution}")
    if not parts:
        return "No reference is available: judge the solution on its own merits."
    return "The reference below is known to be correct.\n\n" + "\n\n".join(parts)


def numbered(steps: tuple[str, ...]) -> str:
    """The benchmark's steps as `[1] ...` paragraphs, the numbers a judge's labels refer to."""
    return "\n\n".join(f"[{i}] {step}" for i, step in enumerate(steps, start=1))


class DirectJudge(JudgeBase):
    name: ClassVar[str] = "direct"
    uses_model: ClassVar[bool] = True

    @property
    def prompts(self) -> tuple[str, ...]:
        return (SCORE_PROMPT, VERDICT_PROMPT, RATING_PROMPT, STEPS_PROMPT)

    def params(self) -> dict[str, Any]:
        return {}

    def applies(self, case: Case) -> bool:
        return True

    async def judge(self, case: Case, target: Target, ask: Ask | None) -> Fields:
        assert ask is not None
        if target.output == "rating":
            text = load_prompt(RATING_PROMPT).fill(
                problem=case.problem, solution=case.solution, max_score=str(target.max_score)
            )
            rating = await ask(user(text), score_parser(target.max_score, low=1), step="rating")
            return {"score": float(rating)}
        if target.output == "step_labels":
            text = load_prompt(STEPS_PROMPT).fill(
                problem=case.problem, steps=numbered(case.steps), n_steps=str(len(case.steps))
            )
            labels = await ask(user(text), step_labels_parser(len(case.steps)), step="labels")
            return {"step_labels": labels}
        values = {"problem": case.problem, "solution": case.solution}
        values["reference"] = reference_block(case)
        if target.output == "verdict":
            text = load_prompt(VERDICT_PROMPT).fill(**values)
            verdict = await ask(user(text), verdict_parser("correct", "incorrect"), step="verdict")
            return {"verdict": verdict}
        text = load_prompt(SCORE_PROMPT).fill(**values, max_score=str(target.max_score))
        score = await ask(user(text), score_parser(target.max_score), step="score")
        return {"score": float(score)}
