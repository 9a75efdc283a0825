"""MathCheck-GSM process judging (arXiv:2407.08733): which step of a solution is the first wrong
one? Same dataset as `mathcheck_gsm` (its `process_judging` config)."""

from __future__ import annotations

from mathjudge.benchmarks import shortcuts
from mathjudge.benchmarks.mathcheck_gsm import PAPER, PARSING, SEED, VARIANTS, unparsed
from mathjudge.spec.benchmark import BenchmarkSpec
from mathjudge.spec.presentation import ItemField, MetricGroup, MetricSpec

SPEC = BenchmarkSpec(
    name="mathcheck_gsm_process",
    title="MathCheck-GSM (process judging)",
    summary=(
        "Process judging of MathCheck-GSM (arXiv:2407.08733): a judge names the first wrong "
        "step of a step-by-step solution (every one has an error), on 516 solutions of 129 "
        "GSM8K problems in four variants. Headline: accuracy, the mean of the four variants' "
        "values, as the paper scores it."
    ),
    paper=PAPER,
    dataset="mathcheck_gsm",
    items_config="process_judging",
    seed=SEED,
    headline="accuracy",
    groups=(
        MetricGroup(
            "Naming the first wrong step",
            (
                MetricSpec(
                    "accuracy",
                    "Accuracy",
                    "Mean over the four problem variants of the share of solutions whose first "
                    "wrong step is named exactly, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                unparsed(),
                MetricSpec(
                    "no_error_rate",
                    "Says no error",
                    "Share of solutions judged to have no wrong step (every one has one), ×100.",
                    scale=100,
                    decimals=1,
                    direction="lower",
                ),
            ),
        ),
    ),
    scopes=(VARIANTS,),
    cluster_label="seed problems",
    items=(
        ItemField(
            "error_step",
            "label",
            "First wrong step",
            "score",
            description="The first step the judge says is wrong, numbered as the solution "
            "prints its steps (from 1); -1: no wrong step, -2: the judge named none. Gold: "
            "MathCheck's label.",
        ),
    ),
    item_text=("question", "solution", "answer"),
    item_title="item {item_id}",
    outputs="mathjudge.benchmarks.mathcheck_gsm.outputs:import_outputs",
    baselines=(
        shortcuts.constant(
            "first-step",
            "Constant (first step wrong)",
            {"error_step": 1},
            "Names step 1 as the first wrong step of every solution.",
            "How many solutions go wrong at their very first step: the share a judge gets "
            "without reading past it.",
        ),
        shortcuts.constant(
            "no-error",
            "Constant (no error)",
            {"error_step": -1},
            "Judges every solution free of errors.",
            "Every solution here has an error, so this rule scores 0: the floor, and what a "
            "judge that never finds an error gets.",
        ),
    ),
    notes=(PARSING,),
)
