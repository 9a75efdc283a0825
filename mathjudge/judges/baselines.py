"""Running the deterministic baseline judges a benchmark's spec lists (`SPEC.baselines`), as
`mathjudge demo` does wherever their benchmark is built: a code reference of the benchmark
(`Baseline.run`, resolved by the registry), or a reference judge that needs no model
(`Baseline.judge`, by its name), run through the judge runner."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
from mathjudge.judges.catalog import make
from mathjudge.spec.benchmark import Baseline, BaselineContext, BenchmarkSpec

Rows = Iterable[Mapping[str, Any]]


def run_baseline(
    spec: BenchmarkSpec, baseline: Baseline, rows: Rows, source_dir: Path | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(predictions, details): a reference judge also gives its own account of each item (as
    `mathjudge judge run` writes it to `X.details.jsonl`); failures become inconclusive
    verdicts or missing rows, as there."""
    if baseline.judge is not None:
        judge = make(baseline.judge)
        if judge.uses_model:
            raise MathJudgeError(
                f"{spec.name}: baseline {baseline.key!r} names judge {baseline.judge!r}, which "
                "needs a model; a baseline runs without one"
            )
        from mathjudge.judges.runner import run_judge  # the model client: litellm, seconds

        run = run_judge(judge, spec.name, rows, client=None)
        return run.predictions, run.details
    if baseline.run is None:
        raise MathJudgeError(f"{spec.name}: baseline {baseline.key!r} gives no run or judge")
    given = list(rows)
    context = BaselineContext(spec.name, source_dir)
    out = registry.resolve(spec.name, baseline.run)(given, context, **baseline.args)
    if baseline.details is None:
        return list(out), []
    return list(out), list(registry.resolve(spec.name, baseline.details)(given, context))
