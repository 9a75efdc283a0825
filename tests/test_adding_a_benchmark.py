"""docs/adding-a-benchmark.md, followed to the letter: a toy benchmark written as the guide
says, in a folder of its own outside the package (the registry is pointed at it), with its
source fixture and scoring case beside it. Nothing in `mathjudge/` is edited, yet the registry
finds it, the suite's checks of every benchmark pass on it, `build`, `validate` and `evaluate`
know it, the site shows it with the model its own `aliases.yaml` names, and the generated
reference lists it. A scorer that breaks its contract is refused, naming the benchmark."""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmark_checks import missing, scoring_problems
from click.testing import CliRunner

import mathjudge.benchmarks
import mathjudge.cli
from conftest import REPO, build_source
from mathjudge import registry
from mathjudge.api import publish_site
from mathjudge.base.errors import MathJudgeError
from mathjudge.cli import main, reference
from mathjudge.dataio import pins
from mathjudge.dataio.cardcheck import check_card
from mathjudge.dataio.cards import citation
from mathjudge.dataio.writer import write_dataset
from mathjudge.document import aliases

NAME = "toybench"
# The upstream file: four answers to two problems, each judged right or wrong by a person.
UPSTREAM = [
    {"id": "t1", "problem": "p1", "question": "1 + 1?", "answer": "2", "right": True},
    {"id": "t2", "problem": "p1", "question": "1 + 1?", "answer": "3", "right": False},
    {"id": "t3", "problem": "p2", "question": "2 * 3?", "answer": "6", "right": True},
    {"id": "t4", "problem": "p2", "question": "2 * 3?", "answer": "5", "right": True},
]

INIT = '''"""Toy: is an answer right? (A benchmark written by following docs/adding-a-benchmark.md.)"""

from mathjudge.spec.benchmark import BenchmarkSpec, Paper
from mathjudge.spec.presentation import MetricGroup, MetricSpec

SPEC = BenchmarkSpec(
    name="toybench",
    title="Toy",
    summary="Whether a short answer is right.",
    paper=Paper("A toy benchmark", "2501.00001"),
    dataset="toybench",
    items_config="answers",
    seed=3,
    headline="accuracy",
    groups=(
        MetricGroup(
            "Verdicts",
            (
                MetricSpec("accuracy", "Accuracy", "Share of answers judged as labelled.",
                           direction="higher"),
                MetricSpec("accuracy_on_right", "On right answers",
                           "Share of the right answers judged right.", direction="higher",
                           n_from="correct"),
            ),
        ),
    ),
)
'''

BUILD = '''"""Toy's builder: the pinned upstream file -> one config of answers."""

from pathlib import Path

import datasets
from datasets import Value

from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.jsonfiles import read_jsonl
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import Source, resolve
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "toybench"
PINS = load_pins(NAME)
VERSION = PINS.version
SOURCE = PINS.source
FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_id": Value("string"),
        "question": Value("string"),
        "answer": Value("string"),
        "correct": Value("bool"),
        "correct_name": Value("string"),
    }
)


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    files = resolve(source, source_dir)
    rows = [
        {
            "item_id": r["id"],
            "problem_id": r["problem"],
            "question": r["question"],
            "answer": r["answer"],
            "correct": r["right"],
            "correct_name": "right" if r["right"] else "wrong",
        }
        for r in read_jsonl(files["toy.jsonl"].path)
    ]
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table("answers", "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="Toy",
            license="mit",
            language=("en",),
            task_categories=("text-classification",),
            size_category="n<1K",
            source_datasets=("original",),
        ),
        card_body=render_card_body(NAME, version=VERSION, n_rows=len(rows)),
        sources=((source, files),),
    )
'''

METRICS = '''"""Toy's scorer: accuracy of verdicts against the label."""

from typing import ClassVar

import numpy as np
import pyarrow as pa
from pydantic import Field

from mathjudge.benchmarks.stats import ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import Scorer, grouped_sums_sql


class Prediction(PredictionRow):
    verdict: bool = Field(description="true = the answer is right")

    arrow_types: ClassVar[dict[str, pa.DataType]] = {"verdict": pa.bool_()}


def stats_sql(fields: tuple[str, ...]) -> str:
    return grouped_sums_sql(
        {
            "answers": "count(*)",
            "agree": "count_if(verdict = correct)",
            "correct": "count_if(correct)",
            "correct_agree": "count_if(correct AND verdict)",
        }
    )


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    return {
        "accuracy": ratio(sums["agree"], sums["answers"]),
        "accuracy_on_right": ratio(sums["correct_agree"], sums["correct"]),
    }


SCORER = Scorer(
    prediction=Prediction,
    cluster="problem_id",
    item_columns=("problem_id", "correct"),
    scored_fields=("verdict",),
    stats_sql=stats_sql,
    finalize=finalize,
)
'''

