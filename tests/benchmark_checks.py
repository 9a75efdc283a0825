"""What the suite demands of every registered benchmark, as functions of its name: a source to
build its dataset from and a scoring case, both found by convention (no list to keep by hand).
`test_every_benchmark.py` runs them on the registry; the toy benchmark of
`test_adding_a_benchmark.py` is held to the same checks. Each returns the problems it finds,
every one naming the benchmark."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from conftest import FIXTURES, SCORING, build_source, write_jsonl
from mathjudge import registry
from mathjudge.dataio.pins import load_pins
from mathjudge.scoring.evaluator import evaluate_file


def missing(
    name: str, mirror: Path, fixtures: Path = FIXTURES, scoring: Path = SCORING
) -> list[str]:
    """What `name` lacks: a source its dataset builds from in the suite (the fixture folder
    `tests/fixtures/<dataset>/`, the example its benchmark ships, or its folder in the shared
    mirror) and its scoring case (`tests/scoring/<name>.json`)."""
    spec = registry.get(name)
    problems = []
    source = build_source(spec.dataset, mirror, fixtures)
    if source == mirror:
        folder = mirror / load_pins(spec.dataset).source.mirror_name
        if not folder.is_dir():
            problems.append(
                f"{name}: no source to build {spec.dataset} from in the suite: no "
                f"{fixtures / spec.dataset}/, no shipped example, no {folder}/"
            )
    if not (scoring / f"{name}.json").is_file():
        problems.append(
            f"{name}: no scoring case {scoring / (name + '.json')} (predictions, the metrics "
            "they must give, and why)"
        )
    return problems


def scoring_problems(name: str, datasets: Path, work: Path, scoring: Path = SCORING) -> list[str]:
    """The scoring case of `name`, evaluated (partial, B = 20) on the built dataset in
    `datasets`: every expected value (None: undefined) and n, and every metric the spec
    declares for the fields given present."""
    case: dict[str, Any] = json.loads((scoring / f"{name}.json").read_text(encoding="utf-8"))
    path = write_jsonl(work / f"{name}.jsonl", case["predictions"])
    result = evaluate_file(
        name, path, "scoring case", datasets_dir=datasets, allow_partial=True, n_boot=20
    )
    overall = {s.metric: s for s in result.scores if (s.scope, s.subset) == ("overall", "all")}
    problems = []
    for metric in registry.scorer(name).metric_names(result.fields):
        if metric not in overall:
            problems.append(f"{name}: the declared metric {metric} was not scored")
    for metric, want in case["expected"].items():
        got = overall[metric].value if metric in overall else "missing"
        same = (
            got is None
            if want is None
            else isinstance(got, float) and math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-12)
        )
        if not same:
            problems.append(f"{name}: {metric} is {got}, the case says {want}")
    for metric, want in case.get("n", {}).items():
        if metric not in overall or overall[metric].n != want:
            got = overall[metric].n if metric in overall else "missing"
            problems.append(f"{name}: n of {metric} is {got}, the case says {want}")
    return problems
