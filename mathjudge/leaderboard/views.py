"""View models: the exported leaderboard document shaped into tables, ready to print.

All ordering and number formatting happens here, in plain Python the tests can call, so the
templates only lay out strings. Values from submissions stay plain strings (escaped later).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

from mathjudge.errors import MathJudgeError
from mathjudge.leaderboard.export import SAFE_NAME
from mathjudge.spec.presentation import BenchmarkPresentation, MetricGroup, MetricSpec


@dataclass(frozen=True)
class Cell:
    text: str
    ci: str
    state: Literal["ok", "undefined", "missing"]
    raw: str = ""  # the unscaled value, for client-side sorting


@dataclass(frozen=True)
class Row:
    judge: str
    source: str
    citation: str | None
    coverage: str
    partial: bool
    n: int
    cells: tuple[Cell, ...]
    coverage_raw: str = ""  # for sorting


@dataclass(frozen=True)
class Table:
    caption: str
    groups: tuple[MetricGroup, ...]
    rows: tuple[Row, ...]

    @property
    def columns(self) -> tuple[MetricSpec, ...]:
        return tuple(m for g in self.groups for m in g.metrics)


@dataclass(frozen=True)
class Section:
    anchor: str
    title: str
    tables: tuple[Table, ...]


@dataclass(frozen=True)
class BenchmarkView:
    name: str
    page: str
    show: BenchmarkPresentation
    headline: MetricSpec
    groups: tuple[MetricGroup, ...]
    overview: Table
    sections: tuple[Section, ...]
    submissions: tuple[dict[str, Any], ...]
    datasets: tuple[tuple[str, str, int], ...]  # (version, content hash, judges)
    bootstraps: tuple[str, ...]  # of the reproduced results (reported ones carry none of ours)
    downloads: dict[str, str]

    @property
    def n_reported(self) -> int:
        return sum(s["source"] == "reported" for s in self.submissions)


def benchmark_view(bench: dict[str, Any]) -> BenchmarkView:
    name = bench["name"]
    if not SAFE_NAME.fullmatch(name):
        raise MathJudgeError(f"benchmark name {name!r} cannot be used as a file name")
    show: BenchmarkPresentation = bench["presentation"]
    subs = bench["submissions"]
    groups = metric_groups(show, {s["metric"] for sub in subs for s in sub["scores"]})
    columns = [m for g in groups for m in g.metrics]
    fallback = columns[0] if columns else show.metric(show.headline or "value")
    headline = next((m for m in columns if m.key == show.headline), fallback)
    scopes = sorted({s["scope"] for sub in subs for s in sub["scores"]}, key=show.scope_rank)
    sections, anchors = [], set[str]()
    for scope in scopes:
        spec = show.scope(scope)
        subsets = {s["subset"] for sub in subs for s in sub["scores"] if s["scope"] == scope}
        ordered = sorted(subsets, key=lambda x: _subset_rank(x, spec.order))
        tables = tuple(
            metric_table(spec.caption.format(subset), groups, headline, subs, scope, subset)
            for subset in ordered
        )
        sections.append(Section(_anchor(scope, anchors), spec.title, tables))
    extra = tuple(m for m in columns if m.key in show.overview_extra and m is not headline)
    overview_groups = (MetricGroup("", (headline, *extra)),)
    # Reported rows were scored on the paper's own copy; only reproduced ones name a build.
    datasets = Counter(
        (s["dataset_version"], s["content_hash"]) for s in subs if s.get("source") != "reported"
    )
    return BenchmarkView(
        name=name,
        page=f"{name}.html",
        show=show,
        headline=headline,
        groups=groups,
        overview=metric_table(
            f"{show.display_name}, all items", overview_groups, headline, subs, "overall", "all"
        ),
        sections=tuple(sections),
        submissions=tuple(sorted(subs, key=lambda s: s["judge"].casefold())),
        datasets=tuple((v, h, n) for (v, h), n in sorted(datasets.items())),
        bootstraps=tuple(
            sorted({bootstrap_text(s["bootstrap"]) for s in subs if s["source"] != "reported"})
        ),
        downloads=bench["downloads"],
    )


def metric_groups(show: BenchmarkPresentation, present: set[str]) -> tuple[MetricGroup, ...]:
    """The schema's groups restricted to metrics that occur, plus unknown metrics, unscaled."""
    groups = [
        MetricGroup(g.title, tuple(m for m in g.metrics if m.key in present)) for g in show.groups
    ]
    known = {m.key for g in show.groups for m in g.metrics}
    other = tuple(show.metric(k) for k in sorted(present - known))
    if other:
        groups.append(MetricGroup("Other metrics" if show.groups else "Metrics", other))
    return tuple(g for g in groups if g.metrics)


