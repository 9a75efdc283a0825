"""ArxivMathGradingBench: finding real errors in 35 research papers (Pseudo-Formalization paper)."""

from __future__ import annotations

from mathjudge.spec.benchmark import BenchmarkSpec, Paper
from mathjudge.spec.presentation import MetricGroup, MetricSpec, PlotSpec, ScopeSpec


def _pct(key: str, label: str, description: str) -> MetricSpec:
    return MetricSpec(key, label, description, scale=100, decimals=1, direction="higher")


SPEC = BenchmarkSpec(
    name="arxivmathgradingbench",
    title="ArxivMathGradingBench",
    summary=(
        "Error finding in research papers: for each of 35 arXiv math papers whose later "
        "version corrects an error in a named result, the judge lists where the error is. "
        "Predicted locations of the first k runs are pooled; a ground-truth location counts as "
        "found when a prediction matches it (Pseudo-Formalization paper, §4.2). Overall = the "
        "largest k."
    ),
    paper=Paper("Pseudo-Formalization for Automatic Proof Verification", "2605.20531"),
    dataset="arxivmathgradingbench",
    items_config="papers",
    seed=1,
    headline="f1",
    cluster_label="papers",
    groups=(
        MetricGroup(
            "Error locations (positive = an error)",
            (
                _pct("f1", "F1", "Harmonic mean of precision and recall, ×100."),
                _pct(
                    "precision", "Precision", "Found locations / (found + false predictions), ×100."
                ),
                _pct("recall", "Recall", "Ground-truth locations found, ×100."),
                _pct("coverage", "Coverage", "Papers with every error found, ×100."),
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
    pdfs=".pdfs:write_with_pdfs",
    command=".cli:arxiv",
)
