"""ReaLMistake (Kamoi et al., arXiv:2404.03602), its math word problem generation task: 300
responses of GPT-4-0613 and Llama-2-70B-chat to "write a math word problem with a step-by-step
solution under these requirements", each labelled `error` / `no_error` by experts, with the error
categories they chose and their explanation.

The authors publish the data as `data.zip` in their repository, encrypted with a password their
README prints: the zip keeps the examples out of plain-text crawls, it is no secret, and they ask
that examples not be published online in plain text. So the build is local only (the spec's
`local_only`): `--push-to-hub` refuses it, and a published site carries ids, labels and the
judges' calls, never the texts. Only the two files of the math task are read (the zip's other
tasks are not math).

`item_id` is the upstream `metadata.id` (`math_problem_generation_84_gpt-4-0613`; Llama-2's ids
hold a `/`, kept as they are). Its number names the task input: 140 inputs were answered by
both models and 20 by Llama-2 only, so the bootstrap resamples inputs (`task_id`), and the
builder checks that one number always means one input.
"""

from __future__ import annotations

import re
import zipfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import datasets
from datasets import List, Value

from mathjudge.base import safejson
from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.benchmarks.realmistake import RESPONSES_OF
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import Source, resolve
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "realmistake"
PINS = load_pins(NAME)  # source.yaml: the version, the commit, data.zip and the judges' outputs
VERSION = PINS.version
SOURCE = PINS.source
ARCHIVE = "data.zip"
PASSWORD = b"open-realmistake"  # printed in the authors' README
CONFIG = "responses"
TASK = "math_problem_generation"
# The response model as the file and the paper's tables name it -> as `metadata` names it.
RESPONSE_MODELS = dict(
    zip(RESPONSES_OF, ("gpt-4-0613", "meta-llama/Llama-2-70b-chat-hf"), strict=True)
)
LABELS = {"error": True, "no_error": False}
DIFFICULTIES = ("easy", "difficult")
CATEGORIES = (
    "Reasoning Correctness",
    "Instruction-Following",
    "Context-Faithfulness",
    "Parameterized Knowledge",
)
ITEM_ID = re.compile(TASK + r"_(\d+)_(.+)")
Report = Callable[[str | None, str], None]  # (field, message) of a problem on the current line

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "task_id": Value("int32"),
        "responses_of": Value("string"),
        "response_model": Value("string"),
        "difficulty": Value("string"),
        "task_source": Value("string"),
        "label": Value("bool"),
        "label_name": Value("string"),
        "error_categories": List(Value("string")),
        "input": Value("string"),
        "llm_response": Value("string"),
        "human_explanation": Value("string"),
    }
)


def member(responses_of: str) -> str:
    """The path in `data.zip` of one response model's file."""
    return f"data/math_word_problem_generation/{responses_of}.jsonl"


def read_archive(path: Path) -> dict[str, bytes]:
    """The two files of the math task, by response model, from the password-protected zip."""
    try:
        with zipfile.ZipFile(path) as archive:
            archive.setpassword(PASSWORD)
            held = set(archive.namelist())
            missing = [member(name) for name in RESPONSE_MODELS if member(name) not in held]
            if missing:
                raise MathJudgeError(f"{path}: no {', '.join(missing)} in the archive")
            return {name: archive.read(member(name)) for name in RESPONSE_MODELS}
    except (zipfile.BadZipFile, RuntimeError, OSError) as exc:  # RuntimeError: bad password
        raise MathJudgeError(f"{path}: not ReaLMistake's data.zip ({exc})") from None


