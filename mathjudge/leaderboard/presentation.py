"""How each benchmark is shown: labels, scales and reading direction of its metrics, scope order.

Scores are stored in natural units (fractions, score points); papers print them scaled (x10,
x100). Keeping that mapping declarative here means the store stays unit-clean, the site matches
the papers, and adding a benchmark is one `BenchmarkPresentation` entry. Metrics or scopes a
schema does not know are still shown, with raw values, rather than silently dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower", "closer to gold", "closer to zero"]

DIRECTION_TEXT: dict[Direction, str] = {
    "higher": "higher is better",
    "lower": "lower is better",
    "closer to gold": "closer to the gold reference is better",
    "closer to zero": "closer to zero is better",
}


@dataclass(frozen=True)
class MetricSpec:
    """One metric column. `direction` None marks a reference value (e.g. the gold mean)."""

    key: str
    label: str
    description: str
    scale: float = 1.0
    decimals: int | None = None  # None: raw value, 4 significant digits
    direction: Direction | None = None
    reference: str | None = None  # metric holding the gold value for "closer to gold"

    @property
    def scale_text(self) -> str:
        return "" if self.scale == 1 else f"×{self.scale:g}"

    def format(self, value: float) -> str:
        scaled = value * self.scale
        text = f"{scaled:.4g}" if self.decimals is None else f"{scaled:.{self.decimals}f}"
        # "-0.0" reads as a real negative; rounding to zero should print zero.
        return text[1:] if re.fullmatch(r"-0(\.0*)?", text) else text


@dataclass(frozen=True)
class MetricGroup:
    title: str
    metrics: tuple[MetricSpec, ...]


@dataclass(frozen=True)
class ScopeSpec:
    """A scope section: its heading and how one subset is captioned (`{}` = subset value)."""

    key: str
    title: str
    caption: str = "{}"
    order: tuple[str, ...] = ()  # preferred subset order; others follow in natural order


@dataclass(frozen=True)
class ItemField:
    """How the item explorer shows one stored prediction field next to its gold column."""

    field: str  # prediction field as kept in the store's item_predictions
    gold: str  # column of the benchmark's items config
    label: str
    kind: Literal["score", "verdict", "binary"]  # verdict: votes +1/-1/0; binary: 0/1
    tolerance: float = 0.0  # |prediction - gold| above this is a disagreement (scores)


@dataclass(frozen=True)
class PlotSpec:
    """A figure on the benchmark page; `kind` names a function in `leaderboard.plots`."""

    kind: Literal["scope_bars", "tpr_tnr", "k_curve", "bon_curve", "confusion_heatmap"]
    title: str
    scope: str = "overall"
    metrics: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchmarkPresentation:
    name: str
    display_name: str
    summary: str
    headline: str | None
    groups: tuple[MetricGroup, ...]
    scopes: tuple[ScopeSpec, ...] = ()
    cluster_label: str = "problems"
    # Metrics on the overview page besides the headline, for judges that give other fields.
    overview_extra: tuple[str, ...] = ()
    # Item explorer: gold-vs-prediction fields, and the item columns shown as its text.
    items: tuple[ItemField, ...] = ()
    item_text: tuple[str, ...] = ()
    plots: tuple[PlotSpec, ...] = ()

    def metric(self, key: str) -> MetricSpec:
        for group in self.groups:
            for spec in group.metrics:
                if spec.key == key:
                    return spec
        return MetricSpec(key, key, "Not described by this site's schema; shown unscaled.")

    def scope(self, key: str) -> ScopeSpec:
        if key == "overall":
            return OVERALL
        for spec in self.scopes:
            if spec.key == key:
                return spec
        return ScopeSpec(key, f"By {key}", f"{key}: {{}}")

    def scope_rank(self, key: str) -> tuple[int, str]:
        """Overall first, then the schema's order, then unknown scopes alphabetically."""
        keys = ["overall", *(s.key for s in self.scopes)]
        return (keys.index(key), "") if key in keys else (len(keys), key)


OVERALL = ScopeSpec("overall", "Overall", "All items")


