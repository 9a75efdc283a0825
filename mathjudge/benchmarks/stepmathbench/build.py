"""StepMathBench (StepMathAgent, arXiv:2503.10105): 200 Chinese problems x 5 solver models,
each solution split into steps with human step labels and a 0-10 gold score.

The builder normalises the upstream label quirks and re-derives every `gold_score` from the step
labels with the paper's Eq. (1); a disagreement fails the build, because every score-based metric
of this benchmark compares against that number.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import datasets
from datasets import ClassLabel, List, Value

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.stepmathbench.eq1 import eq1_score
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.jsonfiles import expect, read_jsonl
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import ResolvedFile, Source, resolve
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "stepmathbench"
PINS = load_pins(NAME)  # source.yaml: the version and the upstream files
VERSION = PINS.version
SOURCE = PINS.source

STEP_LABELS = ("correct", "incorrect", "correct_but_meaningless")
_RAW_LABELS = {"1": "correct", "0": "incorrect", "1(0)": "correct_but_meaningless"}
TYPES = ("Calculation", "Proof", "Open-ended")

PROBLEM_FEATURES = datasets.Features(
    {
        "problem_id": Value("string"),
        "question": Value("string"),
        "constraint": Value("string"),
        "answers": List(Value("string")),
        "type": Value("string"),
        "level": Value("int8"),
        "category": List(Value("string")),
    }
)
SOLUTION_FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_id": Value("string"),
        "generator": Value("string"),
        "question": Value("string"),
        "constraint": Value("string"),
        "answers": List(Value("string")),
        "model_output": Value("string"),
        "steps": List(Value("string")),
        "step_labels": List(ClassLabel(names=list(STEP_LABELS))),
        # The same labels as names, for readers that do not apply `datasets` features (pandas,
        # DuckDB), which see `step_labels` as bare 0/1/2.
        "step_label_names": List(Value("string")),
        "type": Value("string"),
        "level": Value("int8"),
        "category": List(Value("string")),
        "gold_score": Value("int8"),
        "gold_score_01": Value("int8"),
    }
)


def normalize_step_label(raw: object) -> str:
    """Map an upstream step label ("1", 0, "1(0)", "1（0）", "1 ") to its class name."""
    text = unicodedata.normalize("NFKC", str(raw)).replace(" ", "").strip()
    if text not in _RAW_LABELS:
        raise ValueError(f"unknown step label {raw!r}")
    return _RAW_LABELS[text]


# Upstream fields and their JSON types (None: may be null); checked before any is used, so a
# missing or null field is a located error (file:line [field]), not a KeyError or TypeError.
QUESTION_FIELDS = {
    "id": (str,), "question": (str,), "type": (str,), "level": (int,), "category": (list,),
    "constraint": (str, None), "answers": (list, None),
}  # fmt: skip
SOLUTION_FIELDS = {
    "uid": (str,), "id": (str,), "model": (str,), "question": (str,), "model_output": (str,),
    "gold_step": (list,), "gold_step_score": (list,), "type": (str,), "level": (int,),
    "category": (list,), "gold_score": (int,), "gold_score_01": (int,), "answers": (list, None),
}  # fmt: skip


def _typed(raw: list[Any], fields: dict[str, tuple[type | None, ...]]) -> list[dict[str, Any]]:
    for row in raw:
        if not isinstance(row, dict):
            raise MathJudgeError(f"{getattr(row, 'where', 'a row')}: not a JSON object")
        for key, kinds in fields.items():
            expect(row, key, *kinds)
    return raw


def _problems(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    problems = []
    for row in _typed(raw, QUESTION_FIELDS):
        if row["type"] not in TYPES:
            raise MathJudgeError(f"question.jsonl {row['id']}: unknown type {row['type']!r}")
        problems.append(
            {
                "problem_id": row["id"],
                "question": row["question"],
                "constraint": row["constraint"],
                "answers": row["answers"],
                "type": row["type"],
                "level": row["level"],
                "category": row["category"],
            }
        )
    return problems


def _solutions(
    raw: list[dict[str, Any]], problems: dict[str, dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """Solution rows plus the ids whose stored gold_score disagrees with Eq. (1)."""
    rows, disagreements, errors = [], [], []
    for row in _typed(raw, SOLUTION_FIELDS):
        uid = row["uid"]
        problem = problems.get(row["id"])
        if problem is None:
            errors.append(f"{uid}: problem {row['id']!r} is not in question.jsonl")
            continue
        for key in ("question", "answers", "type", "level", "category"):
            if row[key] != problem[key]:
                errors.append(f"{uid}: {key} differs from question.jsonl {row['id']}")
        if len(row["gold_step"]) != len(row["gold_step_score"]):
            errors.append(
                f"{uid}: {len(row['gold_step'])} steps but {len(row['gold_step_score'])} labels"
            )
            continue
        try:
            labels = [normalize_step_label(v) for v in row["gold_step_score"]]
        except ValueError as exc:
            errors.append(f"{uid}: {exc}")
            continue
        if eq1_score(row["type"], labels) != row["gold_score"]:
            disagreements.append(uid)
        if row["gold_score_01"] not in (0, 1):  # a label, which the scorer sums as such
            errors.append(f"{uid}: gold_score_01 is {row['gold_score_01']!r}, not 0 or 1")
        rows.append(
            {
                "item_id": uid,
                "problem_id": row["id"],
                "generator": row["model"],
                "question": row["question"],
                "constraint": problem["constraint"],
                "answers": row["answers"],
                "model_output": row["model_output"],
                "steps": row["gold_step"],
                "step_labels": [STEP_LABELS.index(label) for label in labels],
                "step_label_names": labels,
                "type": row["type"],
                "level": row["level"],
                "category": row["category"],
                "gold_score": row["gold_score"],
                "gold_score_01": row["gold_score_01"],
            }
        )
    ids = Counter(r["item_id"] for r in rows)
    errors += [f"{uid}: duplicate uid" for uid, count in ids.items() if count > 1]
    if errors:
        raise MathJudgeError("stepmathbench source is inconsistent:\n  " + "\n  ".join(errors))
    return rows, disagreements


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    files: dict[str, ResolvedFile] = resolve(source, source_dir)
    problems = _problems(read_jsonl(files["question.jsonl"].path))
    by_id = {p["problem_id"]: p for p in problems}
    solutions, disagreements = _solutions(read_jsonl(files["stepmath.jsonl"].path), by_id)
    if disagreements:
        raise MathJudgeError(
            f"gold_score disagrees with Eq. (1) for {len(disagreements)} solution(s): "
            + ", ".join(disagreements)
        )
    label_counts = Counter(STEP_LABELS[i] for r in solutions for i in r["step_labels"])
    facts = {
        "version": VERSION,
        "source": source,
        "n_problems": len(problems),
        "n_solutions": len(solutions),
        "types": Counter(p["type"] for p in problems),
        "generators": sorted({r["generator"] for r in solutions}),
        "label_counts": label_counts,
        "n_steps": sum(label_counts.values()),
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(
            Table("solutions", "test", SOLUTION_FEATURES, solutions),
            Table("problems", "test", PROBLEM_FEATURES, problems),
        ),
        card_info=CardInfo(
            pretty_name="StepMathBench",
            license="unknown",
            language=("zh",),
            task_categories=("text-classification",),
            task_ids=("text-scoring",),  # a 0-10 score per solution
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, files),),
        checks={
            "eq1_gold_score": f"{len(solutions)}/{len(solutions)} rows agree",
            "step_labels": dict(sorted(label_counts.items())),
        },
    )
