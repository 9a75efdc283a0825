"""View models of the model pages (one per model of the alias table, with every result of a
judge built on it), the cross-benchmark table of models, and the reported-vs-reproduced
comparisons publish computed.

A configuration run on a model (a judge prompt, an agent or pipeline: "StepMathAgent on
o1-mini") is never shown as the model itself: its results form their own row, named for it.
"""

from __future__ import annotations

from collections.abc import Iterable

from mathjudge.site.views import (
    VERDICT_LABEL,
    VERDICT_TEXT,
    Cell,
    JudgeRef,
    Metrics,
    MetricView,
    Standing,
    View,
    model_page,
    overall_scores,
    rank_key,
    score_cell,
)
from mathjudge.spec.document import BenchmarkDocument, ModelDocument, ModelFacts


class BenchRef(View):
    name: str
    title: str
    page: str
    metric: MetricView


class ComparisonLine(View):
    where: str  # "Type: Calculation"
    metric: str  # label with scale
    reported: str
    ours: str
    ci: str
    verdict: str  # a VERDICT_LABEL key
    verdict_label: str
    verdict_text: str


class ComparisonView(View):
    """A reported row and our reproduction of the same judge, side by side."""

    bench: BenchRef
    reported: JudgeRef
    reproduced: JudgeRef
    lines: tuple[ComparisonLine, ...]
    n_outside: int
    verdict: str
    verdict_label: str
    verdict_text: str


def _verdict(given: str | None, outside: bool | None) -> str:
    """The document's verdict; documents published before it existed say only whether the
    paper's value lies outside our interval."""
    if given is not None:
        return given
    return "no_ci" if outside is None else "outside_ci" if outside else "within_ci"


def comparisons(
    bench: BenchmarkDocument, ref: BenchRef, refs: dict[str, JudgeRef]
) -> list[ComparisonView]:
    show = bench.presentation
    out = []
    for c in bench.comparisons:
        lines = []
        for r in c.rows:
            spec = show.metric(r.metric)
            where = (
                "All items"
                if r.scope == "overall"
                else show.scope(r.scope).caption.format(r.subset)
            )
            ci = (
                f"[{spec.format(r.ci_low)}, {spec.format(r.ci_high)}]"
                if r.ci_low is not None and r.ci_high is not None
                else ""
            )
            verdict = _verdict(r.verdict, r.outside)
            lines.append(
                ComparisonLine(
                    where=where,
                    metric=f"{spec.label} {spec.scale_text}".strip(),
                    reported=spec.format(r.reported),
                    ours="n/a" if r.value is None else spec.format(r.value),
                    ci=ci,
                    verdict=verdict,
                    verdict_label=VERDICT_LABEL[verdict],
                    verdict_text=VERDICT_TEXT[verdict],
                )
            )
        worst = c.verdict or _worst(line.verdict for line in lines)
        out.append(
            ComparisonView(
                bench=ref,
                reported=refs[c.reported],
                reproduced=refs[c.reproduced],
                lines=tuple(lines),
                n_outside=c.n_outside,
                verdict=worst,
                verdict_label=VERDICT_LABEL[worst],
                verdict_text=VERDICT_TEXT[worst],
            )
        )
    return out


def _worst(verdicts: Iterable[str]) -> str:
    order = ("outside_ci", "no_ci", "within_ci", "exact")
    found = set(verdicts)
    return next((v for v in order if v in found), "no_ci")


class ModelEntry(View):
    judge: JudgeRef
    variant: str
    cell: Cell | None  # the benchmark's headline (None: the judge gives no headline value)
    standing: Standing


class ModelBenchmark(View):
    bench: BenchRef
    entries: tuple[ModelEntry, ...]  # best headline first


class FactsView(View):
    """A model's facts as a reader sees them: each stated one as (label, text), the labels of
    those no source states, and where the stated ones come from."""

    stated: tuple[tuple[str, str], ...]
    unstated: tuple[str, ...]
    sources: str


FACT_LABELS = {
    "type": "Type",
    "parameters": "Parameters",
    "open_weights": "Open weights",
    "license": "Licence",
    "released": "Released",
}


def facts_view(facts: ModelFacts) -> FactsView:
    stated, unstated = [], []
    for key, label in FACT_LABELS.items():
        value = getattr(facts, key)
        if value is None:
            unstated.append(label.lower())
        elif isinstance(value, bool):
            stated.append((label, "yes" if value else "no"))
        else:
            stated.append((label, str(value)))
    return FactsView(stated=tuple(stated), unstated=tuple(unstated), sources=facts.facts_from or "")


class ModelView(View):
    id: str
    name: str
    organization: str | None
    page: str
    facts: FactsView
    benchmarks: tuple[ModelBenchmark, ...]
    comparisons: tuple[ComparisonView, ...]

    @property
    def n_results(self) -> int:
        return sum(len(b.entries) for b in self.benchmarks)


