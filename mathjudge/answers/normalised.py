"""Final answers, normalised: pull the final answer out of a solution (StepMathBench's
generation prompt asks for it as ``最终答案：【...】``), normalise both it and a reference answer,
and call them equal when they match as strings or math-verify finds them equivalent.

The matcher behind the RuleEM baseline (`benchmarks.stepmathbench.rule_em`), and shared by the
other answer checks (`answers.plain`, `answers.decide`) and by the ExpertMath package drafting.
"""

from __future__ import annotations

import functools
import logging
import re
import unicodedata

from math_verify import LatexExtractionConfig, parse, verify
from sympy import Basic, Product, Sum, Symbol

from mathjudge.answers.alarm import timeout

# math-verify logs a warning for each comparison that times out; a timed-out comparison counts
# as "no match" here, so the warnings only clutter the demo's output.
logging.getLogger("math_verify").setLevel(logging.ERROR)

# Longer strings are not worth handing to the LaTeX parser: they are prose or derivations.
_MV_MAX_CHARS = 300
# sympy evaluates exact numbers eagerly, so 2^{2^{2020}} or 123456! never finish; without the
# main thread's timeout such an expression would hang the run, so it is never parsed.
_HUGE_FACTORIAL = re.compile(r"\d{5,}\s*!")

_MARKER = re.compile(r"最终答案")
_MARKER_TAIL = re.compile(r"^[\s:：是为即]*")
_BOXED = "\\boxed{"
_CJK = r"\u3400-\u9fff"
_CJK_RUN_START = re.compile(rf"^[{_CJK}]+[:]?\s*")
_CJK_RUN_END = re.compile(rf"[{_CJK}]+$")
_THOUSANDS = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])")
# Only the $...$ LaTeX extractor: the plain-expression one picks a number out of any text
# ("p \equiv 1 (\bmod 4)" parses as 4), which would credit answers that merely contain it.
_MV_EXTRACTION = (LatexExtractionConfig(),)

# Unicode math characters models type instead of LaTeX commands. NFKC would turn superscript
# digits into plain ones (x² -> x2), so those are mapped here first.
_UNICODE_TO_LATEX = {
    "²": "^2",
    "³": "^3",
    "¹": "^1",
    "₀": "_0",
    "₁": "_1",
    "₂": "_2",
    "₃": "_3",
    "₄": "_4",
    "π": "\\pi ",
    "∞": "\\infty ",
    "∪": "\\cup ",
    "∩": "\\cap ",
    "∅": "\\emptyset ",
    "≤": "\\le ",
    "≥": "\\ge ",
    "≠": "\\neq ",
    "±": "\\pm ",
    "×": "\\times ",
    "·": "\\cdot ",
    "∈": "\\in ",
    "≈": "\\approx ",
    "θ": "\\theta ",
    "α": "\\alpha ",
    "β": "\\beta ",
    "γ": "\\gamma ",
    "λ": "\\lambda ",
    "μ": "\\mu ",
    "σ": "\\sigma ",
    "°": "",
}
# Control characters that stand for a backslash command lost to JSON string escaping
# ("\frac" written as "\f" + "rac" becomes form feed + "rac"). Tab and carriage return are
# left alone: they are also plain whitespace.
_LOST_ESCAPES = {"\x0c": "\\f", "\x08": "\\b", "\x07": "\\a"}
# Spelling variants of one construct, mapped to a single form so strings compare equal; a
# transposed written-out vector, (2, 4)^T, is the same answer as (2, 4); degrees are units.
_LATEX_SYNONYMS = [
    (r"\\[dt]frac", r"\\frac"),
    (r"\\big(cup|cap)", r"\\\1"),
    (r"\\varnothing", r"\\emptyset"),
    (r"\\leq(slant)?(?![a-zA-Z])", r"\\le"),
    (r"\\geq(slant)?(?![a-zA-Z])", r"\\ge"),
    (r"\\(cdots|ldots|dots)(?![a-zA-Z])", "..."),
    (r"\\%", "%"),
    (r"\\pmod\s*\{([^{}]*)\}", r"(\\bmod \1)"),
    (r"\\(no)?limits(?![a-zA-Z])", ""),
    (r"(?<=[)}])\^\{?T\}?(?![a-zA-Z])", ""),
    (r"\^\{?\\circ\}?", ""),
    (r"\\left(?![a-zA-Z])\.?|\\right(?![a-zA-Z])\.?|\\displaystyle", ""),
    (r"\\[,;:! ]|\\q?quad(?![a-zA-Z])|~", " "),
]
# \text{...} and friends only change typesetting; \mathbb{Z} and Z name the same set.
_WRAPPER_COMMANDS = re.compile(
    r"\\(?:text|textbf|textrm|mathrm|mathbf|mathbb|mbox|operatorname)\s*\{([^{}]*)\}"
)
# Commands that a glued-together unknown command (\sinx, \piln6, \inZ) may start with.
_KNOWN_COMMANDS = frozenset(
    [
        "frac",
        "sqrt",
        "pi",
        "ln",
        "log",
        "lg",
        "exp",
        "sin",
        "cos",
        "tan",
        "cot",
        "sec",
        "csc",
        "arcsin",
        "arccos",
        "arctan",
        "sinh",
        "cosh",
        "tanh",
        "in",
        "infty",
        "cup",
        "cap",
        "le",
        "ge",
        "neq",
        "pm",
        "mp",
        "times",
        "cdot",
        "div",
        "sim",
        "mid",
        "to",
        "emptyset",
        "sum",
        "prod",
        "int",
        "lim",
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "theta",
        "lambda",
        "mu",
        "nu",
        "rho",
        "sigma",
        "tau",
        "phi",
        "omega",
        "det",
        "max",
        "min",
    ]
)
_COMMAND = re.compile(r"\\([a-zA-Z]+)")


