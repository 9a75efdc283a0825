"""MR-MATH (ReasonEval, arXiv:2404.05692): finding invalid and redundant steps in math solutions."""

from __future__ import annotations

from mathjudge.benchmarks import shortcuts
from mathjudge.spec.benchmark import BenchmarkSpec, Paper
from mathjudge.spec.presentation import ItemField, ItemNote, MetricGroup, MetricSpec

# The prediction field each kind of metric is computed from, per level.
_FIELDS = {
    ("macro_f1", "solution"): "solution_pred",
    ("macro_f1", "step"): "step_preds",
    ("auc", "solution"): "solution_score",
    ("auc", "step"): "step_scores",
}
_KINDS = {
    "macro_f1": ("macro-F1", "Mean F1 of both classes (a missing prediction is wrong)"),
    "auc": ("AUC", "ROC-AUC of the scores, ties ½"),
}


def _group(set_name: str, title: str) -> MetricGroup:
    what = {"invalid": "valid", "redundant": "without redundancy"}[set_name]
    return MetricGroup(
        title,
        tuple(
            MetricSpec(
                f"{set_name}_{level}_{kind}",
                f"{level.capitalize()} {_KINDS[kind][0]}",
                f"{_KINDS[kind][1]} at {level} level, positive = {what}.",
                decimals=3,
                direction="higher",
                field=_FIELDS[(kind, level)],
            )
            for level in ("step", "solution")
            for kind in ("macro_f1", "auc")
        ),
    )


SPEC = BenchmarkSpec(
    name="mrmath",
    title="MR-MATH",
    summary=(
        "Checking the steps of math solutions (ReasonEval paper, arXiv:2404.05692): 159 MATH "
        "solutions that all reach the correct answer, 83 with an invalid step located by people, "
        "and 300 PRM800K solutions with steps rated useful or redundant. Judges predict, per "
        "solution and per step, whether it is valid (or free of redundancy); macro-F1 scores "
        "binary predictions and ROC-AUC scores. The headline is finding invalid steps."
    ),
    paper=Paper("Evaluating Mathematical Reasoning Beyond Accuracy", "2404.05692"),
    dataset="mrmath",
    items_config="solutions",
    seed=5,
    headline="invalid_step_macro_f1",
    overview_extra=("invalid_solution_macro_f1",),
    groups=(
        _group("invalid", "Invalid-error set (positive = valid)"),
        _group("redundant", "Redundant-error set (positive = no redundant step)"),
    ),
    cluster_label="questions",
    items=(
        ItemField(
            "solution_pred",
            "solution_label",
            "Solution",
            "verdict",
            description="The judge's call on the whole solution: positive means valid (in the "
            "invalid-error set) or free of redundant steps (in the redundant-error set); gold: "
            "the authors' label.",
            words=("positive", "negative", "no call"),
        ),
    ),
    item_notes=(
        ItemNote(
            "solution_score",
            "Solution score",
            "The judge's score for the solution being positive (higher: more likely); scored "
            "by ROC-AUC, not compared with gold item by item.",
        ),
        ItemNote(
            "step_tp",
            "Right positive steps",
            "How many of the steps labelled positive (valid, or useful) the judge also calls "
            "positive.",
        ),
        ItemNote(
            "step_tn",
            "Right negative steps",
            "How many of the steps labelled negative (invalid, or redundant) the judge also "
            "calls negative.",
        ),
    ),
    item_text=("set", "question", "steps"),
    outputs=".outputs:import_outputs",
    baselines=(
        shortcuts.step_list(
            "no-error",
            "Constant (no error)",
            count="n_steps",
            field="step_preds",
            first_wrong=False,
            good=True,
            bad=False,
            solution="solution_pred",
            description="Judges every solution and every step positive (valid, no redundancy).",
            tells="The label balance alone: every positive right, no negative found; a judge "
            "must beat it, and the first-step line, to show it reads the steps.",
        ),
        shortcuts.step_list(
            "first-step",
            "Constant (first step wrong)",
            count="n_steps",
            field="step_preds",
            first_wrong=True,
            good=True,
            bad=False,
            solution="solution_pred",
            description="Judges every solution negative, its first step negative and the "
            "others positive.",
            tells="How often the flaw is the very first step: what a judge gets without "
            "reading past it.",
        ),
    ),
    local_only=(
        "the ReasonEval repository states no license for the MR-MATH data (research use; ask the "
        "authors before redistributing), so the build stays local"
    ),
)
