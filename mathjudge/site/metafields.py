"""The Submit page's description of a submission's meta, read from its pydantic model (so the
page and the validator cannot disagree)."""

from __future__ import annotations

from dataclasses import dataclass

from mathjudge.spec.folder import SubmissionMeta


@dataclass(frozen=True)
class MetaField:
    name: str
    required: bool
    kind: str
    description: str


KINDS = {
    "judge": "text",
    "model": "text",
    "model_version": "text",
    "organization": "text",
    "link": "http(s) URL",
    "date": "date, YYYY-MM-DD",
    "prompt": "text",
    "config": "mapping of names to text, numbers or booleans",
    "open_weights": "true, false or null (not stated)",
    "license": "text (an SPDX id where there is one)",
    "contact": "text",
}


def meta_fields() -> list[MetaField]:
    return [
        MetaField(name, info.is_required(), KINDS.get(name, "text"), info.description or "")
        for name, info in SubmissionMeta.model_fields.items()
    ]
