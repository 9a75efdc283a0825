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

Direction = Literal["higher", "lower", "closer to gold"]

DIRECTION_TEXT: dict[Direction, str] = {
    "higher": "higher is better",
    "lower": "lower is better",
    "closer to gold": "closer to the gold reference is better",
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
)

PRESENTATIONS: dict[str, BenchmarkPresentation] = {p.name: p for p in (STEPMATHBENCH,)}


def presentation_for(benchmark: str) -> BenchmarkPresentation:
    """The schema for `benchmark`, or a generic one that shows every metric unscaled."""
    return PRESENTATIONS.get(benchmark) or BenchmarkPresentation(
        name=benchmark,
        display_name=benchmark,
        summary="This benchmark has no presentation schema yet; values are shown unscaled.",
        headline=None,
        groups=(),
    )
