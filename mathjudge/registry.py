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
    )
}


def get(name: str) -> Benchmark:
    try:
        return BENCHMARKS[name]
    except KeyError:
        known = ", ".join(sorted(BENCHMARKS))
        raise MathJudgeError(f"unknown benchmark {name!r}; known: {known}") from None
