"""Prompt templates, one Markdown file per judge or pipeline step, written in our own words.

A template is sent as it is, with `{{name}}` placeholders filled in. `load_prompt` returns its
text and sha256 so every run records exactly which prompt produced its answers.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from typing import NamedTuple

_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


class Prompt(NamedTuple):
    text: str
    sha256: str

    def fill(self, **values: str) -> str:
        """The template with every placeholder replaced; a missing or unused value is an
        error, so a template and its caller cannot drift apart silently."""
        wanted = set(_PLACEHOLDER.findall(self.text))
        if wanted != values.keys():
            raise KeyError(
                f"placeholders {sorted(wanted)} do not match the values {sorted(values)}"
            )
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.text)


def load_prompt(name: str) -> Prompt:
    """The template `mathjudge/prompts/<name>.md`."""
    text = resources.files(__name__).joinpath(f"{name}.md").read_text(encoding="utf-8")
    return Prompt(text, hashlib.sha256(text.encode("utf-8")).hexdigest())
