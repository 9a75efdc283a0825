"""Data-card prose templates live in `mathjudge/data_cards/`, one Markdown file per benchmark."""

from __future__ import annotations

from importlib import resources
from typing import Any

import jinja2

_ENV = jinja2.Environment(
    loader=jinja2.FunctionLoader(
        lambda name: resources.files("mathjudge.data_cards").joinpath(name).read_text("utf-8")
    ),
    autoescape=False,  # Markdown, not HTML; values are our own build facts
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)


def render_card_body(benchmark: str, **facts: Any) -> str:
    return _ENV.get_template(f"{benchmark}.md").render(**facts)
