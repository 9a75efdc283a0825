"""Hard2Verify (Salesforce, arXiv:2510.13744): frontier-model responses to olympiad problems,
split into steps, each step labelled correct or incorrect by humans.

The dataset is encrypted on the Hub and its authors ask that decrypted copies never be posted,
so mathjudge never downloads or redistributes it: the user decrypts it with the authors' tool
and points `--source-dir` at the folder holding that one file (JSONL, or a JSON list). The built
dataset stays local; `mathjudge build hard2verify --push-to-hub` refuses (the spec's `local_only`).

Every step-level metric compares a judge's labels with `human_labels` position by position, so
the builder fails on anything that would misalign them: a label list whose length differs from
the step list, labels other than 0/1, a first-error index that contradicts the labels, and
duplicate ids.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import datasets
from datasets import Sequence, Value

from mathjudge.base.config import mirror_root
from mathjudge.base.errors import MathJudgeError, Problem, SourceUnavailable, ValidationFailed
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.jsonfiles import iter_jsonl, read_json
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import ResolvedFile, sha256_file
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "hard2verify"
PINS = load_pins(NAME)  # source.yaml: the version and the (never downloaded) Hub repo
VERSION = PINS.version
SOURCE = PINS.source
SUFFIXES = (".jsonl", ".json")

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_id": Value("string"),
        "question": Value("string"),
        "steps": Sequence(Value("string")),
        "human_labels": Sequence(Value("int8")),
        "human_label_names": Sequence(Value("string")),  # 1 "correct", 0 "incorrect"
        "first_error_idx": Value("int16"),
        "n_steps": Value("int16"),
        "response_correct": Value("bool"),
    }
)


def find_source_file(source_dir: Path | None) -> Path:
    """The one decrypted data file in `source_dir` (or its `hard2verify/`), else in
    `$MATHJUDGE_MIRROR/hard2verify`."""
    folders = [source_dir, source_dir / NAME] if source_dir is not None else []
    root = mirror_root()
    if source_dir is None and root is not None:
        folders.append(root / NAME)
    for folder in folders:
        found = sorted(p for p in folder.glob("*") if p.suffix in SUFFIXES and p.is_file())
        if len(found) > 1:
            raise MathJudgeError(
                f"{folder}: several data files ({', '.join(p.name for p in found)}); keep only "
                "the decrypted Hard2Verify file there"
            )
        if found:
            return found[0]
    where = ", ".join(str(f) for f in folders if f.is_dir()) or "no folder given"
    raise SourceUnavailable(
        f"hard2verify: no decrypted data file (*.jsonl or *.json) in {where}. Hard2Verify is "
        "encrypted on the Hub: decrypt it with the authors' tool and pass --source-dir with the "
        "folder holding the file; mathjudge never downloads or redistributes it"
    )


def read_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(location, row) pairs: `path:line` for JSONL, `path row i` for a JSON list."""
    if path.suffix == ".jsonl":
        return [(f"{path}:{lineno}", row) for lineno, row in iter_jsonl(path)]
    data = read_json(path)
    if not isinstance(data, list):
        raise MathJudgeError(f"{path}: expected a JSON list of rows")
    return [(f"{path} row {i}", row) for i, row in enumerate(data)]


def _first_error(labels: list[int]) -> int | None:
    return next((i for i, label in enumerate(labels) if label == 0), None)


def _check(where: str, row: Any, problems: list[Problem]) -> dict[str, Any] | None:
    def bad(field: str, message: str) -> None:
        problems.append(Problem(where, None, field, message))

    if not isinstance(row, dict):
        bad("", "not a JSON object")
        return None
    ok = True
    for field in ("unique_id", "question"):
        if not isinstance(row.get(field), str) or not row[field].strip():
            bad(field, "must be non-empty text")
            ok = False
    steps, labels = row.get("model_response_by_step"), row.get("human_labels")
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        bad("model_response_by_step", "must be a non-empty list of texts")
        ok = False
    if not isinstance(labels, list) or any(isinstance(v, bool) or v not in (0, 1) for v in labels):
        bad("human_labels", "must be a list of 0/1 (1 = step correct)")
        ok = False
    if not ok or not isinstance(steps, list) or not isinstance(labels, list):
        return None
    if len(labels) != len(steps):
        bad("human_labels", f"{len(labels)} labels for {len(steps)} steps")
        return None
    first = row.get("human_labels_first_error_idx")
    if first != _first_error(labels) or isinstance(first, bool):
        bad(
            "human_labels_first_error_idx",
            f"{first!r} contradicts human_labels (first 0 at {_first_error(labels)!r})",
        )
        return None
    return {
        "item_id": row["unique_id"],
        "problem_id": hashlib.sha256(row["question"].strip().encode()).hexdigest()[:12],
        "question": row["question"],
        "steps": steps,
        "human_labels": labels,
        "human_label_names": ["correct" if label else "incorrect" for label in labels],
        "first_error_idx": first,
        "n_steps": len(steps),
        "response_correct": first is None,
    }


def build(source_dir: Path | None = None) -> Build:
    path = find_source_file(source_dir)
    problems: list[Problem] = []
    rows: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    for where, raw in read_rows(path):
        row = _check(where, raw, problems)
        if row is None:
            continue
        if row["item_id"] in seen:
            problems.append(
                Problem(
                    where,
                    None,
                    "unique_id",
                    f"duplicate {row['item_id']!r} (also {seen[row['item_id']]})",
                )
            )
            continue
        seen[row["item_id"]] = where
        rows.append(row)
    if problems:
        raise ValidationFailed(problems)
    if not rows:
        raise MathJudgeError(f"{path}: no rows")
    n_steps = sum(r["n_steps"] for r in rows)
    n_wrong_steps = sum(r["n_steps"] - sum(r["human_labels"]) for r in rows)
    facts = {
        "version": VERSION,
        "file_name": path.name,
        "n_responses": len(rows),
        "n_problems": len({r["problem_id"] for r in rows}),
        "n_steps": n_steps,
        "n_wrong_steps": n_wrong_steps,
        "n_correct_responses": sum(r["response_correct"] for r in rows),
    }
    resolved = {path.name: ResolvedFile(path, sha256_file(path), f"user:{path.parent}")}
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table("responses", "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="Hard2Verify (local build)",
            license="cc-by-nc-4.0",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-class-classification",),  # correct or incorrect, per step
            source_datasets=(SOURCE.repo,),
            size_category="n<1K" if len(rows) < 1000 else "1K<n<10K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((SOURCE, resolved),),
        checks={
            "redistribution": "local only; --push-to-hub refuses this dataset",
            "labels": f"{n_steps} steps, labels aligned with steps, first-error index consistent",
        },
    )
