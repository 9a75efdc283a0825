"""How a benchmark's metrics, scopes, item fields and plots are described, once.

Scores are stored in natural units (fractions, score points); papers print them scaled (x10,
x100). The `MetricSpec` of a metric is its only declaration: the scorer computes the metrics a
spec lists, the store keeps them unscaled, and the site formats them from the same object.
Plain frozen dataclasses so that reading a spec costs nothing at start-up; the leaderboard
document embeds them as they are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Direction = Literal["higher", "lower", "closer to gold", "closer to zero"]

DIRECTION_TEXT: dict[str, str] = {
    "higher": "higher is better",
    "lower": "lower is better",
    "closer to gold": "closer to the gold reference is better",
    "closer to zero": "closer to zero is better",
}


@dataclass(frozen=True)
class MetricSpec:
    """One metric. `direction` None marks a reference value (e.g. the gold mean).

    `field` names the prediction field the metric needs (None: any scored field); `ci` False
    marks a count that is a fact of the data, reported without a bootstrap interval. `n_from`
    names the summed statistic counting the items the metric is computed on, where that is not
    every item of the subset (JudgeBench's math accuracy: its math pairs); it is the score's n.
    """

    key: str
    label: str
    description: str
    scale: float = 1.0
    decimals: int | None = None  # None: raw value, 4 significant digits
    direction: Direction | None = None
    reference: str | None = None  # metric holding the gold value for "closer to gold"
    field: str | None = None
    ci: bool = True
    n_from: str | None = None

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


OVERALL = ScopeSpec("overall", "Overall", "All items")


@dataclass(frozen=True)
class ItemField:
    """How the item explorer shows one stored prediction field next to its gold column."""

    field: str  # prediction field as kept in the store's item_predictions
    gold: str  # column of the benchmark's items config
    label: str
    kind: Literal["score", "verdict", "binary"]  # verdict: votes +1/-1/0; binary: 0/1
    tolerance: float = 0.0  # |prediction - gold| above this is a disagreement (scores)
    # The field in plain words for the legend beside every judge's call on an item view.
    description: str = ""
    # How a verdict reads: the words for a positive, a negative and a zero value (a binary
    # field uses the first two); the gold label is read with the same words.
    words: tuple[str, str, str] = ("correct", "incorrect", "inconclusive")


@dataclass(frozen=True)
class ItemNote:
    """A stored per-item value that is not compared with gold (a process reward model's
    aggregated score, MR-MATH's counts of right steps), named in plain words for the legend
    beside every judge's call on an item view."""

    field: str
    label: str
    description: str


@dataclass(frozen=True)
class PlotSpec:
    """A figure on the benchmark page; `kind` names a function in `leaderboard.plots`."""

    kind: Literal["scope_bars", "tpr_tnr", "k_curve", "bon_curve", "confusion_heatmap"]
    title: str
    scope: str = "overall"
    metrics: tuple[str, ...] = ()


@dataclass(frozen=True)
class BenchmarkPresentation:
    """What the site needs to show one benchmark: the presentation half of its spec, carried
    in the leaderboard document so the renderer never looks a benchmark up."""

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
    # The other per-item values a judge's call holds, in plain words (see `ItemNote`).
    item_notes: tuple[ItemNote, ...] = ()
    # An item view's title after the benchmark's name: item columns in braces
    # ("problem {problem_index}, solution {solution_reference}"); the start of its text follows.
    item_title: str = "{item_id}"
    # (text column, where the text lives) for texts the source does not hold, e.g. the
    # solutions a judge scored, published elsewhere: said where the text would be.
    text_elsewhere: tuple[tuple[str, str], ...] = ()
    first_step: int = 1  # how a list of steps is numbered (ProcessBench counts from 0)
    # What a reader must know to read the headline value right where the rule surprises
    # (RewardMATH: a tie counts as a miss); the glance says it beside the value.
    headline_note: str = ""
    plots: tuple[PlotSpec, ...] = ()
    dataset: str = ""  # the built dataset it is scored on (several benchmarks may share one)
    items_config: str = ""  # the dataset's config whose rows are the items
    # Why the dataset's texts must not leave the machine it was built on (spec `local_only`):
    # a published site leaves them out unless built for local use.
    local_only: str | None = None

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


def generic_presentation(name: str) -> BenchmarkPresentation:
    """For a stored benchmark this installation does not know: every metric shown unscaled."""
    return BenchmarkPresentation(
        name=name,
        display_name=name,
        summary="This benchmark has no presentation schema here; values are shown unscaled.",
        headline=None,
        groups=(),
    )
