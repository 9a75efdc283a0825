"""Benchmark figures as static SVG files (matplotlib), drawn from the exported scores only.

Every figure repeats numbers that are also in a table on the same page, so it is shown as an
`<img>` (an SVG there cannot run script) with alt text pointing to that table. Baselines
(`kind: baseline`) are never series among the judges: they are drawn as grey dashed reference
lines (marks, on a scatter), labelled as baselines. Judge names
reach matplotlib as plain text: math-text parsing is off (a name with `$` stays literal) and
the SVG writer escapes XML. Output is deterministic (fixed hash salt, no date), so rebuilding an
unchanged store gives byte-identical files.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.typing import RcKeyType

from mathjudge.spec.document import BoardSubmission
from mathjudge.spec.presentation import BenchmarkPresentation, PlotSpec
from mathjudge.spec.results import Score

MAX_SERIES = 10  # judges per figure; the tables list all of them
# Confusion heatmaps are one figure per judge: those of the best few (about a second each to
# draw, so a hundred judges must not mean a hundred figures).
MAX_HEATMAPS = 3
WIDTH = 10.0  # inches: drawn for the full content width, so 12 pt text stays legible
STYLE: dict[RcKeyType, Any] = {
    "svg.hashsalt": "mathjudge",
    "svg.fonttype": "none",
    "text.parse_math": False,
    "font.size": 12,
    "legend.fontsize": 11,
    "axes.titlesize": 12,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


@dataclass(frozen=True)
class Plot:
    file: str  # relative to the site's plots/ folder
    title: str
    alt: str
    svg: str
    wide: bool = True  # drawn for the full content width (heatmaps: two side by side)


def benchmark_plots(show: BenchmarkPresentation, subs: list[BoardSubmission]) -> list[Plot]:
    plots: list[Plot] = []
    for spec in show.plots:
        plots += DRAW[spec.kind](show, spec, subs)
    return plots


def _scores(sub: BoardSubmission, scope: str) -> Iterator[Score]:
    return (s for s in sub.scores if s.scope == scope)


def _value(
    sub: BoardSubmission, metric: str, scope: str = "overall", subset: str = "all"
) -> Score | None:
    for s in sub.scores:
        if (s.scope, s.subset, s.metric) == (scope, subset, metric):
            return s
    return None


def _baselines(subs: list[BoardSubmission]) -> list[BoardSubmission]:
    return [s for s in subs if s.kind == "baseline"]


def _leading(show: BenchmarkPresentation, subs: list[BoardSubmission]) -> list[BoardSubmission]:
    """Up to MAX_SERIES judges (baselines are reference lines, not judges): reproduced
    first, each group by its headline, best first."""
    subs = [s for s in subs if s.kind != "baseline"]
    headline = show.metric(show.headline) if show.headline else None

    def key(sub: BoardSubmission) -> tuple[bool, float, str]:
        score = _value(sub, headline.key) if headline else None
        value = score.value if score is not None else None
        reported = sub.provenance == "paper"
        if value is None or headline is None or headline.direction is None:
            return (reported, float("inf"), sub.judge)
        sign = -1.0 if headline.direction == "higher" else 1.0
        amount = abs(value) if headline.direction == "closer to zero" else value
        return (reported, sign * amount, sub.judge)

    return sorted(subs, key=key)[:MAX_SERIES]


def _number(subset: str) -> float | None:
    match = re.search(r"-?\d+(\.\d+)?", subset)
    return float(match.group()) if match else None


@contextmanager
def _figure(width: float = WIDTH, height: float = 4.8) -> Iterator[Any]:
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(width, height), layout="constrained")
        try:
            yield fig, ax
        finally:
            plt.close(fig)


def _svg(fig: Any) -> str:
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def _bars(point: float, low: float | None, high: float | None, scale: float) -> tuple[float, float]:
    """(below, above) error-bar lengths from a scaled point to unscaled CI bounds. A percentile
    interval need not contain the point estimate; a bar then stops at the point."""
    below = 0.0 if low is None else max(0.0, point - low * scale)
    above = 0.0 if high is None else max(0.0, high * scale - point)
    return below, above


def _label(sub: BoardSubmission) -> str:
    if sub.kind == "baseline":
        return f"{sub.judge} (baseline)"
    return sub.judge + (" (paper)" if sub.provenance == "paper" else "")


REFERENCE = {"color": "grey", "ls": "--", "lw": 1.2}  # how a baseline is drawn


def _scope_bars(
    show: BenchmarkPresentation, spec: PlotSpec, subs: list[BoardSubmission]
) -> list[Plot]:
    # The first of the spec's metrics that any judge has in this scope.
    judges, subsets, metric = [], [], show.metric(spec.metrics[0])
    for key in spec.metrics:
        metric = show.metric(key)
        judges = [
            s for s in _leading(show, subs)
            if any(x.metric == key and x.value is not None for x in _scores(s, spec.scope))
        ]  # fmt: skip
        subsets = sorted({x.subset for s in judges for x in _scores(s, spec.scope)})
        if judges:
            break
    if not judges or not subsets:
        return []
    width = 0.8 / len(judges)
    with _figure(WIDTH, 5.2) as (fig, ax):
        for j, sub in enumerate(judges):
            xs: list[float] = []
            ys: list[float] = []
            ci: tuple[list[float], list[float], list[tuple[float, float]]] = ([], [], [])
            for i, subset in enumerate(subsets):
                score = _value(sub, metric.key, spec.scope, subset)
                if score is None or score.value is None:
                    continue
                v = score.value * metric.scale
                x = i + (j - (len(judges) - 1) / 2) * width
                xs.append(x)
                ys.append(v)
                lo, hi = score.ci_low, score.ci_high
                if lo is not None and hi is not None:  # whiskers only where there is a CI
                    below, above = _bars(v, lo, hi, metric.scale)
                    ci[0].append(x)
                    ci[1].append(v)
                    ci[2].append((below, above))
            bars = ax.bar(xs, ys, width, label=_label(sub))
            if ci[0]:
                ax.errorbar(ci[0], ci[1], yerr=list(zip(*ci[2], strict=True)), fmt="none",
                            ecolor="black", capsize=3, lw=1)  # fmt: skip
            if sub.provenance == "paper":
                for bar in bars:
                    bar.set_hatch("//")
        references = _baselines(subs)
        for sub in references:
            labelled = False
            for i, subset in enumerate(subsets):
                score = _value(sub, metric.key, spec.scope, subset)
                if score is None or score.value is None:
                    continue
                ax.hlines(score.value * metric.scale, i - 0.45, i + 0.45, **REFERENCE,
                          label=None if labelled else _label(sub))  # fmt: skip
                labelled = True
        ax.set_xticks(range(len(subsets)), subsets)
        ax.set_ylabel(f"{metric.label} {metric.scale_text}".strip())
        ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
        svg = _svg(fig)
    alt = (
        f"Bar chart of {metric.label} per {spec.scope} for {len(judges)} judges, with 95% "
        "intervals where a judge has one (hatched bars: reported in a paper, no interval drawn)"
        + ("; dashed lines: baselines, for reference" if references else "")
        + "; the same numbers are in the table of that scope below."
    )
    return [Plot(f"{show.name}-{spec.kind}.svg", spec.title, alt, svg)]


def _tpr_tnr(
    show: BenchmarkPresentation, spec: PlotSpec, subs: list[BoardSubmission]
) -> list[Plot]:
    points = []
    for sub in _leading(show, subs):
        tpr, tnr = _value(sub, "tpr"), _value(sub, "tnr")
        if tpr and tnr and tpr.value is not None and tnr.value is not None:
            points.append((sub, tpr, tnr))
    if not points:
        return []
    with _figure(WIDTH, 6.4) as (fig, ax):
        for sub, tpr, tnr in points:
            x, y = (tpr.value or 0) * 100, (tnr.value or 0) * 100
            reported = sub.provenance == "paper"
            xerr = yerr = None
            if tpr.ci_low is not None and tnr.ci_low is not None:
                xerr = [[b] for b in _bars(x, tpr.ci_low, tpr.ci_high, 100)]
                yerr = [[b] for b in _bars(y, tnr.ci_low, tnr.ci_high, 100)]
            ax.errorbar(
                x,
                y,
                xerr=xerr,
                yerr=yerr,
                fmt="o",
                mfc="none" if reported else None,
                capsize=2,
                label=_label(sub),
            )
        for sub in _baselines(subs):
            tpr, tnr = _value(sub, "tpr"), _value(sub, "tnr")
            if tpr and tnr and tpr.value is not None and tnr.value is not None:
                ax.plot(tpr.value * 100, tnr.value * 100, marker="x", ls="none", color="grey",
                        markersize=9, label=_label(sub))  # fmt: skip
        ax.plot([0, 100], [100, 0], ls=":", lw=0.8, color="grey")
        ax.set_xlim(0, 100)
        ax.set_ylim(0, 100)
        ax.set_xlabel("TPR ×100 (correct solutions judged correct)")
        ax.set_ylabel("TNR ×100 (incorrect judged incorrect)")
        ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
        svg = _svg(fig)
    alt = (
        f"Scatter of TPR against TNR for {len(points)} judges (hollow markers: reported; grey "
        "crosses: baselines, for reference); the values are in the Overall table."
    )
    return [Plot(f"{show.name}-{spec.kind}.svg", spec.title, alt, svg)]


def _k_curve(
    show: BenchmarkPresentation, spec: PlotSpec, subs: list[BoardSubmission]
) -> list[Plot]:
    series = []
    for sub in _leading(show, subs):
        lines = {}
        for metric in spec.metrics:
            pts = sorted(
                (_number(x.subset), x.value)
                for x in _scores(sub, spec.scope)
                if x.metric == metric and x.value is not None and _number(x.subset)
            )
            if len(pts) >= 2:  # a curve needs two points; one value is in the tables
                lines[metric] = pts
        if lines:
            series.append((sub, lines))
    if not series:
        return []
    with _figure() as (fig, ax):
        for sub, lines in series:
            for metric, pts in lines.items():
                ls = "-" if metric == spec.metrics[0] else "--"
                xs, ys = zip(*pts, strict=True)
                ax.plot(xs, [y * 100 for y in ys], ls, marker="o", label=f"{_label(sub)}: {metric}")
        ax.set_xlabel("runs pooled (k)")
        ax.set_ylabel("×100")
        ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
        svg = _svg(fig)
    alt = (
        f"{' and '.join(spec.metrics)} against the number of runs pooled for {len(series)} "
        "judges (solid: first metric, dashed: second); the values are in the By number of runs "
        "pooled tables."
    )
    return [Plot(f"{show.name}-{spec.kind}.svg", spec.title, alt, svg)]


def _bon_curve(
    show: BenchmarkPresentation, spec: PlotSpec, subs: list[BoardSubmission]
) -> list[Plot]:
    def curve(sub: BoardSubmission, metric: str) -> list[tuple[float, float]]:
        points = []
        for x in _scores(sub, spec.scope):
            n = _number(x.subset)
            if x.metric == metric and x.value is not None and n:
                points.append((n, x.value))
        return sorted(points)

    judges = [(s, curve(s, "bon_score")) for s in _leading(show, subs)]
    judges = [(s, c) for s, c in judges if len(c) >= 2]  # one n is no curve against n
    if not judges:
        return []
    with _figure() as (fig, ax):
        for sub, pts in judges:
            xs, ys = zip(*pts, strict=True)
            ax.plot(xs, ys, marker="o", label=_label(sub))
        for metric, text in (("bon_oracle", "oracle"), ("bon_first_n_mean", "mean of first n")):
            baseline = next((c for c in (curve(s, metric) for s, _ in judges) if c), [])
            if len(baseline) >= 2:
                xs, ys = zip(*baseline, strict=True)
                ax.plot(xs, ys, ls="--", color="black" if metric == "bon_oracle" else "grey",
                        marker="s", label=text)  # fmt: skip
        for sub in _baselines(subs):
            pts = curve(sub, "bon_score")
            if len(pts) >= 2:
                xs, ys = zip(*pts, strict=True)
                ax.plot(xs, ys, **{**REFERENCE, "ls": ":"}, label=_label(sub))
        ax.set_xlabel("n (proofs to choose from)")
        ax.set_ylabel("expected expert score (0–7)")
        ax.set_ylim(0, 7)
        ax.legend(loc="upper left", bbox_to_anchor=(1, 1))
        svg = _svg(fig)
    alt = (
        f"Best-of-n curves for {len(judges)} judges with the oracle and mean baselines, and "
        "the shortcut baselines dotted; the values are in the By n tables."
    )
    return [Plot(f"{show.name}-{spec.kind}.svg", spec.title, alt, svg)]


def _confusion_heatmap(
    show: BenchmarkPresentation, spec: PlotSpec, subs: list[BoardSubmission]
) -> list[Plot]:
    plots = []
    with_matrix = [s for s in subs if s.extras.get("confusion_matrix")]
    for n, sub in enumerate(_leading(show, with_matrix)[:MAX_HEATMAPS]):
        cells = sub.extras["confusion_matrix"]
        size = 1 + max(max(c["expert"], c["predicted"]) for c in cells)
        grid = [[0] * size for _ in range(size)]
        for c in cells:
            grid[c["expert"]][c["predicted"]] = c["count"]
        with _figure(6.4, 5.6) as (fig, ax):
            image = ax.imshow(grid, cmap="Blues", origin="lower")
            top = max(max(row) for row in grid) or 1
            for e in range(size):
                for p in range(size):
                    colour = "white" if grid[e][p] > top / 2 else "black"
                    ax.text(p, e, str(grid[e][p]), ha="center", va="center", fontsize=11,
                            color=colour)  # fmt: skip
            ax.set_xlabel("judge score (rounded)")
            ax.set_ylabel("expert score")
            ax.set_title(sub.judge)
            fig.colorbar(image, ax=ax, shrink=0.8)
            svg = _svg(fig)
        alt = (
            f"Heatmap of expert score against the rounded score of judge {sub.judge}: "
            "counts of proofs per cell, 0 to 7 on both axes."
        )
        plots.append(Plot(f"{show.name}-{spec.kind}-{n + 1}.svg", spec.title, alt, svg, wide=False))
    return plots


DRAW: dict[str, Callable[..., list[Plot]]] = {
    "scope_bars": _scope_bars,
    "tpr_tnr": _tpr_tnr,
    "k_curve": _k_curve,
    "bon_curve": _bon_curve,
    "confusion_heatmap": _confusion_heatmap,
}