class Context(View):
    """What the model pages need of every benchmark: its reference, metrics, the judges'
    references and standings, and the comparisons."""

    bench: BenchmarkDocument
    ref: BenchRef
    cols: Metrics
    refs: dict[str, JudgeRef]
    standings: dict[str, Standing]
    comparisons: tuple[ComparisonView, ...]
    folded: frozenset[str] = frozenset()  # papers' rows shown in our row (`views.folded`)


def model_views(contexts: list[Context], models: list[ModelDocument]) -> list[ModelView]:
    by_name = {c.bench.name: c for c in contexts}
    order = {c.bench.name: i for i, c in enumerate(contexts)}
    every = {c.reproduced.sid: c for ctx in contexts for c in ctx.comparisons}
    out = []
    for model in models:
        groups: dict[str, list[tuple[object, ModelEntry]]] = {}
        ids = set()
        for r in model.results:
            ctx = by_name[r.benchmark]
            if r.submission in ctx.folded:
                continue  # shown in our row of the same judge
            sub = next(s for s in ctx.bench.submissions if s.id == r.submission)
            ids.add(sub.id)
            scores = overall_scores(sub)
            score = scores.get(ctx.cols.headline_spec.key)
            entry = ModelEntry(
                judge=ctx.refs[sub.id],
                variant=r.variant,
                cell=score_cell(ctx.cols.headline_spec, score) if score else None,
                standing=ctx.standings[sub.id],
            )
            key = (rank_key(ctx.cols.headline_spec, scores), sub.judge.casefold(), sub.id)
            groups.setdefault(r.benchmark, []).append((key, entry))
        benches = tuple(
            ModelBenchmark(
                bench=by_name[name].ref,
                entries=tuple(e for _, e in sorted(entries, key=lambda x: x[0])),  # type: ignore[arg-type,return-value]
            )
            for name, entries in sorted(groups.items(), key=lambda kv: order[kv[0]])
        )
        out.append(
            ModelView(
                id=model.id,
                name=model.name,
                organization=model.organization,
                page=model_page(model.id),
                facts=facts_view(model.facts),
                benchmarks=benches,
                comparisons=tuple(c for sid, c in every.items() if sid in ids),
            )
        )
    return sorted(out, key=lambda m: m.name.casefold())


class CrossCandidate(View):
    """One result a cell of the cross table may show: the script shows a cell's first
    candidate the filters let through (they are ordered best first)."""

    judge: JudgeRef
    variant: str
    cell: Cell


class CrossCell(View):
    candidates: tuple[CrossCandidate, ...]


class CrossRow(View):
    name: str  # the model, or "PIPELINE (on MODEL)"
    page: str
    configuration: str | None  # the document's `ModelRef.pipeline`
    cells: tuple[CrossCell, ...]


class CrossView(View):
    """Models with results on two or more benchmarks: per benchmark, the results of the
    judges built on them, best headline value first, each labelled with its source. A column
    is one benchmark's headline metric: compare within a column, never across."""

    benchmarks: tuple[BenchRef, ...]
    rows: tuple[CrossRow, ...]


def cross_view(contexts: list[Context], models: list[ModelDocument]) -> CrossView:
    by_name = {c.bench.name: c for c in contexts}
    subs = {(c.bench.name, s.id): s for c in contexts for s in c.bench.submissions}
    rows: dict[tuple[str, str], dict[str, list[tuple[object, CrossCandidate]]]] = {}
    names: dict[tuple[str, str], tuple[str, str, str | None]] = {}
    for model in models:
        for r in model.results:
            sub = subs[(r.benchmark, r.submission)]
            configuration = sub.model.pipeline if sub.model else None
            key = (model.id, configuration or "")
            ctx = by_name[r.benchmark]
            if sub.id in ctx.folded:
                continue  # shown in our row of the same judge
            scores = overall_scores(sub)
            score = scores.get(ctx.cols.headline_spec.key)
            if score is None or score.value is None:
                continue
            candidate = CrossCandidate(
                judge=ctx.refs[sub.id],
                variant=r.variant,
                cell=score_cell(ctx.cols.headline_spec, score),
            )
            order = (rank_key(ctx.cols.headline_spec, scores), sub.judge.casefold(), sub.id)
            rows.setdefault(key, {}).setdefault(r.benchmark, []).append((order, candidate))
            label = f"{configuration} (on {model.name})" if configuration else model.name
            names[key] = (label, model_page(model.id), configuration)
    wide = {k: v for k, v in rows.items() if len(v) >= 2}
    used = [c for c in contexts if any(c.bench.name in v for v in wide.values())]
    out = []
    for key in sorted(wide, key=lambda k: (names[k][0].casefold(), k)):
        label, page, configuration = names[key]
        cells = tuple(
            CrossCell(
                candidates=tuple(
                    c
                    for _, c in sorted(wide[key].get(ctx.bench.name, []), key=lambda x: x[0])  # type: ignore[arg-type,return-value]
                )
            )
            for ctx in used
        )
        out.append(CrossRow(name=label, page=page, configuration=configuration, cells=cells))
    return CrossView(benchmarks=tuple(c.ref for c in used), rows=tuple(out))
