"""μ-MATH: does a solution reach the reference answer? (U-MATH, arXiv:2412.03205)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathjudge.benchmarks import common, verdicts
from mathjudge.spec.benchmark import BenchmarkSpec, Judging, Paper
from mathjudge.spec.cases import Case
from mathjudge.spec.presentation import ScopeSpec


def _case(row: Mapping[str, Any]) -> Case:
    return Case(
        item_id=row["item_id"],
        problem=row["problem_statement"],
        solution=row["model_output"],
        reference_answers=(row["golden_answer"],) if row.get("golden_answer") else (),
    )


SPEC = BenchmarkSpec(
    name="mumath",
    title="μ-MATH",
    summary=(
        "Answer verification: a judge decides whether a solution to a university-level problem "
        "reaches the reference answer (1,084 solutions of 271 U-MATH problems by four models), "
        "as in the U-MATH paper (arXiv:2412.03205)."
    ),
    paper=Paper(
        "U-MATH: A University-Level Benchmark for Evaluating Mathematical Skills in Large "
        "Language Models",
        "2412.03205",
    ),
    dataset="mumath",
    items_config="judgments",
    seed=verdicts.SEED,
    headline="macro_f1",
    groups=verdicts.GROUPS,
    scopes=(ScopeSpec("author_model", "By author model", "Solutions written by {}"),),
    items=verdicts.ITEMS,
    item_text=("problem_statement", "golden_answer", "model_output"),
    plots=verdicts.PLOTS,
    judging=Judging(
        target=verdicts.TARGET,
        case=_case,
        judges=("direct", "mumath-cot", "answer-equivalence"),
    ),
    baselines=(
        common.ANSWER_EQUIVALENCE,
        verdicts.ALWAYS_INCORRECT,
        verdicts.ALWAYS_CORRECT,
    ),
    reported=".reported",
)