def response_row(raw: Any, responses_of: str, bad: Report) -> dict[str, Any] | None:
    """One upstream line as an item, or None after reporting what is wrong with it."""
    if not isinstance(raw, dict):
        bad(None, "not a JSON object")
        return None
    ok = True
    for key in ("input", "llm_response", "human_explanation"):
        if not isinstance(raw.get(key), str):
            bad(key, "must be text")
            ok = False
    if raw.get("error_label") not in LABELS:
        bad("error_label", f"{raw.get('error_label')!r:.40} is not 'error' or 'no_error'")
        ok = False
    categories = raw.get("error_categories")
    if not isinstance(categories, list) or not all(c in CATEGORIES for c in categories):
        bad("error_categories", f"{categories!r:.80} is not a list of the four categories")
        ok = False
    meta = raw.get("metadata")
    if not isinstance(meta, dict):
        bad("metadata", "not a JSON object")
        return None
    model = RESPONSE_MODELS[responses_of]
    if meta.get("llm_response_model") != model:
        bad("metadata.llm_response_model", f"{meta.get('llm_response_model')!r:.60}, not {model}")
        ok = False
    if meta.get("difficulty") not in DIFFICULTIES:
        bad("metadata.difficulty", f"{meta.get('difficulty')!r:.40} is not easy or difficult")
        ok = False
    if not isinstance(meta.get("task_source"), str):
        bad("metadata.task_source", "must be text")
        ok = False
    item = meta.get("id")
    parts = ITEM_ID.fullmatch(item) if isinstance(item, str) else None
    if parts is None or parts.group(2) != model:
        bad("metadata.id", f"{item!r:.80} is not {TASK}_<number>_{model}")
        ok = False
    if not ok or parts is None:
        return None
    return {
        "item_id": item,
        "task_id": int(parts.group(1)),
        "responses_of": responses_of,
        "response_model": model,
        "difficulty": meta["difficulty"],
        "task_source": meta["task_source"],
        "label": LABELS[raw["error_label"]],
        "label_name": raw["error_label"],
        "error_categories": categories,
        "input": raw["input"],
        "llm_response": raw["llm_response"],
        "human_explanation": raw["human_explanation"],
    }


def responses(path: Path) -> list[dict[str, Any]]:
    """Every response of the math task, GPT-4's file first, in upstream order; every problem
    is reported with its file, line and field."""
    problems: list[Problem] = []
    rows: list[dict[str, Any]] = []
    where: dict[str, tuple[str, int]] = {}  # item_id -> (file, line), for checks across rows
    for responses_of, data in read_archive(path).items():
        name = f"{path}!{member(responses_of)}"
        for lineno, line in enumerate(data.split(b"\n"), start=1):
            if not line.strip():
                continue

            def bad(
                field: str | None, message: str, name: str = name, lineno: int = lineno
            ) -> None:
                problems.append(Problem(name, lineno, field, message))

            try:
                raw = safejson.loads(line)
            except safejson.JsonProblem as exc:
                bad(exc.field, exc.message)
                continue
            row = response_row(raw, responses_of, bad)
            if row is None:
                continue
            if row["item_id"] in where:
                bad("metadata.id", "repeats {}:{}".format(*where[row["item_id"]]))
                continue
            where[row["item_id"]] = (name, lineno)
            rows.append(row)
    inputs: dict[int, tuple[str, str]] = {}
    for row in rows:
        first = inputs.setdefault(row["task_id"], (row["input"], row["item_id"]))
        if first[0] != row["input"]:
            message = f"task {row['task_id']} has another input in {first[1]}"
            problems.append(Problem(*where[row["item_id"]], "input", message))
    if problems:
        raise ValidationFailed(problems)
    if not rows:
        raise MathJudgeError(f"{path}: no responses in the math task's files")
    return rows


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    resolved = resolve(source, source_dir)
    rows = responses(resolved[ARCHIVE].path)
    by_model = {name: [r for r in rows if r["responses_of"] == name] for name in RESPONSE_MODELS}
    tasks = Counter(r["task_id"] for r in rows)
    facts = {
        "version": VERSION,
        "source": source,
        "n": len(rows),
        "n_tasks": len(tasks),
        "n_shared_tasks": sum(n > 1 for n in tasks.values()),
        "models": {
            name: {
                "n": len(model_rows),
                "labels": Counter(r["label_name"] for r in model_rows),
                "difficulty": Counter(r["difficulty"] for r in model_rows),
            }
            for name, model_rows in by_model.items()
        },
        "categories": Counter(c for r in rows for c in r["error_categories"]),
        "category_order": CATEGORIES,
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table(CONFIG, "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="ReaLMistake, math word problem generation (local build)",
            license="cc-by-sa-4.0",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-input-text-classification",),  # a task input and a response
            annotations_creators=("expert-generated",),
            language_creators=("expert-generated", "machine-generated"),
            size_category="n<1K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, resolved),),
        checks={
            "redistribution": "local only: the authors ask that examples not be published "
            "online in plain text; --push-to-hub refuses this dataset",
            "responses": {name: len(model_rows) for name, model_rows in by_model.items()},
            "task_inputs": len(tasks),
            "one_input_per_task_number": True,
        },
    )
