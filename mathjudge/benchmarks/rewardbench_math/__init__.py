"""RewardBench's math-prm subset as the RewardMATH paper scores it (arXiv:2410.01729): does a
reward prefer the human-written solution to a wrong GPT-4 one?"""

from __future__ import annotations

from mathjudge.benchmarks import rewards, shortcuts
from mathjudge.benchmarks.rewardmath import PAPER
from mathjudge.spec.benchmark import BenchmarkSpec
from mathjudge.spec.presentation import ScopeSpec

SPEC = BenchmarkSpec(
    name="rewardbench_math",
    title="RewardBench-math",
    summary=(
        "Preferring the correct solution of two (arXiv:2410.01729): RewardBench's math-prm "
        "subset, 447 MATH problems each with a correct human-written solution and an incorrect "
        "GPT-4 one from PRM800K, the comparison set of the RewardMATH paper; a judge is right "
        "when it scores the correct solution strictly higher."
    ),
    paper=PAPER,
    dataset="rewardbench_math",
    items_config="solutions",
    seed=8,
    headline="accuracy",
    groups=rewards.groups(
        mrr=False,
        what="Share of problems whose chosen solution scores strictly above the rejected one",
    ),
    scopes=(
        ScopeSpec("subject", "By subject", "MATH subject: {}"),
        ScopeSpec("level", "By level", "MATH level {}", order=("1", "2", "3", "4", "5")),
    ),
    items=(rewards.judged_correct("the rejected one", "the chosen solution", gold="is_chosen"),),
    item_notes=rewards.ITEM_NOTES,
    item_text=("problem", "solution_type", "steps"),
    item_title="problem {problem_id}, {solution_type} solution",
    headline_note=rewards.TIE_NOTE,
    outputs=".outputs:import_outputs",
    baselines=(
        shortcuts.by_length(
            "longer-solution",
            "Shortcut (longer solution)",
            longer=True,
            text="steps",
            description="Scores each solution by its length in characters: the longer of the "
            "two wins.",
            tells="What preferring length alone earns: a judge not clearly above it may be "
            "rewarding length rather than correctness.",
        ),
        shortcuts.by_length(
            "shorter-solution",
            "Shortcut (shorter solution)",
            longer=False,
            text="steps",
            description="Scores each solution by minus its length in characters: the shorter "
            "of the two wins.",
            tells="What preferring brevity alone earns; with the longer-solution line it shows "
            "how much length alone separates the correct solutions from the wrong ones.",
        ),
    ),
    notes=(
        "The RewardMATH authors' scorer for this set has no geometric-mean aggregation (it is "
        "listed but not implemented there); the one shown here is ours, computed as on "
        "RewardMATH.",
    ),
)
