"""The leaderboard document -> a static site: data files (`export`), then pages rendered from
typed view models, SVG plots, and a few scripts.

Pages are rendered only from the document the export wrote (and the item Parquet files it
wrote beside it), so the pages and the downloads cannot disagree and nothing here depends on
scoring internals. Everything coming from submissions (judge names, meta, subsets, citations,
item texts) reaches the templates as plain strings and is escaped by Jinja's autoescape;
nothing here marks a value safe. The pages work with JavaScript off (every row and panel
shown, the default filters); the scripts add filters, sorting, tabs and the item views.

One process renders everything: with per-item data in data files instead of a page per item,
rendering is a few hundred pages (bench/site_scale.py measures it).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from mathjudge.base.errors import MathJudgeError
from mathjudge.site import board as boards
from mathjudge.site.export import (
    LEADERBOARD_JSON,
    OVERVIEW,
    export_data,
    load_document,
)
from mathjudge.site.itemviews import explorer, explorer_page, item_view
from mathjudge.site.metafields import meta_fields
from mathjudge.site.modelpages import (
    BenchRef,
    Context,
    FactsView,
    comparisons,
    cross_view,
    facts_view,
    model_views,
)
from mathjudge.site.pages import (
    BenchmarkPage,
    JudgeEntry,
    JudgeListing,
    JudgePage,
    JudgesIndex,
    PlotView,
    dataset_facts,
    filters,
    submission_view,
    when,
)
from mathjudge.site.reproduce import reproduce
from mathjudge.site.sitepages import dataset_views, methodology_view, submit_boards
from mathjudge.site.swap import swap_in
from mathjudge.site.views import (
    OVERALL,
    JudgeRef,
    bootstrap_text,
    counts,
    folded,
    judge_ref,
    kind_key,
    metric_table,
    metrics,
    sections,
    standing,
    with_papers,
)
from mathjudge.spec.document import BenchmarkDocument, ItemData, LeaderboardDocument

RELEASES = "releases"
RELEASE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
ASSETS = ("style.css", "site.js", "math.js", "items.js", "favicon.svg")


def build_site(
    store: Path,
    out: Path,
    *,
    release: str | None = None,
    local_texts: bool = False,
    repo_url: str | None = None,
) -> Path:
    """Render the leaderboard document published in the results `store` (see
    `document.publish`) as a static site at `out` (replaced atomically); returns the path of
    `out/index.html`.

    `release` also freezes this build under `out/releases/NAME/`; releases of earlier builds
    are carried over unchanged, and an existing NAME is refused. `local_texts` keeps the texts
    of local-only datasets in (a site that never leaves this machine); `repo_url` (checked by
    the caller: an https:// address) is the repository the Submit page links.
    """
    out = Path(os.path.abspath(out))
    previous = out / RELEASES
    if release is not None:
        if not RELEASE_NAME.fullmatch(release) or release in (".", ".."):
            raise MathJudgeError(
                f"--release {release!r}: use letters, digits, '.', '_' and '-' (at most 64)"
            )
        if (previous / release).exists():
            raise MathJudgeError(
                f"{previous / release}: release {release!r} already exists; releases are "
                "immutable, choose a new name"
            )

    def fill(site: Path) -> None:
        document = export_data(store, site / "data", local_texts=local_texts)
        if previous.is_dir():
            shutil.copytree(previous, site / RELEASES, symlinks=True)
        # A snapshot lists no releases: inside it those links would lead nowhere.
        render_site(site, document, list_releases=release is None, repo_url=repo_url)
        if release is not None:
            snapshot = site / RELEASES / release
            shutil.copytree(site, snapshot, ignore=shutil.ignore_patterns(RELEASES))
            render_site(site, document, only_index=True)

    swap_in(out, fill, marker=f"data/{LEADERBOARD_JSON}")
    return out / "index.html"


class Benchmark:
    """Everything the pages need of one benchmark, computed once.

    The board has one row per judge: a paper's row that is ours folded in (`views.folded`)
    is shown in our row, not as a row of its own; baselines are kept apart as reference
    lines (their own table, lines across the chart)."""

    def __init__(self, bench: BenchmarkDocument, states: list[boards.FilterState]) -> None:
        self.doc = bench
        show = bench.presentation
        self.cols = metrics(show, bench.submissions)
        self.ref = BenchRef(
            name=bench.name,
            title=show.display_name,
            page=f"{bench.name}.html",
            metric=self.cols.headline,
        )
        plain = {s.id: judge_ref(s) for s in bench.submissions}
        self.refs: dict[str, JudgeRef] = with_papers(bench, plain, self.cols.headline_spec)
        self.standings = {
            s.id: standing(bench, s, self.cols.headline.label) for s in bench.submissions
        }
        self.folded = folded(bench)
        rows = [s for s in bench.submissions if s.id not in self.folded]
        self.board = bench.model_copy(update={"submissions": rows})
        placed = boards.entries(self.board, self.cols, self.refs, self.standings)
        self.placed, self.reference_lines = boards.split(placed)
        self.glance = boards.glance(
            bench, show.display_name, self.ref.page, self.cols, self.placed, states
        )
        self.counts = counts(bench.submissions)
        self.comparisons = tuple(comparisons(bench, self.ref, self.refs))
        judges = [s for s in rows if not self.refs[s.id].reference]
        baselines = [s for s in rows if self.refs[s.id].reference]
        self.table = metric_table(
            f"{show.display_name}: every judge on all items",
            bench.model_copy(update={"submissions": judges}), self.cols, *OVERALL,
            ranks=True, every=True, refs=self.refs, standings=self.standings,
        )  # fmt: skip
        self.reference_table = metric_table(
            f"{show.display_name}: reference lines (baselines), never ranked",
            bench.model_copy(update={"submissions": baselines}), self.cols, *OVERALL,
            every=True, refs=self.refs, standings=self.standings,
        )  # fmt: skip

    @property
    def context(self) -> Context:
        return Context(
            bench=self.doc,
            ref=self.ref,
            cols=self.cols,
            refs=self.refs,
            standings=self.standings,
            comparisons=self.comparisons,
            folded=frozenset(self.folded),
        )


def render_site(
    site: Path,
    document: LeaderboardDocument | None = None,
    *,
    only_index: bool = False,
    list_releases: bool = True,
    repo_url: str | None = None,
) -> Path:
    """Render the document (by default the one in `site/data/`) into `site/`; returns the
    index page's path. `repo_url`: the repository the Submit page links (None: the page says
    how a publisher gives it)."""
    if document is None:
        document = load_document(site / "data")
    subs = [s for b in document.benchmarks for s in b.submissions]
    states = boards.filter_states((kind_key(s) for s in subs), (judge_ref(s).mtype for s in subs))
    benches = [Benchmark(b, states) for b in document.benchmarks]
    page = functools.partial(_render, site, origin=document.generated_from)
    contexts = [b.context for b in benches]
    cross = cross_view(contexts, document.models)
    index = page(
        "index.html",
        "index.html",
        description="Who judges mathematical work best: per benchmark the leader, its value "
        "with metric, interval and n, and whether the lead is significant.",
        boards=[
            boards.board(
                b.glance,
                b.placed,
                states,
                b.counts.text,
                b.counts.total,
                [e for _, e in b.reference_lines],
            )
            for b in benches
        ],
        has_cross=bool(cross.rows),
        glance_data=boards.GLANCE_DATA,
        front_rows=boards.FRONT_ROWS,
        phone_rows=boards.PHONE_ROWS,
        filters=filters(subs),
        releases=_releases(site) if list_releases else [],
        downloads=OVERVIEW,
    )
    if only_index:
        return index
    (site / "data").mkdir(exist_ok=True)
    (site / "data" / boards.GLANCE_DATA).write_text(
        boards.glance_data({b.doc.name: b.placed for b in benches}), encoding="utf-8"
    )
    _assets(site)
    datasets = dataset_views(document)
    dataset_pages = {d.name: d.page for d in datasets}
    for b in benches:
        _benchmark_page(site, page, b, dataset_pages)
    _judge_pages(page, benches, {m.id: facts_view(m.facts) for m in document.models})
    models = model_views(contexts, document.models)
    page(
        "models/index.html",
        "models.html",
        description="Every model of the alias table with a result here, its results, and the "
        "models with results on several benchmarks side by side.",
        models=models,
        cross=cross,
    )
    for model in models:
        page(
            model.page,
            "model.html",
            description=f"Every result of a judge built on {model.name}.",
            model=model,
        )
    for dataset in datasets:
        page(
            dataset.page,
            "dataset.html",
            description=f"The dataset {dataset.pretty_name}: versions, files, sources, card.",
            dataset=dataset,
        )
    page(
        "methodology.html",
        "methodology.html",
        description="How the leaderboard's intervals, ranks, tie groups and sources work.",
        method=methodology_view(document),
        has_models=bool(models),
    )
    page(
        "downloads.html",
        "downloads.html",
        description="Every table of the leaderboard as CSV, JSON and Parquet.",
        benchmarks=[b.ref for b in benches],
        items=[b.doc.items for b in benches],
        overview=OVERVIEW,
        datasets=datasets,
    )
    page(
        "submit.html",
        "submit.html",
        description="How to submit a judge's predictions to this leaderboard.",
        boards=submit_boards(document, {b.doc.name: b.ref.page for b in benches}),
        schema=meta_fields(),
        repo_url=repo_url if repo_url and repo_url.startswith("https://") else None,
    )
    return index


def _benchmark_page(site: Path, page: Any, b: Benchmark, dataset_pages: dict[str, str]) -> None:
    """A benchmark's page, its plots, and its item explorer and item view."""
    from mathjudge.site.plots import benchmark_plots  # matplotlib: only where drawn

    bench, show = b.doc, b.doc.presentation
    plots = benchmark_plots(show, b.board.submissions)
    if plots:
        (site / "plots").mkdir(exist_ok=True)
    for plot in plots:
        (site / "plots" / plot.file).write_text(plot.svg, encoding="utf-8")
    info = bench.items or ItemData(status="no item data in this document")
    exported = info.status == "exported"
    view = BenchmarkPage(
        ref=b.ref,
        summary=show.summary,
        notes=tuple(bench.notes),
        metrics=b.cols,
        glance=b.glance,
        counts=b.counts,
        filters=filters(bench.submissions, columns=len(b.cols.specs) > 1),
        table=b.table,
        references=b.reference_table,
        chart=boards.chart(b.cols, b.placed, b.reference_lines),
        sections=sections(b.board, b.cols, b.refs, b.standings),
        comparisons=b.comparisons,
        plots=tuple(PlotView(file=p.file, title=p.title, alt=p.alt, wide=p.wide) for p in plots),
        submissions=tuple(
            submission_view(s, b.refs[s.id])
            for s in sorted(bench.submissions, key=lambda s: (s.judge.casefold(), s.id))
        ),
        datasets=dataset_facts(bench),
        bootstraps=tuple(
            sorted(
                {bootstrap_text(s.bootstrap) for s in bench.submissions if s.provenance != "paper"}
            )
        ),
        ranks_status=bench.ranks.status,
        n_ranked=len(bench.ranks.judges),
        cluster_label=show.cluster_label,
        csv_file=(bench.downloads or {}).get("csv", ""),
        json_file=(bench.downloads or {}).get("json", ""),
        items=info,
        items_page=explorer_page(bench.name) if exported else "",
        dataset_page=dataset_pages.get(show.dataset, ""),
    )
    page(
        b.ref.page,
        "benchmark.html",
        description=f"{show.display_name}: {b.counts.text}, ranked by "
        f"{b.cols.headline.name} ({b.cols.headline.direction_text}).",
        bench=view,
        glance_data=boards.GLANCE_DATA,
    )
    if exported:
        for found in explorer(info, b.ref, b.refs, site / "data"):
            page(
                found.path,
                "items.html",
                description=f"The items of {show.display_name} with their gold labels and how "
                f"many judges get each wrong (page {found.page} of {len(found.pages)}).",
                page=found,
            )
        viewed = item_view(info, b.ref, b.refs)
        page(
            viewed.path,
            "item.html",
            description=f"One item of {show.display_name}: its text, gold label and every "
            "judge's call and reasoning.",
            page=viewed,
        )


