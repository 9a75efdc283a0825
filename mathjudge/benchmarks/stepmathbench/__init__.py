"""StepMathBench: process grading of 1,000 solutions (StepMathAgent, arXiv:2503.10105)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathjudge.benchmarks import common
from mathjudge.spec.benchmark import Baseline, BenchmarkSpec, Judging, Paper
from mathjudge.spec.cases import Case, Target
from mathjudge.spec.presentation import ItemField, MetricGroup, MetricSpec, PlotSpec, ScopeSpec

PAPER = Paper(
    "StepMathAgent: A Step-Wise Agent for Evaluating Mathematical Processes through Tree-of-Error",
    "2503.10105",
)


def _case(row: Mapping[str, Any]) -> Case:
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


def _score(key: str, label: str, description: str, **kw: Any) -> MetricSpec:
    return MetricSpec(key, label, description, field="score", **kw)


def _answer(key: str, label: str, description: str, **kw: Any) -> MetricSpec:
    return MetricSpec(key, label, description, field="answer_correct", **kw)


SPEC = BenchmarkSpec(
    name="stepmathbench",
    title="StepMathBench",
    summary=(
        "Process grading: a judge gives each of 1,000 solutions (200 Chinese university- and "
        "competition-style problems, each solved by 5 models) a score from 0 to 10, compared "
        "with the human gold score computed from step labels; optionally also a true/false "
        "verdict on the final answer, compared with the annotated 0/1 label. Metrics and "
        "scales follow Table 3 of the StepMathAgent paper (arXiv:2503.10105)."
    ),
    paper=PAPER,
    dataset="stepmathbench",
    items_config="solutions",
    seed=2,
    headline="corr",
    overview_extra=("answer_corr",),
    groups=(
        MetricGroup(
            "Process score (0–10, against gold_score)",
            (
                _score(
                    "avg_score",
                    "AvgS",
                    "Mean predicted score, ×10 (a 0–100 scale), read against Gold AvgS.",
                    scale=10,
                    decimals=1,
                    direction="closer to gold",
                    reference="gold_avg_score",
                ),
                _score(
                    "gold_avg_score",
                    "Gold AvgS",
                    "Mean human gold score over the same items, ×10: the reference for AvgS.",
                    scale=10,
                    decimals=1,
                ),
                _score(
                    "corr",
                    "Corr",
                    "Pearson correlation of predicted and gold scores, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                _score(
                    "mse",
                    "MSE",
                    "Mean squared error of predicted against gold scores, in points² on the "
                    "0–10 scale (unscaled).",
                    scale=1,
                    decimals=2,
                    direction="lower",
                ),
                _score(
                    "overlap",
                    "OR",
                    "Overlap rate: share of items whose predicted score equals the gold score "
                    "exactly, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
            ),
        ),
        MetricGroup(
            "Final-answer verdict (0/1, against gold_score_01)",
            (
                _answer(
                    "answer_avg_score",
                    "Ans AvgS",
                    "Share of items the judge calls correct, ×100, read against Gold Ans AvgS.",
                    scale=100,
                    decimals=1,
                    direction="closer to gold",
                    reference="answer_gold_avg_score",
                ),
                _answer(
                    "answer_gold_avg_score",
                    "Gold Ans AvgS",
                    "Share of items whose final answer is correct by the gold label, ×100.",
                    scale=100,
                    decimals=1,
                ),
                _answer(
                    "answer_corr",
                    "Ans Corr",
                    "Pearson (phi) correlation of verdicts and gold labels, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                _answer(
                    "answer_mse",
                    "Ans MSE",
                    "Mean squared error of the 0/1 verdict, ×100: the percentage of items where "
                    "verdict and gold label disagree.",
                    scale=100,
                    decimals=1,
                    direction="lower",
                ),
                _answer(
                    "answer_overlap",
                    "Ans OR",
                    "Share of items where verdict and gold label agree, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
            ),
        ),
    ),
    scopes=(
        ScopeSpec("type", "By type", "Type: {}", ("Calculation", "Proof", "Open-ended")),
        ScopeSpec("generator", "By generator", "Solutions written by {}"),
        ScopeSpec("level", "By level", "Difficulty level {}"),
    ),
    items=(
        ItemField(
            "score",
            "gold_score",
            "Score (0–10)",
            "score",
            description="The judge's score of the solution from 0 to 10; gold: the score the "
            "paper's formula gives from the annotators' step labels.",
        ),
        ItemField(
            "answer_correct",
            "gold_score_01",
            "Final answer correct",
            "binary",
            description="Whether the judge says the final answer is right; gold: the "
            "annotators' verdict on the answer.",
            words=("yes", "no", ""),
        ),
    ),
    item_text=("question", "model_output"),
    plots=(
        PlotSpec(
            "scope_bars",
            "Correlation with the gold label by problem type",
            "type",
            ("corr", "answer_corr"),
        ),
    ),
    judging=Judging(
        target=Target("score", max_score=10),
        case=_case,
        judges=("direct", "step-agent", "answer-equivalence"),
    ),
    baselines=(
        Baseline(
            key="rule-em",
            judge_name="RuleEM (final-answer match)",
            run=".rule_em:baseline",
            partial=True,
            description="Extracts the final answer and checks it against the reference answers "
            "with math-verify; Calculation problems only, as in the StepMathAgent paper.",
            kind="rule",
        ),
        Baseline(
            key="constant",
            judge_name="Constant (full marks)",
            run="mathjudge.benchmarks.constant:full_marks",
            partial=False,
            description="Gives every solution 10/10 and a correct final answer.",
        ),
        common.ANSWER_EQUIVALENCE,
    ),
    reported=".reported",
)
