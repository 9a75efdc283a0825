"""The benchmarks, discovered: every folder of `mathjudge/benchmarks/` is one, declaring its
`SPEC`. This is the only way to look a benchmark up; nothing else keys anything by its name.

Listing the names reads the folder names only; a spec is imported the first time it is asked
for, so `mathjudge --help` loads no benchmark code. The registry also resolves the code a spec
refers to (its scorer, its builder, "module:attribute" references; see `spec.benchmark`), so
the spec itself stays data, and it checks a scorer against the spec's metrics when it loads it.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from mathjudge import benchmarks
from mathjudge.base.errors import MathJudgeError
from mathjudge.spec.benchmark import BenchmarkSpec
from mathjudge.spec.scorer import Scorer

PACKAGE = benchmarks.__name__


@functools.cache
def names() -> tuple[str, ...]:
    """Every benchmark's name, sorted (a folder with an `__init__.py`)."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.ispkg))


@functools.cache
def get(name: str) -> BenchmarkSpec:
    if name not in names():
        raise MathJudgeError(f"unknown benchmark {name!r}; known: {', '.join(names())}")
    spec = importlib.import_module(f"{PACKAGE}.{name}").SPEC
    if not isinstance(spec, BenchmarkSpec) or spec.name != name:
        raise TypeError(f"mathjudge/benchmarks/{name}: SPEC must be a BenchmarkSpec named {name!r}")
    return spec


def specs() -> list[BenchmarkSpec]:
    return [get(name) for name in names()]


def datasets() -> dict[str, BenchmarkSpec]:
    """Built dataset name -> the benchmark whose folder builds it (for `build` and `demo`)."""
    return {s.dataset: s for s in specs() if s.builds_dataset}


def dataset_names() -> tuple[str, ...]:
    """The datasets `build` can make, without importing any spec: they are the benchmarks
    whose folder has a `build.py`."""
    return tuple(
        name
        for name in names()
        if any(m.name == "build" for m in pkgutil.iter_modules([str(folder(name))]))
    )


def folder(name: str) -> Path:
    """The benchmark's folder (its files: card.md, source.yaml, an example...)."""
    for root in benchmarks.__path__:
        if (Path(root) / name / "__init__.py").is_file():
            return Path(root) / name
    raise MathJudgeError(f"unknown benchmark {name!r}; known: {', '.join(names())}")


@functools.cache
def scorer(name: str) -> Scorer:
    """The benchmark's `SCORER` (its `metrics.py`) with the metrics its spec declares, checked
    against them (see `Scorer.contract_problems`)."""
    spec = get(name)
    where = f"mathjudge/benchmarks/{name}/metrics.py"
    declared = getattr(_module(name, "metrics"), "SCORER", None)
    if not isinstance(declared, Scorer):
        raise MathJudgeError(f"{where}: SCORER must be a Scorer")
    if declared.metrics:
        raise MathJudgeError(
            f"{where}: the SCORER names metrics; they come from the spec (remove metrics=)"
        )
    loaded = replace(declared, metrics=spec.metrics)
    problems = loaded.contract_problems()
    if problems:
        raise MathJudgeError(f"{where}: the scorer breaks its contract: {'; '.join(problems)}")
    return loaded


def builder(name: str) -> Any:
    """The module with `build(source_dir) -> Build` of the benchmark's dataset (the folder of
    the benchmark named after the dataset)."""
    return _module(get(name).dataset, "build")


def resolve(name: str, ref: str) -> Callable[..., Any]:
    """The code reference `ref` of benchmark `name`: ".module:attr" inside its folder, or
    "mathjudge.benchmarks.<module>:<attr>"; nothing outside the benchmarks layer."""
    module, sep, attr = ref.partition(":")
    if not sep or not attr:
        raise MathJudgeError(f"mathjudge/benchmarks/{name}: {ref!r} is not 'module:attribute'")
    if module.startswith("."):
        path = f"{PACKAGE}.{name}{module}"
    elif module.startswith(f"{PACKAGE}."):
        path = module
    else:
        raise MathJudgeError(
            f"mathjudge/benchmarks/{name}: {ref!r} refers outside the benchmarks; use "
            f"'.module:attr' (its folder) or '{PACKAGE}.module:attr'"
        )
    found = getattr(importlib.import_module(path), attr, None)
    if found is None:
        raise MathJudgeError(f"mathjudge/benchmarks/{name}: {ref!r}: {path} has no {attr}")
    return found


def example_dir(name: str) -> Path | None:
    """The example the benchmark ships to build from when no source is reachable, if any."""
    example = get(name).example
    return None if example is None else folder(name) / example


def _module(name: str, module: str) -> ModuleType:
    return importlib.import_module(f"{PACKAGE}.{name}.{module}")
