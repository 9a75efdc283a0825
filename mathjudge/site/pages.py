"""View models of the benchmark pages, the judge pages and the judges' index.

A benchmark page reads top down as a reader on a phone wants it: the verdict in one line, the
board (every judge, its rank or why none, the headline with its interval and n, the paper's
value beside ours), the reference lines (baselines), then the chart, the scopes, the
reproductions, and the methodology folded away. A judge page lists its results on every
benchmark with its predictions and meta to download and a way into the item explorer filtered
to it. A judge is an identity (`BoardSubmission.identity`): one page and one entry of the index
for our result and the paper's row declared its pair, however each spells the name.
"""

from __future__ import annotations

from datetime import UTC, datetime

from mathjudge.site.board import Chart, Glance
from mathjudge.site.modelpages import BenchRef, ComparisonView, FactsView
from mathjudge.site.reproduce import Reproduce
from mathjudge.site.views import (
    KIND_LABEL,
    PROVENANCE_LABEL,
    PROVENANCE_TEXT,
    PROVENANCES,
    UNSTATED,
    Counts,
    JudgeRef,
    Metrics,
    Section,
    Standing,
    Table,
    View,
    bootstrap_text,
    judge_ref,
    kind_label,
    meta_items,
    percent,
)
from mathjudge.spec.document import BenchmarkDocument, BoardSubmission, ItemData


class Option(View):
    value: str
    label: str
    title: str = ""  # what the label means, where a word needs it


class Filters(View):
    """The filter controls of a page: which sources, kinds and model types its results have."""

    sources: tuple[Option, ...]
    kinds: tuple[Option, ...]  # empty: one kind only, no kind filter
    columns: bool  # whether the page has metric columns to choose
    mtypes: tuple[Option, ...] = ()  # the model table's types; empty: no model type filter


def filters(subs: list[BoardSubmission], *, columns: bool = False) -> Filters:
    present = {s.provenance for s in subs}
    kinds = sorted({s.kind if s.kind in KIND_LABEL else UNSTATED for s in subs})
    types = sorted({judge_ref(s).mtype for s in subs}, key=lambda t: (t == UNSTATED, t))
    return Filters(
        sources=tuple(
            Option(value=p, label=PROVENANCE_LABEL[p], title=PROVENANCE_TEXT[p])
            for p in PROVENANCES
            if p in present
        ),
        kinds=tuple(Option(value=k, label=kind_label(k)) for k in kinds) if len(kinds) > 1 else (),
        columns=columns,
        mtypes=tuple(
            Option(value=t, label="model type not stated" if t == UNSTATED else t) for t in types
        )
        if len(types) > 1
        else (),
    )


def when(iso: str | None) -> str:
    """Stored timestamps in one zone and to the minute: enough to tell submissions apart."""
    if iso is None:
        return "none"
    return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


class SubmissionView(View):
    judge: JudgeRef
    id: str
    created: str
    n_items: int
    coverage: str
    partial: bool
    runs: str  # "3 (median)"
    fields: str
    bootstrap: str
    dataset: str  # "1.0.0" or "the paper's own copy"
    content_hash: str  # "" for a paper's result
    example: bool
    meta: tuple[tuple[str, str], ...]
    meta_file: str | None  # under data/
    predictions_file: str | None  # under data/
    sha256: str


def submission_view(sub: BoardSubmission, ref: JudgeRef) -> SubmissionView:
    paper = sub.provenance == "paper"
    return SubmissionView(
        judge=ref,
        id=sub.id,
        created=when(sub.created),
        n_items=sub.n_items,
        coverage=percent(sub.coverage),
        partial=sub.partial or sub.coverage < 1,
        runs=f"{sub.runs}" + (f" ({sub.runs_agg})" if sub.runs > 1 else ""),
        fields=", ".join(sub.fields),
        bootstrap="the paper's" if paper else bootstrap_text(sub.bootstrap),
        dataset="the paper's own copy" if paper else sub.dataset_version,
        content_hash="" if paper else sub.content_hash,
        example=sub.example,
        meta=meta_items(sub.meta),
        meta_file=sub.meta_file,
        predictions_file=sub.predictions_file,
        sha256=sub.sha256,
    )


class PlotView(View):
    file: str  # under plots/
    title: str
    alt: str
    wide: bool


class DatasetFact(View):
    version: str
    content_hash: str
    judges: int


class BenchmarkPage(View):
    ref: BenchRef
    summary: str
    notes: tuple[str, ...]
    metrics: Metrics
    glance: Glance
    counts: Counts
    filters: Filters
    table: Table  # overall, every judge, with ranks
    references: Table  # overall, the baselines: reference lines, never ranked
    chart: Chart
    sections: tuple[Section, ...]  # the other scopes
    comparisons: tuple[ComparisonView, ...]
    plots: tuple[PlotView, ...]
    submissions: tuple[SubmissionView, ...]
    datasets: tuple[DatasetFact, ...]
    bootstraps: tuple[str, ...]  # of the reproduced results (reported ones carry none of ours)
    ranks_status: str
    n_ranked: int
    cluster_label: str
    csv_file: str
    json_file: str
    items: ItemData
    items_page: str  # "" when the benchmark has no item data
    dataset_page: str  # "" when the dataset has no page


def dataset_facts(bench: BenchmarkDocument) -> tuple[DatasetFact, ...]:
    """The builds the reproduced judges were scored on (reported rows name none)."""
    seen: dict[tuple[str, str], int] = {}
    for s in bench.submissions:
        if s.provenance != "paper":
            key = (s.dataset_version, s.content_hash)
            seen[key] = seen.get(key, 0) + 1
    return tuple(
        DatasetFact(version=v, content_hash=h, judges=n) for (v, h), n in sorted(seen.items())
    )


class JudgeEntry(View):
    bench: BenchRef
    submission: SubmissionView
    scores: Table  # overall scores, this judge only
    standing: Standing
    # The paper's values of this judge beside ours, where a paper's row is ours folded in.
    comparison: ComparisonView | None = None
    reproduce: Reproduce | None = None  # what recomputes the row (none for a paper's row)
    explorer: str  # link into the item explorer filtered to this judge ("" without items)
    n_disagree: int | None  # items where it disagrees with gold (None: not compared)
    n_answered: int


class JudgePage(View):
    judge: str
    ref: JudgeRef  # of its first entry (source, kind and model as on every table)
    model_facts: FactsView | None = None  # of the model it is built on
    page: str
    entries: tuple[JudgeEntry, ...]


class JudgeListing(View):
    ref: JudgeRef
    benchmarks: tuple[BenchRef, ...]


class JudgesIndex(View):
    judges: tuple[JudgeListing, ...]
    filters: Filters