def extract_final_answer(model_output: str) -> str | None:
    """The final answer the prompt asked for: the ``最终答案`` block, else a trailing box/【】.

    Returns the block's content with display wrappers (``\\boxed``, ``$``) removed, or None
    when the solution never states a final answer (e.g. a generation that ran away).
    """
    if not isinstance(model_output, str) or not model_output.strip():
        return None
    markers = list(_MARKER.finditer(model_output))
    if markers:
        candidate = _after_marker(model_output[markers[-1].end() :])
    else:
        candidate = _last_boxed(model_output) or _trailing_lenticular(model_output)
    if candidate is None:
        return None
    candidate = _strip_math_delimiters(_unbox(candidate))
    return candidate or None


def answers_match(predicted: str, references: list[str]) -> bool:
    """True when ``predicted`` is equivalent to any of the reference answers."""
    return any(_matches(predicted, ref) for ref in _alternatives(references))


def _alternatives(references: list[str]) -> list[str]:
    """Reference answers, with a list flattened into one string (``"a', 'b"``) split again."""
    return [alt for ref in references if isinstance(ref, str) for alt in ref.split("', '")]


# --- extraction -------------------------------------------------------------------------------


def _after_marker(text: str) -> str | None:
    """The answer following a ``最终答案`` marker: a 【】 block, else the rest of that paragraph."""
    text = _MARKER_TAIL.sub("", text, count=1)
    if text.startswith("【"):
        return _lenticular_content(text, 0)
    paragraph = text.split("\n\n", 1)[0].strip()
    return paragraph or None


def _lenticular_content(text: str, start: int) -> str:
    """Content of the 【】 block opening at ``start``, stopping at its first matching 】.

    Models sometimes double the closer (``【21】】``), so the first balanced 】 wins.
    """
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "【":
            depth += 1
        elif text[i] == "】":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i]
    return text[start + 1 :]


def _trailing_lenticular(text: str) -> str | None:
    """A last 【】 block that ends the solution (only a few characters may follow it)."""
    start = text.rfind("【")
    if start < 0:
        return None
    content = _lenticular_content(text, start)
    tail = text[start + len(content) + 2 :]
    return content if len(tail.strip()) <= 20 else None


def _brace_group(text: str, open_index: int) -> str:
    """Content of the ``{...}`` group whose ``{`` is at ``open_index`` (to the end if unclosed)."""
    depth = 0
    for i in range(open_index, len(text)):
        if text[i] == "{" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif text[i] == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[open_index + 1 : i]
    return text[open_index + 1 :]


def _last_boxed(text: str) -> str | None:
    start = text.rfind(_BOXED)
    return None if start < 0 else _brace_group(text, start + len(_BOXED) - 1)


def _unbox(text: str) -> str:
    """Replace every ``\\boxed{X}`` by X: the box is presentation, not part of the answer."""
    while (start := text.find(_BOXED)) >= 0:
        inner = _brace_group(text, start + len(_BOXED) - 1)
        end = start + len(_BOXED) + len(inner) + 1
        text = text[:start] + inner + text[end:]
    return text


def _strip_math_delimiters(text: str) -> str:
    text = text.strip()
    for opener, closer in (("$$", "$$"), ("\\[", "\\]"), ("\\(", "\\)"), ("$", "$")):
        if text.startswith(opener) and text.endswith(closer) and len(text) >= 2 * len(opener):
            text = text[len(opener) : len(text) - len(closer)].strip()
    return text


# --- normalisation ----------------------------------------------------------------------------


