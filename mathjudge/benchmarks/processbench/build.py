"""ProcessBench (Zheng et al., arXiv:2412.06559): 3,400 model-written solutions to problems of
GSM8K, MATH, OlympiadBench and Omni-MATH, split into paragraphs ("steps"), each labelled with the
0-based index of its earliest wrong paragraph, or -1 when every paragraph is correct.

One config, `solutions`: every row of the four subsets, `subset` telling them apart. The data
lives on the Hugging Face dataset `Qwen/ProcessBench` (one split per subset); offline it is the
authors' GitHub commit of 2024-12-10, whose `dataset/<subset>.json` files hold the same rows as
released then. `item_id` is the upstream `id` (`gsm8k-0`, `math-688`, ...). Several solutions
(by different generators) often share a problem, so the bootstrap cluster is the problem:
`problem_id` is the subset and the first 12 hex digits of the sha256 of the problem text.

Labels are taken as the source has them. math-688's label was later changed from 2 to 0 in a
fork's copy (and perhaps by the Hub's "fix annotation" commit, not verified): the card says which
label this build carries. The paper's numbers were computed on the labels of 2024-12-10.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import datasets
from datasets import List, Value

from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.hubrows import load_rows
from mathjudge.dataio.jsonfiles import read_json_array
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import (
    ResolvedFile,
    Source,
    commit_mirror,
    resolve,
    snapshot_or_commit,
)
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "processbench"
PINS = load_pins(NAME)  # source.yaml: the version, the GitHub commit, the Hub dataset
VERSION = PINS.version
SOURCE = PINS.source
(HUB,) = PINS.hub
SUBSETS = ("gsm8k", "math", "olympiadbench", "omnimath")
COLUMNS = ("id", "generator", "problem", "steps", "final_answer_correct", "label")
RELABELLED = "math-688"  # label 2 as released, 0 in the fork's corrected copy

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "subset_name": Value("string"),
        "problem_id": Value("string"),
        "generator": Value("string"),
        "problem": Value("string"),
        "steps": List(Value("string")),
        "n_steps": Value("int16"),
        "final_answer_correct": Value("bool"),
        "label": Value("int16"),
        "has_error": Value("bool"),
    }
)


def problem_id(subset: str, problem: str) -> str:
    return f"{subset}-{hashlib.sha256(problem.encode('utf-8')).hexdigest()[:12]}"


def solution(subset: str, index: int, row: dict[str, Any], where: str) -> dict[str, Any]:
    """One upstream row, checked: its id is `<subset>-<position>`, its label an index into its
    steps or -1, a correct solution has a correct final answer."""
    item = row["id"]
    if item != f"{subset}-{index}":
        raise MathJudgeError(f"{where} [id]: {item!r} is not {subset}-{index}")
    steps, label = row["steps"], row["label"]
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        raise MathJudgeError(f"{where} [steps]: expected a non-empty list of text")
    if not isinstance(label, int) or isinstance(label, bool) or not -1 <= label < len(steps):
        raise MathJudgeError(f"{where} [label]: {label!r} is not -1 or a step index")
    final = row["final_answer_correct"]
    if not isinstance(final, bool) or (label == -1 and not final):
        raise MathJudgeError(f"{where} [final_answer_correct]: must be true when label is -1")
    for key in ("generator", "problem"):
        if not isinstance(row[key], str) or not row[key]:
            raise MathJudgeError(f"{where} [{key}]: must be non-empty text")
    return {
        "item_id": item,
        "subset_name": subset,
        "problem_id": problem_id(subset, row["problem"]),
        "generator": row["generator"],
        "problem": row["problem"],
        "steps": steps,
        "n_steps": len(steps),
        "final_answer_correct": final,
        "label": label,
        "has_error": label != -1,
    }


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    mirror = commit_mirror(source, source_dir)
    rows: list[dict[str, Any]] = []
    if mirror is not None:
        resolved = resolve(source, mirror)
        for subset in SUBSETS:
            path = resolved[f"dataset/{subset}.json"].path
            rows += [solution(subset, i, r, r.where) for i, r in enumerate(read_json_array(path))]
        sources: tuple[tuple[Source, dict[str, ResolvedFile]], ...] = ((source, resolved),)
    else:
        snapshot = snapshot_or_commit(HUB, source, source_dir)
        for subset in SUBSETS:
            raw = load_rows(snapshot.folder, HUB.repo, COLUMNS, split=subset)
            rows += [
                solution(subset, i, r, f"{HUB.repo} {subset} row {i}") for i, r in enumerate(raw)
            ]
        sources = ((replace(HUB, revision=snapshot.revision), snapshot.files),)
    counts = {
        s: Counter(
            "erroneous" if r["has_error"] else "correct" for r in rows if r["subset_name"] == s
        )
        for s in SUBSETS
    }
    relabelled = next((r["label"] for r in rows if r["item_id"] == RELABELLED), None)
    facts = {
        "version": VERSION,
        "sources": [s for s, _ in sources],
        "n_rows": len(rows),
        "counts": counts,
        "subsets": SUBSETS,
        "problems": {
            s: len({r["problem_id"] for r in rows if r["subset_name"] == s}) for s in SUBSETS
        },
        "generators": sorted(Counter(r["generator"] for r in rows).items()),
        "relabelled": RELABELLED,
        "relabelled_label": relabelled,
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table("solutions", "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="ProcessBench",
            # The Hub dataset card says apache-2.0; the GitHub repository states no license.
            license="apache-2.0",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-class-classification",),  # which paragraph is the first wrong one
            annotations_creators=("expert-generated",),
            source_datasets=("original",) if mirror is not None else (HUB.repo,),
            size_category="n<1K" if len(rows) < 1000 else "1K<n<10K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=sources,
        checks={
            "rows": len(rows),
            "per_subset": {s: dict(sorted(c.items())) for s, c in counts.items()},
            "ids_are_subset_and_position": True,
            f"{RELABELLED}_label": relabelled,
        },
    )
