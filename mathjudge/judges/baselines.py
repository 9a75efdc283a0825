"""Running the deterministic baseline judges a benchmark's spec lists (`SPEC.baselines`), as
`mathjudge demo` does wherever their benchmark is built."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mathjudge.judges.answer_equivalence import AnswerEquivalence
from mathjudge.judges.runner import JudgeRun, run_judge
from mathjudge.spec.benchmark import Baseline, BaselineContext, BenchmarkSpec

Rows = Iterable[Mapping[str, Any]]


def run_baseline(
    spec: BenchmarkSpec, baseline: Baseline, rows: Rows, source_dir: Path | None
) -> list[dict[str, Any]]:
    """The baseline's predictions for `rows` of `spec`'s items config."""
    return run_baseline_outputs(spec, baseline, rows, source_dir)[0]


def run_baseline_outputs(
    spec: BenchmarkSpec, baseline: Baseline, rows: Rows, source_dir: Path | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(predictions, details): a baseline run through the judge runner also gives the judge's
    own account of each item (as `mathjudge judge run` writes it to `X.details.jsonl`)."""
    out = spec.resolve(baseline.run)(rows, BaselineContext(spec.name, source_dir))
    if isinstance(out, JudgeRun):
        return out.predictions, out.details
    return out, []


def answer_equivalence(rows: Rows, ctx: BaselineContext) -> JudgeRun:
    """The rule-based judge through the judge runner (no model; failures become inconclusive
    verdicts or missing rows, as in `mathjudge judge run`); its details give the final answer
    it extracted from each solution."""
    return run_judge(AnswerEquivalence(), ctx.benchmark, rows, client=None)
