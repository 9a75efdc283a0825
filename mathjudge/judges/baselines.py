"""Deterministic baseline judges that `mathjudge demo` runs wherever their benchmark is built."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.judges import constant, opc_corpus, rule_em
from mathjudge.judges.answer_equivalence import AnswerEquivalence
from mathjudge.judges.runner import run_judge

Rows = Iterable[Mapping[str, Any]]
# (dataset rows, source mirror folder or None) -> predictions
JudgeFn = Callable[[Rows, Path | None], list[dict[str, Any]]]


def _rows_only(judge: Callable[[Rows], list[dict[str, Any]]]) -> JudgeFn:
    return lambda rows, _source_dir: judge(rows)


def _answer_equivalence(benchmark: str) -> JudgeFn:
    """The rule-based judge through the judge runner (no model; failures become inconclusive
    verdicts or missing rows, as in `mathjudge judge run`)."""
    return lambda rows, _source_dir: (
        run_judge(AnswerEquivalence(), benchmark, rows, client=None).predictions
    )


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
        judge=_rows_only(rule_em.judge),
        partial=True,
        description="Extracts the final answer and checks it against the reference answers with "
        "math-verify; Calculation problems only, as in the StepMathAgent paper.",
    ),
    Baseline(
        key="constant",
        judge_name="Constant (full marks)",
        benchmark="stepmathbench",
        judge=_rows_only(constant.full_marks),
        partial=False,
        description="Gives every solution 10/10 and a correct final answer.",
    ),
    Baseline(
        key="opc-corpus",
        judge_name="OPC LLM judge (from the corpus)",
        benchmark="opc",
        judge=opc_corpus.judge,
        partial=True,
        description="The Open Proof Corpus's own LLM judgment of each proof, read as 'correct' "
        "when it lists no issues; 311 of the 434 proofs have one.",
    ),
    *(
        Baseline(
            key="answer-equivalence",
            judge_name="Answer equivalence (math-verify)",
            benchmark=benchmark,
            judge=_answer_equivalence(benchmark),
            partial=True,
            description="Extracts the final answer and tests it against the golden answer with "
            "math-verify as it comes (no benchmark-specific normalisation); items with a "
            "final answer only (StepMathBench Calculation problems, all of μ-MATH).",
        )
        for benchmark in ("stepmathbench", "mumath")
    ),
    *(
        Baseline(
            key="always-incorrect",
            judge_name="Constant (always incorrect)",
            benchmark=benchmark,
            judge=_rows_only(constant.always_incorrect),
            partial=False,
            description="Judges every solution incorrect.",
        )
        for benchmark in ("opc", "mumath")
    ),
)
