"""Running the deterministic baseline judges a benchmark's spec lists (`SPEC.baselines`), as
`mathjudge demo` does wherever their benchmark is built."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mathjudge.judges.answer_equivalence import AnswerEquivalence
from mathjudge.judges.runner import run_judge
from mathjudge.spec.benchmark import Baseline, BaselineContext, BenchmarkSpec

Rows = Iterable[Mapping[str, Any]]


def run_baseline(
    spec: BenchmarkSpec, baseline: Baseline, rows: Rows, source_dir: Path | None
) -> list[dict[str, Any]]:
    """The baseline's predictions for `rows` of `spec`'s items config."""
    return spec.resolve(baseline.run)(rows, BaselineContext(spec.name, source_dir))


def answer_equivalence(rows: Rows, ctx: BaselineContext) -> list[dict[str, Any]]:
    """The rule-based judge through the judge runner (no model; failures become inconclusive
    verdicts or missing rows, as in `mathjudge judge run`)."""
    return run_judge(AnswerEquivalence(), ctx.benchmark, rows, client=None).predictions
