"""Deterministic baseline judges that `mathjudge demo` runs wherever their benchmark is built."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from mathjudge.judges import constant, rule_em

JudgeFn = Callable[[Iterable[Mapping[str, Any]]], list[dict[str, Any]]]


@dataclass(frozen=True)
class Baseline:
    key: str  # file-name slug for its predictions
    judge_name: str
    benchmark: str
    judge: JudgeFn
    partial: bool  # answers only part of the benchmark by design
    description: str


BASELINES: tuple[Baseline, ...] = (
    Baseline(
        key="rule-em",
        judge_name="RuleEM (final-answer match)",
        benchmark="stepmathbench",
        judge=rule_em.judge,
        partial=True,
        description="Extracts the final answer and checks it against the reference answers with "
        "math-verify; Calculation problems only, as in the StepMathAgent paper.",
    ),
    Baseline(
        key="constant",
        judge_name="Constant (full marks)",
        benchmark="stepmathbench",
        judge=constant.judge,
        partial=False,
        description="Gives every solution 10/10 and a correct final answer.",
    ),
)
