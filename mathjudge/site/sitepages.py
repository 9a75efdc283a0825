"""View models of the pages about the data rather than the judges: one page per dataset (from
its card and manifest, with every stored version), the methodology (every benchmark's metric
definitions) and the Submit page's list of benchmarks. Manifests and cards are data the store
keeps as written; they are read here defensively into plain strings."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import yaml

from mathjudge.site.views import MetricGroupView, View, metric_view
from mathjudge.spec.document import DatasetDocument, LeaderboardDocument


class DatasetFile(View):
    config: str
    split: str
    path: str
    rows: str
    sha256: str


class DatasetInput(View):
    path: str
    sha256: str


class DatasetSource(View):
    kind: str
    where: str
    revision: str
    inputs: tuple[DatasetInput, ...]


class DatasetVersion(View):
    version: str
    content_hash: str
    revision: str
    results: int


class DatasetView(View):
    name: str
    page: str
    pretty_name: str
    license: str
    version: str
    content_hash: str
    builder: str
    files: tuple[DatasetFile, ...]
    sources: tuple[DatasetSource, ...]
    configs: tuple[str, ...]
    prose: str
    versions: tuple[DatasetVersion, ...]  # newest first


def version_key(version: str) -> tuple[int, ...] | tuple[float]:
    """MAJOR.MINOR.PATCH as numbers (1.10.0 after 1.9.0); anything else sorts first."""
    parts = version.split(".")
    return tuple(int(p) for p in parts) if all(p.isdigit() for p in parts) else (-1.0,)


def dataset_views(document: LeaderboardDocument) -> list[DatasetView]:
    """A view per dataset name: the newest stored build, with every stored version listed."""
    scored = Counter(s.content_hash for b in document.benchmarks for s in b.submissions)
    grouped: dict[str, list[DatasetDocument]] = {}
    for dataset in document.datasets:
        grouped.setdefault(dataset.name, []).append(dataset)
    out = []
    for _, builds in sorted(grouped.items()):
        builds.sort(key=lambda d: (version_key(d.version), d.content_hash))
        out.append(_dataset_view(builds[-1], builds, scored))
    return out


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _dataset_view(
    dataset: DatasetDocument, builds: list[DatasetDocument], scored: Counter[str]
) -> DatasetView:
    front: dict[str, Any] = {}
    prose = dataset.card
    match = re.match(r"---\n(.*?)\n---\n?(.*)", dataset.card, re.S)
    if match:
        try:
            loaded = yaml.safe_load(match.group(1))
        except yaml.YAMLError:
            loaded = None
        front = loaded if isinstance(loaded, dict) else {}
        prose = match.group(2)
    manifest = dataset.manifest
    files = [f for f in manifest.get("files") or [] if isinstance(f, dict)]
    sources = [s for s in manifest.get("sources") or [] if isinstance(s, dict)]
    builder = manifest.get("builder")
    return DatasetView(
        name=dataset.name,
        page=f"datasets/{dataset.name}.html",
        pretty_name=_text(front.get("pretty_name") or dataset.name),
        license=_text(front.get("license") or "not stated"),
        version=dataset.version,
        content_hash=dataset.content_hash,
        builder=(
            f"{_text(builder.get('name'))} {_text(builder.get('version'))}".strip()
            if isinstance(builder, dict)
            else ""
        ),
        files=tuple(
            DatasetFile(
                config=_text(f.get("config")),
                split=_text(f.get("split")),
                path=_text(f.get("path")),
                rows=_text(f.get("rows")),
                sha256=_text(f.get("sha256")),
            )
            for f in files
        ),
        sources=tuple(
            DatasetSource(
                kind=_text(s.get("kind")),
                where=_text(s.get("repo") or s.get("id") or s.get("url")),
                revision=_text(s.get("revision")),
                inputs=tuple(
                    DatasetInput(path=_text(i.get("path")), sha256=_text(i.get("sha256")))
                    for i in s.get("inputs") or []
                    if isinstance(i, dict)
                ),
            )
            for s in sources
        ),
        configs=tuple(sorted({_text(f.get("config")) for f in files})),
        prose=prose.strip(),
        versions=tuple(
            DatasetVersion(
                version=d.version,
                content_hash=d.content_hash,
                revision=_revision(d),
                results=scored[d.content_hash],
            )
            for d in reversed(builds)
        ),
    )


def _revision(dataset: DatasetDocument) -> str:
    sources = dataset.manifest.get("sources") or [{}]
    first = sources[0] if isinstance(sources[0], dict) else {}
    return _text(first.get("revision"))


class MethodBenchmark(View):
    name: str
    title: str
    summary: str
    groups: tuple[MetricGroupView, ...]


class MethodologyView(View):
    benchmarks: tuple[MethodBenchmark, ...]


def methodology_view(document: LeaderboardDocument) -> MethodologyView:
    return MethodologyView(
        benchmarks=tuple(
            MethodBenchmark(
                name=show.name,
                title=show.display_name,
                summary=show.summary,
                groups=tuple(
                    MetricGroupView(title=g.title, metrics=tuple(metric_view(m) for m in g.metrics))
                    for g in show.groups
                ),
            )
            for show in document.methodology
        )
    )


class SubmitBoard(View):
    """A benchmark one can submit to: its folder under `submissions/`, its title, and its board
    on this site ("" when it has no result yet)."""

    folder: str
    title: str
    summary: str  # what a judge does
    board: str


def submit_boards(document: LeaderboardDocument, pages: dict[str, str]) -> tuple[SubmitBoard, ...]:
    """Every benchmark of the installation that published the document (the registry's, carried
    in it), so the folder list is the one `mathjudge submit` accepts, whether or not a board
    has results yet."""
    return tuple(
        SubmitBoard(
            folder=show.name,
            title=show.display_name,
            summary=show.summary.split(": ")[0],  # what a judge does (as the README says)
            board=pages.get(show.name, ""),
        )
        for show in sorted(document.methodology, key=lambda s: s.name)
    )