CARD = """# Toy (dataset version {{ version }})

Whether a short answer to an arithmetic question is right: {{ n_rows }} answers, each labelled by a
person. It accompanies *A toy benchmark* ([arXiv:2501.00001](https://arxiv.org/abs/2501.00001)).

## Bias, Risks and Limitations

Four answers to two questions: a test fixture, not a measurement.
"""

CITATION = """@misc{toy2025,
  title         = {A toy benchmark},
  author        = {Nobody, A.},
  year          = {2025},
  eprint        = {2501.00001},
  archivePrefix = {arXiv}
}"""

# Its judges tied to models (mathjudge/document/models.yaml), in its own folder.
ALIASES = """judges:
  - {model: gpt-4o, source: reproduced, judge: toy judge, variant: "toy prompt"}
"""

SCORING = {
    "why": "Verdicts right, right, wrong, right on answers labelled right, wrong, right, right: "
    "t1 and t3 agree, t2 (wrong, judged right) and t4 (right, judged wrong) do not, so 2 of 4 "
    "agree; of the 3 right answers, t1 and t3 are judged right: 2/3, over 3 items.",
    "predictions": [
        {"item_id": "t1", "verdict": True},
        {"item_id": "t2", "verdict": True},
        {"item_id": "t3", "verdict": True},
        {"item_id": "t4", "verdict": False},
    ],
    "expected": {"accuracy": 0.5, "accuracy_on_right": 2 / 3},
    "n": {"accuracy": 4, "accuracy_on_right": 3},
}


