"""View models of the model pages (one per model of the alias table, with every result of a
judge built on it) and of the reported-vs-reproduced comparisons publish computed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mathjudge.leaderboard.board import Standing, overall_scores, standing
from mathjudge.leaderboard.pages import judge_page, model_page
from mathjudge.leaderboard.views import BenchmarkView, Cell, rank_key, score_cell


@dataclass(frozen=True)
class ModelEntry:
    judge: str
    source: str
    citation: str | None
    variant: str
    page: str
    cell: Cell | None  # the benchmark's headline (None: the judge gives no headline value)
    standing: Standing


@dataclass(frozen=True)
class ModelBenchmark:
    bench: BenchmarkView
    entries: tuple[ModelEntry, ...]  # best headline first


@dataclass(frozen=True)
class ModelView:
    id: str
    name: str
    organization: str | None
    page: str
    benchmarks: tuple[ModelBenchmark, ...]
    comparisons: tuple[ComparisonView, ...]

    @property
    def n_results(self) -> int:
        return sum(len(b.entries) for b in self.benchmarks)


def model_views(
    views: list[BenchmarkView], docs: list[dict[str, Any]], models: list[dict[str, Any]]
) -> list[ModelView]:
    by_name = {v.name: (v, d) for v, d in zip(views, docs, strict=True)}
    every = {c.reported: c for v, d in zip(views, docs, strict=True) for c in comparisons(v, d)}
    out = []
    for model in models:
        groups: dict[str, list[tuple[Any, ModelEntry]]] = {}
        ids = set()
        for r in model["results"]:
            view, doc = by_name[r["benchmark"]]
            sub = next(s for s in doc["submissions"] if s["id"] == r["submission"])
            ids.add(sub["id"])
            scores = overall_scores(sub)
            score = scores.get(view.headline.key)
            cell = score_cell(view.headline, score) if score else None
            entry = ModelEntry(
                judge=sub["judge"],
                source=sub["source"],
                citation=sub["citation"],
                variant=r["variant"],
                page=judge_page(sub["source"], sub["judge"]),
                cell=cell,
                standing=standing(doc, sub, view.headline.label),
            )
            key = (rank_key(view.headline, scores), sub["judge"].casefold())
            groups.setdefault(view.name, []).append((key, entry))
        benches = tuple(
            ModelBenchmark(by_name[name][0], tuple(e for _, e in sorted(entries)))
            for name, entries in sorted(groups.items(), key=lambda kv: _order(views, kv[0]))
        )
        out.append(
            ModelView(
                id=model["id"],
                name=model["name"],
                organization=model.get("organization"),
                page=model_page(model["id"]),
                benchmarks=benches,
                comparisons=tuple(c for sid, c in every.items() if sid in ids),
            )
        )
    return sorted(out, key=lambda m: m.name.casefold())


def _order(views: list[BenchmarkView], name: str) -> int:
    return next(i for i, v in enumerate(views) if v.name == name)


@dataclass(frozen=True)
class ComparisonLine:
    where: str  # "Type: Calculation"
    metric: str  # label
    reported: str
    ours: str
    ci: str
    outside: bool | None


@dataclass(frozen=True)
class ComparisonView:
    """A reported row and our reproduction of the same judge, side by side."""

    bench: BenchmarkView
    reported: str  # submission ids
    reported_judge: str
    citation: str | None
    reproduced_judge: str
    lines: tuple[ComparisonLine, ...]
    n_outside: int


def comparisons(view: BenchmarkView, bench: dict[str, Any]) -> list[ComparisonView]:
    subs = {s["id"]: s for s in bench["submissions"]}
    out = []
    for c in bench.get("comparisons", []):
        reported, ours = subs[c["reported"]], subs[c["reproduced"]]
        lines = []
        for r in c["rows"]:
            spec = view.show.metric(r["metric"])
            scope = view.show.scope(r["scope"])
            where = "All items" if r["scope"] == "overall" else scope.caption.format(r["subset"])
            ci = (
                f"[{spec.format(r['ci_low'])}, {spec.format(r['ci_high'])}]"
                if r["ci_low"] is not None and r["ci_high"] is not None
                else "no CI"
            )
            lines.append(
                ComparisonLine(
                    where=where,
                    metric=f"{spec.label} {spec.scale_text}".strip(),
                    reported=spec.format(r["reported"]),
                    ours="n/a" if r["value"] is None else spec.format(r["value"]),
                    ci=ci,
                    outside=r["outside"],
                )
            )
        out.append(
            ComparisonView(
                bench=view,
                reported=c["reported"],
                reported_judge=reported["judge"],
                citation=reported["citation"],
                reproduced_judge=ours["judge"],
                lines=tuple(lines),
                n_outside=c["n_outside"],
            )
        )
    return out
