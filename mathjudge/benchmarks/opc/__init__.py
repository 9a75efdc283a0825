"""Open Proof Corpus: is a competition proof correct? (arXiv:2506.21621)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mathjudge.benchmarks import verdicts
from mathjudge.spec.benchmark import Baseline, BenchmarkSpec, Judging, Paper
from mathjudge.spec.cases import Case
from mathjudge.spec.presentation import ScopeSpec


def _case(row: Mapping[str, Any]) -> Case:
    solutions = [s for s in (row.get("reference_solutions") or []) if s]
    return Case(
        item_id=row["item_id"],
        problem=row["problem"],
        solution=row["proof"],
        reference_solution="\n\n---\n\n".join(solutions) or None,
        marking_scheme=_scheme(row.get("grading_scheme") or []) or None,
    )


def _scheme(parts: list[Mapping[str, Any]]) -> str:
    """OPC's structured grading scheme as text, one part per line."""
    lines = []
    for part in parts:
        title, points = part.get("title") or "Part", part.get("points")
        lines.append(f"- {title} ({points} pt): {part.get('description') or ''}".rstrip())
    return "\n".join(lines)


SPEC = BenchmarkSpec(
    name="opc",
    title="Open Proof Corpus",
    summary=(
        "Proof verification: a judge decides whether each of 434 competition proofs is correct, "
        "against binary human labels from the Open Proof Corpus."
    ),
    paper=Paper(
        "The Open Proof Corpus: A Large-Scale Study of LLM-Generated Mathematical Proofs",
        "2506.21621",
    ),
    dataset="opc",
    notes=(
        "Which split: the 434-row test.parquet of the corpus's code repository, not the "
        "292-row Hugging Face test split the paper's judge table uses (the authors say so in "
        "issue #3 of their repository); the paper's judge numbers are not comparable with "
        "scores here and none is shown beside them.",
    ),
    items_config="judgments",
    seed=verdicts.SEED,
    headline="macro_f1",
    groups=verdicts.GROUPS,
    scopes=(ScopeSpec("author_model", "By author model", "Proofs written by {}"),),
    items=verdicts.ITEMS,
    item_text=("problem", "proof"),
    item_title="{problem_id}, proof by {author_model}",
    plots=verdicts.PLOTS,
    judging=Judging(
        target=verdicts.TARGET,
        case=_case,
        judges=("direct", "proof-grader", "pf-bv"),
    ),
    baselines=(
        Baseline(
            key="opc-corpus",
            judge_name="OPC LLM judge (from the corpus)",
            run=".corpus:baseline",
            details=".corpus:details",
            partial=True,
            description="The Open Proof Corpus's own LLM judgment of each proof, read as "
            "'correct' when it lists no issues; 311 of the 434 proofs have one.",
            kind="llm_judge",
            from_source=True,
        ),
        verdicts.ALWAYS_INCORRECT,
        verdicts.ALWAYS_CORRECT,
    ),
)