def write_folder(root: Path, name: str, metrics: str, source_sha256: str) -> Path:
    """The benchmark folder the guide's steps 1-4 describe."""
    folder = root / name
    folder.mkdir(parents=True)
    source_yaml = (
        'version: "1.0.0"\nsource:\n  kind: github\n  repo: example/toy\n'
        f"  revision: {'a' * 40}\n  mirror: {name}\n  files:\n    - path: toy.jsonl\n"
        f"      upstream: data/toy.jsonl\n      sha256: {source_sha256}\n"
    )
    files = {
        "__init__.py": INIT.replace("toybench", name),
        "build.py": BUILD.replace("toybench", name),
        "metrics.py": metrics,
        "card.md": CARD,
        "citation.bib": CITATION,
        "source.yaml": source_yaml,
        "aliases.yaml": ALIASES,
    }
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def benchmarks_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder the registry also looks in, as if it were `mathjudge/benchmarks/`."""
    root = tmp_path / "benchmarks"
    root.mkdir()
    monkeypatch.setattr(
        mathjudge.benchmarks, "__path__", [*mathjudge.benchmarks.__path__, str(root)]
    )
    caches = (registry.names, registry.get, registry.scorer, pins.load_pins, aliases.table)
    for cache in caches:
        cache.cache_clear()
    # The commands list the benchmarks when their module is first imported (a test before this
    # one may have done it): imported again here; afterwards the originals are put back and
    # the ones first imported here dropped, so no later test sees the toy among the choices.
    for module in [m for m in sys.modules if m.startswith("mathjudge.cli.")]:
        monkeypatch.delitem(sys.modules, module)
        monkeypatch.delattr(mathjudge.cli, module.rsplit(".", 1)[1], raising=False)
    yield root
    for cache in caches:
        cache.cache_clear()
    for module in [
        m for m in sys.modules if m.startswith(("mathjudge.benchmarks.toy", "mathjudge.cli."))
    ]:
        del sys.modules[module]  # the toy's, and command modules first imported by the test


def test_a_toy_benchmark_written_by_the_guide_works_end_to_end(
    benchmarks_dir: Path, tmp_path: Path, mirror: Path
) -> None:
    upstream = "".join(json.dumps(r) + "\n" for r in UPSTREAM).encode()
    fixtures, scoring = tmp_path / "fixtures", tmp_path / "scoring"
    (fixtures / NAME).mkdir(parents=True)
    (fixtures / NAME / "toy.jsonl").write_bytes(upstream)  # its source in the suite
    scoring.mkdir()
    (scoring / f"{NAME}.json").write_text(json.dumps(SCORING), encoding="utf-8")
    write_folder(benchmarks_dir, NAME, METRICS, hashlib.sha256(upstream).hexdigest())

    assert NAME in registry.names() and NAME in registry.dataset_names()
    assert missing(NAME, mirror, fixtures, scoring) == []
    source = build_source(NAME, mirror, fixtures)
    assert source == fixtures / NAME
    datasets = tmp_path / "datasets"
    built = write_dataset(registry.builder(NAME).build(source), datasets)
    manifest = json.loads((built / "manifest.json").read_text())
    card = (built / "README.md").read_text(encoding="utf-8")
    assert check_card(card, manifest, citation(NAME)) == []
    assert scoring_problems(NAME, datasets, tmp_path, scoring) == []

    predictions = tmp_path / "p.jsonl"
    predictions.write_text("".join(json.dumps(r) + "\n" for r in SCORING["predictions"]))
    common = ["--datasets", str(datasets)]
    checked = CliRunner().invoke(main, ["validate", NAME, str(predictions), *common])
    assert checked.exit_code == 0, checked.output
    assert "valid — 4 rows, 4/4 items" in checked.output
    scored = CliRunner().invoke(
        main,
        ["evaluate", NAME, str(predictions), "--judge", "toy judge", "--bootstrap", "20",
         "--quiet", "--store", str(tmp_path / "r.duckdb"), *common],
    )  # fmt: skip
    assert scored.exit_code == 0, scored.output
    row = next(line for line in scored.output.splitlines() if "accuracy_on_right" in line)
    assert "0.6667" in row and row.rstrip(" │").endswith("3")  # n: its 3 right answers
    # The site shows it, with the model its aliases.yaml names; the generated reference (the
    # one command, `python -m mathjudge.cli.reference docs`) lists it.
    publish_site(tmp_path / "r.duckdb", tmp_path / "site")
    board = json.loads((tmp_path / "site" / "data" / "leaderboard.json").read_text())
    (toy,) = [b for b in board["benchmarks"] if b["name"] == NAME]
    (judge,) = toy["submissions"]
    assert (judge["judge"], judge["model"]["id"], judge["model"]["variant"]) == (
        "toy judge",
        "gpt-4o",
        "toy prompt",
    )
    assert "toy judge" in (tmp_path / "site" / f"{NAME}.html").read_text(encoding="utf-8")
    assert f"`{NAME}`" in reference.render_benchmarks()
    assert f"`{NAME}`" in reference.render_readme_table()
    # Nothing in the package was touched to get here.
    assert not (REPO / "mathjudge" / "benchmarks" / NAME).exists()


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ('"accuracy": ratio', '"acuracy": ratio', "finalize gives no accuracy"),
        ('"accuracy_on_right"', '"extra": sums["correct"], "accuracy_on_right"',
         "finalize gives extra, not in the spec"),
    ],
)  # fmt: skip
def test_a_scorer_that_breaks_its_contract_is_refused_by_name(
    benchmarks_dir: Path, old: str, new: str, problem: str
) -> None:
    name = "toybench_bad"
    assert old in METRICS
    write_folder(benchmarks_dir, name, METRICS.replace(old, new, 1), "0" * 64)
    with pytest.raises(MathJudgeError) as info:
        registry.scorer(name)
    message = str(info.value)
    assert message.startswith(f"mathjudge/benchmarks/{name}/metrics.py: the scorer breaks")
    assert problem in message


def test_a_scorer_that_repeats_the_spec_metrics_is_refused(benchmarks_dir: Path) -> None:
    name = "toybench_again"
    metrics = METRICS.replace(
        "    finalize=finalize,\n)",
        "    finalize=finalize,\n    metrics=SPEC.metrics,\n)",
    ).replace(
        "from mathjudge.spec.scorer",
        f"from mathjudge.benchmarks.{name} import SPEC\nfrom mathjudge.spec.scorer",
    )
    write_folder(benchmarks_dir, name, metrics, "0" * 64)
    with pytest.raises(MathJudgeError, match=rf"{name}/metrics.py: the SCORER names metrics"):
        registry.scorer(name)
