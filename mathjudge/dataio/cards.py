"""Data-card prose templates: `card.md` in each benchmark's folder, rendered with build facts."""

from __future__ import annotations

from importlib import resources
from typing import Any

import jinja2

_ENV = jinja2.Environment(
    loader=jinja2.FunctionLoader(
        lambda name: (
            resources.files(f"mathjudge.benchmarks.{name}").joinpath("card.md").read_text("utf-8")
        )
    ),
    autoescape=False,  # Markdown, not HTML; values are our own build facts
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)


def render_card_body(benchmark: str, **facts: Any) -> str:
    return _ENV.get_template(benchmark).render(**facts)
