"""The rows a judge reads: the items config alone does not say what was asked.

ExpertMath's `candidates` rows name their problem but do not carry it, so each row is joined
with its problem's statement and with the questions a Consequence-Based Utility judge asks:
- a candidate for an original: that original's neighbourhood variants, in package order;
- a candidate for a variant: the other variants of the same original;
- when that leaves no question (an original without variants, or the only variant of its
  original), the candidate's own problem, whose compact answer is known too: the candidate's
  ideas are then tested on the question it claims to answer.
The harder original is never a question for a variant's candidate: the variants are the
slightly easier neighbours whose answers a correct idea should settle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow.parquet as pq

from mathjudge.dataio.reader import BuiltDataset


def judge_rows(dataset: BuiltDataset, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The candidate `rows` joined with their problems and questions, as judges read them."""
    problems = pq.read_table(dataset.parquet("problems")).to_pylist()
    neighbourhoods = pq.read_table(dataset.parquet("neighbourhoods")).to_pylist()
    return expertmath_rows(rows, problems, neighbourhoods)


def expertmath_rows(
    candidates: list[dict[str, Any]],
    problems: list[Mapping[str, Any]],
    neighbourhoods: list[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Each candidate with its problem's `statement` and its `consequences` (the questions, as
    mappings with problem_id, statement, answer)."""
    by_id = {p["problem_id"]: p for p in problems}
    variants: dict[str, list[str]] = {}
    for link in sorted(neighbourhoods, key=lambda n: (n["original_id"], n["position"])):
        variants.setdefault(link["original_id"], []).append(link["variant_id"])
    out = []
    for row in candidates:
        own = row["problem_id"]
        ids = [v for v in variants.get(row["original_id"], []) if v != own]
        questions = [_question(by_id[p]) for p in (ids or [own])]
        out.append({**row, "statement": by_id[own]["statement"], "consequences": questions})
    return out


def _question(problem: Mapping[str, Any]) -> dict[str, str]:
    return {k: problem[k] for k in ("problem_id", "statement", "answer")}
