"""Who leads each benchmark, and whether the lead is real: the glance, the verdicts and the
front page's boards, for every state of the page's filters.

Every submission has a standing: a rank interval and tie group when it was ranked (publish
ranks a judge only against judges scored on the same item set at full coverage), otherwise the
reason it is shown unranked. Results copied from papers are placed by value and badged, never
ranked. Baselines (constants, shortcuts) are reference lines: kept apart from the judges
(`split`), shown beside the board and drawn across the chart, never a leader.

The filters (which sources, which kind of judge) change who is shown, so the glance and the
verdicts are computed here for every filter state a page offers and rendered once per distinct
text, each tagged with the states it answers (`data-when`); the page's script shows the one of
the current state. Without the script the default state (everything) is what a reader sees.
The ranks themselves never change with a filter: they are statistics of all ranked judges.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Literal

from mathjudge.site.views import (
    PROVENANCE_LABEL,
    PROVENANCE_TEXT,
    PROVENANCES,
    UNSTATED,
    Cell,
    JudgeRef,
    Metrics,
    MetricView,
    Standing,
    View,
    overall_scores,
    rank_key,
    score_cell,
)
from mathjudge.spec.document import BenchmarkDocument, BoardSubmission

FRONT_ROWS = 5  # rows per benchmark on the front page; its page lists every judge
PHONE_ROWS = 1  # of them on a phone (and the leader), where fifteen boards of five rows are too
# long a page: the board's own page lists every result
ALL_KINDS = "all"
NO_JUDGE = "no judge reproduced here yet, only baselines (reference lines) and papers' values"


class FilterState(View):
    sources: tuple[str, ...]  # provenances shown, in PROVENANCES order
    kind: str  # a kind key, or ALL_KINDS
    mtype: str = ALL_KINDS  # a model type key (`JudgeRef.mtype`), or ALL_KINDS

    @property
    def key(self) -> str:
        """The state's name as the page's script spells it from its controls: the shown
        sources as bits (1 predictions, 2 published outputs, 4 papers), then the kind, then
        the model type."""
        bits = sum(1 << i for i, p in enumerate(PROVENANCES) if p in self.sources)
        return f"{bits}-{self.kind}-{self.mtype}"

    def shows(self, judge: JudgeRef) -> bool:
        return (
            judge.source.provenance in self.sources
            and self.kind in (ALL_KINDS, judge.kind)
            and self.mtype in (ALL_KINDS, judge.mtype)
        )


def filter_states(kinds: Iterable[str], mtypes: Iterable[str] = ()) -> list[FilterState]:
    """Every combination of shown sources with every kind choice and every model type choice
    (all, or one); the first is the default, everything shown."""
    subsets = [
        tuple(p for i, p in enumerate(PROVENANCES) if mask >> i & 1)
        for mask in range(2 ** len(PROVENANCES) - 1, -1, -1)
    ]
    choices = [ALL_KINDS, *sorted(set(kinds))]
    types = [ALL_KINDS, *sorted(set(mtypes))]
    return [
        FilterState(sources=s, kind=k, mtype=t) for s in subsets for k in choices for t in types
    ]


class Entry(View):
    """A submission with a headline value, as the boards and the glance place it."""

    judge: JudgeRef
    standing: Standing
    cell: Cell


class GlanceLine(View):
    """One benchmark in one line: leader, value with metric, direction, n and interval, and
    the verdict. `when`: the filter states it answers ("*": every state no other line
    answers)."""

    when: tuple[str, ...]
    default: bool
    top: Entry | None  # the leader, else the highest value shown
    verdict: Literal["lead", "tied", "filtered", "none", "empty"]
    verdict_text: str  # "significant lead", "tied with 2 others", "no ranking"
    reason: str  # why, in words
    higher: Entry | None  # a higher value that is not ranked (a paper's, a partial judge's)


class Glance(View):
    name: str
    title: str
    page: str
    metric: MetricView
    lines: tuple[GlanceLine, ...]
    note: str  # what a reader must know to read the headline right ("" when nothing)


class BoardRow(View):
    entry: Entry
    when: tuple[str, ...]  # states whose top rows include it
    default: bool
    phone_extra: bool  # shown by default, but past the first PHONE_ROWS (hidden on a phone)


class Board(View):
    """One benchmark's card on the front page: its glance lines and its top rows for every
    filter state (the script shows the first FRONT_ROWS rows the filters let through), and its
    reference lines (baselines), listed apart."""

    glance: Glance
    rows: tuple[BoardRow, ...]
    total: int  # the benchmark's results (the count every page prints)
    count_text: str
    references: tuple[Entry, ...] = ()


def entries(
    bench: BenchmarkDocument,
    cols: Metrics,
    refs: dict[str, JudgeRef],
    standings: dict[str, Standing],
) -> list[tuple[BoardSubmission, Entry]]:
    """Submissions with a defined headline value, best first."""
    out = []
    for sub in bench.submissions:
        scores = overall_scores(sub)
        score = scores.get(cols.headline_spec.key)
        if score is None or score.value is None:
            continue
        key = (rank_key(cols.headline_spec, scores), sub.judge.casefold(), sub.id)
        entry = Entry(
            judge=refs[sub.id],
            standing=standings[sub.id],
            cell=score_cell(cols.headline_spec, score),
        )
        out.append((key, sub, entry))
    out.sort(key=lambda r: r[0])
    return [(sub, entry) for _, sub, entry in out]


Placed = list[tuple[BoardSubmission, Entry]]


def split(placed: Placed) -> tuple[Placed, Placed]:
    """The judges, and the reference lines (baselines), each best first."""
    judges = [(s, e) for s, e in placed if not e.judge.reference]
    return judges, [(s, e) for s, e in placed if e.judge.reference]


def glance_line(
    bench: BenchmarkDocument,
    placed: list[tuple[BoardSubmission, Entry]],
    state: FilterState,
) -> GlanceLine:
    """The glance for one filter state (`when` left empty; `glance` groups states)."""
    shown = [e for _, e in placed if state.shows(e.judge)]
    ranked = sorted(
        (e for e in shown if e.standing.rank_point is not None),
        key=lambda e: (e.standing.rank_point, e.judge.judge.casefold()),
    )
    everyone = [e for _, e in placed if e.standing.rank_point is not None]
    n_ranked = len(bench.ranks.judges)
    top = ranked[0] if ranked else (shown[0] if shown else None)
    higher = shown[0] if ranked and shown and shown[0] is not ranked[0] else None
    common = {"when": (), "default": False, "top": top, "higher": higher}
    ours = [e for _, e in placed if not e.judge.source.reported]
    if top is None:
        if bench.submissions and placed:
            return GlanceLine(
                **common, verdict="empty", verdict_text="nothing shown",
                reason="the filters hide every result of this benchmark",
            )  # fmt: skip
        return GlanceLine(
            **common, verdict="empty", verdict_text="no result",
            reason=NO_JUDGE if bench.submissions else "no judge gives the headline metric yet",
        )  # fmt: skip
    if not ranked:
        if top.judge.source.reported and not ours:
            why = f"copied from a paper, which is never ranked; {NO_JUDGE}"
        elif top.judge.source.reported:
            why = "copied from a paper, which is never ranked"
        elif n_ranked:
            why = f"{top.standing.text}; no ranked judge is shown"
        else:
            why = bench.ranks.status.removeprefix("not ranked: ")
        return GlanceLine(**common, verdict="none", verdict_text="no ranking", reason=why)
    leader = ranked[0]
    group = [e for e in everyone if e.standing.group == leader.standing.group and e is not leader]
    best = min(everyone, key=lambda e: e.standing.rank_point or math.inf)
    if leader is not best:
        return GlanceLine(
            **common, verdict="filtered", verdict_text="best of those shown",
            reason=f"{leader.standing.text}; the overall leader, {best.judge.judge}, is hidden "
            "by the filters",
        )  # fmt: skip
    if not group:
        others = n_ranked - 1
        return GlanceLine(
            **common, verdict="lead", verdict_text="significant lead",
            reason=f"alone in tie group {leader.standing.group}: better than each of the "
            f"{others} other ranked judge{'' if others == 1 else 's'} (paired bootstrap, 5% "
            "level)",
        )  # fmt: skip
    names = ", ".join(e.judge.judge for e in group)
    hidden = sum(1 for e in group if e not in shown)
    return GlanceLine(
        **common, verdict="tied", verdict_text=f"tied with {len(group)}",
        reason=f"tie group {leader.standing.group} also holds {names}: the data cannot tell "
        "them apart" + (f" ({hidden} hidden by the filters)" if hidden else ""),
    )  # fmt: skip


def glance(
    bench: BenchmarkDocument,
    title: str,
    page: str,
    cols: Metrics,
    placed: list[tuple[BoardSubmission, Entry]],
    states: list[FilterState],
) -> Glance:
    """The glance of every state, one line per distinct content."""
    lines: dict[str, tuple[GlanceLine, list[str]]] = {}
    for state in states:
        line = glance_line(bench, placed, state)
        key = line.model_dump_json()
        lines.setdefault(key, (line, []))[1].append(state.key)
    default = states[0].key
    widest = max(len(keys) for _, keys in lines.values())
    found, fallback = [], False
    for line, keys in lines.values():
        # The line answering the most states is the fallback ("*"): the others list theirs.
        when = ("*",) if len(keys) == widest and not fallback else tuple(keys)
        fallback = fallback or when == ("*",)
        found.append(line.model_copy(update={"when": when, "default": default in keys}))
    return Glance(
        name=bench.name,
        title=title,
        page=page,
        metric=cols.headline,
        lines=tuple(found),
        note=bench.presentation.headline_note,
    )


def board(
    glanced: Glance,
    placed: list[tuple[BoardSubmission, Entry]],
    states: list[FilterState],
    count_text: str,
    total: int,
    references: list[Entry] | None = None,
) -> Board:
    """The rows any filter state shows first (its FRONT_ROWS best, and its leader), in one
    order; each row knows the states it is shown for. `placed` holds the judges only; the
    reference lines are listed apart."""
    when: dict[str, list[str]] = {}
    leaders: dict[str, str] = {}
    for state in states:
        shown = [(s, e) for s, e in placed if state.shows(e.judge)]
        top = [s.id for s, _ in shown[:FRONT_ROWS]]
        ranked = [(s, e) for s, e in shown if e.standing.rank_point is not None]
        if ranked:
            leader = min(ranked, key=lambda r: r[1].standing.rank_point or math.inf)[0].id
            leaders[state.key] = leader
            if leader not in top:
                top.append(leader)
        for sid in top:
            when.setdefault(sid, []).append(state.key)
    default = states[0].key
    rows = []
    before = 0  # default rows placed so far
    for s, e in placed:
        if s.id not in when:
            continue
        on = default in when[s.id]
        extra = on and before >= PHONE_ROWS and s.id != leaders.get(default)
        rows.append(BoardRow(entry=e, when=tuple(when[s.id]), default=on, phone_extra=extra))
        before += on
    return Board(
        glance=glanced,
        rows=tuple(rows),
        total=total,
        count_text=count_text,
        references=tuple(references or ()),
    )


GLANCE_DATA = "glance.js"  # under data/: what a search composes the glance from


def glance_data(placed: dict[str, list[tuple[BoardSubmission, Entry]]]) -> str:
    """The script file a page loads on its first search: per benchmark, every result with a
    headline value, best first, as [judge, page, provenance, kind, search text, rank (or
    null), configuration, standing in words, value, interval, n, kind label], and the source
    badges' words. JSON inside one call, so nothing in it can run."""
    payload = {
        "labels": PROVENANCE_LABEL,
        "titles": PROVENANCE_TEXT,
        "benchmarks": {
            name: [_glance_entry(e) for _, e in entries] for name, entries in placed.items()
        },
    }
    body = json.dumps(payload, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return f"mathjudgeGlance({body});\n"


def _glance_entry(e: Entry) -> list[object]:
    j = e.judge
    kind = "" if j.kind == UNSTATED else j.kind_label
    return [
        j.judge, j.page, j.source.provenance, j.kind, j.search, e.standing.rank_point,
        j.source.configuration, e.standing.text, e.cell.text, e.cell.ci, e.cell.n, kind,
    ]  # fmt: skip


class ChartRow(View):
    entry: Entry
    point: float  # percent of the axis
    low: float | None  # whisker, percent of the axis (None: no interval, none drawn)
    high: float | None
    paper: float | None = None  # the paper's value of this judge, percent of the axis


class ChartLine(View):
    """A reference line (a baseline) across the chart, with its label and value."""

    entry: Entry
    at: float  # percent of the axis


class Chart(View):
    """A judge-comparison chart drawn in HTML and CSS: each judge's point estimate with its
    95% CI as a whisker, in table order (best first), the paper's value on the judge's row
    where a paper reports it, and the baselines as labelled lines across every row. Values
    without an interval (reported rows) get no whisker."""

    rows: tuple[ChartRow, ...]
    ticks: tuple[tuple[float, str], ...]  # (percent of the axis, label)
    lines: tuple[ChartLine, ...] = ()


def chart(
    cols: Metrics,
    placed: list[tuple[BoardSubmission, Entry]],
    references: list[tuple[BoardSubmission, Entry]] | None = None,
) -> Chart:
    spec = cols.headline_spec
    points = []
    for sub, entry in placed:
        score = overall_scores(sub)[spec.key]
        assert score.value is not None  # `entries` keeps defined values only
        low, high = score.ci_low, score.ci_high
        interval = (low, high) if low is not None and high is not None else None
        paper = entry.judge.paper
        reported = float(paper.cell.raw) if paper is not None and paper.cell.raw else None
        points.append((entry, score.value, interval, reported))
    lines = []
    for sub, entry in references or []:
        value = overall_scores(sub)[spec.key].value
        assert value is not None
        lines.append((entry, value))
    values = [v for _, v, _, _ in points] + [x for _, _, ci, _ in points if ci for x in ci]
    values += [p for _, _, _, p in points if p is not None] + [v for _, v in lines]
    if not values:
        return Chart(rows=(), ticks=())
    lo, hi = min(values), max(values)
    pad = (hi - lo) * 0.05 or max(abs(hi), 1e-9) * 0.05
    lo, hi = lo - pad, hi + pad

    def at(x: float) -> float:
        return round(100 * (x - lo) / (hi - lo), 2)

    rows = tuple(
        ChartRow(
            entry=entry,
            point=at(v),
            low=at(ci[0]) if ci else None,
            high=at(ci[1]) if ci else None,
            paper=at(p) if p is not None else None,
        )
        for entry, v, ci, p in points
    )
    return Chart(
        rows=rows,
        ticks=tuple((at(x), spec.format(x)) for x in _ticks(lo, hi)),
        lines=tuple(ChartLine(entry=entry, at=at(v)) for entry, v in lines),
    )


def _ticks(lo: float, hi: float) -> list[float]:
    """Up to six round values inside (lo, hi)."""
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / 5))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= 6:
            step *= factor
            break
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1) if first + i * step <= hi]
