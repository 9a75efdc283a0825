"""μ-MATH (U-MATH paper, arXiv:2412.03205): solutions to university-level problems written by
four models, each labelled correct or incorrect against the problem's reference answer.

The source is the Hugging Face dataset `toloka/mu-math`, read with `datasets.load_dataset` from
its snapshot (a mirror folder or a download), the same path a user's `load_dataset` takes.
Upstream rows have no problem id, so one is derived from the problem statement; bootstrap
clusters need it to keep the four solutions of a problem together.
"""

from __future__ import annotations

import hashlib
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import datasets
from datasets import Value
from datasets.exceptions import DatasetsError

from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import Source, resolve_snapshot
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "mumath"
PINS = load_pins(NAME)  # source.yaml: the version and the Hub repo
VERSION = PINS.version
SOURCE = PINS.source
UPSTREAM_COLUMNS = ("uuid", "problem_statement", "golden_answer", "model", "model_output", "label")
_TEXT_COLUMNS = ("problem_statement", "golden_answer", "model", "model_output")

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_id": Value("string"),
        "problem_statement": Value("string"),
        "golden_answer": Value("string"),
        "author_model": Value("string"),
        "model_output": Value("string"),
        "label": Value("bool"),
        "label_name": Value("string"),  # "correct" / "incorrect": `label` as a name
    }
)


def normalize_statement(text: str) -> str:
    """NFKC with every run of whitespace made one space: copies of a statement that differ
    only in spacing or line breaks are one problem."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


def problem_id(statement: str) -> str:
    """`mumath-` and the first 12 hex digits of the sha256 of the normalised statement: stable
    across builds and row order, and identical for every solution of a problem (48 bits make a
    clash between a few hundred statements vanishingly unlikely)."""
    digest = hashlib.sha256(normalize_statement(statement).encode("utf-8")).hexdigest()
    return f"mumath-{digest[:12]}"


@contextmanager
def _quiet_datasets() -> Iterator[None]:
    """Silence `datasets` progress bars while loading; builders report through the caller."""
    already = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if not already:
            datasets.enable_progress_bars()


def read_test_split(folder: Path) -> list[dict[str, Any]]:
    """The upstream rows of the snapshot in `folder`, loaded by `datasets` with its Arrow cache
    in a temporary folder, so an edited snapshot is never answered from a stale cache."""
    with tempfile.TemporaryDirectory(prefix="mathjudge-mumath-") as cache, _quiet_datasets():
        try:
            split = datasets.load_dataset(str(folder), split="test", cache_dir=cache)
        except (DatasetsError, FileNotFoundError, ValueError) as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise MathJudgeError(
                f"{folder}: cannot load the test split of {SOURCE.repo} ({reason})"
            ) from exc
        missing = [c for c in UPSTREAM_COLUMNS if c not in split.column_names]
        if missing:
            raise MathJudgeError(
                f"{folder}: the {SOURCE.repo} test split lacks column(s) {', '.join(missing)}"
            )
        return split.select_columns(list(UPSTREAM_COLUMNS)).to_list()


def _row_errors(index: int, row: dict[str, Any]) -> list[str]:
    uuid = row["uuid"]
    where = f"row {index} (uuid {uuid!r})"
    errors = []
    if not isinstance(uuid, str) or not uuid.strip():
        errors.append(f"{where}: uuid is empty")
    if not isinstance(row["label"], bool):
        errors.append(f"{where}: label {row['label']!r} is not a boolean")
    errors += [
        f"{where}: {column} is {row[column]!r}, not text"
        for column in _TEXT_COLUMNS
        if not isinstance(row[column], str)
    ]
    if isinstance(row["problem_statement"], str) and not row["problem_statement"].strip():
        errors.append(f"{where}: problem_statement is empty")
    return errors


def judgments(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Validated judgment rows in upstream order. Every problem is reported, naming the row
    (numbered from 1) and its uuid, before the build fails."""
    errors = [e for i, row in enumerate(raw, start=1) for e in _row_errors(i, row)]
    first_row: dict[Any, int] = {}
    for i, row in enumerate(raw, start=1):
        first = first_row.setdefault(row["uuid"], i)
        if first != i:
            errors.append(f"row {i} (uuid {row['uuid']!r}): duplicate uuid (first in row {first})")
    if errors:
        raise MathJudgeError(f"{SOURCE.repo} source is inconsistent:\n  " + "\n  ".join(errors))
    return [
        {
            "item_id": row["uuid"],
            "problem_id": problem_id(row["problem_statement"]),
            "problem_statement": row["problem_statement"],
            "golden_answer": row["golden_answer"],
            "author_model": row["model"],
            "model_output": row["model_output"],
            "label": row["label"],
            "label_name": "correct" if row["label"] else "incorrect",
        }
        for row in raw
    ]


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    snapshot = resolve_snapshot(source, source_dir)
    rows = judgments(read_test_split(snapshot.folder))
    source = replace(source, revision=snapshot.revision)
    per_problem = Counter(r["problem_id"] for r in rows)
    labels = Counter("correct" if r["label"] else "incorrect" for r in rows)
    facts = {
        "version": VERSION,
        "source": source,
        "files": sorted(snapshot.files.items()),
        "n_rows": len(rows),
        "n_problems": len(per_problem),
        "solutions_per_problem": sorted(Counter(per_problem.values()).items()),
        "authors": sorted(Counter(r["author_model"] for r in rows).items()),
        "labels": labels,
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table("judgments", "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="μ-MATH",
            license="mit",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-class-classification",),  # correct or incorrect
            language_creators=("expert-generated", "machine-generated"),
            source_datasets=(SOURCE.repo,),
            size_category="n<1K" if len(rows) < 1000 else "1K<n<10K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, snapshot.files),),
        checks={
            "unique_uuid": f"{len(rows)}/{len(rows)} rows",
            "problems": len(per_problem),
            "labels": dict(sorted(labels.items())),
        },
    )
