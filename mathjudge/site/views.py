"""View models: the typed leaderboard document shaped into what a page prints.

Built from `spec.document` models only (never from parsed JSON), as frozen pydantic models the
templates read by attribute: every ordering, label and number format is decided here, in plain
Python the tests call, and the templates only lay out strings. Values that come from submissions
(judge names, meta, citations) stay plain strings; Jinja's autoescape escapes them.

This module holds what every page shares: how a number is labelled (its metric, direction, n
and interval), where it comes from (`SourceView`), who a row is (`JudgeRef`), its standing, and
a benchmark's metric tables.

A board has one row per judge: the results of one identity (`BoardSubmission.identity`) are one
row, our result with the paper's value beside it (`PaperValue`) where a paper's row is declared
the pair of ours (`Board.folded`). A baseline is a reference line (`JudgeRef.reference`): drawn
beside the judges, never among them.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict

from mathjudge.spec.document import BenchmarkDocument, BoardSubmission, Comparison
from mathjudge.spec.presentation import (
    DIRECTION_TEXT,
    BenchmarkPresentation,
    MetricGroup,
    MetricSpec,
)
from mathjudge.spec.results import Score

OVERALL = ("overall", "all")


class View(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# --- Where a number comes from ----------------------------------------------------------------

# The one vocabulary of where a number comes from: the same word on every badge, filter, count
# and page (and in docs/site.md).
PROVENANCES = ("submitted", "published_outputs", "paper")
PROVENANCE_LABEL = {
    "submitted": "reproduced",
    "published_outputs": "converted",
    "paper": "paper",
}
PROVENANCE_TEXT = {
    "submitted": "reproduced: we scored predictions that a submitter, or we, produced",
    "published_outputs": "converted: we scored the raw outputs the judge's authors published",
    "paper": "paper: copied from a paper's table, not scored here, never ranked",
}
# A prompt or method run on a model (a judge prompt, an agent, a pipeline): its results belong
# to it, never to the model alone.
CONFIGURATION_TEXT = (
    "configuration: a prompt or method run on the model; the result is this configuration's, "
    "not the model's alone"
)
KIND_LABEL = {
    "llm_judge": "LLM judge",
    "reward_model": "reward model",
    "process_reward_model": "process reward model",
    "rule": "rule",
    "baseline": "baseline",
}
UNSTATED = "unstated"  # the filter value of a submission that names no kind


class SourceView(View):
    """A result's source, as a badge with its meaning (reproduced, converted, paper), and the
    configuration it ran in where it is a prompt or method on a model rather than the model
    alone."""

    provenance: Literal["submitted", "published_outputs", "paper"]
    label: str
    title: str
    citation: str | None
    citation_href: str
    configuration: str | None

    @property
    def reported(self) -> bool:
        return self.provenance == "paper"


ARXIV_ID = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5})(v\d+)?", re.I)


def citation_href(citation: str | None) -> str:
    """A link for a citation naming an arXiv paper ("" when it names none). Built from the
    matched id only, so citation text can never inject a URL scheme."""
    match = ARXIV_ID.search(citation or "")
    return f"https://arxiv.org/abs/{match.group(1)}" if match else ""


def source_view(sub: BoardSubmission) -> SourceView:
    title = PROVENANCE_TEXT[sub.provenance]
    if sub.citation:
        title += f" ({sub.citation})"
    return SourceView(
        provenance=sub.provenance,
        label=PROVENANCE_LABEL[sub.provenance],
        title=title,
        citation=sub.citation,
        citation_href=citation_href(sub.citation),
        configuration=sub.model.pipeline if sub.model else None,
    )


def kind_key(sub: BoardSubmission) -> str:
    return sub.kind if sub.kind in KIND_LABEL else UNSTATED


def kind_label(key: str) -> str:
    return KIND_LABEL.get(key, "kind not stated")


# --- Who a row is -------------------------------------------------------------------------------


class ModelLink(View):
    id: str
    name: str
    page: str
    variant: str
    configuration: str | None  # the document's `ModelRef.pipeline`
    type: str | None = None  # the model table's type, where a source states it


class JudgeRef(View):
    """A submission as every table names it: its page (one per judge identity), source, kind
    and model; the paper's value beside ours where a paper's row is ours folded in; whether it
    is a baseline, a reference line never placed among the judges (with what it tells)."""

    sid: str
    judge: str
    page: str
    source: SourceView
    kind: str  # a `KIND_LABEL` key or UNSTATED
    kind_label: str
    model: ModelLink | None
    coverage: str
    coverage_raw: str
    partial: bool
    search: str  # lower-case text the judge search matches
    paper: PaperValue | None = None  # defined below, with the numbers
    note: str | None = None  # a baseline's rule and what its value tells

    @property
    def reference(self) -> bool:
        return self.kind == "baseline"

    @property
    def mtype(self) -> str:
        """The model type filter's key: the model's type, else UNSTATED."""
        return self.model.type if self.model and self.model.type else UNSTATED


def judge_page(identity: str) -> str:
    """The page of a judge identity (`BoardSubmission.identity`): a file name safe on every
    file system; the hash keeps distinct identities apart."""
    digest = hashlib.sha256(identity.encode()).hexdigest()[:10]
    slug = re.sub(r"[^a-z0-9]+", "-", identity.casefold()).strip("-")[:40].strip("-") or "judge"
    return f"judges/{slug}-{digest}.html"


def model_page(model_id: str) -> str:
    """Model ids are checked file names (the alias table's pattern)."""
    return f"models/{model_id}.html"


def judge_ref(sub: BoardSubmission) -> JudgeRef:
    model = None
    if sub.model is not None:
        model = ModelLink(
            id=sub.model.id,
            name=sub.model.name,
            page=model_page(sub.model.id),
            variant=sub.model.variant,
            configuration=sub.model.pipeline,
            type=sub.model.type,
        )
    kind = kind_key(sub)
    return JudgeRef(
        sid=sub.id,
        judge=sub.judge,
        page=judge_page(sub.identity),
        source=source_view(sub),
        kind=kind,
        kind_label=kind_label(kind),
        model=model,
        coverage=percent(sub.coverage),
        coverage_raw=repr(sub.coverage),
        partial=sub.partial or sub.coverage < 1,
        search=" ".join([sub.judge, model.name if model else ""]).casefold(),
        note=sub.reference_note,
    )


# --- Numbers ------------------------------------------------------------------------------------

ARROWS = {"higher": "↑", "lower": "↓", "closer to zero": "→0", "closer to gold": "→gold"}


class MetricView(View):
    """A metric's name as a reader needs it beside every value: label, the paper's scale,
    direction (as an arrow and in words) and description."""

    key: str
    label: str
    scale_text: str
    direction: str | None
    arrow: str
    direction_text: str
    description: str
    column: int  # index of its column on the benchmark page (the column chooser's handle)
    first_order: Literal["ascending", "descending"]

    @property
    def name(self) -> str:
        """ "Corr ×100": the label with the scale the values are printed at."""
        return f"{self.label} {self.scale_text}".strip()


def metric_view(spec: MetricSpec, column: int = 0) -> MetricView:
    return MetricView(
        key=spec.key,
        label=spec.label,
        scale_text=spec.scale_text,
        direction=spec.direction,
        arrow=ARROWS.get(spec.direction or "", ""),
        direction_text=DIRECTION_TEXT.get(spec.direction or "", "a reference value, not ranked"),
        description=spec.description,
        column=column,
        first_order="descending" if spec.direction == "higher" else "ascending",
    )


class Cell(View):
    text: str  # the value at the paper's scale ("82.1"), "n/a" or "—"
    ci: str  # "[71.4, 91.1]"; "" without an interval
    n: int | None  # items the value is computed on
    state: Literal["ok", "undefined", "missing"]
    raw: str = ""  # the unscaled value, for client-side sorting


def score_cell(spec: MetricSpec, score: Score | None) -> Cell:
    if score is None:
        return Cell(text="—", ci="", n=None, state="missing")
    if score.value is None:
        return Cell(text="n/a", ci="", n=score.n, state="undefined")
    low, high = score.ci_low, score.ci_high
    ci = "" if low is None or high is None else f"[{spec.format(low)}, {spec.format(high)}]"
    return Cell(text=spec.format(score.value), ci=ci, n=score.n, state="ok", raw=repr(score.value))


class PaperValue(View):
    """The paper's value of a judge we reproduced (a paper's row declared the pair of ours),
    shown in our row with the verdict of the comparison."""

    ref: JudgeRef  # the paper's row: its citation and badge
    cell: Cell  # the paper's headline value, or "—" where it prints none
    verdict: str  # a VERDICT_LABEL key
    verdict_label: str
    verdict_text: str


VERDICT_TEXT = {
    "exact": "exact: equal at the paper's decimals",
    "within_ci": "the paper's value is inside our 95% CI",
    "outside_ci": "the paper's value is outside our 95% CI",
    "no_ci": "no interval to test against",
}
VERDICT_LABEL = {
    "exact": "exact",
    "within_ci": "within CI",
    "outside_ci": "outside CI",
    "no_ci": "no CI",
}


def folded(bench: BenchmarkDocument) -> dict[str, str]:
    """paper's submission id -> ours, for every paper's row that is one judge with our result
    on this board (the same identity: the paper's row declared the pair of ours). Publish has
    refused any other pair of results sharing an identity."""
    ours = {s.identity: s.id for s in bench.submissions if s.provenance != "paper"}
    return {
        s.id: ours[s.identity]
        for s in bench.submissions
        if s.provenance == "paper" and s.identity in ours
    }


def with_papers(
    bench: BenchmarkDocument, refs: dict[str, JudgeRef], headline: MetricSpec
) -> dict[str, JudgeRef]:
    """`refs` with the paper's value and verdict in our row of each folded pair."""
    verdicts: dict[tuple[str, str], Comparison] = {
        (c.reported, c.reproduced): c for c in bench.comparisons
    }
    by_id = {s.id: s for s in bench.submissions}
    out = dict(refs)
    for paper, ours in folded(bench).items():
        found = verdicts.get((paper, ours))
        verdict = found.verdict if found is not None else "no_ci"
        out[ours] = refs[ours].model_copy(
            update={
                "paper": PaperValue(
                    ref=refs[paper],
                    cell=score_cell(headline, overall_scores(by_id[paper]).get(headline.key)),
                    verdict=verdict,
                    verdict_label=VERDICT_LABEL[verdict],
                    verdict_text=VERDICT_TEXT[verdict],
                )
            }
        )
    return out


JudgeRef.model_rebuild()


def percent(fraction: float) -> str:
    return "100%" if fraction >= 1 else f"{fraction * 100:.1f}%"


def scores_at(sub: BoardSubmission, scope: str, subset: str) -> dict[str, Score]:
    return {s.metric: s for s in sub.scores if s.scope == scope and s.subset == subset}


def overall_scores(sub: BoardSubmission) -> dict[str, Score]:
    return scores_at(sub, *OVERALL)


def rank_key(headline: MetricSpec, scores: dict[str, Score]) -> tuple[int, float]:
    """Sort key: defined values by the metric's direction, undefined (or unranked) last."""
    score = scores.get(headline.key)
    value = score.value if score is not None else None
    if value is None or headline.direction is None:
        return (1, 0.0)
    if headline.direction == "higher":
        return (0, -value)
    if headline.direction == "lower":
        return (0, value)
    if headline.direction == "closer to zero":
        return (0, abs(value))
    gold = scores.get(headline.reference or "")
    return (1, 0.0) if gold is None or gold.value is None else (0, abs(value - gold.value))


# --- Standing: a rank, or why there is none -------------------------------------------------------

# Short badge text per reason a submission is not ranked (the full reason is its title).
UNRANKED_LABEL = {
    "reported": "paper",
    "baseline": "baseline",
    "example": "example data",
    "other dataset": "other build",
    "alone": "no rival scored",
    "undefined": "undefined",
    "not ranked": "unranked",
}


class Standing(View):
    rank_text: str  # "1" or "1–3" ("" when not ranked)
    rank_point: int | None
    group: int | None
    n_ranked: int
    kind: str  # "ranked" or why not (see `UNRANKED_LABEL`)
    label: str  # short badge text ("" when ranked)
    text: str  # the standing in words

    @property
    def ranked(self) -> bool:
        return self.rank_point is not None


def standing(bench: BenchmarkDocument, sub: BoardSubmission, headline_label: str) -> Standing:
    ranks = bench.ranks
    n_ranked = len(ranks.judges)
    entry = ranks.judges.get(sub.id)
    if entry is not None:
        low, high = entry.rank_low, entry.rank_high
        text = str(low) if low == high else f"{low}–{high}"
        return Standing(
            rank_text=text,
            rank_point=entry.rank,
            group=entry.group,
            n_ranked=n_ranked,
            kind="ranked",
            label="",
            text=f"rank {text} of {n_ranked} (95% interval), tie group {entry.group}",
        )
    why = ranks.excluded.get(sub.id)
    if why is None and sub.provenance == "paper":
        return Standing(
            rank_text="", rank_point=None, group=None, n_ranked=n_ranked, kind="reported",
            label=UNRANKED_LABEL["reported"], text="copied from a paper: never ranked",
        )  # fmt: skip
    if why is None:
        reason = ranks.status.removeprefix("not ranked: ") or "not ranked"
        return Standing(
            rank_text="", rank_point=None, group=None, n_ranked=n_ranked, kind="not ranked",
            label="unranked", text=f"not ranked: {reason}",
        )  # fmt: skip
    if why.kind == "partial":
        label = f"partial {percent(sub.coverage)}"
    elif why.kind == "no headline":
        label = f"no {headline_label}"
    else:
        label = UNRANKED_LABEL.get(why.kind, "unranked")
    return Standing(
        rank_text="", rank_point=None, group=None, n_ranked=n_ranked, kind=why.kind,
        label=label, text=why.text,
    )  # fmt: skip


# --- A benchmark's tables -------------------------------------------------------------------------


class MetricGroupView(View):
    title: str
    metrics: tuple[MetricView, ...]


class Row(View):
    judge: JudgeRef
    standing: Standing
    cells: tuple[Cell, ...]  # one per column of the table
    n: int | None  # items of the headline (or of the row's largest metric without one)
    n_mixed: bool  # some metric of the row is computed on another number of items


class Table(View):
    caption: str
    groups: tuple[MetricGroupView, ...]
    rows: tuple[Row, ...]
    ranks: bool  # whether the rank column is shown

    @property
    def columns(self) -> tuple[MetricView, ...]:
        return tuple(m for g in self.groups for m in g.metrics)


class ScopeRow(View):
    judge: JudgeRef
    standing: Standing
    cells: tuple[Cell, ...]  # the headline on each subset, in the table's order


class ScopeTable(View):
    """A scope at a glance: one row per judge with the headline on each subset of the scope
    (every metric per subset is in the downloads), best overall headline first."""

    caption: str
    metric: MetricView
    subsets: tuple[str, ...]  # column headers ("Type: Proof")
    rows: tuple[ScopeRow, ...]


class Section(View):
    anchor: str
    title: str
    table: ScopeTable


class Counts(View):
    """How many results a benchmark shows, by source: the one count every page prints."""

    total: int
    submitted: int
    published_outputs: int
    paper: int

    @property
    def text(self) -> str:
        parts = [
            f"{n} {PROVENANCE_LABEL[p]}"
            for n, p in (
                (self.submitted, "submitted"),
                (self.published_outputs, "published_outputs"),
                (self.paper, "paper"),
            )
            if n
        ]
        total = f"{self.total} result{'' if self.total == 1 else 's'}"
        return f"{total} ({', '.join(parts)})" if parts else total


def counts(subs: list[BoardSubmission]) -> Counts:
    by = {p: sum(s.provenance == p for s in subs) for p in PROVENANCES}
    return Counts(total=len(subs), **by)


class Metrics(View):
    """A benchmark's metric columns: every metric any of its judges gives, in schema order."""

    headline: MetricView
    headline_spec: MetricSpec
    groups: tuple[MetricGroupView, ...]
    specs: tuple[MetricSpec, ...]  # same order as the columns
    default_columns: tuple[int, ...]  # shown before a reader chooses (headline + extras)

    @property
    def other_columns(self) -> tuple[int, ...]:
        """The columns a phone hides until the reader asks for them."""
        return tuple(i for i in range(len(self.specs)) if i not in self.default_columns)

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


def metrics(show: BenchmarkPresentation, subs: list[BoardSubmission]) -> Metrics:
    present = {s.metric for sub in subs for s in sub.scores}
    groups = _metric_groups(show, present)
    specs = tuple(m for g in groups for m in g.metrics)
    fallback = specs[0] if specs else show.metric(show.headline or "value")
    headline = next((m for m in specs if m.key == show.headline), fallback)
    index = {m.key: i for i, m in enumerate(specs)}
    views, start = [], 0
    for group in groups:
        views.append(
            MetricGroupView(
                title=group.title,
                metrics=tuple(metric_view(m, start + i) for i, m in enumerate(group.metrics)),
            )
        )
        start += len(group.metrics)
    default = [index[headline.key]] if headline.key in index else []
    default += [index[k] for k in show.overview_extra if k in index and k != headline.key]
    return Metrics(
        headline=metric_view(headline, index.get(headline.key, 0)),
        headline_spec=headline,
        groups=tuple(views),
        specs=specs,
        default_columns=tuple(default),
    )


def _metric_groups(show: BenchmarkPresentation, present: set[str]) -> tuple[MetricGroup, ...]:
    """The schema's groups restricted to metrics that occur, plus unknown metrics, unscaled."""
    groups = [
        MetricGroup(g.title, tuple(m for m in g.metrics if m.key in present)) for g in show.groups
    ]
    known = {m.key for g in show.groups for m in g.metrics}
    other = tuple(show.metric(k) for k in sorted(present - known))
    if other:
        groups.append(MetricGroup("Other metrics" if show.groups else "Metrics", other))
    return tuple(g for g in groups if g.metrics)


def ordered(bench: BenchmarkDocument, headline: MetricSpec) -> list[BoardSubmission]:
    """Best headline value first, undefined or missing values last, then by name."""
    return sorted(
        bench.submissions,
        key=lambda s: (rank_key(headline, overall_scores(s)), s.judge.casefold(), s.id),
    )


def metric_table(
    caption: str,
    bench: BenchmarkDocument,
    cols: Metrics,
    scope: str,
    subset: str,
    *,
    ranks: bool = False,
    every: bool = False,
    refs: dict[str, JudgeRef],
    standings: dict[str, Standing],
) -> Table:
    """One row per judge with a score in (scope, subset) (`every`: per judge, so that the
    table counts what the page counts), best headline value first."""
    rows = []
    for sub in bench.submissions:
        scores = scores_at(sub, scope, subset)
        if not scores and not every:
            continue
        head = scores.get(cols.headline_spec.key)
        sizes = {s.n for s in scores.values()}
        n = head.n if head is not None else max(sizes, default=None)
        row = Row(
            judge=refs[sub.id],
            standing=standings[sub.id],
            cells=tuple(score_cell(m, scores.get(m.key)) for m in cols.specs),
            n=n,
            n_mixed=len(sizes) > 1,
        )
        rows.append((rank_key(cols.headline_spec, scores), sub.judge.casefold(), sub.id, row))
    rows.sort(key=lambda r: r[:3])
    return Table(caption=caption, groups=cols.groups, rows=tuple(r[3] for r in rows), ranks=ranks)


def sections(
    bench: BenchmarkDocument,
    cols: Metrics,
    refs: dict[str, JudgeRef],
    standings: dict[str, Standing],
) -> tuple[Section, ...]:
    """A section per scope besides overall (in the schema's order), each one table of the
    headline per subset: a page holds every scope of a benchmark without growing with
    metrics x subsets (the downloads hold every metric per subset)."""
    show = bench.presentation
    subs = bench.submissions
    head = cols.headline_spec
    scopes = sorted({s.scope for sub in subs for s in sub.scores}, key=show.scope_rank)
    out: list[Section] = []
    anchors: set[str] = {"scope-overall"}
    for scope in (s for s in scopes if s != OVERALL[0]):
        spec = show.scope(scope)
        subsets = sorted(
            {s.subset for sub in subs for s in sub.scores if s.scope == scope},
            key=lambda x: _subset_rank(x, spec.order),
        )
        rows = []
        for sub in subs:
            scores = {s.subset: s for s in sub.scores if s.scope == scope and s.metric == head.key}
            if not scores:
                continue
            row = ScopeRow(
                judge=refs[sub.id],
                standing=standings[sub.id],
                cells=tuple(score_cell(head, scores.get(x)) for x in subsets),
            )
            key = (rank_key(head, overall_scores(sub)), sub.judge.casefold(), sub.id)
            rows.append((key, row))
        rows.sort(key=lambda r: r[0])
        table = ScopeTable(
            caption=f"{show.display_name}: {cols.headline.name} {spec.title.lower()}",
            metric=cols.headline,
            subsets=tuple(spec.caption.format(x) for x in subsets),
            rows=tuple(r for _, r in rows),
        )
        out.append(Section(anchor=_anchor(scope, anchors), title=spec.title, table=table))
    return tuple(out)


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


# --- Text helpers ---------------------------------------------------------------------------------


def bootstrap_text(bootstrap: dict[str, object]) -> str:
    """Reported results may carry no bootstrap; say so rather than fail or print blanks."""
    if "B" not in bootstrap:
        return "none recorded"
    unit = f", clusters: {bootstrap['unit']}" if "unit" in bootstrap else ""
    return f"B = {bootstrap['B']} resamples, seed {bootstrap.get('seed', '?')}{unit}"


# Meta keys that are our own bookkeeping (where a reported row was transcribed from, in our data
# files): kept in the meta JSON, not shown on the pages.
HIDDEN_META = frozenset({"transcribed_from"})
MAX_META_CHARS = 200


def meta_text(key: str, value: object) -> str | None:
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


def meta_items(meta: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """Meta as short (key, text) pairs: our bookkeeping keys left out (they stay in the meta
    JSON), long values cut so a page cannot be flooded."""
    items = []
    for key, value in sorted(meta.items()):
        text = meta_text(key, value)
        if text is None:
            continue
        if len(text) > MAX_META_CHARS:
            text = text[:MAX_META_CHARS] + "…"
        items.append((str(key), text))
    return tuple(items)
