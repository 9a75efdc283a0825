"""The reference judges by name, built with their options (for the CLI and the demo)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathjudge.base.errors import MathJudgeError
from mathjudge.judges.answer_equivalence import AnswerEquivalence
from mathjudge.judges.base import Judge
from mathjudge.judges.cbu import Cbu
from mathjudge.judges.direct import DirectJudge
from mathjudge.judges.mumath_cot import MumathCot
from mathjudge.judges.pf_bv import PfBv
from mathjudge.judges.proof_grader import ProofGrader
from mathjudge.judges.step_agent import StepAgent

JUDGES: dict[str, type[Judge]] = {
    DirectJudge.name: DirectJudge,
    ProofGrader.name: ProofGrader,
    MumathCot.name: MumathCot,
    AnswerEquivalence.name: AnswerEquivalence,
    StepAgent.name: StepAgent,
    PfBv.name: PfBv,
    Cbu.name: Cbu,
}
# Which option belongs to which judge; any other option given to a judge is a usage error.
OPTIONS: dict[str, tuple[str, ...]] = {
    ProofGrader.name: ("context", "threshold"),
    StepAgent.name: ("modules",),
    Cbu.name: ("rollouts",),
}

_FLAGS = {"modules": "--module"}


def make(name: str, options: Mapping[str, Any] | None = None) -> Judge:
    """The judge `name` with `options` (only those it takes; None values are ignored)."""
    if name not in JUDGES:
        raise MathJudgeError(f"unknown judge {name!r}; known: {', '.join(sorted(JUDGES))}")
    given = {k: v for k, v in (options or {}).items() if v not in (None, ())}
    foreign = sorted(set(given) - set(OPTIONS.get(name, ())))
    if foreign:
        flags = ", ".join(_FLAGS.get(k, f"--{k}") for k in foreign)
        raise MathJudgeError(f"judge {name!r} takes no {flags}")
    return JUDGES[name](**given)