def _split_glued_command(match: re.Match) -> str:
    """Split an unknown command such as ``\\sinx`` or ``\\piln`` into known commands + text."""
    word = match.group(1)
    if word in _KNOWN_COMMANDS:
        return match.group(0)
    pieces, rest, is_command = [], word, True
    while rest:
        prefix = next(
            (rest[:n] for n in range(len(rest), 0, -1) if rest[:n] in _KNOWN_COMMANDS), None
        )
        if prefix is None:
            if is_command:  # not a glued known command at all: leave it untouched
                return match.group(0)
            pieces.append(rest)
            break
        pieces.append("\\" + prefix + " ")
        rest, is_command = rest[len(prefix) :], False
    return "".join(pieces)


def _balance_braces(text: str) -> str:
    """Close braces a model forgot (``\\frac{32\\pi}{15``) and drop surplus trailing ones."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "{}" and (i == 0 or text[i - 1] != "\\"):
            depth += 1 if ch == "{" else -1
    if depth > 0:
        return text + "}" * depth
    while depth < 0 and text.endswith("}"):
        text, depth = text[:-1], depth + 1
    return text


def _sqrt_unicode(text: str) -> str:
    """``√2``, ``√(a+b)`` -> ``\\sqrt{2}``, ``\\sqrt{a+b}``."""
    while (i := text.find("√")) >= 0:
        rest = text[i + 1 :]
        if rest.startswith("("):
            depth, end = 0, len(rest)
            for j, ch in enumerate(rest):
                depth += {"(": 1, ")": -1}.get(ch, 0)
                if depth == 0:
                    end = j
                    break
            text = text[:i] + "\\sqrt{" + rest[1:end] + "}" + rest[end + 1 :]
        else:
            m = re.match(r"\s*(\d+(\.\d+)?|[a-zA-Z])", rest)
            arg, skip = (m.group(1), m.end()) if m else ("", 0)
            text = text[:i] + "\\sqrt{" + arg + "}" + rest[skip:]
    return text


@functools.lru_cache(maxsize=4096)
def _normalise(text: str) -> str:
    """Map the many spellings of one answer to a canonical LaTeX-ish string."""
    for lost, command in _LOST_ESCAPES.items():
        text = text.replace(lost, command)
    for char, latex in _UNICODE_TO_LATEX.items():
        text = text.replace(char, latex)
    text = _sqrt_unicode(unicodedata.normalize("NFKC", text))
    text = _strip_math_delimiters(_unbox(text.strip().strip("【】")))
    text = text.replace("$", " ").replace("\\(", " ").replace("\\)", " ")
    text = text.replace("\\[", " ").replace("\\]", " ")
    while (unwrapped := _WRAPPER_COMMANDS.sub(r"\1", text)) != text:
        text = unwrapped
    for pattern, replacement in _LATEX_SYNONYMS:
        text = re.sub(pattern, replacement, text)
    text = _COMMAND.sub(_split_glued_command, text)
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"(?<!\.)[.。]$", "", text).rstrip(",;、 ")
    # Set-builder notation: "\{x : P\}" and "\{x | P\}" mean "\{x \mid P\}".
    text = re.sub(r"(\\\{(?:(?!\\mid)[^:|])*?)\s*(?<!\\)[:|]\s*(?=[^{}]*\\\})", r"\1 \\mid ", text)
    return _strip_grouping_braces(_balance_braces(text))


def _strip_grouping_braces(text: str) -> str:
    """``{{(2, 4)}}`` -> ``(2, 4)``: TeX grouping braces, whereas ``{2, 4}`` is a set."""
    while (
        text.startswith("{")
        and _brace_group(text, 0) == text[1:-1]
        and len(_split_top_level(text[1:-1])) == 1
    ):
        text = text[1:-1].strip()
    return text


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _split_top_level(text: str) -> list[str]:
    """Split a multi-part answer on , ; 或 and 、 that are not inside any brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if depth == 0 and ch in ",;或、":
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    parts.append("".join(current).strip())
    return [p for p in parts if p]


def _strip_prose(part: str) -> str:
    """Drop Chinese words around an expression: ``当a>1时`` -> ``a>1``, ``10分钟`` -> ``10``."""
    stripped = _CJK_RUN_END.sub("", _CJK_RUN_START.sub("", part)).strip()
    return stripped or part


def _rhs(part: str) -> str:
    """The value of a labelled answer such as ``k = 1/2`` or ``x_1 = ... = 3`` (last side)."""
    depth, cut = 0, -1
    for i, ch in enumerate(part):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "=" and depth == 0:
            cut = i
    if cut < 0 and "\\approx" in part:
        cut = part.rfind("\\approx") + len("\\approx") - 1
    return part[cut + 1 :].strip() if cut >= 0 else part


