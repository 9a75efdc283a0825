"""Shortcut baselines: how far a rule that never reads the mathematics gets on a board.

A reader of a pairwise board needs to know whether 60% is skill or a preference for the longer
answer; of a binary board, what the label balance alone earns; of a step board, what "no error"
or "the first step is wrong" earns. Each shortcut is computed here from the built items alone
(a text's length, a step count, a position, or one answer for every item), deterministically,
and submitted like any judge, so its value is scored by the benchmark's own scorer and carries
a bootstrap interval. Its meta says `kind: baseline`, so it is a reference line on the board,
never ranked.

A benchmark declares the shortcuts that exist for it in its spec's `baselines`, with the
helpers below; each says what the rule does and, in one sentence, what its value tells:

- `constant`: the same prediction for every item (binary boards: always correct / always
  incorrect, or ReaLMistake's always error / always no error; step boards: no error / first
  step wrong; pairwise boards: always the first or the second position);
- `by_length`: a score per solution from its length (best-of-n and pointwise reward boards:
  the longer or the shorter solution wins);
- `pair_by_length`: a pair decided by the two lengths (pairwise boards: the longer or the
  shorter response is preferred);
- `step_list`: a label per step (step-label boards: no step wrong, or the first one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from mathjudge.base.errors import MathJudgeError
from mathjudge.spec.benchmark import Baseline

Rows = Iterable[Mapping[str, Any]]
HERE = "mathjudge.benchmarks.shortcuts"


def _rule(
    key: str, judge_name: str, description: str, tells: str, run: str, args: dict[str, Any]
) -> Baseline:
    """A complete baseline computed by `run`, a function of this module, with `args`."""
    return Baseline(
        key=key,
        judge_name=judge_name,
        partial=False,
        description=description,
        run=f"{HERE}:{run}",
        args=args,
        tells=tells,
    )


def constant(
    key: str, judge_name: str, prediction: Mapping[str, Any], description: str, tells: str
) -> Baseline:
    """A baseline giving every item `prediction` (its prediction fields and values)."""
    return _rule(
        key, judge_name, description, tells, "same_for_all", {"prediction": dict(prediction)}
    )


def by_length(
    key: str,
    judge_name: str,
    *,
    longer: bool,
    description: str,
    tells: str,
    text: str | None = None,
    count: str | None = None,
    field: str = "score",
) -> Baseline:
    """A baseline scoring each solution by its length: the characters of the item column
    `text` (a string, or a list of strings such as steps), or the number in `count` (a step
    count); the longer scores higher when `longer`, else the shorter."""
    return _rule(
        key,
        judge_name,
        description,
        tells,
        "length_score",
        {"field": field, "text": text, "count": count, "sign": 1 if longer else -1},
    )


def pair_by_length(
    key: str,
    judge_name: str,
    *,
    a: str,
    b: str,
    measure: Literal["chars", "count"],
    longer: bool,
    form: Literal["scores", "preferred"],
    description: str,
    tells: str,
) -> Baseline:
    """A baseline deciding each pair by the lengths of its two sides (item columns `a` and
    `b`: texts measured in characters, or counts), the longer side preferred when `longer`.
    `form` is how the benchmark takes a pair's prediction: `score_a`/`score_b`, or `preferred`
    ("A", "B", or null on equal lengths, which the scorer counts as no verdict)."""
    return _rule(
        key,
        judge_name,
        description,
        tells,
        "length_pair",
        {"a": a, "b": b, "measure": measure, "sign": 1 if longer else -1, "form": form},
    )


def step_list(
    key: str,
    judge_name: str,
    *,
    count: str,
    field: str,
    first_wrong: bool,
    description: str,
    tells: str,
    good: Any = 1,
    bad: Any = 0,
    solution: str | None = None,
) -> Baseline:
    """A baseline labelling every step of each solution (`count` steps) `good`, or the first
    one `bad` when `first_wrong`; `solution`, where the benchmark also takes a verdict on the
    whole solution, gets whether no step is wrong."""
    return _rule(
        key,
        judge_name,
        description,
        tells,
        "step_labels",
        {
            "count": count,
            "field": field,
            "first_wrong": first_wrong,
            "good": good,
            "bad": bad,
            "solution": solution,
        },
    )


# --- The rules, run by `judges.baselines.run_baseline` on the items config's rows ------------


def same_for_all(rows: Rows, _ctx: object, *, prediction: Mapping[str, Any]) -> list[dict]:
    return [{"item_id": r["item_id"], **prediction} for r in rows]


def length_score(
    rows: Rows, _ctx: object, *, field: str, text: str | None, count: str | None, sign: int
) -> list[dict]:
    return [{"item_id": r["item_id"], field: sign * _length(r, text, count)} for r in rows]


def length_pair(
    rows: Rows, _ctx: object, *, a: str, b: str, measure: str, sign: int, form: str
) -> list[dict]:
    out = []
    for r in rows:
        if measure == "chars":
            la, lb = _length(r, a, None), _length(r, b, None)
        else:
            la, lb = _length(r, None, a), _length(r, None, b)
        if form == "scores":
            out.append({"item_id": r["item_id"], "score_a": sign * la, "score_b": sign * lb})
        else:
            diff = sign * (la - lb)
            preferred = "A" if diff > 0 else "B" if diff < 0 else None
            out.append({"item_id": r["item_id"], "preferred": preferred})
    return out


def step_labels(
    rows: Rows,
    _ctx: object,
    *,
    count: str,
    field: str,
    first_wrong: bool,
    good: Any,
    bad: Any,
    solution: str | None,
) -> list[dict]:
    out = []
    for r in rows:
        n = int(_length(r, None, count))
        labels = [bad, *[good] * (n - 1)] if first_wrong else [good] * n
        row = {"item_id": r["item_id"], field: labels}
        if solution is not None:
            row[solution] = not first_wrong
        out.append(row)
    return out


def _length(row: Mapping[str, Any], text: str | None, count: str | None) -> float:
    """A solution's length: the characters of `text` (a list of strings counts all of them),
    else the number in `count`. A build without the column's values cannot give the rule."""
    column = text if text is not None else count
    value = row.get(column) if column is not None else None
    if value is None:
        raise MathJudgeError(
            f"item {row.get('item_id')!r}: no {column!r} in this build, which a length "
            "shortcut needs (a build without the texts, e.g. from an offline mirror)"
        )
    if count is not None:
        return float(value)
    if isinstance(value, str):
        return float(len(value))
    return float(sum(len(part) for part in value if part))
