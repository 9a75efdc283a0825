"""Open Proof Corpus (OPC; Dekoninck et al., arXiv:2506.21621): competition proofs written by
LLMs, each with a binary human judgment of its correctness.

The source is the labelled test file of the corpus's code repository, a verl-style RL file that
has no problem or proof column: both sit inside the judge prompt it stores, under fixed
headers, and are cut out of it exactly (see `split_prompt`). The file's own LLM judgments are
not part of the benchmark; `mathjudge.benchmarks.opc.corpus` turns them into a submission.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
from datasets import List, Value

from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import Source, resolve
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "opc"
PINS = load_pins(NAME)  # source.yaml: the version and the upstream file
VERSION = PINS.version
SOURCE = PINS.source
UPSTREAM_PATH = PINS.files[0].upstream
SOURCE_FILE = SOURCE.files[0].path

# The judge prompt ends with these two sections; the proof runs to the end of the prompt.
PROBLEM_HEADER = "\n### Problem Statement:\n"
PROOF_HEADER = "\n\n### Model Solution:\n"
LABELS = {"correct": True, "incorrect": False}

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_id": Value("string"),
        "competition": Value("string"),
        "year": Value("int16"),
        "problem": Value("string"),
        "reference_solutions": List(Value("string")),
        "grading_scheme": List(
            {
                "part_id": Value("int32"),
                "title": Value("string"),
                "description": Value("string"),
                "points": Value("int32"),
            }
        ),
        "author_model": Value("string"),
        "proof": Value("string"),
        "label": Value("bool"),
        "label_name": Value("string"),  # "correct" / "incorrect": `label` as a name
    }
)


def item_id(row: dict[str, Any]) -> str:
    return f"{row['problem_id']}::{row['model_id']}"


def _read(path: Path) -> list[dict[str, Any]]:
    try:
        return pq.read_table(path).to_pylist()
    except (pa.ArrowException, OSError) as exc:
        raise MathJudgeError(f"{path}: not readable as Parquet ({exc})") from exc


def read_source(source_dir: Path | None = None) -> list[dict[str, Any]]:
    """The upstream rows of the pinned, sha256-checked test file."""
    return _read(resolve(SOURCE, source_dir)[SOURCE_FILE].path)


def split_prompt(prompt: list[dict[str, str]]) -> tuple[str, str]:
    """(problem, proof) cut from the judge prompt: a single user message whose problem section
    follows PROBLEM_HEADER and whose proof follows PROOF_HEADER to the end, each header exactly
    once. Raises ValueError for any other layout rather than guessing."""
    if len(prompt) != 1 or prompt[0].get("role") != "user":
        raise ValueError("the prompt is not a single user message")
    content = prompt[0]["content"]
    for header in (PROBLEM_HEADER, PROOF_HEADER):
        if content.count(header) != 1:
            raise ValueError(f"the prompt has {content.count(header)} {header.strip()!r} headers")
    start, end = content.index(PROBLEM_HEADER), content.index(PROOF_HEADER)
    if start > end:
        raise ValueError("the proof section comes before the problem section")
    problem = content[start + len(PROBLEM_HEADER) : end]
    proof = content[end + len(PROOF_HEADER) :]
    if not problem.strip() or not proof.strip():
        raise ValueError("the problem or the proof section is empty")
    return problem, proof


def _judgment(row: dict[str, Any]) -> dict[str, Any]:
    problem, proof = split_prompt(row["prompt"])
    truth = (row["reward_model"] or {}).get("ground_truth")
    if truth not in LABELS:
        raise ValueError(f"reward_model.ground_truth is {truth!r}, not 'correct' or 'incorrect'")
    return {
        "item_id": item_id(row),
        "problem_id": row["problem_id"],
        "competition": row["metadata"]["competition"],
        "year": row["metadata"]["year"],
        "problem": problem,
        "reference_solutions": [s["solution"] for s in row["solutions"]],
        "grading_scheme": [
            {k: part[k] for k in ("part_id", "title", "description", "points")}
            for part in row["grading_scheme"]
        ],
        "author_model": row["model_id"],
        "proof": proof,
        "label": LABELS[truth],
        "label_name": truth,
    }


def judgments(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Benchmark rows in upstream order. Every problem is reported, naming the row (numbered
    from 1) and its item id, before the build fails."""
    rows, errors = [], []
    for i, row in enumerate(raw, start=1):
        where = f"row {i} ({row.get('problem_id')}::{row.get('model_id')})"
        try:
            rows.append(_judgment(row))
        except KeyError as exc:
            errors.append(f"{where}: missing field {exc}")
        except (ValueError, TypeError) as exc:
            errors.append(f"{where}: {exc}")
    counts = Counter(r["item_id"] for r in rows)
    errors += [f"{key}: {n} rows share this item id" for key, n in counts.items() if n > 1]
    statements: dict[str, set[str]] = {}
    for row in rows:
        statements.setdefault(row["problem_id"], set()).add(row["problem"])
    errors += [
        f"{pid}: the prompts state the problem in {len(texts)} different ways"
        for pid, texts in statements.items()
        if len(texts) > 1
    ]
    if errors:
        raise MathJudgeError(f"{SOURCE_FILE} is inconsistent:\n  " + "\n  ".join(errors))
    return rows


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    files = resolve(source, source_dir)
    raw = _read(files[SOURCE_FILE].path)
    rows = judgments(raw)
    labels = Counter("correct" if r["label"] else "incorrect" for r in rows)
    n_problems = len({r["problem_id"] for r in rows})
    facts = {
        "version": VERSION,
        "source": source,
        "upstream_path": UPSTREAM_PATH,
        "n_rows": len(rows),
        "n_problems": n_problems,
        "labels": labels,
        "authors": Counter(r["author_model"] for r in rows).most_common(),
        "competitions": Counter(r["competition"] for r in rows).most_common(),
        "n_without_reference": sum(1 for r in rows if not r["reference_solutions"]),
        "n_llm_judged": sum(1 for r in raw if r["llm_judgment"] is not None),
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table("judgments", "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="Open Proof Corpus (labelled test proofs)",
            license="apache-2.0",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-class-classification",),  # correct or incorrect
            size_category="n<1K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, files),),
        checks={
            "prompt_split": f"{len(rows)}/{len(rows)} rows give one problem and one proof",
            "problem_text": f"{n_problems}/{n_problems} problems stated identically in every row",
            "labels": dict(sorted(labels.items())),
        },
    )
