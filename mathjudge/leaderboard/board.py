"""View models of the front page: per benchmark a table ordered by the headline metric with the
leader and whether its lead is significant, and the cross-benchmark view of models.

Every submission has a standing: a rank interval and tie group when it was ranked (publish
ranks a judge only against judges scored on the same item set at full coverage), otherwise the
reason it is shown unranked. Reported rows are placed by value and badged, never given a rank.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mathjudge.leaderboard.pages import RankInfo, judge_page, model_page, rank_info
from mathjudge.leaderboard.views import BenchmarkView, Cell, percent, rank_key, score_cell

FRONT_ROWS = 5  # rows per benchmark on the front page; its page lists every judge

# Short badge text per reason a submission is not ranked (the full reason is its title).
LABELS = {
    "reported": "reported",
    "example": "example data",
    "other dataset": "other build",
    "alone": "no rival scored",
    "undefined": "undefined",
    "not ranked": "unranked",
}


@dataclass(frozen=True)
class Standing:
    rank: RankInfo | None
    kind: str  # "ranked" or why not (see `LABELS`)
    label: str  # short badge text ("" when ranked)
    text: str  # the reason in words


def standing(bench: dict[str, Any], sub: dict[str, Any], headline_label: str) -> Standing:
    rank = rank_info(bench, sub["id"])
    if rank is not None:
        return Standing(rank, "ranked", "", f"rank {rank.text}, tie group {rank.group}")
    why = bench.get("ranks", {}).get("excluded", {}).get(sub["id"])
    if why is None:
        return Standing(None, "not ranked", "unranked", bench.get("ranks", {}).get("status", ""))
    kind = why["kind"]
    if kind == "partial":
        label = f"partial {percent(sub['coverage'])}"
    elif kind == "no headline":
        label = f"no {headline_label}"
    else:
        label = LABELS.get(kind, "unranked")
    return Standing(None, kind, label, why["text"])


@dataclass(frozen=True)
class BoardRow:
    judge: str
    source: str
    citation: str | None
    page: str
    cell: Cell
    standing: Standing
    model: dict[str, str] | None


@dataclass(frozen=True)
class Board:
    """One benchmark's section on the front page."""

    bench: BenchmarkView
    rows: tuple[BoardRow, ...]  # the first FRONT_ROWS by value (plus the leader if below)
    total: int  # judges with a headline value
    leader: BoardRow | None  # the best ranked judge
    tied: tuple[BoardRow, ...]  # others in the leader's tie group
    n_ranked: int
    top_unranked: BoardRow | None  # a higher value that is not ranked (reported, partial...)
    status: str


def board(view: BenchmarkView, bench: dict[str, Any], limit: int | None = FRONT_ROWS) -> Board:
    """The benchmark's judges with a headline value, best first; `limit` rows (None: all)."""
    rows = []
    for sub in bench["submissions"]:
        overall = overall_scores(sub)
        score = overall.get(view.headline.key)
        if score is None or score["value"] is None:
            continue
        rows.append(
            (
                rank_key(view.headline, overall),
                sub["judge"].casefold(),
                BoardRow(
                    judge=sub["judge"],
                    source=sub["source"],
                    citation=sub["citation"],
                    page=judge_page(sub["source"], sub["judge"]),
                    cell=score_cell(view.headline, score),
                    standing=standing(bench, sub, view.headline.label),
                    model=sub.get("model"),
                ),
            )
        )
    rows.sort(key=lambda r: (r[0], r[1]))
    ordered = [r[2] for r in rows]
    ranked = sorted(
        (r for r in ordered if r.standing.rank is not None),
        key=lambda r: (r.standing.rank.point, r.judge.casefold()),  # type: ignore[union-attr]
    )
    leader = ranked[0] if ranked else None
    tied = tuple(
        r
        for r in ranked[1:]
        if leader is not None and r.standing.rank.group == leader.standing.rank.group  # type: ignore[union-attr]
    )
    shown = ordered[:limit] if limit is not None else list(ordered)
    if leader is not None and leader not in shown:
        shown.append(leader)
    top = ordered[0] if ordered else None
    return Board(
        bench=view,
        rows=tuple(shown),
        total=len(ordered),
        leader=leader,
        tied=tied,
        n_ranked=len(ranked),
        top_unranked=top if top is not None and top is not leader else None,
        status=bench.get("ranks", {}).get("status", ""),
    )


