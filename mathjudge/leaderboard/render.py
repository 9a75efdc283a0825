"""Exported data files + presentation schema -> static HTML pages (no JavaScript, no CDN).

Pages are rendered only from what `export` wrote, so the pages and the downloads cannot
disagree and nothing here depends on scoring internals. Everything
coming from submissions (judge names, meta, subsets, citations) reaches the templates as plain
strings and is escaped by Jinja's autoescape; nothing here marks a value safe.
"""

from __future__ import annotations

import functools
import json
import os
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

from mathjudge.errors import MathJudgeError
from mathjudge.leaderboard.export import LEADERBOARD_JSON, SCHEMA_VERSION, export_data
from mathjudge.leaderboard.presentation import DIRECTION_TEXT
from mathjudge.leaderboard.publish import publish
from mathjudge.leaderboard.views import benchmark_view, bootstrap_text, percent

MAX_META_CHARS = 200


def build_site(store: Path, out: Path) -> Path:
    """Export the results `store` and render it as a static site at `out` (replaced
    atomically); returns the path of `out/index.html`."""
    out = Path(os.path.abspath(out))

    def fill(site: Path) -> None:
        export_data(store, site / "data")
        render_site(site)

    publish(out, fill, marker=f"data/{LEADERBOARD_JSON}")
    return out / "index.html"


def render_site(site: Path) -> Path:
    """Render `site/data/leaderboard.json` into `site/`; returns the index page's path."""
    doc = json.loads((site / "data" / LEADERBOARD_JSON).read_text(encoding="utf-8"))
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise MathJudgeError(f"{LEADERBOARD_JSON}: schema_version {doc.get('schema_version')!r}")
    views = [benchmark_view(b) for b in doc["benchmarks"]]
    (site / "assets").mkdir(exist_ok=True)
    css = resources.files("mathjudge.leaderboard").joinpath("assets", "style.css")
    (site / "assets" / "style.css").write_text(css.read_text(encoding="utf-8"), encoding="utf-8")
    origin = doc["generated_from"]
    for view in views:
        _render(site / view.page, "benchmark.html", bench=view, origin=origin)
    return _render(site / "index.html", "index.html", benchmarks=views, origin=origin)


def when(iso: str | None) -> str:
    """Stored timestamps in one zone and to the minute: enough to tell submissions apart."""
    if iso is None:
        return "none"
    return datetime.fromisoformat(iso).astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def meta_items(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """Meta as short (key, text) pairs; long values are cut so a page cannot be flooded."""
    items = []
    for key, value in sorted(meta.items()):
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if len(text) > MAX_META_CHARS:
            text = text[:MAX_META_CHARS] + "…"
        items.append((str(key), text))
    return items


@functools.cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("mathjudge.leaderboard", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals.update(direction_text=DIRECTION_TEXT, meta_items=meta_items)
    env.filters.update(percent=percent, when=when, bootstrap=bootstrap_text)
    return env


def _render(path: Path, template: str, **context: Any) -> Path:
    path.write_text(environment().get_template(template).render(**context), encoding="utf-8")
    return path
