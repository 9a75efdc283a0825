"""What μ-MATH and the Open Proof Corpus share: a binary verdict per solution, shown with the
U-MATH paper's metrics. The scorer is `verdict_metrics`; this module holds the declarations,
cheap to import with the specs."""

from __future__ import annotations

from mathjudge.benchmarks import shortcuts
from mathjudge.spec.benchmark import Baseline
from mathjudge.spec.cases import Target
from mathjudge.spec.presentation import Direction, ItemField, MetricGroup, MetricSpec, PlotSpec

SEED = 4  # DESIGN.md: the same seed for mumath and opc
TARGET = Target("verdict", inconclusive_allowed=True)
ITEMS = (
    ItemField(
        "verdict",
        "label",
        "Verdict",
        "verdict",
        description="Whether the judge calls the solution correct; gold: the human label. A "
        "missing verdict counts as wrong.",
        words=("correct", "incorrect", "no verdict"),
    ),
)
PLOTS = (PlotSpec("tpr_tnr", "True-positive against true-negative rate"),)


def _pct(key: str, label: str, description: str, direction: Direction) -> MetricSpec:
    return MetricSpec(key, label, description, scale=100, decimals=1, direction=direction)


GROUPS = (
    MetricGroup(
        "Verdicts against the human label (positive = solution correct)",
        (
            _pct(
                "macro_f1",
                "Macro F1",
                "Mean of the F1 of the correct and incorrect classes, ×100.",
                "higher",
            ),
            _pct("tpr", "TPR", "Share of correct solutions judged correct, ×100.", "higher"),
            _pct("tnr", "TNR", "Share of incorrect solutions judged incorrect, ×100.", "higher"),
            _pct("ppv", "PPV", "Share of 'correct' verdicts that are right, ×100.", "higher"),
            _pct("npv", "NPV", "Share of 'incorrect' verdicts that are right, ×100.", "higher"),
            _pct(
                "inconclusive_rate",
                "Inconclusive",
                "Share of null verdicts, ×100 (counted as wrong).",
                "lower",
            ),
        ),
    ),
)

ALWAYS_INCORRECT = Baseline(
    key="always-incorrect",
    judge_name="Constant (always incorrect)",
    run="mathjudge.benchmarks.constant:always_incorrect",
    partial=False,
    description="Judges every solution incorrect.",
    tells="The label balance alone: every incorrect solution caught and no correct one "
    "accepted; a judge must beat it, and the always-correct line, to show it reads the solutions.",
)
ALWAYS_CORRECT = shortcuts.constant(
    "always-correct",
    "Constant (always correct)",
    {"verdict": True},
    "Judges every solution correct.",
    "The label balance the other way: every correct solution accepted and no incorrect one caught.",
)
