"""The benchmarks, discovered: every folder of `mathjudge/benchmarks/` is one, declaring its
`SPEC`. This is the only way to look a benchmark up; nothing else keys anything by its name.

Listing the names reads the folder names only; a spec is imported the first time it is asked
for, so `mathjudge --help` loads no benchmark code.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

from mathjudge import benchmarks
from mathjudge.errors import MathJudgeError
from mathjudge.spec.benchmark import BenchmarkSpec


@functools.cache
def names() -> tuple[str, ...]:
    """Every benchmark's name, sorted (a folder with an `__init__.py`)."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.ispkg))


@functools.cache
def get(name: str) -> BenchmarkSpec:
    if name not in names():
        raise MathJudgeError(f"unknown benchmark {name!r}; known: {', '.join(names())}")
    spec = importlib.import_module(f"{benchmarks.__name__}.{name}").SPEC
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
        if any(
            m.name == "build" for m in pkgutil.iter_modules([f"{benchmarks.__path__[0]}/{name}"])
        )
    )
