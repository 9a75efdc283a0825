"""What is wrong with a meta.yaml or submission.json, said so that it leads to the fix.

A misspelt key (`licence`) got "not a field" and a second line saying `license` was missing;
`open_weights: "yes"` got "Input should be a valid boolean" with no line and no example, and
both pointed to a Submit page that exists only once a site is built. Each problem now names the
file and the line of its key, suggests the field a misspelt key most likely means, shows a
valid value (the field's example in `spec.folder`), and points to the submission guide that
mathjudge carries (`docs/submitting.md`, by a `file://` URL that opens wherever it runs).
"""

from __future__ import annotations

import difflib
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from mathjudge.base.config import doc_url
from mathjudge.base.escaping import printable
from mathjudge.base.safeyaml import key_lines

GUIDE = "submitting.md"
# The type tags pydantic appends to the location of each branch of a union it tried.
_UNION_BRANCHES = {"bool", "int", "float", "str", "constrained-int", "constrained-float"}


def guide() -> str:
    """Where the fields of a submission are explained: the guide mathjudge carries."""
    return doc_url(GUIDE)


def _example(model: type[BaseModel], name: str) -> str | None:
    """The field's example as YAML on one line (`open_weights: true`), if it has one."""
    field = model.model_fields.get(name)
    if field is None or not field.examples:
        return None
    value = yaml.safe_dump(field.examples[0], default_flow_style=True, width=1000)
    return f"{name}: {value.splitlines()[0]}"


def _did_you_mean(key: str, fields: list[str]) -> str:
    folded = {f.casefold(): f for f in fields}
    guess = folded.get(key.casefold()) or next(
        iter(difflib.get_close_matches(key, fields, n=1, cutoff=0.6)), None
    )
    return f"did you mean {guess!r}? " if guess else ""


def _got(value: Any) -> str:
    if isinstance(value, dict):
        return ""
    text = printable(repr(value))
    return f" (got {text if len(text) <= 60 else text[:59] + '…'})"


def _collapsed(errors: list[ErrorDetails]) -> list[ErrorDetails]:
    """One error for a value no branch of a union took (`config.x` as bool, int, float and
    str): pydantic reports one per branch, at locations ending in the branch's type."""
    out: list[ErrorDetails] = []
    seen: set[tuple[Any, ...]] = set()
    for error in errors:
        loc = error["loc"]
        if len(loc) > 1 and str(loc[-1]) in _UNION_BRANCHES:
            if loc[:-1] in seen:
                continue
            seen.add(loc[:-1])
            error = {**error, "loc": loc[:-1], "msg": "must be text, a number or a boolean"}
        out.append(error)
    return out


def schema_problems(
    where: str, exc: ValidationError, model: type[BaseModel], what: str, text: str | None
) -> str:
    """One line per problem of `exc` (the file `where`, whose YAML or JSON is `text`): located
    by line where the key is found, with a suggestion or an example of a valid value."""
    lines = key_lines(text) if text is not None else {}
    fields = list(model.model_fields)
    out = []
    errors = _collapsed(exc.errors(include_url=False))
    errors.sort(key=lambda e: e["type"] != "extra_forbidden")  # the suggestions first
    for error in errors:
        loc = tuple(str(part) for part in error["loc"])
        line = lines.get(loc) or (lines.get(loc[:1]) if loc else None)
        field = printable(".".join(loc)) or "top level"
        at = f"{where}:{line}" if line else where
        name = loc[0] if loc else ""
        example = _example(model, name) if len(loc) <= 2 else None
        if error["type"] == "missing":
            said = "missing (a required field)" + (f"; e.g. {example}" if example else "")
        elif error["type"] == "extra_forbidden":
            said = (
                f"not a field of {what}; {_did_you_mean(name, fields)}the fields are "
                f"{', '.join(fields)}"
            )
        else:
            said = printable(str(error["msg"]).removeprefix("Value error, "))
            said += _got(error.get("input")) + (f"; e.g. {example}" if example else "")
        out.append(f"  {at} [{field}]: {said}")
    return "\n".join(out)