def _has_top_level_equation(part: str) -> bool:
    return _rhs(part) != part


# --- comparison -------------------------------------------------------------------------------


def _matches(predicted: str, reference: str) -> bool:
    pred, ref = _normalise(predicted), _normalise(reference)
    if not pred or not ref:
        return False
    if _compact(pred) == _compact(ref):
        return True
    pred_parts, ref_parts = _split_top_level(pred), _split_top_level(ref)
    if len(ref_parts) == 1 and len(pred_parts) > 1:
        # One expected value: a list of candidates is a hedge, not an answer, unless the
        # commas were thousands separators ("114,116.61").
        pred_parts = _split_top_level(_THOUSANDS.sub(lambda m: m.group(0).replace(",", ""), pred))
    # "x = (2, 4)" answering "2, 4", and the reverse.
    if len(ref_parts) == 1:
        ref_parts = _split_top_level(_unlabel(ref_parts[0], pred_parts))
    if len(pred_parts) == 1:
        pred_parts = _split_top_level(_unlabel(pred_parts[0], ref_parts))
    if len(pred_parts) != len(ref_parts):
        # "(3, 0)" answering "3;0", or "2, 4" answering "(2, 4)".
        pred_parts, ref_parts = _untuple(pred_parts), _untuple(ref_parts)
    if len(pred_parts) != len(ref_parts):
        return False
    if all(_parts_match(p, r) for p, r in zip(pred_parts, ref_parts, strict=True)):
        return True
    # Values are listed in the order the question asks for ("first A, then B"); alternatives
    # ("x = 1 或 x = 2") and a list of equations (planes, curves) may come in any order.
    if "或" in ref or all(map(_has_top_level_equation, ref_parts)):
        return _unordered_match(pred_parts, ref_parts)
    return False


def _untuple(parts: list[str]) -> list[str]:
    """The elements of a lone parenthesised tuple; other part lists are returned unchanged."""
    if len(parts) == 1 and parts[0].startswith("(") and parts[0].endswith(")"):
        return _split_top_level(parts[0][1:-1])
    return parts


def _unordered_match(pred_parts: list[str], ref_parts: list[str]) -> bool:
    remaining = list(pred_parts)
    for ref in ref_parts:
        hit = next((p for p in remaining if _parts_match(p, ref)), None)
        if hit is None:
            return False
        remaining.remove(hit)
    return True


def _unlabel(part: str, other_parts: list[str]) -> str:
    """Reduce ``k = v`` to ``v`` when the other side is made of bare values, not equations."""
    if not _has_top_level_equation(part) or any(map(_has_top_level_equation, other_parts)):
        return part
    return _strip_grouping_braces(_rhs(part))


def _parts_match(pred: str, ref: str) -> bool:
    pred, ref = _strip_prose(pred), _strip_prose(ref)
    pred, ref = _unlabel(pred, [ref]), _unlabel(ref, [pred])
    if _compact(pred) == _compact(ref):
        return True
    return _math_equal(pred, ref)


@functools.lru_cache(maxsize=8192)
def _parsed(expr: str) -> tuple:
    """math-verify's parse of one LaTeX expression; () when it fails, times out or errors."""
    try:
        parsed = parse(f"${expr}$", extraction_config=_MV_EXTRACTION, parsing_timeout=timeout())
        return tuple(_rename_bound_variables(item) for item in parsed)
    except Exception:  # one odd answer must never stop a run
        return ()


def _rename_bound_variables(expr: object) -> object:
    """Give summation/product indices fixed names: sum_k T^k and sum_n T^n are the same."""
    if not isinstance(expr, Basic):
        return expr
    return expr.replace(
        lambda e: isinstance(e, Sum | Product),
        lambda e: e.xreplace({v: Symbol(f"_bound{i}") for i, v in enumerate(e.variables)}),
    )


def _math_equal(pred: str, ref: str) -> bool:
    if not safe_to_parse(pred) or not safe_to_parse(ref):
        return False
    gold, target = _parsed(ref), _parsed(pred)
    if not gold or not target:
        return False
    try:
        return bool(verify(list(gold), list(target), timeout_seconds=timeout()))
    except Exception:  # as in _parsed
        return False


def safe_to_parse(expr: str) -> bool:
    if not expr or len(expr) > _MV_MAX_CHARS or _HUGE_FACTORIAL.search(expr):
        return False
    for i, ch in enumerate(expr):
        if ch == "^":
            rest = expr[i + 1 :].lstrip()
            exponent = _brace_group(rest, 0) if rest.startswith("{") else rest[:1]
            if "^" in exponent and not re.search(r"[a-zA-Z]", _COMMAND.sub("", exponent)):
                return False  # a numeric power tower
    return True
