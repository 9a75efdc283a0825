"""Exported data files + presentation schema -> static HTML pages, SVG plots, a little JS.

Pages are rendered only from what `export` wrote, so the pages and the downloads cannot
disagree and nothing here depends on scoring internals. Everything coming from submissions
(judge names, meta, subsets, citations, item texts) reaches the templates as plain strings and
is escaped by Jinja's autoescape; nothing here marks a value safe. The pages work with
JavaScript off (all tabs shown in turn, tables in their default order, every explorer row
listed, LaTeX as written); the scripts only add sorting, tabs, filters and KaTeX rendering.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
from collections import Counter
from contextlib import nullcontext
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2
import pyarrow.parquet as pq
import yaml

from mathjudge.errors import MathJudgeError
from mathjudge.leaderboard.board import Standing, board, chart, cross_view, standing
from mathjudge.leaderboard.export import LEADERBOARD_JSON, OVERVIEW, export_data
from mathjudge.leaderboard.itempages import item_views
from mathjudge.leaderboard.metafields import meta_fields
from mathjudge.leaderboard.modelpages import comparisons, model_views
from mathjudge.leaderboard.pageprocess import PageProcess
from mathjudge.leaderboard.pages import (
    ItemLocator,
    JudgeEntry,
    JudgeView,
    explorer,
    judge_key,
    judge_page,
    model_page,
)
from mathjudge.leaderboard.swap import swap_in
from mathjudge.leaderboard.views import (
    benchmark_view,
    bootstrap_text,
    meta_text,
    metric_table,
    percent,
)
from mathjudge.spec.document import LeaderboardDocument
from mathjudge.spec.presentation import DIRECTION_TEXT, OVERALL

MAX_META_CHARS = 200
RELEASES = "releases"
RELEASE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
ASSETS = ("style.css", "site.js", "math.js")


def build_site(
    store: Path, out: Path, *, release: str | None = None, helper: PageProcess | None = None
) -> Path:
    """Render the leaderboard document published in the results `store` (see
    `publish.document`) as a static site at `out` (replaced atomically); returns the path of
    `out/index.html`.

    `release` also freezes this build under `out/releases/NAME/`; releases of earlier builds
    are carried over unchanged, and an existing NAME is refused. `helper` is a page process
    the caller started early (one is started here otherwise).
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
        # Started first so that its imports overlap the export.
        with nullcontext(helper) if helper is not None else PageProcess() as pages:
            export_data(store, site / "data")
            if previous.is_dir():
                shutil.copytree(previous, site / RELEASES, symlinks=True)
            # A snapshot lists no releases: inside it those links would lead nowhere.
            render_site(site, list_releases=release is None, helper=pages)
        if release is not None:
            snapshot = site / RELEASES / release
            shutil.copytree(site, snapshot, ignore=shutil.ignore_patterns(RELEASES))
            render_site(site, only_index=True)

    swap_in(out, fill, marker=f"data/{LEADERBOARD_JSON}")
    return out / "index.html"


