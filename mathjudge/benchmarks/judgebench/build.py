"""JudgeBench (Tan et al., arXiv:2410.12784): pairs of responses to hard questions, one of them
objectively correct, for judges that must tell which.

Two configs, one per response model: `gpt4o` (350 pairs by GPT-4o, the paper's main set) and
`claude` (270 pairs by Claude-3.5-Sonnet). Each is the items config of its own benchmark
(`judgebench`, `judgebench_claude`), since every published judge ran on one of them. The
category is derived from `source` as the authors do: `mmlu-pro-*` knowledge,
`livebench-reasoning` reasoning, `livebench-math` math, `livecodebench` coding.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import datasets
from datasets import Value

from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.jsonfiles import iter_jsonl
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import Source, resolve
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "judgebench"
PINS = load_pins(NAME)  # source.yaml: the version, the upstream files and published outputs
VERSION = PINS.version
SOURCE = PINS.source
LABELS = ("A>B", "B>A")
CATEGORIES = ("knowledge", "reasoning", "math", "coding")


def data_path(response_model: str) -> str:
    return f"data/dataset=judgebench,response_model={response_model}.jsonl"


# config -> the response model whose pairs it holds
CONFIGS = {"gpt4o": "gpt-4o-2024-05-13", "claude": "claude-3-5-sonnet-20240620"}

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "pair_id": Value("string"),
        "original_id": Value("int64"),
        "source": Value("string"),
        "category": Value("string"),
        "question": Value("string"),
        "response_model": Value("string"),
        "response_a": Value("string"),
        "response_b": Value("string"),
        "label": Value("string"),
        "a_better": Value("bool"),
    }
)


def category(source: str) -> str | None:
    if source.startswith("mmlu-pro-"):
        return "knowledge"
    return {
        "livebench-reasoning": "reasoning",
        "livebench-math": "math",
        "livecodebench": "coding",
    }.get(source)


def pair_row(raw: Any, response_model: str, bad) -> dict[str, Any] | None:
    if not isinstance(raw, dict):
        bad("", "not a JSON object")
        return None
    ok = True
    for key in ("pair_id", "source", "question", "response_A", "response_B"):
        if not isinstance(raw.get(key), str) or not raw[key]:
            bad(key, "must be non-empty text")
            ok = False
    if raw.get("label") not in LABELS:
        bad("label", f"{raw.get('label')!r} is not 'A>B' or 'B>A'")
        ok = False
    if raw.get("response_model") != response_model:
        bad("response_model", f"{raw.get('response_model')!r}, expected {response_model!r}")
        ok = False
    original = raw.get("original_id")
    if original is not None and (not isinstance(original, int) or isinstance(original, bool)):
        bad("original_id", "must be an integer or null")
        ok = False
    if not ok:
        return None
    kind = category(raw["source"])
    if kind is None:
        bad("source", f"{raw['source']!r} belongs to no JudgeBench category")
        return None
    return {
        "item_id": raw["pair_id"],
        "pair_id": raw["pair_id"],
        "original_id": original,
        "source": raw["source"],
        "category": kind,
        "question": raw["question"],
        "response_model": response_model,
        "response_a": raw["response_A"],
        "response_b": raw["response_B"],
        "label": raw["label"],
        "a_better": raw["label"] == "A>B",
    }


def read_pairs(path: Path, response_model: str, problems: list[Problem]) -> list[dict[str, Any]]:
    rows = []
    for lineno, raw in iter_jsonl(path):

        def bad(field: str, message: str, lineno: int = lineno) -> None:
            problems.append(Problem(str(path), lineno, field or None, message))

        row = pair_row(raw, response_model, bad)
        if row is not None:
            rows.append(row)
    return rows


def pairs(files: dict[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """config -> rows in upstream order; pair ids must be unique across both files."""
    problems: list[Problem] = []
    out = {
        config: read_pairs(files[data_path(model)], model, problems)
        for config, model in CONFIGS.items()
    }
    seen = Counter(r["pair_id"] for rows in out.values() for r in rows)
    problems += [
        Problem(NAME, None, "pair_id", f"{pid} appears {n} times")
        for pid, n in seen.items()
        if n > 1
    ]
    if problems:
        raise ValidationFailed(problems)
    if not all(out.values()):
        raise MathJudgeError("judgebench: a pairs file has no rows")
    return out


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    resolved = resolve(source, source_dir)
    by_config = pairs({name: f.path for name, f in resolved.items()})
    facts = {
        "version": VERSION,
        "source": source,
        "configs": {
            config: {
                "response_model": CONFIGS[config],
                "n": len(rows),
                "categories": Counter(r["category"] for r in rows),
                "labels": Counter(r["label"] for r in rows),
            }
            for config, rows in by_config.items()
        },
        "category_order": CATEGORIES,
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=tuple(Table(c, "test", FEATURES, rows) for c, rows in by_config.items()),
        card_info=CardInfo(
            pretty_name="JudgeBench (local build)",
            license="unknown",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-input-text-classification",),  # which of two responses is correct
            # Labels follow from the source datasets' verified answers, checked by program.
            annotations_creators=("machine-generated",),
            size_category="n<1K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, resolved),),
        checks={
            "redistribution": "local only; --push-to-hub refuses this dataset",
            "pairs": {c: len(rows) for c, rows in by_config.items()},
            "categories": {
                c: dict(sorted(Counter(r["category"] for r in rows).items()))
                for c, rows in by_config.items()
            },
        },
    )