def _judge_pages(page: Any, benches: list[Benchmark], facts: dict[str, FactsView]) -> None:
    """One page per judge identity with its result on every benchmark (a paper's row folded
    into ours is shown there as the comparison, not as an entry of its own), and the index:
    one entry per identity."""
    grouped: dict[str, list[JudgeEntry]] = {}
    first: dict[str, JudgeRef] = {}  # how the page and the index name the judge
    where: dict[str, list[BenchRef]] = {}
    for b in benches:
        bench = b.doc
        info = bench.items
        stats = {j.submission: j for j in info.judges} if info else {}
        position = {j.submission: i for i, j in enumerate(info.judges)} if info else {}
        rows = {r.judge.sid: r for r in (*b.table.rows, *b.reference_table.rows)}
        compared = {c.reproduced.sid: c for c in b.comparisons}
        for sub in b.board.submissions:
            ref = b.refs[sub.id]
            mine = b.table.model_copy(
                update={
                    "caption": f"{b.ref.title}: all items",
                    "rows": (rows[sub.id],) if sub.id in rows else (),
                    "ranks": False,
                }
            )
            found = stats.get(sub.id)
            explorer_link = ""
            if found is not None:
                explorer_link = f"{explorer_page(bench.name)}#judge={position[sub.id]}" + (
                    "&disagree=1" if found.disagree else ""
                )
            grouped.setdefault(sub.identity, []).append(
                JudgeEntry(
                    bench=b.ref,
                    submission=submission_view(sub, ref),
                    scores=mine,
                    standing=b.standings[sub.id],
                    comparison=compared.get(sub.id),
                    reproduce=reproduce(sub, bench.presentation.dataset),
                    explorer=explorer_link,
                    n_disagree=found.disagree if found else None,
                    n_answered=found.answered if found else 0,
                )
            )
            known = first.get(sub.identity)
            if known is None or (known.source.reported and not ref.source.reported):
                first[sub.identity] = ref  # named as we reproduced it, where we did
            where.setdefault(sub.identity, []).append(b.ref)
    for key, entries in grouped.items():
        ref = first[key]
        page(
            ref.page,
            "judge.html",
            description=f"{ref.judge}: its results on {len(entries)} benchmark"
            f"{'' if len(entries) == 1 else 's'}, with its predictions and meta.",
            judge=JudgePage(
                judge=ref.judge,
                ref=ref,
                page=ref.page,
                entries=tuple(entries),
                model_facts=facts.get(ref.model.id) if ref.model else None,
            ),
        )
    listing = tuple(
        JudgeListing(ref=first[key], benchmarks=tuple(where[key]))
        for key in sorted(grouped, key=lambda k: (first[k].judge.casefold(), k))
    )
    subs = [s for b in benches for s in b.board.submissions]
    page(
        "judges/index.html",
        "judges.html",
        description="Every judge on this leaderboard, searchable, with the benchmarks it is on.",
        index=JudgesIndex(judges=listing, filters=filters(subs)),
    )