def render_site(
    site: Path,
    *,
    only_index: bool = False,
    list_releases: bool = True,
    helper: PageProcess | None = None,
) -> Path:
    """Render `site/data/` into `site/`; returns the index page's path. With a `helper`
    process, the benchmark pages, plots and most item pages are rendered there meanwhile (the
    pages are the same either way)."""
    document, doc = _load(site)
    docs = doc["benchmarks"]
    views = [benchmark_view(b) for b in docs]
    boards = [board(v, b) for v, b in zip(views, docs, strict=True)]
    origin = doc["generated_from"]
    releases = _releases(site) if list_releases else []
    page = functools.partial(_render, site, origin=origin)
    index = page(
        "index.html",
        "index.html",
        boards=[(b, chart(b.bench, d, b.rows)) for b, d in zip(boards, docs, strict=True)],
        cross=cross_view(views, docs, doc.get("models", [])),
        releases=releases,
        downloads=OVERVIEW,
    )
    if only_index:
        return index
    # The helper draws every benchmark's page and plots and a share of the item pages; this
    # process renders the rest, and every page that spans benchmarks.
    helper_items = _helper_share(site, docs) if helper is not None else set()
    if helper is not None:
        helper.render(site, pages=[v.name for v in views], items=sorted(helper_items))
    _assets(site)
    judges: dict[tuple[str, str], list[JudgeEntry]] = {}
    for view, bench in zip(views, docs, strict=True):
        standings = _standings(view, bench)
        if helper is None:
            _benchmark_page(site, page, view, bench, standings, doc["datasets"])
        if view.name not in helper_items:
            _item_pages(site, page, view, bench)
        _judge_entries(site, view, bench, standings, judges)
    for (source, judge), entries in judges.items():
        first = entries[0].submission
        judge_view = JudgeView(
            judge, source, first["citation"], judge_page(source, judge), tuple(entries)
        )
        page(judge_view.page, "judge.html", judge=judge_view)
    models = model_views(views, docs, doc.get("models", []))
    page("models/index.html", "models.html", models=models)
    for model in models:
        page(model.page, "model.html", model=model)
    scored = Counter(sub["content_hash"] for bench in docs for sub in bench["submissions"])
    for name, versions in _by_name(doc["datasets"]).items():
        page(
            f"datasets/{name}.html",
            "dataset.html",
            dataset=_dataset_view(versions[-1]),
            versions=[_version_row(v, scored) for v in reversed(versions)],
        )
    page(
        "methodology.html",
        "methodology.html",
        presentations=document.methodology,
        has_models=bool(models),
    )
    page("downloads.html", "downloads.html", benchmarks=views, docs=docs, overview=OVERVIEW)
    page("submit.html", "submit.html", benchmarks=document.methodology, schema=meta_fields())
    if helper is not None:
        helper.wait()
    return index


def render_benchmark_parts(site: Path, pages: list[str], items: list[str]) -> None:
    """The benchmark pages with their plots of `pages`, and the item pages (index and items)
    of `items`, exactly as `render_site` writes them: what the helper process runs."""
    _, doc = _load(site)
    page = functools.partial(_render, site, origin=doc["generated_from"])
    for bench in doc["benchmarks"]:
        view = benchmark_view(bench)
        if view.name in pages:
            standings = _standings(view, bench)
            _benchmark_page(site, page, view, bench, standings, doc["datasets"])
        if view.name in items:
            _item_pages(site, page, view, bench)


def _standings(view: Any, bench: dict[str, Any]) -> dict[tuple[str, str], Standing]:
    headline = view.headline.label
    return {judge_key(s): standing(bench, s, headline) for s in bench["submissions"]}


def _benchmark_page(
    site: Path,
    page: Any,
    view: Any,
    bench: dict[str, Any],
    standings: dict[tuple[str, str], Standing],
    datasets: list[dict[str, Any]],
) -> None:
    """A benchmark's page and its plots (matplotlib is imported only by what draws them)."""
    from mathjudge.leaderboard.plots import benchmark_plots

    plots = benchmark_plots(view.show, bench)
    plots_dir = site / "plots"
    plots_dir.mkdir(exist_ok=True)
    for plot in plots:
        (plots_dir / plot.file).write_text(plot.svg, encoding="utf-8")
    full = board(view, bench, limit=None)
    page(
        view.page,
        "benchmark.html",
        bench=view,
        doc=bench,
        chart=chart(view, bench, full.rows),
        plots=plots,
        standings=standings,
        comparisons=comparisons(view, bench),
        dataset_page=_dataset_page(view.show.dataset, datasets),
    )


def _load(site: Path) -> tuple[LeaderboardDocument, dict[str, Any]]:
    """The exported document, typed and as plain data (each benchmark's presentation as the
    dataclass, with its formatting helpers)."""
    text = (site / "data" / LEADERBOARD_JSON).read_text(encoding="utf-8")
    try:
        document = LeaderboardDocument.model_validate_json(text)
    except ValueError as exc:
        raise MathJudgeError(f"{LEADERBOARD_JSON}: not a leaderboard document ({exc})") from exc
    doc = json.loads(text)
    for bench, typed in zip(doc["benchmarks"], document.benchmarks, strict=True):
        bench["presentation"] = typed.presentation
        bench["items"] = bench.get("items") or {"status": "no item data in this document"}
    return document, doc


