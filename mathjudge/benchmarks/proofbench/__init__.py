"""ProofBench: expert 0-7 grades of 435 competition proofs (arXiv:2510.13888)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathjudge.spec.benchmark import BenchmarkSpec, Judging, Paper
from mathjudge.spec.cases import Case, Target
from mathjudge.spec.presentation import (
    Direction,
    ItemField,
    MetricGroup,
    MetricSpec,
    PlotSpec,
    ScopeSpec,
)

PAPER = Paper("Reliable Fine-Grained Evaluation of Natural Language Math Proofs", "2510.13888")
JUDGES = ("direct", "proof-grader")
TARGET = Target("score", max_score=7)
# A judge's grade beside the expert's, as the item pages show it (ProofBench and best-of-n).
EXPERT_SCORE = ItemField(
    "score",
    "expert_score",
    "Score (0–7)",
    "score",
    tolerance=1.0,
    description="The judge's grade of the proof out of 7; gold: the expert's grade. "
    "Within one point of it counts as agreeing.",
)


def proof_case(row: Mapping[str, Any]) -> Case:
    """A ProofBench row (grading or best-of-n) as a judge sees it."""
    return Case(
        item_id=row["item_id"],
        problem=row["problem"],
        solution=row["proof"],
        reference_solution=row.get("reference_solution") or None,
        marking_scheme=row.get("marking_scheme") or None,
    )


def points(key: str, label: str, description: str, direction: Direction) -> MetricSpec:
    """A value in score points (0-7), three decimals."""
    return MetricSpec(key, label, description, decimals=3, direction=direction)


SPEC = BenchmarkSpec(
    name="proofbench",
    title="ProofBench",
    summary=(
        "Fine-grained proof grading: a judge scores each of 435 competition proofs (145 problems "
        "from APMO, EGMO, IMO, Putnam, USA TST and USAMO 2022-2025, each proved by o3, "
        "gemini-2.5-pro and DeepSeek-R1-0528) on the experts' 0-7 scale. Every metric is "
        "computed per problem and macro-averaged over problems, as in the ProofBench paper "
        "(arXiv:2510.13888)."
    ),
    paper=PAPER,
    dataset="proofbench",
    items_config="grading",
    seed=0,
    headline="mae",
    groups=(
        MetricGroup(
            "Agreement with the expert score (0-7)",
            (
                points("mae", "MAE", "Mean absolute error, in points.", "lower"),
                points("rmse", "RMSE", "Root-mean-square error, in points.", "lower"),
                MetricSpec(
                    "wta1",
                    "WTA(≤1)",
                    "Share of proofs scored within 1 point of the experts, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                points(
                    "kendall_tau_b",
                    "Kendall τ_b",
                    "Within-problem rank agreement (ties-adjusted), averaged over problems where "
                    "it is defined.",
                    "higher",
                ),
                points(
                    "bias",
                    "Bias",
                    "Mean signed error (judge − expert), in points.",
                    "closer to zero",
                ),
            ),
        ),
        MetricGroup(
            "Kendall τ_b coverage",
            (
                MetricSpec(
                    "kendall_tau_b_problems",
                    "τ_b problems",
                    "Problems where τ_b is defined (counted, no CI).",
                    decimals=0,
                    ci=False,
                ),
                MetricSpec(
                    "kendall_tau_b_omitted",
                    "τ_b omitted",
                    "Problems left out: fewer than 2 proofs, or constant scores on a side.",
                    decimals=0,
                    ci=False,
                ),
            ),
        ),
    ),
    scopes=(
        ScopeSpec("generator", "By generator", "Proofs written by {}"),
        ScopeSpec("contest", "By contest", "Contest: {}"),
        ScopeSpec("year", "By year", "Year {}"),
        ScopeSpec("run", "Single runs", "Run {}"),
        ScopeSpec("run_spread", "Spread of single runs", "Across single runs: {}"),
    ),
    items=(EXPERT_SCORE,),
    item_text=("problem", "proof"),
    item_title="{problem_id}, proof by {generator}",
    plots=(PlotSpec("confusion_heatmap", "Expert score against the judge's rounded score"),),
    judging=Judging(target=TARGET, case=proof_case, judges=JUDGES),
    reported=".reported",
)
