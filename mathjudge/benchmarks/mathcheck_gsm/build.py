"""MathCheck-GSM (Zhou et al., arXiv:2407.08733): a checklist built on 129 GSM8K problems, each in
four variants (the original and three rewrites), with four tasks per variant. Two of the tasks
judge a given solution, and are the two configs here:

- `outcome_judging` (1,032 items, the items of `mathcheck_gsm`): is the solution's final
  answer correct? Gold `Correct` / `Incorrect`.
- `process_judging` (516 items, the items of `mathcheck_gsm_process`): which step is the first
  wrong one? Gold `Step k`, k as the solution prints its steps (every process solution has an
  error).

Solving and answerable-judging are not judging of solutions and are left out (they are in the
source file). The checklist lives on the Hugging Face dataset `PremiLab-Math/MathCheck` (file
`MathCheck-GSM.json`); offline it is the authors' GitHub commit (`gsm_checklist.json`, the same
content under its old name). Both are a JSON array whose `answer` mixes numbers and text, which
`datasets` cannot load as one column, so the file is read as JSON. `item_id` is the upstream
`id`; the bootstrap cluster is the seed problem (`group_id`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import datasets
from datasets import List, Value

from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.jsonfiles import Record, expect, read_json_array
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import (
    ResolvedFile,
    Source,
    commit_mirror,
    resolve,
    snapshot_or_commit,
)
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "mathcheck_gsm"
PINS = load_pins(NAME)  # source.yaml: the version, the GitHub commit, the Hub dataset
VERSION = PINS.version
SOURCE = PINS.source
(HUB,) = PINS.hub
CHECKLIST = "gsm_checklist.json"  # in the GitHub commit
HUB_FILE = "MathCheck-GSM.json"  # the same checklist on the Hub
# question_type -> the paper's name of the variant
VARIANTS = {
    "seed_question": "Original Problem",
    "problem_understanding_question": "Problem Understanding",
    "distractor_insertion_question": "Irrelevant Disturbance",
    "scenario_understanding": "Scenario Understanding",
}
OUTCOMES = {"Correct": True, "Incorrect": False}
STEP = re.compile(r"Step (\d+)")
PRINTED_STEP = re.compile(r"(?:^|\n)[\s*_]*Step (\d+)")

_COMMON = {
    "item_id": Value("string"),
    "group_id": Value("string"),
    "variant": Value("string"),
    "variant_name": Value("string"),
    "question": Value("string"),
    "solution": Value("string"),
    "answer": Value("string"),
}
OUTCOME_FEATURES = datasets.Features(
    {**_COMMON, "label": Value("bool"), "label_name": Value("string")}
)
PROCESS_FEATURES = datasets.Features(
    {**_COMMON, "label": Value("int16"), "printed_steps": List(Value("int16"))}
)


def _common(row: Record, index: int) -> dict[str, Any]:
    variant = expect(row, "question_type", str)
    if variant not in VARIANTS:
        raise MathJudgeError(f"{row.where} [question_type]: unknown variant {variant!r}")
    item = expect(row, "id", str)
    if item != str(index):
        raise MathJudgeError(f"{row.where} [id]: {item!r} is not the row's position")
    return {
        "item_id": item,
        "group_id": expect(row, "group_id", str),
        "variant": variant,
        "variant_name": VARIANTS[variant],
        "question": expect(row, "question", str),
        "solution": expect(row, "solution", str),
        "answer": expect(row, "answer", str),
    }


def checklist(rows: list[Record]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The outcome- and process-judging items of the checklist, in its order."""
    outcome, process = [], []
    for index, row in enumerate(rows):
        task = expect(row, "task_type", str)
        if task == "outcome_judging":
            item = _common(row, index)
            if item["answer"] not in OUTCOMES:
                raise MathJudgeError(
                    f"{row.where} [answer]: {item['answer']!r}, not Correct/Incorrect"
                )
            label = OUTCOMES[item["answer"]]
            outcome.append(item | {"label": label, "label_name": item["answer"].lower()})
        elif task == "process_judging":
            item = _common(row, index)
            gold = STEP.fullmatch(item["answer"])
            if gold is None:
                raise MathJudgeError(f"{row.where} [answer]: {item['answer']!r}, not 'Step k'")
            printed = [int(n) for n in PRINTED_STEP.findall(item["solution"])]
            if int(gold.group(1)) not in printed:
                raise MathJudgeError(
                    f"{row.where} [answer]: the solution prints no {item['answer']}"
                )
            process.append(item | {"label": int(gold.group(1)), "printed_steps": printed})
    return outcome, process


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    mirror = commit_mirror(source, source_dir)
    if mirror is not None:
        resolved = resolve(source, mirror)
        path = resolved[CHECKLIST].path
        sources: tuple[tuple[Source, dict[str, ResolvedFile]], ...] = ((source, resolved),)
    else:
        snapshot = snapshot_or_commit(HUB, source, source_dir, (HUB_FILE, "README.md"))
        if HUB_FILE not in snapshot.files:
            raise MathJudgeError(f"{snapshot.folder}: no {HUB_FILE} in the {HUB.repo} snapshot")
        path = snapshot.files[HUB_FILE].path
        sources = ((replace(HUB, revision=snapshot.revision), snapshot.files),)
    rows = read_json_array(path)
    outcome, process = checklist(rows)
    groups = {r["group_id"] for r in outcome + process}
    renumbered = [
        r["item_id"]
        for r in process
        if r["printed_steps"] != list(range(1, len(r["printed_steps"]) + 1))
    ]
    facts = {
        "version": VERSION,
        "sources": [s for s, _ in sources],
        "n_rows": len(rows),
        "n_groups": len(groups),
        "n_outcome": len(outcome),
        "n_process": len(process),
        "labels": Counter(r["answer"] for r in outcome),
        "variants": VARIANTS,
        "renumbered": renumbered,
        "tasks": Counter(r["task_type"] for r in rows),
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(
            Table("outcome_judging", "test", OUTCOME_FEATURES, outcome),
            Table("process_judging", "test", PROCESS_FEATURES, process),
        ),
        card_info=CardInfo(
            pretty_name="MathCheck-GSM (judging tasks)",
            # The Hub dataset page says CC-BY-4.0; the GitHub repository states no license.
            license="cc-by-4.0",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-class-classification",),
            annotations_creators=("machine-generated", "expert-generated"),
            language_creators=("found", "machine-generated"),
            source_datasets=("original",) if mirror is not None else (HUB.repo,),
            size_category="n<1K" if len(outcome) + len(process) < 1000 else "1K<n<10K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=sources,
        checks={
            "rows": len(rows),
            "outcome_judging": len(outcome),
            "process_judging": len(process),
            "seed_problems": len(groups),
            "id_is_row_position": True,
            "gold_step_printed_in_solution": True,
            "steps_not_numbered_1_to_n": renumbered,
        },
    )
