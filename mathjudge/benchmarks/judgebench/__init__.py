"""JudgeBench (arXiv:2410.12784): which of two responses is the correct one; the GPT-4o pairs."""

from __future__ import annotations

from mathjudge.benchmarks import shortcuts
from mathjudge.spec.benchmark import BenchmarkSpec, Paper
from mathjudge.spec.presentation import ItemField, MetricGroup, MetricSpec

PAPER = Paper("JudgeBench: A Benchmark for Evaluating LLM-based Judges", "2410.12784")
LOCAL_ONLY = (
    "the JudgeBench GitHub repository states no license (only its Hugging Face copy is tagged "
    "MIT), and its questions come from MMLU-Pro, LiveBench and LiveCodeBench with terms of their "
    "own (research use; ask the authors before redistributing), so the build stays local"
)
GROUPS = (
    MetricGroup(
        "Accuracy (share of pairs judged correctly)",
        tuple(
            MetricSpec(
                key,
                label,
                f"{what}, ×100; null decisions count as wrong.",
                scale=100,
                decimals=2,
                direction="higher",
                # A category's accuracy is over its own pairs: the statistic counting them.
                n_from=None if key == "accuracy" else key.replace("_accuracy", "_pairs"),
            )
            for key, label, what in (
                ("math_accuracy", "Math", "Pairs from LiveBench math"),
                ("accuracy", "Overall", "All pairs"),
                ("knowledge_accuracy", "Knowledge", "Pairs from MMLU-Pro"),
                ("reasoning_accuracy", "Reasoning", "Pairs from LiveBench reasoning"),
                ("coding_accuracy", "Coding", "Pairs from LiveCodeBench"),
            )
        ),
    ),
)
ITEMS = (
    ItemField(
        "decisions",
        "a_better",
        "Preferred response",
        "verdict",
        description="The response the judge prefers over its games on the pair (A then B, and "
        "swapped), each game a vote: A or B by the sign of the sum, a tie when the votes cancel "
        "(a tie is wrong). Gold: the response whose answer is right.",
        words=("A", "B", "tie"),
    ),
)
ITEM_TEXT = ("category", "question", "response_a", "response_b")
LENGTH = "the two responses' lengths in characters"
# JudgeBench shows every pair twice, the second time swapped; decisions are in the original
# order, so "the response shown first" is A in the first game and B in the second.
SHORTCUTS = (
    shortcuts.pair_by_length(
        "longer-response",
        "Shortcut (longer response)",
        a="response_a",
        b="response_b",
        measure="chars",
        longer=True,
        form="scores",
        description=f"Prefers the longer response of each pair ({LENGTH}).",
        tells="What preferring length alone earns: a judge not clearly above it may be "
        "rewarding length rather than correctness.",
    ),
    shortcuts.pair_by_length(
        "shorter-response",
        "Shortcut (shorter response)",
        a="response_a",
        b="response_b",
        measure="chars",
        longer=False,
        form="scores",
        description=f"Prefers the shorter response of each pair ({LENGTH}).",
        tells="What preferring brevity alone earns; with the longer-response line it shows "
        "how much length alone separates the right responses from the wrong ones.",
    ),
    shortcuts.constant(
        "first-shown",
        "Shortcut (first shown)",
        {"decisions": ["A>B", "B>A"]},
        "Prefers whichever response is shown first, in both games.",
        "Position alone: the second game swaps the order, so this rule ties every pair, which "
        "counts as wrong; a judge's position bias costs it pairs, it cannot win any.",
    ),
    shortcuts.constant(
        "second-shown",
        "Shortcut (second shown)",
        {"decisions": ["B>A", "A>B"]},
        "Prefers whichever response is shown second, in both games.",
        "Position alone, the other way round: it also ties every pair, which counts as wrong.",
    ),
)


def summary(pairs: str) -> str:
    return (
        f"Pairwise judging of objectively right and wrong answers (arXiv:2410.12784): {pairs} "
        "A pair counts as correct when the judge's games, each +1 right, -1 wrong, 0 tie or "
        "none, sum above 0 (the second game shows the responses swapped). Headline: pairs "
        "from LiveBench math."
    )


SPEC = BenchmarkSpec(
    name="judgebench",
    title="JudgeBench",
    summary=summary(
        "350 pairs of GPT-4o responses to knowledge, reasoning, math and coding questions."
    ),
    paper=PAPER,
    dataset="judgebench",
    items_config="gpt4o",
    seed=6,
    headline="math_accuracy",
    overview_extra=("accuracy",),
    groups=GROUPS,
    cluster_label="pairs",
    items=ITEMS,
    item_text=ITEM_TEXT,
    item_title="{source} question {original_id}",
    outputs=".outputs:import_outputs",
    reported=".reported",
    local_only=LOCAL_ONLY,
    baselines=SHORTCUTS,
)
