"""Data-card prose templates: `mathjudge/data_cards/<benchmark>.md`, or `card.md` in a benchmark
folder under `mathjudge/benchmarks/`."""

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


def render_folder_card(package: str, **facts: Any) -> str:
    """The `card.md` of a benchmark folder (`mathjudge.benchmarks.<name>`), rendered."""
    return _ENV.from_string(resources.files(package).joinpath("card.md").read_text("utf-8")).render(
        **facts
    )
