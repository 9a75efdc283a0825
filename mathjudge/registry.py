"""The one place a benchmark is registered: its builder module and its scoring module.

Modules are imported lazily so `mathjudge validate` does not pay for every builder's imports.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

from mathjudge.errors import MathJudgeError


@dataclass(frozen=True)
class Benchmark:
    name: str
    title: str
    builder: str  # module with `build(source_dir) -> writer.Build`
    scorer: str  # module with the prediction model, defaults and `cluster_stats`
    items_config: str  # the config whose rows are what a judge is scored on
    dataset: str = ""  # built dataset folder, when several benchmarks share one; default `name`
    # module with `import_outputs(benchmark, source_dir) -> list[published.Converted]`, where the
    # paper publishes its judges' raw per-item outputs
    outputs: str = ""

    @property
    def dataset_name(self) -> str:
        return self.dataset or self.name

    def builder_module(self) -> ModuleType:
        return importlib.import_module(self.builder)

    def scorer_module(self) -> ModuleType:
        return importlib.import_module(self.scorer)


BENCHMARKS: dict[str, Benchmark] = {
    b.name: b
    for b in (
        Benchmark(
            name="stepmathbench",
            title="StepMathBench",
            builder="mathjudge.builders.stepmathbench",
            scorer="mathjudge.evaluate.metrics.stepmathbench",
            items_config="solutions",
        ),
        Benchmark(
            name="proofbench",
            title="ProofBench",
            builder="mathjudge.builders.proofbench",
            scorer="mathjudge.evaluate.metrics.proofbench",
            items_config="grading",
        ),
        Benchmark(
            name="proofbench_bon",
            title="ProofBench best-of-n",
            builder="mathjudge.builders.proofbench",
            scorer="mathjudge.evaluate.metrics.proofbench_bon",
            items_config="best_of_n",
            dataset="proofbench",
        ),
        Benchmark(
            name="mumath",
            title="μ-MATH",
            builder="mathjudge.builders.mumath",
            scorer="mathjudge.evaluate.metrics.binary",  # shared with opc
            items_config="judgments",
        ),
        Benchmark(
            name="opc",
            title="Open Proof Corpus",
            builder="mathjudge.builders.opc",
            scorer="mathjudge.evaluate.metrics.binary",  # shared with mumath
            items_config="judgments",
        ),
        Benchmark(
            name="arxivmathgradingbench",
            title="ArxivMathGradingBench",
            builder="mathjudge.builders.arxivmathgradingbench",
            scorer="mathjudge.evaluate.metrics.arxivmathgradingbench",
            items_config="papers",
        ),
        Benchmark(
            name="expertmath",
            title="ExpertMath-style",
            builder="mathjudge.builders.expertmath",
            scorer="mathjudge.evaluate.metrics.expertmath",
            items_config="candidates",
        ),
        Benchmark(
            name="hard2verify",
            title="Hard2Verify",
            builder="mathjudge.builders.hard2verify",
            scorer="mathjudge.evaluate.metrics.hard2verify",
            items_config="responses",
        ),
        Benchmark(
            name="mrmath",
            title="MR-MATH",
            builder="mathjudge.benchmarks.mrmath.build",
            scorer="mathjudge.benchmarks.mrmath.metrics",
            items_config="solutions",
            outputs="mathjudge.benchmarks.mrmath.outputs",
        ),
        Benchmark(
            name="judgebench",
            title="JudgeBench",
            builder="mathjudge.benchmarks.judgebench.build",
            scorer="mathjudge.benchmarks.judgebench.metrics",
            items_config="gpt4o",
            outputs="mathjudge.benchmarks.judgebench.outputs",
        ),
        Benchmark(
            name="judgebench_claude",
            title="JudgeBench (Claude pairs)",
            builder="mathjudge.benchmarks.judgebench.build",
            scorer="mathjudge.benchmarks.judgebench.metrics",
            items_config="claude",
            dataset="judgebench",
            outputs="mathjudge.benchmarks.judgebench.outputs",
        ),
    )
}


def datasets() -> dict[str, Benchmark]:
    """One benchmark per built dataset (its builder), for `build` and `demo`."""
    out: dict[str, Benchmark] = {}
    for bench in BENCHMARKS.values():
        out.setdefault(bench.dataset_name, bench)
    return out


def get(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        known = ", ".join(sorted(BENCHMARKS))
        raise MathJudgeError(f"unknown benchmark {name!r}; known: {known}") from None
