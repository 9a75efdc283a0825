"""YAML from untrusted files (submission metas, problem packages), loaded so that no input can
crash the process or smuggle in a value the rest of mathjudge cannot hold.

PyYAML's SafeLoader runs no code, but on some scalars it raises plain Python exceptions (a date
2024-02-30 or in month 13, a +25:00 offset, `!!int abc`, `!!float abc`, an integer of 5,000
digits), it recurses once per nesting level (a RecursionError near 1,000 levels), it keeps the
last of two equal keys without a word, and it accepts `.inf`, `.nan` and integers of any size,
which no JSON writer, DuckDB column or browser holds exactly. `Loader` refuses each of these at
the line it is on; `parse` turns every other failure into the same `YamlProblem` as a last
guard, and `load` names the file.
"""

from __future__ import annotations

import math
from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode

from mathjudge.base.display import MAX_EXACT_INT
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable

MAX_DEPTH = 32
_MERGE = "tag:yaml.org,2002:merge"


class YamlProblem(ValueError):
    """Why a YAML text was refused, with the 1-based line where known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class Loader(yaml.SafeLoader):
    """SafeLoader with bounded nesting, no duplicate keys, and scalars that are refused where
    they are written instead of raising Python exceptions."""

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise ComposerError(None, None, f"nested deeper than {MAX_DEPTH} levels", mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, MappingNode):
            first: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    line = first.get(key)
                except TypeError:
                    continue  # an unhashable key: the base class says so
                if line is not None:
                    raise ConstructorError(
                        None,
                        None,
                        f"key {printable(repr(key))[:80]} given twice (first on line {line})",
                        key_node.start_mark,
                    )
                first[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node: ScalarNode) -> int:
        try:
            value = super().construct_yaml_int(node)
        except ValueError:  # not an integer, or thousands of digits (int() refuses those)
            digits = str(node.value).replace("_", "").lstrip("+-")
            too_long = digits.isdigit() and len(digits) > 16
            why = f"is beyond ±2^53 ({MAX_EXACT_INT})" if too_long else "is not an integer"
            raise _refused(node, why) from None
        if abs(value) > MAX_EXACT_INT:
            raise _refused(node, f"is beyond ±2^53 ({MAX_EXACT_INT}), the largest exact integer")
        return int(value)

    def construct_yaml_float(self, node: ScalarNode) -> float:
        try:
            value = super().construct_yaml_float(node)
        except ValueError:
            raise _refused(node, "is not a number") from None
        if not math.isfinite(value):
            raise _refused(node, "is not a finite number (no .inf, .nan or overflow)")
        return float(value)

    def construct_yaml_timestamp(self, node: ScalarNode) -> Any:
        try:
            return super().construct_yaml_timestamp(node)
        except (ValueError, OverflowError) as exc:
            raise _refused(node, f"is not a valid date or time ({exc})") from None


def _refused(node: ScalarNode, why: str) -> ConstructorError:
    shown = printable(str(node.value))
    shown = shown if len(shown) <= 40 else shown[:40] + "…"
    return ConstructorError(None, None, f"{shown!r} {why}", node.start_mark)


for _tag, _method in (
    ("tag:yaml.org,2002:int", Loader.construct_yaml_int),
    ("tag:yaml.org,2002:float", Loader.construct_yaml_float),
    ("tag:yaml.org,2002:timestamp", Loader.construct_yaml_timestamp),
):
    Loader.add_constructor(_tag, _method)


def parse(text: str, loader: type[Loader] = Loader) -> Any:
    """The one document in `text`; raises `YamlProblem` on anything it cannot load."""
    try:
        return yaml.load(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        reason = exc.problem or exc.context or "unreadable"
        raise YamlProblem(printable(reason), mark.line + 1 if mark else None) from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise YamlProblem(printable(exc.reason), line) from None
    except yaml.YAMLError as exc:
        raise YamlProblem(printable(str(exc))) from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # a last guard
        raise YamlProblem(printable(f"{type(exc).__name__}: {exc}")) from None


def load(text: str, where: str) -> Any:
    """`parse`, with a refusal raised as a `MathJudgeError` naming `where` and the line."""
    try:
        return parse(text)
    except YamlProblem as exc:
        line = f":{exc.line}" if exc.line else ""
        raise MathJudgeError(f"{where}{line}: not valid YAML ({exc.message})") from None


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """The 1-based line of every mapping key in the YAML `text`, by its path of keys (lists
    are not entered), so a message about a field can name its line; {} for a text that does
    not load."""
    try:
        root = yaml.compose(text, Loader=Loader)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return {}
    out: dict[tuple[str, ...], int] = {}
    stack: list[tuple[tuple[str, ...], Node | None]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if not isinstance(node, MappingNode):
            continue
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode):
                key = (*path, str(key_node.value))
                out.setdefault(key, key_node.start_mark.line + 1)
                stack.append((key, value_node))
    return out
