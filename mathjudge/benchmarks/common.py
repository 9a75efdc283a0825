"""Declarations several benchmarks share (a module, not a benchmark folder)."""

from __future__ import annotations

from mathjudge.spec.benchmark import Baseline

# Final-answer checking with math-verify, where items have a final answer to compare.
ANSWER_EQUIVALENCE = Baseline(
    key="answer-equivalence",
    judge_name="Answer equivalence (math-verify)",
    judge="answer-equivalence",
    partial=True,
    description="Extracts the final answer and tests it against the golden answer with "
    "math-verify as it comes (no benchmark-specific normalisation); items with a "
    "final answer only (StepMathBench Calculation problems, all of μ-MATH).",
    kind="rule",
)
