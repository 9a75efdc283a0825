"""RewardBench-math: the math-prm subset of RewardBench (Lambert et al., arXiv:2403.13787) as the
RewardMATH authors (Kim et al., arXiv:2410.01729) publish it with their judges' scores: 447 MATH
problems, each with a chosen solution (the human-written MATH solution, split into steps) and a
rejected one (an incorrect GPT-4 solution from PRM800K).

The source is the RewardMATH authors' GitHub commit: one of its process-reward-model result
files (`rewardbench_Math_Shepherd.json`) holds every solution with its problem, steps, subject,
level, `problem_id` (0..446, RewardBench's numbering) and `solution_type`. Item ids are
`<problem_id>::chosen` and `<problem_id>::rejected`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import datasets
from datasets import List, Value

from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.jsonfiles import Record, expect, read_json_array
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import Source, resolve
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "rewardbench_math"
PINS = load_pins(NAME)  # source.yaml: the version and the GitHub commit
VERSION = PINS.version
SOURCE = PINS.source
ITEMS_FILE = SOURCE.files[0].path
TYPES = ("chosen", "rejected")

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_id": Value("int32"),
        "solution_type": Value("string"),
        "is_chosen": Value("bool"),
        "label_name": Value("string"),  # "correct" (chosen) / "incorrect" (rejected)
        "problem": Value("string"),
        "subject": Value("string"),
        "level": Value("int8"),
        "steps": List(Value("string")),
    }
)


def item_id(problem_id: int, solution_type: str) -> str:
    return f"{problem_id}::{solution_type}"


def solutions(rows: list[Record]) -> list[dict[str, Any]]:
    """The solutions of the items file, ordered by problem then chosen before rejected; every
    problem must have one of each, with one problem text."""
    out: dict[tuple[int, str], dict[str, Any]] = {}
    problems: dict[int, str] = {}
    for row in rows:
        pid = expect(row, "problem_id", int)
        kind = expect(row, "solution_type", str)
        if kind not in TYPES:
            raise MathJudgeError(f"{row.where} [solution_type]: {kind!r} is not chosen/rejected")
        steps = expect(row, "eval_solution", list)
        if not all(isinstance(s, str) for s in steps):
            raise MathJudgeError(f"{row.where} [eval_solution]: expected a list of text")
        problem = expect(row, "problem", str)
        if problems.setdefault(pid, problem) != problem:
            raise MathJudgeError(f"{row.where} [problem]: problem_id {pid} has two statements")
        if (pid, kind) in out:
            raise MathJudgeError(f"{row.where}: a second {kind} solution of problem {pid}")
        out[(pid, kind)] = {
            "item_id": item_id(pid, kind),
            "problem_id": pid,
            "solution_type": kind,
            "is_chosen": kind == "chosen",
            "label_name": "correct" if kind == "chosen" else "incorrect",
            "problem": problem,
            "subject": expect(row, "subject", str),
            "level": expect(row, "level", int),
            "steps": steps,
        }
    missing = [f"{p}::{k}" for p in problems for k in TYPES if (p, k) not in out]
    if missing:
        raise MathJudgeError(f"{ITEMS_FILE}: no solution {', '.join(missing[:5])}")
    if len(set(problems.values())) != len(problems):
        raise MathJudgeError(f"{ITEMS_FILE}: two problem_ids share a statement")
    return [out[key] for key in sorted(out, key=lambda k: (k[0], TYPES.index(k[1])))]


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    resolved = resolve(source, source_dir)
    rows = solutions(read_json_array(resolved[ITEMS_FILE].path))
    chosen = [r for r in rows if r["is_chosen"]]
    facts = {
        "version": VERSION,
        "source": source,
        "n_problems": len(chosen),
        "n_solutions": len(rows),
        "subjects": sorted(Counter(r["subject"] for r in chosen).items()),
        "levels": sorted(Counter(r["level"] for r in chosen).items()),
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table("solutions", "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="RewardBench-math (math-prm pairs, RewardMATH release)",
            # RewardBench's own terms: the RewardMATH repository's MIT license cannot relax them.
            license="odc-by",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-input-text-classification",),  # which of two solutions is correct
            annotations_creators=("expert-generated",),
            language_creators=("found", "machine-generated"),
            size_category="n<1K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, resolved),),
        checks={
            "problems": len(chosen),
            "solutions": len(rows),
            "one_chosen_and_one_rejected_per_problem": True,
        },
    )