# Rendering costs measured on the demo's site, in item pages' worth of time (one item page is
# about 0.9 ms): a benchmark page with its plots (the helper draws them all) and one
# submission's share of the pages that span benchmarks (judge pages, explorers: this process).
BENCHMARK_PAGE_COST = 100
SUBMISSION_COST = 6


def _helper_share(site: Path, docs: list[dict[str, Any]]) -> set[str]:
    """The benchmarks whose item pages the helper renders, chosen so that both processes finish
    together: largest first, each to the process with less work so far (each starts with its
    own fixed pages, costed above)."""
    sizes = {}
    for bench in docs:
        info = bench["items"]
        if info.get("status") == "exported":
            items = site / "data" / info["downloads"]["items"]
            sizes[bench["name"]] = pq.read_metadata(items).num_rows
    helper = BENCHMARK_PAGE_COST * len(docs)
    own = SUBMISSION_COST * sum(len(bench["submissions"]) for bench in docs)
    handed: set[str] = set()
    for name, size in sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0])):
        if helper < own:
            handed.add(name)
            helper += size
        else:
            own += size
    return handed


def _item_pages(site: Path, page: Any, view: Any, bench: dict[str, Any]) -> None:
    """The benchmark's item index and one page per item, from the exported Parquet files."""
    info = bench.get("items", {})
    if info.get("status") != "exported":
        return
    names = info["downloads"]
    data = site / "data"
    details = pq.read_table(data / names["details"]) if names.get("details") else None
    judges = {
        s["id"]: s
        for s in bench["submissions"]
        if s["source"] != "reported" and s["content_hash"] == info["content_hash"]
    }
    index, items = item_views(
        view,
        pq.read_table(data / names["items"]),
        pq.read_table(data / names["predictions"]),
        details,
        info,
        judges,
    )
    page(index.path, "item_index.html", index=index)
    for item in items:
        page(item.path, "item.html", item=item)


def _judge_entries(
    site: Path,
    view: Any,
    bench: dict[str, Any],
    standings: dict[tuple[str, str], Standing],
    judges: dict[tuple[str, str], list[JudgeEntry]],
) -> None:
    """Queue every judge's entry for this benchmark, with its item explorer."""
    info = bench.get("items", {})
    by_sid: dict[str, list[dict[str, Any]]] = {}
    locator = None
    if info.get("status") == "exported":
        names = info["downloads"]
        locator = ItemLocator.of(view.name, pq.read_table(site / "data" / names["items"]))
        for row in pq.read_table(site / "data" / names["predictions"]).to_pylist():
            by_sid.setdefault(row["submission_id"], []).append(row)
    groups = view.groups
    n_ranked = len(bench.get("ranks", {}).get("judges", {}))
    for sub in bench["submissions"]:
        table = metric_table(
            f"{view.show.display_name}: {OVERALL.caption}", groups, view.headline, [sub],
            "overall", "all",
        )  # fmt: skip
        found = None
        if locator is not None and sub["id"] in by_sid:
            found = explorer(
                info["fields"], by_sid[sub["id"]], locator, info["downloads"]["predictions"]
            )
        judges.setdefault(judge_key(sub), []).append(
            JudgeEntry(view, sub, table, standings[judge_key(sub)], n_ranked, found)
        )


def _dataset_page(name: str, datasets: list[dict[str, Any]]) -> str:
    return f"datasets/{name}.html" if name and any(d["name"] == name for d in datasets) else ""


def _version_key(version: str) -> tuple[int, ...] | tuple[float]:
    """MAJOR.MINOR.PATCH as numbers (1.10.0 after 1.9.0); anything else sorts first."""
    parts = version.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else (-1.0,)


