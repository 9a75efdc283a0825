"""`cbu`: Consequence-Based Utility on ExpertMath. A candidate solution is judged by what it
is good for: a solver model is shown the problem and the candidate and asked, T times each
(`--rollouts T`), to answer related questions whose compact answers are known (the original's
neighbourhood variants; which ones, and the fallback to the candidate's own question, are in
`judges.item_rows`). The score is the share of correct answers over questions x rollouts.

Every rollout is its own cached call: the request's run salt is `<run>/<rollout>`, so T
rollouts are T cache entries and run k of `--runs` replays run k. An answer is checked against
the question's answer by math-verify first; only when math-verify cannot decide (see
`cbu_answers`) does a model compare the two, once per distinct (question, answer) in a process
(those checks go through the same client and cache, with a fixed salt). A rollout whose answer
stays unparseable after the client's repair attempts counts as wrong, and is counted in the
details, in meta.json (`judge_report`) and in the run's summary; a provider error that the
retries do not fix fails the candidate instead (no score rests on calls never answered).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from mathjudge.answers.alarm import TIMEOUT_S
from mathjudge.answers.decide import decide
from mathjudge.base.errors import MathJudgeError
from mathjudge.judges.base import Ask, Fields, JudgeBase, JudgeFailure, user
from mathjudge.judges.parsing import verdict_parser
from mathjudge.llm.answers import final_field
from mathjudge.llm.request import LlmRequest
from mathjudge.prompts import load_prompt
from mathjudge.spec.cases import Case, Question, Target

SOLVE_PROMPT = "judge_cbu_solve"
EQUIVALENCE_PROMPT = "judge_cbu_equivalence"
DEFAULT_ROLLOUTS = 4
# How each rollout's answer was judged; summed per candidate in the details.
COUNTS = ("answers", "correct", "unparseable", "by_math_verify", "by_llm", "llm_unparseable")

T = TypeVar("T")


class Cbu(JudgeBase):
    name: ClassVar[str] = "cbu"
    uses_model: ClassVar[bool] = True

    def __init__(self, rollouts: int = DEFAULT_ROLLOUTS) -> None:
        if rollouts < 1:
            raise MathJudgeError("--rollouts must be at least 1")
        self.rollouts = rollouts
        self._loop: asyncio.AbstractEventLoop | None = None
        self._checks: dict[tuple[str, str, str], asyncio.Future[bool | None]] = {}

    @property
    def prompts(self) -> tuple[str, ...]:
        return (SOLVE_PROMPT, EQUIVALENCE_PROMPT)

    def params(self) -> dict[str, Any]:
        return {
            "rollouts": self.rollouts,
            "questions": "the original's variants other than the candidate's own problem; "
            "else its own question",
            "equivalence": f"math-verify (timeout {TIMEOUT_S}s), a model only when undecided",
            "unparseable_answer": "counted wrong after the repair attempts",
        }

    def applies(self, case: Case) -> bool:
        return bool(case.consequences)

    async def judge(self, case: Case, target: Target, ask: Ask | None) -> Fields:
        assert ask is not None
        rollouts = [(q, t) for q in case.consequences for t in range(self.rollouts)]
        outcomes = await asyncio.gather(*(self._rollout(case, q, t, ask) for q, t in rollouts))
        counts = dict.fromkeys(COUNTS, 0)
        for how, correct in outcomes:
            counts["answers"] += 1
            counts["correct"] += correct
            counts[how] += 1
            if how == "llm_unparseable":
                counts["by_llm"] += 1
        return {
            "score": counts["correct"] / counts["answers"],
            "_questions": [q.problem_id for q in case.consequences],
            **{f"_{k}": v for k, v in counts.items()},
        }

    async def _rollout(self, case: Case, question: Question, t: int, ask: Ask) -> tuple[str, bool]:
        """(how the answer was judged, whether it is right) for rollout t of one question."""
        text = load_prompt(SOLVE_PROMPT).fill(
            problem=case.problem, solution=case.solution, question=question.statement
        )
        request = LlmRequest(case.item_id, user(text), f"{ask.run}/{t}")
        answer = await _parsed_or_none(ask, request, _final_answer, f"{question.problem_id}#{t}")
        if answer is None:
            return "unparseable", False
        decided = decide(answer, question.answer)
        if decided is not None:
            return "by_math_verify", decided
        same = await self._model_check(case, question, answer, ask)
        return ("by_llm", same) if same is not None else ("llm_unparseable", False)

    async def _model_check(
        self, case: Case, question: Question, answer: str, ask: Ask
    ) -> bool | None:
        """The model's equivalence verdict, asked once per (question, answer) in this loop."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._loop, self._checks = loop, {}
        key = (question.problem_id, question.answer, " ".join(answer.split()))
        if key not in self._checks:
            text = load_prompt(EQUIVALENCE_PROMPT).fill(
                question=question.statement, reference=question.answer, proposed=answer
            )
            request = LlmRequest(case.item_id, user(text), 0)
            parse = verdict_parser("same", "different")
            step = f"{question.problem_id} equivalence"
            self._checks[key] = asyncio.ensure_future(_parsed_or_none(ask, request, parse, step))
        return await asyncio.shield(self._checks[key])

    def report(self, details: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        """Totals over the judged candidates, for meta.json and the end-of-run summary."""
        return {k: sum(int(d.get(k, 0)) for d in details) for k in COUNTS}


def _final_answer(answer: str) -> str:
    return final_field(answer, "ANSWER")


async def _parsed_or_none(
    ask: Ask, request: LlmRequest, parse: Callable[[str], T], step: str
) -> T | None:
    """The parsed answer; None when every one of the `ask.attempts` answers was unparseable;
    `JudgeFailure` when the provider failed (the client returns early then, with fewer answers
    than attempts)."""
    reply = await ask.client.complete_parsed(request, parse, attempts=ask.attempts)
    if reply.ok:
        return reply.value
    if len(reply.answers) == ask.attempts:
        return None
    raise JudgeFailure(f"{step}: {reply.failure}")