STEPMATHBENCH = BenchmarkPresentation(
    name="stepmathbench",
    display_name="StepMathBench",
    summary=(
        "Process grading: a judge gives each of 1,000 solutions (200 Chinese university- and "
        "competition-style problems, each solved by 5 models) a score from 0 to 10, compared "
        "with the human gold score computed from step labels; optionally also a true/false "
        "verdict on the final answer, compared with the annotated 0/1 label. Metrics and "
        "scales follow Table 3 of the StepMathAgent paper (arXiv:2503.10105)."
    ),
    headline="corr",
    overview_extra=("answer_corr",),
    groups=(
        MetricGroup(
            "Process score (0–10, against gold_score)",
            (
                MetricSpec(
                    "avg_score",
                    "AvgS",
                    "Mean predicted score, ×10 (a 0–100 scale), read against Gold AvgS.",
                    scale=10,
                    decimals=1,
                    direction="closer to gold",
                    reference="gold_avg_score",
                ),
                MetricSpec(
                    "gold_avg_score",
                    "Gold AvgS",
                    "Mean human gold score over the same items, ×10: the reference for AvgS.",
                    scale=10,
                    decimals=1,
                ),
                MetricSpec(
                    "corr",
                    "Corr",
                    "Pearson correlation of predicted and gold scores, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                MetricSpec(
                    "mse",
                    "MSE",
                    "Mean squared error of predicted against gold scores, in points² on the "
                    "0–10 scale (unscaled).",
                    scale=1,
                    decimals=2,
                    direction="lower",
                ),
                MetricSpec(
                    "overlap",
                    "OR",
                    "Overlap rate: share of items whose predicted score equals the gold score "
                    "exactly, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
            ),
        ),
        MetricGroup(
            "Final-answer verdict (0/1, against gold_score_01)",
            (
                MetricSpec(
                    "answer_avg_score",
                    "Ans AvgS",
                    "Share of items the judge calls correct, ×100, read against Gold Ans AvgS.",
                    scale=100,
                    decimals=1,
                    direction="closer to gold",
                    reference="answer_gold_avg_score",
                ),
                MetricSpec(
                    "answer_gold_avg_score",
                    "Gold Ans AvgS",
                    "Share of items whose final answer is correct by the gold label, ×100.",
                    scale=100,
                    decimals=1,
                ),
                MetricSpec(
                    "answer_corr",
                    "Ans Corr",
                    "Pearson (phi) correlation of verdicts and gold labels, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                MetricSpec(
                    "answer_mse",
                    "Ans MSE",
                    "Mean squared error of the 0/1 verdict, ×100: the percentage of items where "
                    "verdict and gold label disagree.",
                    scale=100,
                    decimals=1,
                    direction="lower",
                ),
                MetricSpec(
                    "answer_overlap",
                    "Ans OR",
                    "Share of items where verdict and gold label agree, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
            ),
        ),
    ),
    scopes=(
        ScopeSpec("type", "By type", "Type: {}", ("Calculation", "Proof", "Open-ended")),
        ScopeSpec("generator", "By generator", "Solutions written by {}"),
        ScopeSpec("level", "By level", "Difficulty level {}"),
    ),
    items=(
        ItemField("score", "gold_score", "Score (0–10)", "score"),
        ItemField("answer_correct", "gold_score_01", "Final answer correct", "binary"),
    ),
    item_text=("question", "model_output"),
    plots=(
        PlotSpec(
            "scope_bars",
            "Correlation with the gold label by problem type",
            "type",
            ("corr", "answer_corr"),
        ),
    ),
)


def _points(key: str, label: str, description: str, direction: Direction) -> MetricSpec:
    return MetricSpec(key, label, description, decimals=3, direction=direction)


PROOFBENCH = BenchmarkPresentation(
    name="proofbench",
    display_name="ProofBench",
    summary=(
        "Fine-grained proof grading: a judge scores each of 435 competition proofs (145 problems "
        "from APMO, EGMO, IMO, Putnam, USA TST and USAMO 2022-2025, each proved by o3, "
        "gemini-2.5-pro and DeepSeek-R1-0528) on the experts' 0-7 scale. Every metric is "
        "computed per problem and macro-averaged over problems, as in the ProofBench paper "
        "(arXiv:2510.13888)."
    ),
    headline="mae",
    groups=(
        MetricGroup(
            "Agreement with the expert score (0-7)",
            (
                _points("mae", "MAE", "Mean absolute error, in points.", "lower"),
                _points("rmse", "RMSE", "Root-mean-square error, in points.", "lower"),
                MetricSpec(
                    "wta1",
                    "WTA(≤1)",
                    "Share of proofs scored within 1 point of the experts, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                _points(
                    "kendall_tau_b",
                    "Kendall τ_b",
                    "Within-problem rank agreement (ties-adjusted), averaged over problems where "
                    "it is defined.",
                    "higher",
                ),
                _points(
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
                ),
                MetricSpec(
                    "kendall_tau_b_omitted",
                    "τ_b omitted",
                    "Problems left out: fewer than 2 proofs, or constant scores on a side.",
                    decimals=0,
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
    items=(ItemField("score", "expert_score", "Score (0–7)", "score", tolerance=1.0),),
    item_text=("problem", "proof"),
    plots=(PlotSpec("confusion_heatmap", "Expert score against the judge's rounded score"),),
)

PROOFBENCH_BON = BenchmarkPresentation(
    name="proofbench_bon",
    display_name="ProofBench best-of-n",
    summary=(
        "Best-of-n selection: from a random n-subset of 16 o3 proofs per problem the judge picks "
        "its top-scored proof; the value is the expected expert score (0-7) of that pick, "
        "computed exactly, next to the human oracle and the mean of the first n proofs."
    ),
    headline="bon_score",
    groups=(
        MetricGroup(
            "Expected expert score of the selected proof (0-7)",
            (
                _points(
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
    items=(ItemField("score", "expert_score", "Score (0–7)", "score", tolerance=1.0),),
    item_text=("problem", "proof"),
    plots=(PlotSpec("bon_curve", "Expected expert score of the pick against n", "bon"),),
)


def _verdict_presentation(
    name: str, display_name: str, summary: str, author: str, item_text: tuple[str, ...]
) -> BenchmarkPresentation:
    def pct(key: str, label: str, description: str, direction: Direction) -> MetricSpec:
        return MetricSpec(key, label, description, scale=100, decimals=1, direction=direction)

    return BenchmarkPresentation(
        name=name,
        display_name=display_name,
        summary=summary,
        headline="macro_f1",
        groups=(
            MetricGroup(
                "Verdicts against the human label (positive = solution correct)",
                (
                    pct(
                        "macro_f1",
                        "Macro F1",
                        "Mean of the F1 of the correct and incorrect classes, ×100.",
                        "higher",
                    ),
                    pct("tpr", "TPR", "Share of correct solutions judged correct, ×100.", "higher"),
                    pct(
                        "tnr",
                        "TNR",
                        "Share of incorrect solutions judged incorrect, ×100.",
                        "higher",
                    ),
                    pct(
                        "ppv", "PPV", "Share of 'correct' verdicts that are right, ×100.", "higher"
                    ),
                    pct(
                        "npv",
                        "NPV",
                        "Share of 'incorrect' verdicts that are right, ×100.",
                        "higher",
                    ),
                    pct(
                        "inconclusive_rate",
                        "Inconclusive",
                        "Share of null verdicts, ×100 (counted as wrong).",
                        "lower",
                    ),
                ),
            ),
        ),
        scopes=(ScopeSpec("author_model", "By author model", author),),
        items=(ItemField("verdict", "label", "Verdict", "verdict"),),
        item_text=item_text,
        plots=(PlotSpec("tpr_tnr", "True-positive against true-negative rate"),),
    )


MUMATH = _verdict_presentation(
    "mumath",
    "μ-MATH",
    "Answer verification: a judge decides whether a solution to a university-level problem "
    "reaches the reference answer (1,084 solutions of 271 U-MATH problems by four models), "
    "as in the U-MATH paper (arXiv:2412.03205).",
    "Solutions written by {}",
    ("problem_statement", "golden_answer", "model_output"),
)
OPC = _verdict_presentation(
    "opc",
    "Open Proof Corpus",
    "Proof verification: a judge decides whether each of 434 competition proofs is correct, "
    "against binary human labels from the Open Proof Corpus.",
    "Proofs written by {}",
    ("problem", "proof"),
)

ARXIVMATHGRADINGBENCH = BenchmarkPresentation(
    name="arxivmathgradingbench",
    display_name="ArxivMathGradingBench",
    summary=(
        "Error finding in research papers: for each of 35 arXiv math papers whose later "
        "version corrects an error in a named result, the judge lists where the error is. "
        "Predicted locations of the first k runs are pooled; a ground-truth location counts as "
        "found when a prediction matches it (Pseudo-Formalization paper, §4.2). Overall = the "
        "largest k."
    ),
    headline="f1",
    cluster_label="papers",
    groups=(
        MetricGroup(
            "Error locations (positive = an error)",
            (
                MetricSpec(
                    "f1",
                    "F1",
                    "Harmonic mean of precision and recall, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                MetricSpec(
                    "precision",
                    "Precision",
                    "Found locations / (found + false predictions), ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                MetricSpec(
                    "recall",
                    "Recall",
                    "Ground-truth locations found, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                MetricSpec(
                    "coverage",
                    "Coverage",
                    "Papers with every error found, ×100.",
                    scale=100,
                    decimals=1,
                    direction="higher",
                ),
                MetricSpec(
                    "false_errors_per_paper",
                    "False errors / paper",
                    "Predictions matching no ground-truth location, per paper.",
                    decimals=2,
                    direction="lower",
                ),
            ),
        ),
    ),
    scopes=(
        ScopeSpec("k", "By number of runs pooled", "First {} runs"),
        ScopeSpec("run", "Single runs", "Run {}"),
        ScopeSpec("run_spread", "Spread of single runs", "Across single runs: {}"),
    ),
    item_text=("title", "url", "comment"),
    plots=(
        PlotSpec(
            "k_curve", "Precision and recall against runs pooled", "k", ("precision", "recall")
        ),
    ),
)


def _ranking(key: str, label: str, description: str) -> MetricSpec:
    return MetricSpec(key, label, description, scale=100, decimals=1, direction="higher")


EXPERTMATH = BenchmarkPresentation(
    name="expertmath",
    display_name="ExpertMath",
    summary=(
        "Ranking candidate solutions: for each research-level problem and its variants, a "
        "judge scores every candidate solution; what counts is whether the correct ones are "
        "ranked above the wrong ones (Consequence-Based Utility paper). Each metric is computed "
        "per problem, averaged over an original's variants, then over originals."
    ),
    headline="auc",
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
    cluster_label="original problems",
    plots=(PlotSpec("scope_bars", "AUC on originals and on variants", "problem_kind", ("auc",)),),
)


def _verification_group(level: str, title: str) -> MetricGroup:
    what = "steps" if level == "step" else "proofs"
    return MetricGroup(
        title,
        (
            _ranking(
                f"{level}_balanced_f1",
                "Balanced F1",
                f"2·TPR·TNR/(TPR+TNR) over {what}, incorrect = positive, ×100.",
            ),
            _ranking(
                f"{level}_precision", "Precision", f"Flagged {what} that are incorrect, ×100."
            ),
            _ranking(f"{level}_recall", "Recall", f"Incorrect {what} that are flagged, ×100."),
            _ranking(f"{level}_tnr", "TNR", f"Correct {what} left unflagged, ×100."),
        ),
    )


HARD2VERIFY = BenchmarkPresentation(
    name="hard2verify",
    display_name="Hard2Verify",
    summary=(
        "Step-level verification of frontier-model proofs: the judge marks every step correct or "
        "not, against human step labels (Hard2Verify, arXiv:2510.13744). A proof counts as "
        "incorrect when any step is. Runs are combined by a pessimistic union. Built locally "
        "from a user-decrypted copy only; never redistributed."
    ),
    headline="step_balanced_f1",
    groups=(_verification_group("step", "Steps"), _verification_group("proof", "Proofs")),
    scopes=(ScopeSpec("k", "By number of runs pooled", "First {} runs"),),
)


def _mrmath_group(set_name: str, title: str) -> MetricGroup:
    what = {"invalid": "valid", "redundant": "without redundancy"}[set_name]
    return MetricGroup(
        title,
        tuple(
            MetricSpec(
                f"{set_name}_{level}_{kind}",
                f"{level.capitalize()} {label}",
                f"{text} at {level} level, positive = {what}.",
                decimals=3,
                direction="higher",
            )
            for level in ("solution", "step")
            for kind, label, text in (
                ("macro_f1", "macro-F1", "Mean F1 of both classes (a missing prediction is wrong)"),
                ("auc", "AUC", "ROC-AUC of the scores, ties ½"),
            )
        ),
    )


MRMATH = BenchmarkPresentation(
    name="mrmath",
    display_name="MR-MATH",
    summary=(
        "Checking the steps of math solutions (ReasonEval paper, arXiv:2404.05692): 159 MATH "
        "solutions that all reach the correct answer, 83 with an invalid step located by people, "
        "and 300 PRM800K solutions with steps rated useful or redundant. Judges predict, per "
        "solution and per step, whether it is valid (or free of redundancy); macro-F1 scores "
        "binary predictions and ROC-AUC scores. The headline is finding invalid steps."
    ),
    headline="invalid_step_macro_f1",
    overview_extra=("invalid_solution_macro_f1",),
    groups=(
        _mrmath_group("invalid", "Invalid-error set (positive = valid)"),
        _mrmath_group("redundant", "Redundant-error set (positive = no redundant step)"),
    ),
    cluster_label="questions",
    items=(ItemField("solution_pred", "solution_label", "Solution positive", "verdict"),),
    item_text=("set", "question", "model_output"),
)


def _judgebench(name: str, display_name: str, pairs: str) -> BenchmarkPresentation:
    return BenchmarkPresentation(
        name=name,
        display_name=display_name,
        summary=(
            f"Pairwise judging of objectively right and wrong answers (arXiv:2410.12784): {pairs} "
            "A pair counts as correct when the judge's games, each +1 right, -1 wrong, 0 tie or "
            "none, sum above 0 (the second game shows the responses swapped). Headline: pairs "
            "from LiveBench math."
        ),
        headline="math_accuracy",
        overview_extra=("accuracy",),
        groups=(
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
        ),
        cluster_label="pairs",
        items=(ItemField("decisions", "a_better", "Prefers A (games summed)", "verdict"),),
        item_text=("category", "question", "response_a", "response_b"),
    )


JUDGEBENCH = _judgebench(
    "judgebench",
    "JudgeBench",
    "350 pairs of GPT-4o responses to knowledge, reasoning, math and coding questions.",
)
JUDGEBENCH_CLAUDE = _judgebench(
    "judgebench_claude",
    "JudgeBench (Claude pairs)",
    "270 pairs of Claude-3.5-Sonnet responses to knowledge, reasoning, math and coding questions.",
)

PRESENTATIONS: dict[str, BenchmarkPresentation] = {
    p.name: p
    for p in (
        STEPMATHBENCH,
        PROOFBENCH,
        PROOFBENCH_BON,
        MUMATH,
        OPC,
        ARXIVMATHGRADINGBENCH,
        EXPERTMATH,
        HARD2VERIFY,
        MRMATH,
        JUDGEBENCH,
        JUDGEBENCH_CLAUDE,
    )
}


def presentation_for(benchmark: str) -> BenchmarkPresentation:
    """The schema for `benchmark`, or a generic one that shows every metric unscaled."""
    return PRESENTATIONS.get(benchmark) or BenchmarkPresentation(
        name=benchmark,
        display_name=benchmark,
        summary="This benchmark has no presentation schema yet; values are shown unscaled.",
        headline=None,
        groups=(),
    )
