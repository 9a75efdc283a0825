"""`step-agent`: the StepMathAgent-style process judge for StepMathBench. A first call splits
the solution into steps; a second labels every step correct / incorrect / meaningless
(correct but of no use) and links each error to the earlier error it follows from. The score
is the paper's Eq. (1) over those labels (meaningless counted as wrong), so it is on the same
0-10 scale as `gold_score`; the labels are written as `step_labels` and the error chains as
details.

Optional modules add checks to the labelling call (flags): `difficulty` (weigh how hard the
problem is before being strict), `simplicity` (flag padding and detours), `completeness`
(every part of the question answered), `format` (the answer in the form the problem asks).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.stepmathbench.eq1 import eq1_score
from mathjudge.judges.base import Ask, Fields, JudgeBase, or_none, user
from mathjudge.llm.answers import AnswerError, final_field
from mathjudge.prompts import load_prompt
from mathjudge.spec.cases import Case, Target

SEGMENT_PROMPT = "judge_step_segment"
LABEL_PROMPT = "judge_step_label"
LABELS = {"correct": "correct", "incorrect": "incorrect", "meaningless": "correct_but_meaningless"}
MODULES: dict[str, str] = {
    "difficulty": "Before labelling, judge how hard the problem is. On a hard problem, do not "
    "call a step incorrect for leaving out a routine detail; on an easy one, expect every "
    "step to be explicit.",
    "simplicity": "Watch for padding: steps that restate what is known, try an idea and drop "
    "it, or repeat a computation are meaningless even when they are right.",
    "completeness": "Check that the solution answers every part of the question. If a part is "
    "never answered, the final step is incorrect.",
    "format": "Check that the final answer has the form the problem asks for (exact value, "
    "units, interval, simplified expression). If it does not, the final step is incorrect.",
}
_STEP_LINE = re.compile(r"^\s*\[(\d+)\]\s*(.*\S)\s*$")
_LABEL_ITEM = re.compile(r"(\d+)\s*:\s*([a-z]+)\s*(?:<\s*(\d+))?")


def parse_steps(answer: str) -> list[str]:
    """The `[k] text` lines, numbered 1..n with no gaps, and `STEPS: n` agreeing."""
    declared = final_field(answer, "STEPS")
    if not declared.isdigit():
        raise AnswerError(f"'STEPS:' must be followed by a number, not {declared!r}")
    steps: list[str] = []
    for line in answer.splitlines():
        match = _STEP_LINE.match(line)
        if match:
            if int(match.group(1)) != len(steps) + 1:
                raise AnswerError(f"step [{match.group(1)}] is out of order")
            steps.append(match.group(2))
    if not steps:
        raise AnswerError("no '[1] ...' step lines")
    if len(steps) != int(declared):
        raise AnswerError(f"'STEPS: {declared}' but {len(steps)} step lines")
    return steps


def label_parser(n: int) -> Any:
    """Reads `LABELS: 1:correct, 2:incorrect<1, ...` for exactly n steps into (labels, links)."""

    def parse(answer: str) -> tuple[list[str], dict[int, int]]:
        items = [part.strip() for part in final_field(answer, "LABELS").split(",")]
        labels: list[str] = []
        links: dict[int, int] = {}
        for part in items:
            match = _LABEL_ITEM.fullmatch(part.lower())
            if match is None:
                raise AnswerError(f"cannot read the label {part!r} (expected 'k:label')")
            index, label, parent = int(match.group(1)), match.group(2), match.group(3)
            if index != len(labels) + 1:
                raise AnswerError(f"label for step {index} is out of order")
            if label not in LABELS:
                raise AnswerError(f"unknown label {label!r}; use {', '.join(LABELS)}")
            if parent is not None:
                if label != "incorrect" or not 1 <= int(parent) < index:
                    raise AnswerError(f"'{part}': only an incorrect step may follow an earlier one")
                if labels[int(parent) - 1] != "incorrect":
                    raise AnswerError(f"'{part}': step {parent} is not incorrect")
                links[index] = int(parent)
            labels.append(label)
        if len(labels) != n:
            raise AnswerError(f"{len(labels)} labels for {n} steps")
        return labels, links

    return parse


def error_chains(labels: list[str], links: dict[int, int]) -> list[list[int]]:
    """Chains of incorrect steps (1-based), each from the error where it began; a step that
    follows from no earlier error starts a chain of its own."""
    children: dict[int, list[int]] = {}
    for child, parent in links.items():
        children.setdefault(parent, []).append(child)
    chains = []
    for step, label in enumerate(labels, start=1):
        if label == "incorrect" and step not in links:
            chain, frontier = [], [step]
            while frontier:
                current = frontier.pop(0)
                chain.append(current)
                frontier += children.get(current, [])
            chains.append(sorted(chain))
    return chains


class StepAgent(JudgeBase):
    name: ClassVar[str] = "step-agent"
    uses_model: ClassVar[bool] = True

    def __init__(self, modules: tuple[str, ...] = ()) -> None:
        unknown = sorted(set(modules) - set(MODULES))
        if unknown:
            raise MathJudgeError(f"unknown step-agent module(s) {unknown}; known: {list(MODULES)}")
        self.modules = tuple(m for m in MODULES if m in modules)  # a fixed order

    @property
    def prompts(self) -> tuple[str, ...]:
        return (SEGMENT_PROMPT, LABEL_PROMPT)

    def params(self) -> dict[str, Any]:
        return {"modules": list(self.modules)}

    def applies(self, case: Case) -> bool:
        return True

    async def judge(self, case: Case, target: Target, ask: Ask | None) -> Fields:
        assert ask is not None
        segment = load_prompt(SEGMENT_PROMPT).fill(problem=case.problem, solution=case.solution)
        steps = await ask(user(segment), parse_steps, step="segmentation")
        extra = "".join(f"\n{MODULES[m]}\n" for m in self.modules)
        reference = f"## Reference answer\n\n{or_none(case.reference_answer)}"
        text = load_prompt(LABEL_PROMPT).fill(
            problem_type=case.problem_type or "problem",
            problem=case.problem,
            reference=reference,
            steps="\n".join(f"[{i}] {s}" for i, s in enumerate(steps, start=1)),
            modules=extra,
        )
        labels, links = await ask(user(text), label_parser(len(steps)), step="labelling")
        names = [LABELS[label] for label in labels]
        return {
            "score": float(eq1_score(case.problem_type or "", names)),
            "step_labels": names,
            "_steps": len(steps),
            "_error_chains": error_chains(labels, links),
        }
