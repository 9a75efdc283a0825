"""ExpertMath-style: ranking candidate solutions of research-level problems (CBU paper)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathjudge.base.errors import MathJudgeError
from mathjudge.spec.benchmark import Baseline, BenchmarkSpec, Judging, Paper
from mathjudge.spec.cases import Case, Question, Target
from mathjudge.spec.presentation import ItemNote, MetricGroup, MetricSpec, PlotSpec, ScopeSpec


def _case(row: Mapping[str, Any]) -> Case:
    if "statement" not in row:
        raise MathJudgeError(
            f"expertmath item {row['item_id']}: the candidate row lacks its problem; read "
            "the rows with benchmarks.expertmath.judge_rows, which joins the problems"
        )
    return Case(
        item_id=row["item_id"],
        problem=row["statement"],
        solution=row["solution"],
        consequences=tuple(Question(**q) for q in row["consequences"]),
    )


def _ranking(key: str, label: str, description: str) -> MetricSpec:
    return MetricSpec(key, label, description, scale=100, decimals=1, direction="higher")


SPEC = BenchmarkSpec(
    name="expertmath",
    title="ExpertMath-style",
    summary=(
        "Ranking candidate solutions: for each research-level problem and its variants, a "
        "judge scores every candidate solution; what counts is whether the correct ones are "
        "ranked above the wrong ones (Consequence-Based Utility paper). Each metric is computed "
        "per problem, averaged over an original's variants, then over originals."
    ),
    paper=Paper(
        "Judging What We Cannot Solve: A Consequence-Based Approach for Oracle-Free Evaluation "
        "of Research-Level Math",
        "2602.06291",
    ),
    dataset="expertmath",
    items_config="candidates",
    item_text=("source", "solution"),
    item_title="{problem_id}, candidate {position}",
    item_notes=(
        ItemNote(
            "score",
            "Score",
            "The judge's score of this candidate: higher means judged more likely correct; "
            "the candidates of a problem are ranked by it.",
        ),
    ),
    seed=3,
    headline="auc",
    cluster_label="original problems",
    groups=(
        MetricGroup(
            "Ranking of candidates (higher score = judged more likely correct)",
            (
                _ranking(
                    "auc",
                    "AUC",
                    "Share of (correct, wrong) candidate pairs ordered correctly, ties ½, ×100.",
                ),
                _ranking("acc_at_1", "Acc@1", "Top-ranked candidate is correct, ×100."),
                _ranking("recall_at_5", "Recall@5", "Correct candidates among the top five, ×100."),
                _ranking(
                    "human_win",
                    "Human win",
                    "Correct human-written solutions scored above the wrong candidates' mean, "
                    "×100.",
                ),
                _ranking(
                    "mean_win",
                    "Mean win",
                    "Correct candidates' mean score above the wrong ones' mean, ×100.",
                ),
            ),
        ),
    ),
    scopes=(ScopeSpec("problem_kind", "Originals and variants", "Problems: {}"),),
    plots=(PlotSpec("scope_bars", "AUC on originals and on variants", "problem_kind", ("auc",)),),
    judging=Judging(
        target=Target("rating", max_score=10),
        case=_case,
        judges=("direct", "cbu"),
        rows=".judge_rows:judge_rows",
    ),
    baselines=(
        Baseline(
            key="solution-length",
            judge_name="Solution length",
            run=".length:solution_length",
            partial=False,
            description="Scores each candidate by its length in whitespace-separated tokens: "
            "longer ranks higher.",
        ),
    ),
    reported=".reported",
    example="example",
    command=".cli:expertmath",
)
