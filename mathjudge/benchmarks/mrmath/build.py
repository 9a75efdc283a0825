"""MR-MATH (Xia et al., "Evaluating Mathematical Reasoning Beyond Accuracy", arXiv:2404.05692):
step-by-step solutions to MATH problems with human step labels, for judges that check the
process rather than the final answer.

Two sets, one items config `solutions`:
- invalid set: 159 solutions that all reach the correct final answer, 83 of them with an invalid
  step whose first occurrence people labelled (1-based `first_error_step`);
- redundant set: 300 PRM800K solutions whose every step is rated 1 (useful) or 0 (valid but
  redundant).

Gold labels follow the authors' scorer: a solution is positive when it is valid (invalid set) or
has no redundant step (redundant set). Step labels are 1 positive, 0 negative, null not evaluated:
a flawed solution's steps after its first error carry no label. Upstream files are JSON Lines
despite their `.json` names, read from the pinned commit (or its mirror) and checked strictly:
the scorer aligns judges' step predictions with these labels position by position.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

import datasets
from datasets import List, Value

from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.jsonfiles import iter_jsonl
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import Source, resolve
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "mrmath"
PINS = load_pins(NAME)  # source.yaml: the version, the upstream files and published outputs
VERSION = PINS.version
SOURCE = PINS.source
SETS = ("invalid", "redundant")
INVALID_FILE = "dataset/mr-math_invalid_errors.json"
REDUNDANT_FILE = "dataset/mr-math_redundant_errors.json"

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "set": Value("string"),
        "upstream_id": Value("int32"),
        "problem_id": Value("string"),
        "question": Value("string"),
        "ground_truth_answer": Value("string"),
        "generator": Value("string"),
        "model_output": Value("string"),
        "steps": List(List(Value("string"))),
        "n_steps": Value("int16"),
        "n_lines": Value("int16"),
        "solution_label": Value("bool"),
        "solution_label_name": Value("string"),
        "step_labels": List(Value("int8")),
        "step_label_names": List(Value("string")),
        "first_error_step": Value("int16"),
        "ratings": List(Value("int8")),
    }
)


# The labels as names, for readers that see bare booleans and 0/1 (pandas, DuckDB): a solution
# label (True/False) and a step label (1/0; null = not labelled) per set.
LABEL_NAMES = {
    "invalid": ({True: "valid", False: "invalid"}, {1: "valid", 0: "invalid"}),
    "redundant": (
        {True: "no_redundant_step", False: "has_redundant_step"},
        {1: "useful", 0: "redundant"},
    ),
}


def named(row: dict[str, Any]) -> dict[str, Any]:
    solution, step = LABEL_NAMES[row["set"]]
    return row | {
        "solution_label_name": solution[row["solution_label"]],
        "step_label_names": [None if s is None else step[s] for s in row["step_labels"]],
    }


def item_id(set_name: str, upstream_id: int) -> str:
    return f"{set_name}-{upstream_id}"


def problem_id(set_name: str, question: str) -> str:
    """The bootstrap cluster: solutions to one question, within one set (70 questions appear in
    both sets; each set's metrics resample its own questions)."""
    return f"{set_name}-{hashlib.sha256(question.encode()).hexdigest()[:12]}"


def _steps(row: dict[str, Any], bad) -> list[list[str]] | None:
    steps = row.get("model_output_step_format")
    if (
        not isinstance(steps, list)
        or not steps
        or not all(
            isinstance(step, list) and step and all(isinstance(line, str) for line in step)
            for step in steps
        )
    ):
        bad("model_output_step_format", "must be a non-empty list of non-empty lists of text")
        return None
    return steps


def _common(set_name: str, lineno: int, row: Any, bad) -> dict[str, Any] | None:
    if not isinstance(row, dict):
        bad("", "not a JSON object")
        return None
    ok = True
    if row.get("id") != lineno - 1 or isinstance(row.get("id"), bool):
        bad("id", f"{row.get('id')!r} is not the line index {lineno - 1}")
        ok = False
    for key in ("question", "ground_truth_answer", "generator"):
        if not isinstance(row.get(key), str) or not row[key].strip():
            bad(key, "must be non-empty text")
            ok = False
    steps = _steps(row, bad)
    if not ok or steps is None:
        return None
    return {
        "item_id": item_id(set_name, row["id"]),
        "set": set_name,
        "upstream_id": row["id"],
        "problem_id": problem_id(set_name, row["question"]),
        "question": row["question"],
        "ground_truth_answer": row["ground_truth_answer"],
        "generator": row["generator"],
        "model_output": None,
        "steps": steps,
        "n_steps": len(steps),
        "n_lines": sum(len(step) for step in steps),
        "first_error_step": None,
        "ratings": None,
    }


def invalid_row(lineno: int, row: Any, bad) -> dict[str, Any] | None:
    """Gold of the invalid set: a correct solution's steps are all positive; a flawed one with
    first error k has steps 1..k-1 positive, step k negative and the rest unlabelled."""
    out = _common("invalid", lineno, row, bad)
    if out is None:
        return None
    if not isinstance(row.get("model_output"), str):
        bad("model_output", "must be text")
        return None
    if row.get("model_output_answer_correctness") != "correct":
        bad("model_output_answer_correctness", "every solution of this set reaches the answer")
        return None
    verdict, first = (
        row.get("model_output_solution_correctness"),
        row.get("model_output_solution_first_error_step"),
    )
    n = out["n_steps"]
    if verdict == "correct" and first == "N/A":
        labels: list[int | None] = [1] * n
    elif (
        verdict == "wrong" and isinstance(first, int) and not isinstance(first, bool) and first >= 1
    ):
        if first > n:
            bad("model_output_solution_first_error_step", f"step {first} of {n} steps")
            return None
        labels = [1] * (first - 1) + [0] + [None] * (n - first)
        out["first_error_step"] = first
    else:
        bad(
            "model_output_solution_correctness",
            f"{verdict!r} with first error step {first!r}: expected 'correct' with 'N/A' or "
            "'wrong' with a 1-based step number",
        )
        return None
    return named(
        out
        | {
            "model_output": row["model_output"],
            "solution_label": verdict == "correct",
            "step_labels": labels,
        }
    )


def redundant_row(lineno: int, row: Any, bad) -> dict[str, Any] | None:
    """Gold of the redundant set: each step's rating (1 useful, 0 redundant); a solution is
    positive when no step is rated 0."""
    out = _common("redundant", lineno, row, bad)
    if out is None:
        return None
    ratings = row.get("rating")
    if not isinstance(ratings, list) or any(
        isinstance(r, bool) or r not in (0, 1) for r in ratings
    ):
        bad("rating", "must be a list of 0/1")
        return None
    if len(ratings) != out["n_steps"]:
        bad("rating", f"{len(ratings)} ratings for {out['n_steps']} steps")
        return None
    return named(
        out | {"solution_label": 0 not in ratings, "step_labels": ratings, "ratings": ratings}
    )


READERS = {"invalid": (INVALID_FILE, invalid_row), "redundant": (REDUNDANT_FILE, redundant_row)}


def read_set(set_name: str, path: Path, problems: list[Problem]) -> list[dict[str, Any]]:
    _, reader = READERS[set_name]
    rows = []
    for lineno, raw in iter_jsonl(path):

        def bad(field: str, message: str, lineno: int = lineno) -> None:
            problems.append(Problem(str(path), lineno, field or None, message))

        row = reader(lineno, raw, bad)
        if row is not None:
            rows.append(row)
    return rows


def solutions(files: dict[str, Path]) -> list[dict[str, Any]]:
    """Rows of both sets, invalid first, each in upstream order; every problem is reported with
    its file and line before the build fails."""
    problems: list[Problem] = []
    rows = [row for name in SETS for row in read_set(name, files[READERS[name][0]], problems)]
    if problems:
        raise ValidationFailed(problems)
    if not rows:
        raise MathJudgeError("mr-math: no rows")
    return rows


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    resolved = resolve(source, source_dir)
    rows = solutions({name: f.path for name, f in resolved.items()})
    by_set = {s: [r for r in rows if r["set"] == s] for s in SETS}
    invalid, redundant = by_set["invalid"], by_set["redundant"]
    step_labels = Counter(
        (r["set"], label) for r in rows for label in r["step_labels"] if label is not None
    )
    facts = {
        "version": VERSION,
        "source": source,
        "n_rows": len(rows),
        "n_invalid": len(invalid),
        "n_flawed": sum(not r["solution_label"] for r in invalid),
        "n_redundant": len(redundant),
        "n_with_redundant_step": sum(not r["solution_label"] for r in redundant),
        "n_problems": {s: len({r["problem_id"] for r in by_set[s]}) for s in SETS},
        "n_steps": {s: sum(r["n_steps"] for r in by_set[s]) for s in SETS},
        "n_lines_invalid": sum(r["n_lines"] for r in invalid),
        "step_labels": step_labels,
        "generators": Counter(r["generator"] for r in invalid).most_common(),
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table("solutions", "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="MR-MATH (local build)",
            license="unknown",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-class-classification",),  # per solution and per step
            # Invalid set: annotators the authors recruited; redundant set: PRM800K's raters.
            annotations_creators=("expert-generated", "crowdsourced"),
            size_category="n<1K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, resolved),),
        checks={
            "redistribution": "local only; --push-to-hub refuses this dataset",
            "ids": "upstream id = line index in every file",
            "labels": {
                "invalid": f"{facts['n_flawed']} flawed of {len(invalid)}, first error step "
                "within the solution's steps",
                "redundant": f"{facts['n_steps']['redundant']} steps, one rating each",
            },
        },
    )
