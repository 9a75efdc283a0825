"""MathCheck-GSM outcome judging (arXiv:2407.08733): is a GSM8K-style solution's final answer
right? Process judging (which step is the first wrong one) is `mathcheck_gsm_process`, on the
same dataset."""

from __future__ import annotations

from mathjudge.benchmarks import verdicts
from mathjudge.spec.benchmark import BenchmarkSpec, Paper
from mathjudge.spec.presentation import ItemField, MetricGroup, MetricSpec, ScopeSpec

PAPER = Paper(
    "Is Your Model Really A Good Math Reasoner? Evaluating Mathematical Reasoning with Checklist",
    "2407.08733",
)
SEED = 9
VARIANT_ORDER = (
    "Original Problem",
    "Problem Understanding",
    "Irrelevant Disturbance",
    "Scenario Understanding",
)
VARIANTS = ScopeSpec("variant_name", "By problem variant", "{}", order=VARIANT_ORDER)
PARSING = (
    "Imported judges answered in free text; their replies are read exactly as the MathCheck "
    "authors' scorer reads them, quirks included (restated in "
    "mathjudge.benchmarks.mathcheck_gsm.parsing): e.g. 'The answer is: **Incorrect**' is not "
    "read at the colon, so the reply's last word 'correct' or 'incorrect' decides. A reply the "
    "rule cannot read is no prediction: counted as wrong and shown as the unparsed rate, never "
    "dropped."
)


def unparsed() -> MetricSpec:
    return MetricSpec(
        "unparsed_rate",
        "Unparsed",
        "Share of items without a readable prediction, ×100 (each counts as wrong).",
        scale=100,
        decimals=1,
        direction="lower",
    )


SPEC = BenchmarkSpec(
    name="mathcheck_gsm",
    title="MathCheck-GSM (outcome judging)",
    summary=(
        "Outcome judging of MathCheck-GSM (arXiv:2407.08733): a judge decides whether the final "
        "answer of a step-by-step solution is correct, on 1,032 solutions of 129 GSM8K problems "
        "in four variants (the original and three rewrites). Headline: macro-F1, the mean of "
        "the four variants' values, as the paper scores it."
    ),
    paper=PAPER,
    dataset="mathcheck_gsm",
    items_config="outcome_judging",
    seed=SEED,
    headline="macro_f1",
    groups=(
        MetricGroup(
            "Is the final answer correct? (positive = Correct)",
            (
                MetricSpec(
                    "macro_f1",
                    "Macro F1",
                    "Mean over the four problem variants of the macro-F1 of the classes Correct "
                    "and Incorrect (an unreadable reply predicts neither), ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                unparsed(),
            ),
        ),
    ),
    scopes=(VARIANTS,),
    cluster_label="seed problems",
    items=(
        ItemField(
            "verdict",
            "label",
            "Verdict",
            "verdict",
            description="Whether the judge says the solution's final answer is correct; gold: "
            "MathCheck's label. A missing verdict counts as wrong.",
            words=("correct", "incorrect", "no verdict"),
        ),
    ),
    item_text=("question", "solution", "answer"),
    item_title="item {item_id}",
    outputs=".outputs:import_outputs",
    baselines=(verdicts.ALWAYS_INCORRECT, verdicts.ALWAYS_CORRECT),
    notes=(PARSING,),
)
