"""RewardMATH's pairwise protocol (arXiv:2410.01729): the correct solution against each of the
nine incorrect ones; a problem counts when all nine games are won. Same dataset as
`rewardmath` (its `games` config)."""

from __future__ import annotations

from mathjudge.benchmarks import rewardmath, shortcuts
from mathjudge.benchmarks.rewardmath import PAPER, SEED
from mathjudge.spec.benchmark import BenchmarkSpec
from mathjudge.spec.presentation import Direction, ItemField, MetricGroup, MetricSpec


def _pct(
    key: str,
    label: str,
    description: str,
    direction: Direction = "higher",
    n_from: str | None = None,
) -> MetricSpec:
    return MetricSpec(
        key, label, description, scale=100, decimals=2, direction=direction, n_from=n_from
    )


SPEC = BenchmarkSpec(
    name="rewardmath_pairwise",
    title="RewardMATH (pairwise)",
    summary=(
        "Pairwise judges see the correct solution of each of 483 MATH problems against each of "
        "its nine incorrect ones, shown as A or B (arXiv:2410.01729); a problem counts when the "
        "judge prefers the correct solution in all nine games."
    ),
    paper=PAPER,
    dataset="rewardmath",
    items_config="games",
    seed=SEED,
    headline="accuracy",
    overview_extra=("mrr",),
    groups=(
        MetricGroup(
            "Winning every game of a problem",
            (
                _pct(
                    "accuracy",
                    "Accuracy",
                    "Share of problems where the judge prefers the correct solution in all nine "
                    "games, ×100; a game without a verdict is lost.",
                    n_from="problems",
                ),
                _pct(
                    "mrr",
                    "MRR",
                    "Mean of 1 / (1 + games lost) over problems (the correct solution's rank "
                    "if each won game ranks it above that solution), ×100.",
                    n_from="problems",
                ),
                _pct("game_accuracy", "Games won", "Share of games won, ×100."),
                _pct(
                    "no_verdict_rate",
                    "No verdict",
                    "Share of games without a verdict (A or B), ×100; each is lost.",
                    "lower",
                ),
            ),
        ),
    ),
    items=(
        ItemField(
            "preferred",
            "correct_is_a",
            "Preferred solution",
            "verdict",
            description="The solution the judge prefers in this game, A or B; gold: where the "
            "correct solution is shown. A game without a verdict is lost.",
            words=("A", "B", "no verdict"),
        ),
    ),
    item_title="problem {problem_index}, game {game} (against {solution_reference})",
    text_elsewhere=(
        ("solution_a", rewardmath.SOLUTIONS_ELSEWHERE),
        ("solution_b", rewardmath.SOLUTIONS_ELSEWHERE),
    ),
    item_text=("problem", "solution_reference", "chosen_position", "solution_a", "solution_b"),
    outputs="mathjudge.benchmarks.rewardmath.outputs:import_outputs",
    baselines=(
        shortcuts.constant(
            "always-a",
            "Shortcut (always A)",
            {"preferred": "A"},
            "Prefers the solution shown first (A) in every game.",
            "Position alone: it wins the games where the correct solution is shown first, about "
            "half, and almost no problem, which needs all nine.",
        ),
        shortcuts.constant(
            "always-b",
            "Shortcut (always B)",
            {"preferred": "B"},
            "Prefers the solution shown second (B) in every game.",
            "Position alone, the other way round: about half the games, almost no problem.",
        ),
        shortcuts.pair_by_length(
            "longer-solution",
            "Shortcut (longer solution)",
            a="n_steps_a",
            b="n_steps_b",
            measure="count",
            longer=True,
            form="preferred",
            description="Prefers the solution with more steps in every game; equal step counts "
            "give no verdict, a lost game.",
            tells="What preferring length alone earns: a judge not clearly above it may be "
            "rewarding length rather than correctness.",
        ),
        shortcuts.pair_by_length(
            "shorter-solution",
            "Shortcut (shorter solution)",
            a="n_steps_a",
            b="n_steps_b",
            measure="count",
            longer=False,
            form="preferred",
            description="Prefers the solution with fewer steps in every game; equal step "
            "counts give no verdict, a lost game.",
            tells="What preferring brevity alone earns; with the longer-solution line it shows "
            "how much the correct solutions' length sets them apart.",
        ),
    ),
    notes=(
        "The correct solution's position varies by game (A in 2,177 games, B in 2,170): a judge "
        "that always answers A wins about half the games and almost no problem.",
    ),
)
