"""One view of a benchmark item for judges: what was asked, what is graded, and what reference
material the benchmark supplies. Judges read this instead of each dataset's own column names,
so one judge serves every benchmark whose items carry what it needs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# What a benchmark's prediction is, which decides how a judge's answer is written: a score
# against a reference scale, a verdict, a reference-free 1..max rating (written as `score`), or
# one 0/1 label per step of the benchmark's own segmentation.
Output = Literal["score", "verdict", "rating", "step_labels"]


@dataclass(frozen=True)
class Question:
    """A question with a compact, checkable answer (an ExpertMath neighbourhood question)."""

    problem_id: str
    statement: str
    answer: str


@dataclass(frozen=True)
class Case:
    """An item as a judge sees it. Missing reference material is None, never ''."""

    item_id: str
    problem: str
    solution: str
    reference_answers: tuple[str, ...] = ()  # any of them is right
    reference_solution: str | None = None
    marking_scheme: str | None = None
    problem_type: str | None = None  # StepMathBench: Calculation / Proof / Open-ended
    steps: tuple[str, ...] = ()  # the benchmark's own segmentation, when it has one
    # ExpertMath: the questions a candidate's ideas should help answer (see judges.item_rows)
    consequences: tuple[Question, ...] = ()

    @property
    def reference_answer(self) -> str | None:
        """The reference answers as one text for a prompt (alternatives joined by 'or')."""
        return " or ".join(self.reference_answers) or None


@dataclass(frozen=True)
class Target:
    """How a benchmark wants a judgment written: a score on [0, max_score] or a verdict."""

    output: Output
    max_score: int = 0
    inconclusive_allowed: bool = False  # a failed item may be written as verdict null
