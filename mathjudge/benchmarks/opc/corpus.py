"""The Open Proof Corpus's own LLM judgments, as a submission to the `opc` benchmark.

The corpus file stores, next to each human label, the output of an LLM judge asked to list the
issues in the proof (`llm_judgment.result.issues`). Read as a verdict — correct exactly when it
lists no issues — it is a real judge to score against the human labels. Rows the corpus did not
judge get no prediction, so the submission is partial by design (score it with
`--allow-partial`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mathjudge.benchmarks.opc import build as opc
from mathjudge.spec.benchmark import BaselineContext


def corpus_verdicts(source_dir: Path | None = None) -> dict[str, bool]:
    """item_id -> verdict for every row of the pinned corpus file that has an LLM judgment."""
    return {
        opc.item_id(row): not row["llm_judgment"]["result"]["issues"]
        for row in opc.read_source(source_dir)
        if row["llm_judgment"] is not None
    }


def judge(
    rows: Iterable[Mapping[str, Any]], source_dir: Path | None = None
) -> list[dict[str, Any]]:
    """Predictions for the dataset rows the corpus judged, in the rows' order."""
    verdicts = corpus_verdicts(source_dir)
    return [
        {"item_id": r["item_id"], "verdict": verdicts[r["item_id"]]}
        for r in rows
        if r["item_id"] in verdicts
    ]


def baseline(rows: Iterable[Mapping[str, Any]], ctx: BaselineContext) -> list[dict[str, Any]]:
    """`judge` as the demo's baseline, reading the corpus from the context's source."""
    return judge(rows, ctx.source_dir)


def details(rows: Iterable[Mapping[str, Any]], ctx: BaselineContext) -> list[dict[str, Any]]:
    """The corpus judge's own account of each proof it judged, as a details file holds it: its
    summary and the issues it lists (each with its category, where it is and why), so an item
    view shows why the judge said what it said."""
    wanted = {r["item_id"] for r in rows}
    out = []
    for row in opc.read_source(ctx.source_dir):
        item = opc.item_id(row)
        if row["llm_judgment"] is None or item not in wanted:
            continue
        result = row["llm_judgment"]["result"]
        issues = [
            f"{n}. {issue.get('category') or 'Issue'} ({issue.get('location') or 'no location'}): "
            f"{issue.get('description') or ''}".strip()
            for n, issue in enumerate(result["issues"], 1)
        ]
        out.append(
            {
                "item_id": item,
                "summary": readable(result.get("summary") or ""),
                "issues": readable("\n\n".join(issues)) if issues else "none listed",
            }
        )
    return out


# A TeX command whose backslash a JSON decoder upstream read as an escape: "\frac" became a
# form feed and "rac", "\beta" a backspace and "eta", "\theta" a tab and "heta".
_EATEN = re.compile(r"([\x08\x0c\r\t])(?=[A-Za-z])")
_ESCAPES = {"\x08": "\\b", "\x0c": "\\f", "\r": "\\r", "\t": "\\t"}


def readable(text: str) -> str:
    """The corpus judge's text as a details file may hold it: TeX commands whose backslash was
    decoded away restored, and other invisible or control characters (soft hyphens) dropped."""
    text = _EATEN.sub(lambda m: _ESCAPES[m.group(1)], text)
    return "".join(
        ch for ch in text if ch in "\n\t" or not unicodedata.category(ch).startswith("C")
    )
