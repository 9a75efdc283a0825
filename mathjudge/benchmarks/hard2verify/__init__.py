"""Hard2Verify: step-level verification of frontier-model proofs (arXiv:2510.13744)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathjudge.benchmarks import shortcuts
from mathjudge.spec.benchmark import BenchmarkSpec, Judging, Paper
from mathjudge.spec.cases import Case, Target
from mathjudge.spec.presentation import MetricGroup, MetricSpec, ScopeSpec


def _case(row: Mapping[str, Any]) -> Case:
    steps = tuple(row["steps"])
    return Case(
        item_id=row["item_id"],
        problem=row["question"],
        solution="\n\n".join(steps),
        steps=steps,
    )


def _rate(key: str, label: str, description: str) -> MetricSpec:
    return MetricSpec(key, label, description, scale=100, decimals=1, direction="higher")


def _level(level: str, title: str) -> MetricGroup:
    what = "steps" if level == "step" else "proofs"
    return MetricGroup(
        title,
        (
            _rate(
                f"{level}_balanced_f1",
                "Balanced F1",
                f"2·TPR·TNR/(TPR+TNR) over {what}, incorrect = positive, ×100.",
            ),
            _rate(f"{level}_precision", "Precision", f"Flagged {what} that are incorrect, ×100."),
            _rate(f"{level}_recall", "Recall", f"Incorrect {what} that are flagged, ×100."),
            _rate(f"{level}_tnr", "TNR", f"Correct {what} left unflagged, ×100."),
        ),
    )


SPEC = BenchmarkSpec(
    name="hard2verify",
    title="Hard2Verify",
    summary=(
        "Step-level verification of frontier-model proofs: the judge marks every step correct or "
        "not, against human step labels (Hard2Verify, arXiv:2510.13744). A proof counts as "
        "incorrect when any step is. Runs are combined by a pessimistic union. Built locally "
        "from a user-decrypted copy only; never redistributed."
    ),
    paper=Paper(
        "Hard2Verify: A Step-Level Verification Benchmark for Open-Ended Frontier Math",
        "2510.13744",
    ),
    dataset="hard2verify",
    items_config="responses",
    seed=1,
    headline="step_balanced_f1",
    groups=(_level("step", "Steps"), _level("proof", "Proofs")),
    scopes=(ScopeSpec("k", "By number of runs pooled", "First {} runs"),),
    judging=Judging(target=Target("step_labels"), case=_case, judges=("direct", "pf-bv")),
    baselines=(
        shortcuts.step_list(
            "no-error",
            "Constant (no error)",
            count="n_steps",
            field="step_labels",
            first_wrong=False,
            description="Marks every step of every proof correct.",
            tells="Finds no incorrect step: the floor of the step-level scores, what a judge "
            "that accepts everything gets.",
        ),
        shortcuts.step_list(
            "first-step",
            "Constant (first step wrong)",
            count="n_steps",
            field="step_labels",
            first_wrong=True,
            description="Marks the first step of every proof incorrect and the others correct.",
            tells="How often the first step is where a proof goes wrong: what a judge gets "
            "without reading past it.",
        ),
    ),
    local_only=(
        "the decrypted Hard2Verify data may not be redistributed (its authors ask that decrypted "
        "copies never be posted), so the build stays local"
    ),
)
