"""`proof-grader`: the ProofBench-style grader. The model sees the problem, the proof and, by
default, the reference solution and the marking scheme ("ref+ms"), is told to use the scheme
flexibly when the proof takes another valid route, and gives an integer grade 0-7.

`context` selects what reference material is shown (`ref+ms | ms | ref | none`, the paper's
context ablation). On OPC, whose labels are binary, a grade of at least `threshold` counts
as a correct proof. Ensembles: `--runs K`, then `evaluate --runs-agg median`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from mathjudge.base.errors import MathJudgeError
from mathjudge.judges.base import Ask, Fields, JudgeBase, or_none, user
from mathjudge.judges.parsing import score_parser
from mathjudge.prompts import load_prompt
from mathjudge.spec.cases import Case, Target

PROMPT = "judge_proof_grader"
CONTEXTS = ("ref+ms", "ms", "ref", "none")
MAX_SCORE = 7
DEFAULT_THRESHOLD = 6

_GUIDANCE = {
    "ref+ms": "Use the marking scheme as your guide to how points are earned and the reference "
    "solution to check the mathematics. The proof may follow a different route from the "
    "reference: if that route is valid, award the points its steps deserve by analogy with the "
    "scheme rather than by matching the reference word for word.",
    "ms": "Use the marking scheme as your guide to how points are earned. The proof may follow a "
    "different route from the one the scheme assumes: if that route is valid, award the points "
    "its steps deserve by analogy with the scheme.",
    "ref": "Use the reference solution to check the mathematics. The proof may follow a "
    "different route: if that route is valid, it deserves full credit.",
    "none": "No reference material is available: decide yourself what a complete proof needs and "
    "how much of it this proof achieves.",
}


class ProofGrader(JudgeBase):
    name: ClassVar[str] = "proof-grader"
    uses_model: ClassVar[bool] = True

    def __init__(self, context: str = "ref+ms", threshold: int = DEFAULT_THRESHOLD) -> None:
        if context not in CONTEXTS:
            raise MathJudgeError(f"--context must be one of {', '.join(CONTEXTS)}, not {context!r}")
        if not 0 <= threshold <= MAX_SCORE:
            raise MathJudgeError(f"--threshold must be between 0 and {MAX_SCORE}")
        self.context = context
        self.threshold = threshold

    @property
    def prompts(self) -> tuple[str, ...]:
        return (PROMPT,)

    def params(self) -> dict[str, Any]:
        return {"context": self.context, "threshold": self.threshold}

    def context_block(self, case: Case) -> str:
        sections = []
        if self.context in ("ref+ms", "ref"):
            sections.append(f"## Reference solution\n\n{or_none(case.reference_solution)}")
        if self.context in ("ref+ms", "ms"):
            sections.append(f"## Marking scheme\n\n{or_none(case.marking_scheme)}")
        return "\n\n".join(sections) or "You are given no reference solution or marking scheme."

    def applies(self, case: Case) -> bool:
        return True

    async def judge(self, case: Case, target: Target, ask: Ask | None) -> Fields:
        assert ask is not None
        text = load_prompt(PROMPT).fill(
            context=self.context_block(case),
            problem=case.problem,
            proof=case.solution,
            guidance=_GUIDANCE[self.context],
        )
        score = await ask(user(text), score_parser(MAX_SCORE), step="grade")
        if target.output == "verdict":
            return {"verdict": score >= self.threshold, "_score": score}
        return {"score": float(score)}
