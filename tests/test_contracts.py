"""Contracts that hold by themselves, checked on everything registered rather than on a list:

- every code reference of every spec resolves, and to code of the benchmarks layer or below in
  the layer order of pyproject.toml (the spec is the bottom layer: it may not point up); every
  judge a spec names exists, and a baseline judge needs no model;
- every scorer keeps its contract when the registry loads it (`test_adding_a_benchmark.py`
  shows the refusals);
- every reference judge declares its capabilities through the `Judge` protocol;
- every `mathjudge.*` module path and repository file path named in the README, the docs, the
  data cards, the templates and the code's comments exists.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO
from mathjudge import registry
from mathjudge.judges.base import JudgeBase
from mathjudge.judges.catalog import JUDGES
from mathjudge.spec.benchmark import BenchmarkSpec


def layers() -> list[set[str]]:
    """The import-linter layers of pyproject.toml, top first, each a set of packages."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return [{p.strip() for p in layer.split("|")} for layer in contract["layers"]]


def layer_of(module: str) -> int:
    for i, packages in enumerate(layers()):
        if any(module == p or module.startswith(p + ".") for p in packages):
            return i
    raise AssertionError(f"{module} is in no layer of pyproject.toml")


def code_references(spec: BenchmarkSpec) -> dict[str, str]:
    """Every "module:attr" the spec names, by field."""
    refs: dict[str, str] = {}
    for field in ("pdfs", "command", "outputs"):
        if getattr(spec, field) is not None:
            refs[field] = getattr(spec, field)
    if spec.reported is not None:
        refs["reported"] = f"{spec.reported}:load"
    if spec.judging is not None and spec.judging.rows is not None:
        refs["judging.rows"] = spec.judging.rows
    for baseline in spec.baselines:
        if baseline.run is not None:
            refs[f"baselines[{baseline.key}].run"] = baseline.run
    return refs


@pytest.mark.parametrize("name", registry.names())
def test_every_code_reference_resolves_within_the_layer_order(name: str) -> None:
    spec = registry.get(name)
    benchmarks = layer_of("mathjudge.benchmarks")
    for field, ref in code_references(spec).items():
        assert registry.resolve(name, ref) is not None
        module = ref.partition(":")[0]
        module = f"mathjudge.benchmarks.{name}{module}" if module.startswith(".") else module
        assert layer_of(module) >= benchmarks, f"{name}.{field} = {ref!r} points up, to {module}"
    assert registry.scorer(name).prediction.__module__.startswith("mathjudge.benchmarks.")
    if spec.builds_dataset:
        assert callable(registry.builder(name).build)
    if spec.example is not None:
        assert registry.example_dir(name).is_dir(), f"{name}: example {spec.example} missing"  # type: ignore[union-attr]


@pytest.mark.parametrize("name", registry.names())
def test_every_judge_a_spec_names_exists(name: str) -> None:
    spec = registry.get(name)
    named = spec.judging.judges if spec.judging is not None else ()
    assert set(named) <= set(JUDGES), f"{name}: unknown judges {set(named) - set(JUDGES)}"
    for baseline in spec.baselines:
        assert (baseline.run is None) != (baseline.judge is None), f"{name}: {baseline.key}"
        if baseline.judge is not None:
            assert baseline.judge in JUDGES, f"{name}: {baseline.key}: {baseline.judge}"
            assert not JUDGES[baseline.judge].uses_model, f"{name}: {baseline.key} needs a model"


def test_a_reference_outside_the_benchmarks_is_refused() -> None:
    from mathjudge.base.errors import MathJudgeError

    with pytest.raises(MathJudgeError, match=r"opc: 'mathjudge.judges.catalog:make' refers "):
        registry.resolve("opc", "mathjudge.judges.catalog:make")
    with pytest.raises(MathJudgeError, match=r"'constant:full_marks' refers outside"):
        registry.resolve("stepmathbench", "constant:full_marks")
    with pytest.raises(MathJudgeError, match=r"has no nothing"):
        registry.resolve("opc", ".corpus:nothing")


@pytest.mark.parametrize("name", registry.names())
def test_every_scorer_keeps_its_contract(name: str) -> None:
    scorer = registry.scorer(name)
    assert scorer.metrics == registry.get(name).metrics
    assert scorer.contract_problems() == []


