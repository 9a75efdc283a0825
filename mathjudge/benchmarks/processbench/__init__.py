"""ProcessBench (arXiv:2412.06559): the earliest wrong paragraph of a math solution, or none."""

from __future__ import annotations

from mathjudge.spec.benchmark import Baseline, BenchmarkSpec, Paper
from mathjudge.spec.presentation import ItemField, MetricGroup, MetricSpec, ScopeSpec

SUBSET_ORDER = ("gsm8k", "math", "olympiadbench", "omnimath")


def _pct(key: str, label: str, description: str, n_from: str | None = None) -> MetricSpec:
    return MetricSpec(
        key, label, description, scale=100, decimals=1, direction="higher", n_from=n_from
    )


SPEC = BenchmarkSpec(
    name="processbench",
    title="ProcessBench",
    summary=(
        "Process verification (arXiv:2412.06559): a judge names the earliest wrong paragraph of "
        "each of 3,400 solutions to GSM8K, MATH, OlympiadBench and Omni-MATH problems, or says "
        "that all are correct. Headline: the mean over the four subsets of F1, the harmonic mean "
        "of the accuracies on erroneous and on correct solutions."
    ),
    paper=Paper("ProcessBench: Identifying Process Errors in Mathematical Reasoning", "2412.06559"),
    dataset="processbench",
    items_config="solutions",
    seed=10,
    headline="f1",
    overview_extra=("error_accuracy", "correct_accuracy"),
    groups=(
        MetricGroup(
            "Earliest wrong paragraph (exact match)",
            (
                _pct(
                    "f1",
                    "F1",
                    "Harmonic mean of the error and correct accuracies, ×100; overall, the mean "
                    "over the four subsets (the paper's Average).",
                ),
                _pct(
                    "error_accuracy",
                    "Error acc.",
                    "Share of erroneous solutions whose earliest wrong paragraph is named "
                    "exactly, ×100; overall, the mean over the subsets.",
                    n_from="errors",
                ),
                _pct(
                    "correct_accuracy",
                    "Correct acc.",
                    "Share of correct solutions judged to have no wrong paragraph, ×100; "
                    "overall, the mean over the subsets.",
                    n_from="corrects",
                ),
                MetricSpec(
                    "no_answer_rate",
                    "No answer",
                    "Share of solutions without a prediction, ×100 (each counts as wrong).",
                    scale=100,
                    decimals=1,
                    direction="lower",
                ),
            ),
        ),
    ),
    scopes=(ScopeSpec("subset_name", "By subset", "{}", order=SUBSET_ORDER),),
    items=(
        ItemField(
            "error_step",
            "label",
            "Earliest wrong paragraph",
            "score",
            description="The first paragraph of the solution the judge says is wrong, counting "
            "from 0 as the steps below are numbered; -1: every paragraph is right, -2: the "
            "judge named none. Gold: the annotators' earliest wrong paragraph.",
        ),
    ),
    first_step=0,
    item_text=("problem", "steps", "generator"),
    baselines=(
        Baseline(
            key="no-error",
            judge_name="Constant (no error)",
            run="mathjudge.benchmarks.constant:no_error",
            partial=False,
            description="Judges every solution free of errors (-1): all correct solutions right, "
            "no erroneous one, so F1 0.",
            tells="The correct-solution accuracy a judge gets by never finding an error; its F1 "
            "is 0, the floor a judge must clear.",
        ),
        Baseline(
            key="first-paragraph",
            judge_name="Constant (first paragraph wrong)",
            run="mathjudge.benchmarks.constant:first_paragraph",
            partial=False,
            description="Names the first paragraph (0) as the earliest wrong one in every "
            "solution: right wherever the error is at the start.",
            tells="How much of the error accuracy comes from errors in the very first "
            "paragraph; it never gets a correct solution right, so its F1 is 0.",
        ),
    ),
    reported=".reported",
    notes=(
        "Labels as released on 2024-12-10 (the paper's): math-688 is labelled 2; a fork's copy "
        "relabels it 0 (the Hub's later 'fix annotation' may do the same, not verified), which "
        "would move one exact-match outcome among MATH's 594 erroneous solutions.",
    ),
)