def _releases(site: Path) -> list[str]:
    folder = site / RELEASES
    if not folder.is_dir():
        return []
    return sorted((p.name for p in folder.iterdir() if (p / "index.html").is_file()), reverse=True)


def _assets(site: Path) -> None:
    """Our own assets, and the vendored KaTeX (its README stays in the package)."""
    (site / "assets").mkdir(exist_ok=True)
    folder = resources.files("mathjudge.site").joinpath("assets")
    for name in ASSETS:
        (site / "assets" / name).write_text(folder.joinpath(name).read_text("utf-8"), "utf-8")
    katex = folder.joinpath("katex")
    (site / "assets" / "katex" / "fonts").mkdir(parents=True, exist_ok=True)
    for name in ("katex.min.js", "katex.min.css", "LICENSE"):
        (site / "assets" / "katex" / name).write_bytes(katex.joinpath(name).read_bytes())
    for font in katex.joinpath("fonts").iterdir():
        if font.name.endswith(".woff2"):
            (site / "assets" / "katex" / "fonts" / font.name).write_bytes(font.read_bytes())


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("mathjudge.site", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(when=when)
    return env


def _render(site: Path, path: str, template: str, *, origin: Any, **context: Any) -> Path:
    target = site / path
    target.parent.mkdir(parents=True, exist_ok=True)
    root = "../" * path.count("/")
    html = environment().get_template(template).render(root=root, origin=origin, **context)
    target.write_text(html, encoding="utf-8")
    return target
