"""`pf-bv`: pseudo-formalize, then verify piece by piece. A first call rewrites the proof into
self-contained modules (premises, conclusion, the earlier modules it uses, its own proof);
each module is then verified in a separate call that may take only its premises and the
conclusions of the modules it uses as given; a calibration call reads the module verdicts and
errors and decides the benchmark's output (a verdict on OPC).

With `--runs K` the runs are combined pessimistically, as a union of found errors: a proof is
correct only if no run finds it incorrect.

On Hard2Verify, whose responses come split into steps, the first call also says which steps
each module rewrites (every step in at least one module); a step is labelled incorrect (0) when
a module covering it is found invalid, and no calibration call is made. There the scorer
unites the runs itself (for every k), so each run is written as a `run` row.

Paper-level error finding (ArxivMathGradingBench) needs the papers' text, which the built
dataset does not carry, so it is not offered here.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from mathjudge.judges.base import Ask, Fields, JudgeBase, JudgeFailure, user
from mathjudge.judges.direct import numbered
from mathjudge.judges.parsing import verdict_parser
from mathjudge.llm.answers import AnswerError, final_field
from mathjudge.prompts import load_prompt
from mathjudge.spec.cases import Case, Target

MODULES_PROMPT = "judge_pfbv_modules"
VERIFY_PROMPT = "judge_pfbv_verify"
CALIBRATE_PROMPT = "judge_pfbv_calibrate"
STEP_MODULES_PROMPT = "judge_pfbv_modules_steps"
_STEPS_LINE = re.compile(r"(MODULE\s+\d+[ \t]*\n)[ \t]*Steps:(.*?)\n")
_STEP_RANGE = re.compile(r"(\d+)(?:\s*[-–]\s*(\d+))?")
_BLOCK = re.compile(
    r"MODULE\s+(\d+)\s*\n\s*Premises:(.*?)\n\s*Conclusion:(.*?)\n\s*Uses:(.*?)\n\s*Proof:(.*?)"
    r"\n\s*END MODULE",
    re.S,
)


@dataclass(frozen=True)
class Module:
    number: int
    premises: str
    conclusion: str
    uses: tuple[int, ...]
    proof: str


def parse_modules(answer: str) -> list[Module]:
    """The MODULE blocks, numbered 1..n, each using only earlier modules; `MODULES: n` agrees."""
    declared = final_field(answer, "MODULES")
    if not declared.isdigit():
        raise AnswerError(f"'MODULES:' must be followed by a number, not {declared!r}")
    modules: list[Module] = []
    for match in _BLOCK.finditer(answer):
        number = int(match.group(1))
        if number != len(modules) + 1:
            raise AnswerError(f"MODULE {number} is out of order")
        uses_text = match.group(4).strip().lower().rstrip(".")
        uses: tuple[int, ...] = ()
        if uses_text not in ("none", ""):
            parts = [u.strip() for u in uses_text.split(",")]
            if not all(p.isdigit() and 1 <= int(p) < number for p in parts):
                raise AnswerError(f"MODULE {number}: 'Uses:' must list earlier modules or none")
            uses = tuple(int(p) for p in parts)
        fields = [match.group(i).strip() for i in (2, 3, 5)]
        if not all(fields):
            raise AnswerError(f"MODULE {number}: premises, conclusion and proof must be given")
        modules.append(Module(number, fields[0], fields[1], uses, fields[2]))
    if not modules:
        raise AnswerError("no 'MODULE 1 ... END MODULE' blocks")
    if len(modules) != int(declared):
        raise AnswerError(f"'MODULES: {declared}' but {len(modules)} module blocks")
    return modules


def step_modules_parser(n_steps: int) -> Callable[[str], list[tuple[Module, tuple[int, ...]]]]:
    """Modules as `parse_modules` reads them, each with the steps it rewrites (`Steps: 1, 3-4`
    right after its MODULE line); every step 1..n_steps must be covered."""

    def parse(answer: str) -> list[tuple[Module, tuple[int, ...]]]:
        listed: list[str] = []

        def drop(match: re.Match[str]) -> str:
            listed.append(match.group(2))
            return match.group(1)

        modules = parse_modules(_STEPS_LINE.sub(drop, answer))
        if len(listed) != len(modules):
            raise AnswerError("every module needs a 'Steps:' line right after its MODULE line")
        covered = []
        for module, text in zip(modules, listed, strict=True):
            steps: list[int] = []
            for part in text.strip().rstrip(".").split(","):
                match = _STEP_RANGE.fullmatch(part.strip())
                first = int(match.group(1)) if match else 0
                last = int(match.group(2) or first) if match else 0
                if not 1 <= first <= last <= n_steps:
                    raise AnswerError(
                        f"MODULE {module.number}: 'Steps:' must list step numbers from 1 to "
                        f"{n_steps}, not {text.strip()!r}"
                    )
                steps.extend(range(first, last + 1))
            covered.append(tuple(sorted(set(steps))))
        missing = sorted(set(range(1, n_steps + 1)) - {s for c in covered for s in c})
        if missing:
            raise AnswerError(f"step(s) {', '.join(map(str, missing))} belong to no module")
        return list(zip(modules, covered, strict=True))

    return parse


def _module_check(answer: str) -> tuple[bool, str]:
    """(valid, the checker's explanation)."""
    valid = verdict_parser("valid", "invalid")(answer)
    explanation = answer.strip().rsplit("\n", 1)[0].strip() if "\n" in answer.strip() else ""
    return valid, explanation


class PfBv(JudgeBase):
    name: ClassVar[str] = "pf-bv"
    uses_model: ClassVar[bool] = True
    combines_runs: ClassVar[bool] = True

    @property
    def prompts(self) -> tuple[str, ...]:
        return (MODULES_PROMPT, VERIFY_PROMPT, CALIBRATE_PROMPT, STEP_MODULES_PROMPT)

    def params(self) -> dict[str, Any]:
        return {"runs_combined": "pessimistic union (incorrect if any run says so)"}

    def applies(self, case: Case) -> bool:
        return True

    async def judge(self, case: Case, target: Target, ask: Ask | None) -> Fields:
        assert ask is not None
        if target.output == "step_labels":
            return await self._label_steps(case, ask)
        text = load_prompt(MODULES_PROMPT).fill(problem=case.problem, proof=case.solution)
        modules = await ask(user(text), parse_modules, step="modules")
        checks = await asyncio.gather(*(self._verify(case, m, modules, ask) for m in modules))
        report = "\n\n".join(
            f"Module {m.number} (concludes: {m.conclusion}): "
            + ("valid" if valid else f"INVALID. {why or 'No explanation given.'}")
            for m, (valid, why) in zip(modules, checks, strict=True)
        )
        calibrate = load_prompt(CALIBRATE_PROMPT).fill(problem=case.problem, checks=report)
        verdict = await ask(
            user(calibrate), verdict_parser("correct", "incorrect"), step="calibration"
        )
        invalid = [m.number for m, (valid, _) in zip(modules, checks, strict=True) if not valid]
        return {"verdict": verdict, "_modules": len(modules), "_invalid_modules": invalid}

    async def _label_steps(self, case: Case, ask: Ask) -> Fields:
        """One 0/1 per step: 0 where a module rewriting that step is invalid."""
        text = load_prompt(STEP_MODULES_PROMPT).fill(
            problem=case.problem, steps=numbered(case.steps)
        )
        found = await ask(user(text), step_modules_parser(len(case.steps)), step="modules")
        modules = [m for m, _ in found]
        checks = await asyncio.gather(*(self._verify(case, m, modules, ask) for m in modules))
        flagged = {
            s
            for (_, steps), (valid, _) in zip(found, checks, strict=True)
            if not valid
            for s in steps
        }
        labels = [0 if i in flagged else 1 for i in range(1, len(case.steps) + 1)]
        invalid = [m.number for m, (valid, _) in zip(modules, checks, strict=True) if not valid]
        return {"step_labels": labels, "_modules": len(modules), "_invalid_modules": invalid}

    async def _verify(
        self, case: Case, module: Module, modules: list[Module], ask: Ask
    ) -> tuple[bool, str]:
        facts = "\n".join(f"- {modules[u - 1].conclusion}" for u in module.uses) or "(none)"
        text = load_prompt(VERIFY_PROMPT).fill(
            problem=case.problem,
            premises=module.premises,
            facts=facts,
            conclusion=module.conclusion,
            module_proof=module.proof,
        )
        return await ask(user(text), _module_check, step=f"module {module.number}")

    def combine_runs(self, runs: list[Fields | None]) -> Fields:
        """Pessimistic union: incorrect if any run says so; correct only if every run does."""
        verdicts = [r["verdict"] for r in runs if r is not None]
        if False in verdicts:
            return {"verdict": False, "_run_verdicts": [r and r["verdict"] for r in runs]}
        if len(verdicts) < len(runs):
            raise JudgeFailure("no run found an error, but some runs gave no verdict")
        return {"verdict": True, "_run_verdicts": verdicts}