@pytest.mark.parametrize("name", sorted(JUDGES))
def test_judges_declare_their_capabilities(name: str) -> None:
    """`combines_runs` says whether a judge merges its runs, and only such a judge has its own
    `combine_runs`; `report` is the protocol's, never probed for."""
    judge = JUDGES[name]
    assert issubclass(judge, JudgeBase)
    own = judge.combine_runs is not JudgeBase.combine_runs
    assert judge.combines_runs == own, name
    assert isinstance(judge.report(judge.__new__(judge), []), dict)  # type: ignore[arg-type]


# ---- references in the README, docs, cards, templates and comments ----------------------------

SCANNED = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    REPO / "bench" / "README.md",
    *sorted((REPO / "mathjudge").rglob("*.py")),
    *sorted((REPO / "mathjudge").rglob("*.md")),
    *sorted((REPO / "mathjudge").rglob("*.html")),
    *sorted((REPO / "mathjudge").rglob("*.yaml")),
    *sorted((REPO / "bench").glob("*.py")),
]
# A name is taken whole (never a prefix of a longer one); `<...>` marks a placeholder.
END = r"(?![\w./-]|<\w)"
MODULE = re.compile(rf"\bmathjudge(?:\.[A-Za-z_]\w*)+{END}")
TOP = ("mathjudge", "docs", "tests", "bench", "scripts", "examples")
REPO_PATH = re.compile(rf"(?<![\w/.-])((?:{'|'.join(TOP)})/[\w./-]*\w){END}")
# A path written from inside the package (`document/models.yaml`, `benchmarks/stats.py`): any
# Python file, and any file under one of the package's folders.
RELATIVE = re.compile(rf"(?<![\w/.-])([a-z_]+/[\w/.-]*\.(?:py|md|yaml|json|html|bib)){END}")
PACKAGE_DIRS = {p.name for p in (REPO / "mathjudge").iterdir() if p.is_dir()}
# Paths that name something outside this repository, said so where they are written.
NOT_OURS = {
    "utils/metrics.py",  # JudgeBench's own repository (benchmarks/judgebench/metrics.py)
    "code/run_eval.py",  # ProcessBench's (benchmarks/processbench/metrics.py)
    "src/evaluation/eval.py",  # RewardMATH's (benchmarks/reward_scoring.py, rewards.py)
    "judges/index.html",  # a page of the built site (site/render.py), not the package
    "site/index.html",  # the built site's front page (README), not the package's site/
}


def resolves(dotted: str) -> bool:
    """A module, or an attribute of one (`mathjudge.spec.scorer.Scorer`)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            if importlib.util.find_spec(module) is None:
                continue
        except ModuleNotFoundError:  # a parent that is a module, not a package
            continue
        found: Any = importlib.import_module(module)
        for attr in parts[i:]:
            if not hasattr(found, attr):
                return False
            found = getattr(found, attr)
        return True
    return False


def stale_references(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(REPO)
    out = [f"{where}: {m}" for m in sorted(set(MODULE.findall(text))) if not resolves(m)]
    out += [
        f"{where}: {p}" for p in sorted(set(REPO_PATH.findall(text))) if not (REPO / p).exists()
    ]
    out += [
        f"{where}: {p}"
        for p in sorted(set(RELATIVE.findall(text)))
        if p.split("/")[0] not in TOP
        and (p.endswith(".py") or p.split("/")[0] in PACKAGE_DIRS)
        and p not in NOT_OURS
        and not (REPO / p).exists()
        and not (REPO / "mathjudge" / p).exists()
        and not (path.parent / p).exists()
    ]
    return out


def test_every_path_named_in_docs_cards_and_comments_exists() -> None:
    assert [problem for path in SCANNED for problem in stale_references(path)] == []


def test_a_stale_reference_is_found(tmp_path: Path) -> None:
    """The three kinds: a module that moved, a repository file that is gone, a package path."""
    doc = REPO / "docs" / "a-stale-doc-for-this-test.md"
    doc.write_text(
        "See `mathjudge.judges.opc_corpus`, mathjudge/evaluate/metrics/expertmath.py and "
        "metrics/binary.py; `mathjudge.spec.scorer.Scorer` and document/models.yaml exist.\n",
        encoding="utf-8",
    )
    try:
        found = stale_references(doc)
    finally:
        doc.unlink()
    where = "docs/a-stale-doc-for-this-test.md"
    assert found == [
        f"{where}: mathjudge.judges.opc_corpus",
        f"{where}: mathjudge/evaluate/metrics/expertmath.py",
        f"{where}: metrics/binary.py",
    ]
