"""One view of a benchmark item for judges: what was asked, what is graded, and what reference
material the benchmark supplies. Judges read this instead of each dataset's own column names,
so one judge serves every benchmark whose items carry what it needs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from mathjudge.errors import MathJudgeError

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


TARGETS: dict[str, Target] = {
    "stepmathbench": Target("score", max_score=10),
    "proofbench": Target("score", max_score=7),
    "proofbench_bon": Target("score", max_score=7),
    "mumath": Target("verdict", inconclusive_allowed=True),
    "opc": Target("verdict", inconclusive_allowed=True),
    "expertmath": Target("rating", max_score=10),
    "hard2verify": Target("step_labels"),
}


def target(benchmark: str) -> Target:
    try:
        return TARGETS[benchmark]
    except KeyError:
        known = ", ".join(sorted(TARGETS))
        raise MathJudgeError(
            f"no reference judge writes {benchmark!r} yet; known: {known}"
        ) from None


def case(benchmark: str, row: Mapping[str, Any]) -> Case:
    """The judge's view of one dataset row of `benchmark`."""
    if benchmark == "stepmathbench":
        answers = [str(a) for a in (row.get("answers") or []) if a]
        constraint = row.get("constraint")
        problem = str(row["question"]) + (f"\n\n{constraint}" if constraint else "")
        return Case(
            item_id=row["item_id"],
            problem=problem,
            solution=row["model_output"],
            reference_answers=tuple(answers),
            problem_type=row.get("type"),
            steps=tuple(row.get("steps") or ()),
        )
    if benchmark in ("proofbench", "proofbench_bon"):
        return Case(
            item_id=row["item_id"],
            problem=row["problem"],
            solution=row["proof"],
            reference_solution=row.get("reference_solution") or None,
            marking_scheme=row.get("marking_scheme") or None,
        )
    if benchmark == "mumath":
        return Case(
            item_id=row["item_id"],
            problem=row["problem_statement"],
            solution=row["model_output"],
            reference_answers=(row["golden_answer"],) if row.get("golden_answer") else (),
        )
    if benchmark == "opc":
        solutions = [s for s in (row.get("reference_solutions") or []) if s]
        return Case(
            item_id=row["item_id"],
            problem=row["problem"],
            solution=row["proof"],
            reference_solution="\n\n---\n\n".join(solutions) or None,
            marking_scheme=_opc_scheme(row.get("grading_scheme") or []) or None,
        )
    if benchmark == "expertmath":
        if "statement" not in row:
            raise MathJudgeError(
                f"expertmath item {row['item_id']}: the candidate row lacks its problem; read "
                "the rows with judges.item_rows.judge_rows, which joins the problems"
            )
        return Case(
            item_id=row["item_id"],
            problem=row["statement"],
            solution=row["solution"],
            consequences=tuple(Question(**q) for q in row["consequences"]),
        )
    if benchmark == "hard2verify":
        steps = tuple(row["steps"])
        return Case(
            item_id=row["item_id"],
            problem=row["question"],
            solution="\n\n".join(steps),
            steps=steps,
        )
    target(benchmark)  # raises with the known names
    raise AssertionError(benchmark)


def _opc_scheme(parts: list[Mapping[str, Any]]) -> str:
    """OPC's structured grading scheme as text, one part per line."""
    lines = []
    for part in parts:
        title, points = part.get("title") or "Part", part.get("points")
        lines.append(f"- {title} ({points} pt): {part.get('description') or ''}".rstrip())
    return "\n".join(lines)