def metric_table(
    caption: str,
    groups: tuple[MetricGroup, ...],
    headline: MetricSpec,
    submissions: list[dict[str, Any]],
    scope: str,
    subset: str,
) -> Table:
    """One row per judge with a score in (scope, subset), best headline value first."""
    columns = [m for g in groups for m in g.metrics]
    ranked = []
    for sub in submissions:
        scores = {
            s["metric"]: s for s in sub["scores"] if s["scope"] == scope and s["subset"] == subset
        }
        if not scores:
            continue
        row = Row(
            judge=sub["judge"],
            source=sub["source"],
            citation=sub["citation"],
            coverage=percent(sub["coverage"]),
            partial=bool(sub["partial"]) or sub["coverage"] < 1,
            n=max(s["n"] for s in scores.values()),
            cells=tuple(score_cell(m, scores.get(m.key)) for m in columns),
            coverage_raw=repr(sub["coverage"]),
        )
        ranked.append((rank_key(headline, scores), sub["judge"].casefold(), row))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return Table(caption, groups, tuple(r[2] for r in ranked))


def rank_key(headline: MetricSpec, scores: dict[str, dict[str, Any]]) -> tuple[int, float]:
    """Sort key: defined values by the metric's direction, undefined (or unranked) last."""
    value = scores.get(headline.key, {}).get("value")
    if value is None or headline.direction is None:
        return (1, 0.0)
    if headline.direction == "higher":
        return (0, -value)
    if headline.direction == "lower":
        return (0, value)
    if headline.direction == "closer to zero":
        return (0, abs(value))
    gold = scores.get(headline.reference or "", {}).get("value")
    return (1, 0.0) if gold is None else (0, abs(value - gold))


def score_cell(spec: MetricSpec, score: dict[str, Any] | None) -> Cell:
    if score is None:
        return Cell("—", "", "missing")
    if score["value"] is None:
        return Cell("n/a", "", "undefined")
    low, high = score["ci_low"], score["ci_high"]
    ci = "[no CI]" if low is None or high is None else f"[{spec.format(low)}, {spec.format(high)}]"
    return Cell(spec.format(score["value"]), ci, "ok", repr(score["value"]))


def percent(fraction: float) -> str:
    return "100%" if fraction >= 1 else f"{fraction * 100:.1f}%"


def _subset_rank(subset: str, order: tuple[str, ...]) -> tuple[int, int, float, str]:
    """Schema order first, then numbers numerically, then text alphabetically."""
    if subset in order:
        return (0, order.index(subset), 0.0, "")
    try:
        number = float(subset)
    except ValueError:
        number = math.nan
    if math.isfinite(number):
        return (1, 0, number, "")
    return (1, 1, 0.0, subset.casefold())


def _anchor(scope: str, taken: set[str]) -> str:
    base = "scope-" + (re.sub(r"[^a-z0-9]+", "-", scope.casefold()).strip("-") or "x")
    anchor, i = base, 1
    while anchor in taken:
        i += 1
        anchor = f"{base}-{i}"
    taken.add(anchor)
    return anchor


def bootstrap_text(bootstrap: dict[str, Any]) -> str:
    """Reported results may carry no bootstrap; say so rather than fail or print blanks."""
    if "B" not in bootstrap:
        return "none recorded"
    unit = f", clusters: {bootstrap['unit']}" if "unit" in bootstrap else ""
    return f"B = {bootstrap['B']} resamples, seed {bootstrap.get('seed', '?')}{unit}"


# Meta keys that are our own bookkeeping (where a reported row was transcribed from, in our data
# files): kept in the meta JSON, not shown on the pages.
HIDDEN_META = frozenset({"transcribed_from"})


def meta_text(key: str, value: Any) -> str | None:
    """A meta value as a reader sees it: lists of texts comma-separated (the document keeps
    non-text values as JSON text), None for a hidden key."""
    if key in HIDDEN_META:
        return None
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            return text
        if isinstance(items, list) and all(isinstance(i, str | int | float) for i in items):
            return ", ".join(str(i) for i in items) if items else "none"
    return text
