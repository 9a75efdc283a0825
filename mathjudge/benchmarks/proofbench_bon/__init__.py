"""ProofBench best-of-n: picking the best of n o3 proofs (same paper and dataset as proofbench)."""

from __future__ import annotations

from mathjudge.benchmarks import shortcuts
from mathjudge.benchmarks.proofbench import (
    EXPERT_SCORE,
    JUDGES,
    PAPER,
    TARGET,
    points,
    proof_case,
)
from mathjudge.spec.benchmark import BenchmarkSpec, Judging
from mathjudge.spec.presentation import MetricGroup, MetricSpec, PlotSpec, ScopeSpec

SPEC = BenchmarkSpec(
    name="proofbench_bon",
    title="ProofBench best-of-n",
    summary=(
        "Best-of-n selection: from a random n-subset of 16 o3 proofs per problem the judge picks "
        "its top-scored proof; the value is the expected expert score (0-7) of that pick, "
        "computed exactly, next to the human oracle and the mean of the first n proofs."
    ),
    paper=PAPER,
    dataset="proofbench",
    items_config="best_of_n",
    seed=0,
    headline="bon_score",
    groups=(
        MetricGroup(
            "Expected expert score of the selected proof (0-7)",
            (
                points(
                    "bon_score",
                    "Judge pick",
                    "Expected expert score of the judge's pick.",
                    "higher",
                ),
                MetricSpec(
                    "bon_oracle", "Oracle", "Expected expert score of the best proof.", decimals=3
                ),
                MetricSpec(
                    "bon_first_n_mean",
                    "Mean of first n",
                    "Mean expert score of proofs 1..n.",
                    decimals=3,
                ),
            ),
        ),
    ),
    scopes=(ScopeSpec("bon", "By n", "Subsets of {}"),),
    items=(EXPERT_SCORE,),
    item_text=("problem", "proof"),
    plots=(PlotSpec("bon_curve", "Expected expert score of the pick against n", "bon"),),
    judging=Judging(target=TARGET, case=proof_case, judges=JUDGES),
    baselines=(
        shortcuts.by_length(
            "longer-proof",
            "Shortcut (longer proof)",
            longer=True,
            text="proof",
            description="Scores each proof by its length in characters: the longest is picked.",
            tells="What picking the longest proof earns, between the mean-of-n and oracle "
            "curves: a judge must beat it to show it reads the proofs, not their length.",
        ),
        shortcuts.by_length(
            "shorter-proof",
            "Shortcut (shorter proof)",
            longer=False,
            text="proof",
            description="Scores each proof by minus its length in characters: the shortest is "
            "picked.",
            tells="What picking the shortest proof earns; with the longer-proof line it shows "
            "whether length alone tells the better proofs apart.",
        ),
    ),
    reported=".reported",
)