def overall_scores(sub: dict[str, Any]) -> dict[str, dict[str, Any]]:
    overall = ("overall", "all")
    return {s["metric"]: s for s in sub["scores"] if (s["scope"], s["subset"]) == overall}


@dataclass(frozen=True)
class CrossCell:
    cell: Cell
    judge: str
    variant: str


@dataclass(frozen=True)
class CrossRow:
    model: dict[str, Any]
    page: str
    cells: tuple[CrossCell | None, ...]


@dataclass(frozen=True)
class CrossView:
    """Models with results on two or more benchmarks: each one's best headline value per
    benchmark (over its variants), with the judge it came from."""

    benchmarks: tuple[BenchmarkView, ...]
    rows: tuple[CrossRow, ...]


def cross_view(
    views: list[BenchmarkView], docs: list[dict[str, Any]], models: list[dict[str, Any]]
) -> CrossView:
    index = {d["name"]: i for i, d in enumerate(docs)}
    subs = {(d["name"], s["id"]): s for d in docs for s in d["submissions"]}
    wide = [m for m in models if len({r["benchmark"] for r in m["results"]}) >= 2]
    used = sorted({index[r["benchmark"]] for m in wide for r in m["results"]})
    rows = []
    for model in sorted(wide, key=lambda m: m["name"].casefold()):
        cells: list[CrossCell | None] = []
        for b in used:
            view = views[b]
            best = None
            for r in model["results"]:
                if r["benchmark"] != view.name:
                    continue
                overall = overall_scores(subs[(view.name, r["submission"])])
                score = overall.get(view.headline.key)
                if score is None or score["value"] is None:
                    continue
                key = rank_key(view.headline, overall)
                if best is None or key < best[0]:
                    cell = score_cell(view.headline, score)
                    best = (key, CrossCell(cell, r["judge"], r["variant"]))
            cells.append(best[1] if best else None)
        rows.append(CrossRow(model, model_page(model["id"]), tuple(cells)))
    return CrossView(tuple(views[b] for b in used), tuple(rows))


@dataclass(frozen=True)
class ChartRow:
    row: BoardRow
    point: float  # percent of the axis
    low: float | None  # whisker, percent of the axis (None: no interval, none drawn)
    high: float | None


@dataclass(frozen=True)
class Chart:
    """A judge-comparison chart drawn in HTML and CSS: each judge's point estimate with its
    95% CI as a whisker, in table order (best first). Values without an interval (reported
    rows) get no whisker."""

    rows: tuple[ChartRow, ...]
    ticks: tuple[tuple[float, str], ...]  # (percent of the axis, label)


def chart(view: BenchmarkView, bench: dict[str, Any], rows: tuple[BoardRow, ...]) -> Chart:
    subs = {(s["source"], s["judge"]): overall_scores(s) for s in bench["submissions"]}
    spec = view.headline
    points = []
    for row in rows:
        score = subs[(row.source, row.judge)][spec.key]
        low, high = score["ci_low"], score["ci_high"]
        interval = (low, high) if low is not None and high is not None else None
        points.append((row, score["value"], interval))
    values = [v for _, v, _ in points] + [x for _, _, ci in points if ci for x in ci]
    if not values:
        return Chart((), ())
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.05 or max(abs(hi), 1e-9) * 0.05
    lo, hi = lo - pad, hi + pad

    def at(x: float) -> float:
        return float(round(100 * (x - lo) / (hi - lo), 2))

    out = tuple(
        ChartRow(row, at(v), at(ci[0]) if ci else None, at(ci[1]) if ci else None)
        for row, v, ci in points
    )
    ticks = tuple((at(x), spec.format(x)) for x in _ticks(lo, hi))
    return Chart(out, ticks)


def _ticks(lo: float, hi: float) -> list[float]:
    """Up to six round values inside (lo, hi)."""
    import math

    span = hi - lo
    step = 10 ** math.floor(math.log10(span / 5))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= 6:
            step *= factor
            break
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1) if first + i * step <= hi]
