"""RewardMATH (arXiv:2410.01729): does a reward rank the one correct solution above nine wrong
ones? Pointwise judges here; pairwise ones in `rewardmath_pairwise` (same dataset)."""

from __future__ import annotations

from mathjudge.benchmarks import rewards, shortcuts
from mathjudge.spec.benchmark import BenchmarkSpec, Paper

PAPER = Paper("Evaluating Robustness of Reward Models for Mathematical Reasoning", "2410.01729")
SEED = 7
SOLUTIONS_ELSEWHERE = (
    "The text of this solution is not in the source this site was built from: the authors' "
    "repository holds the problems and the judges' scores, and publishes the solutions on "
    "Hugging Face (the dataset RewardMATH/RewardMATH, under this problem and solution reference)."
)
REPEATED_ROWS = (
    "The authors' result files of three LLM judges (chatgpt, gpt4, gpt4o) repeat their last two "
    "problems; each problem counts once here, so those three judges' numbers differ slightly "
    "from the authors' averages over 485 rows."
)

SPEC = BenchmarkSpec(
    name="rewardmath",
    title="RewardMATH",
    summary=(
        "Ranking the one correct solution first (arXiv:2410.01729): reward models and judges "
        "score ten solutions of each of 483 MATH problems, exactly one of them correct; a "
        "problem counts when the correct solution scores strictly above all nine others. "
        "Process reward models give step scores, aggregated each way the authors do."
    ),
    paper=PAPER,
    dataset="rewardmath",
    items_config="solutions",
    seed=SEED,
    headline="accuracy",
    overview_extra=("mrr",),
    groups=rewards.groups(
        mrr=True,
        what="Share of problems whose correct solution scores strictly above all nine others",
    ),
    items=(rewards.judged_correct("every wrong one", "the correct solution"),),
    item_notes=rewards.ITEM_NOTES,
    item_text=("problem", "solution_reference", "steps"),
    item_title="problem {problem_index}, solution {solution_reference}",
    text_elsewhere=(("steps", SOLUTIONS_ELSEWHERE),),
    headline_note=rewards.TIE_NOTE + " Acc. (ties) counts a tie as a win.",
    outputs=".outputs:import_outputs",
    reported=".reported",
    baselines=(
        shortcuts.by_length(
            "longer-solution",
            "Shortcut (longer solution)",
            longer=True,
            count="n_steps",
            description="Scores each solution by its number of steps: the one with the most "
            "steps ranks first (a tie with it counts as a failure, as for every judge).",
            tells="What preferring length alone earns among the ten solutions: a judge not "
            "clearly above it may be rewarding length rather than correctness.",
        ),
        shortcuts.by_length(
            "shorter-solution",
            "Shortcut (shorter solution)",
            longer=False,
            count="n_steps",
            description="Scores each solution by minus its number of steps: the one with the "
            "fewest steps ranks first.",
            tells="What preferring brevity alone earns; with the longer-solution line it shows "
            "how much the correct solutions' length sets them apart.",
        ),
    ),
    notes=(REPEATED_ROWS,),
)