def _by_name(datasets: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Every stored build of each dataset, oldest version first: the page shows the newest and
    lists them all."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for dataset in datasets:
        grouped.setdefault(dataset["name"], []).append(dataset)
    return {
        name: sorted(builds, key=lambda d: (_version_key(d["version"]), d["content_hash"]))
        for name, builds in grouped.items()
    }


def _version_row(dataset: dict[str, Any], scored: Counter[str]) -> dict[str, Any]:
    sources = dataset["manifest"].get("sources") or [{}]
    return {
        "version": dataset["version"],
        "content_hash": dataset["content_hash"],
        "revision": str(sources[0].get("revision") or ""),
        "results": scored[dataset["content_hash"]],
    }


def _dataset_view(dataset: dict[str, Any]) -> dict[str, Any]:
    """Front matter facts and prose of a data card, with the manifest's pins and files."""
    card = dataset["card"]
    front: dict[str, Any] = {}
    prose = card
    match = re.match(r"---\n(.*?)\n---\n?(.*)", card, re.S)
    if match:
        try:
            loaded = yaml.safe_load(match.group(1))
        except yaml.YAMLError:
            loaded = None
        front = loaded if isinstance(loaded, dict) else {}
        prose = match.group(2)
    manifest = dataset["manifest"]
    configs = sorted({f.get("config", "") for f in manifest.get("files", [])})
    return {
        "name": dataset["name"],
        "pretty_name": str(front.get("pretty_name") or dataset["name"]),
        "license": str(front.get("license") or "not stated"),
        "manifest": manifest,
        "configs": configs,
        "prose": prose.strip(),
    }


def _releases(site: Path) -> list[str]:
    folder = site / RELEASES
    if not folder.is_dir():
        return []
    return sorted((p.name for p in folder.iterdir() if (p / "index.html").is_file()), reverse=True)


def _assets(site: Path) -> None:
    """Our own assets, and the vendored KaTeX (its README stays in the package)."""
    (site / "assets").mkdir(exist_ok=True)
    folder = resources.files("mathjudge.leaderboard").joinpath("assets")
    for name in ASSETS:
        (site / "assets" / name).write_text(folder.joinpath(name).read_text("utf-8"), "utf-8")
    katex = folder.joinpath("katex")
    (site / "assets" / "katex" / "fonts").mkdir(parents=True, exist_ok=True)
    for name in ("katex.min.js", "katex.min.css", "auto-render.min.js", "LICENSE"):
        (site / "assets" / "katex" / name).write_bytes(katex.joinpath(name).read_bytes())
    for font in katex.joinpath("fonts").iterdir():
        if font.name.endswith(".woff2"):
            (site / "assets" / "katex" / "fonts" / font.name).write_bytes(font.read_bytes())


def when(iso: str | None) -> str:
    """Stored timestamps in one zone and to the minute: enough to tell submissions apart."""
    if iso is None:
        return "none"
    return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def meta_items(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """Meta as short (key, text) pairs for a reader: lists as comma-separated text, our own
    bookkeeping keys left out (they stay in the meta JSON), long values cut so a page cannot
    be flooded."""
    items = []
    for key, value in sorted(meta.items()):
        text = meta_text(key, value)
        if text is None:
            continue
        if len(text) > MAX_META_CHARS:
            text = text[:MAX_META_CHARS] + "…"
        items.append((str(key), text))
    return items


ARXIV_ID = re.compile(r"arXiv:\s*(\d{4}\.\d{4,5})(v\d+)?", re.I)


def citation_href(citation: str) -> str:
    """A link for a citation naming an arXiv paper ("" when it names none). Built from the
    matched id only, so citation text can never inject a URL scheme."""
    match = ARXIV_ID.search(citation)
    return f"https://arxiv.org/abs/{match.group(1)}" if match else ""


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("mathjudge.leaderboard", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(
        direction_text=DIRECTION_TEXT,
        meta_items=meta_items,
        judge_page=judge_page,
        model_page=model_page,
        citation_href=citation_href,
    )
    env.filters.update(percent=percent, when=when, bootstrap=bootstrap_text)
    return env


def _render(
    site: Path, path: str, template: str, *, origin: dict[str, Any], **context: Any
) -> Path:
    target = site / path
    target.parent.mkdir(parents=True, exist_ok=True)
    root = "../" * path.count("/")
    html = environment().get_template(template).render(root=root, origin=origin, **context)
    target.write_text(html, encoding="utf-8")
    return target
