"""Reproduced versus published, end to end: the judges imported from published raw outputs are
scored, the papers' tables imported, and the published document pairs each paper row with our
reproduction and its verdict. JudgeBench's o1-mini and five reward models must match every
printed cell; of the 17 RewardMATH accuracies a later paper quotes, 15 match and the two that
cannot (a value no k/483 gives; a value rounded twice) are within our intervals."""

from __future__ import annotations

from pathlib import Path

import pytest

from mathjudge import registry
from mathjudge.benchmarks.published import write_all
from mathjudge.dataio.writer import write_dataset
from mathjudge.document.publish import assemble
from mathjudge.document.reported import import_reported
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.store import save


@pytest.fixture(scope="module")
def document(mirror: Path, tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("reproductions")
    store = root / "results.duckdb"
    for name in ("judgebench", "rewardmath"):
        spec = registry.get(name)
        write_dataset(registry.builder(name).build(mirror), root / "datasets")
        assert spec.outputs is not None
        converted = registry.resolve(name, spec.outputs)(name, mirror)
        for c, done in zip(converted, write_all(converted, root / name), strict=True):
            result = evaluate_file(
                name, done.predictions, c.judge, datasets_dir=root / "datasets", n_boot=200,
                meta={"kind": c.kind, "converted_from": c.converted_from},
            )  # fmt: skip
            save(store, result)
    import_reported(mirror / "reported", store)
    return assemble(store)


def _comparisons(document, benchmark: str) -> dict:
    bench = next(b for b in document.benchmarks if b.name == benchmark)
    judge = {s.id: s.judge for s in bench.submissions}
    return {(judge[c.reported], judge[c.reproduced]): c for c in bench.comparisons}


def test_judgebench_reproduces_every_printed_cell(document) -> None:
    pairs = _comparisons(document, "judgebench")
    assert set(pairs) == {
        ("Arena-Hard Judge (o1-mini)", "o1-mini (Arena-Hard judge)"),
        *(
            (n, n)
            for n in (
                "Skywork-Reward-Gemma-2-27B",
                "Skywork-Reward-Llama-3.1-8B",
                "InternLM2-20B-Reward",
                "InternLM2-7B-Reward",
                "GRM-Gemma-2B",
            )
        ),
    }
    for comparison in pairs.values():
        assert comparison.verdict == "exact"
        assert [r.verdict for r in comparison.rows] == ["exact"] * 5  # 4 categories + overall
    o1 = pairs[("Arena-Hard Judge (o1-mini)", "o1-mini (Arena-Hard judge)")]
    math = next(r for r in o1.rows if r.metric == "math_accuracy")
    assert (math.printed, round(math.value * 56)) == ("82.14", 46)  # 46 of the 56 math pairs


def test_rewardmath_quoted_accuracies(document) -> None:
    pairs = _comparisons(document, "rewardmath")
    assert len(pairs) == 13
    rows = {(r, c.metric): c for (r, _), p in pairs.items() for c in p.rows}
    assert len(rows) == 17
    assert sum(c.verdict == "exact" for c in rows.values()) == 15
    assert rows[("ReasonEval-34B", "accuracy_prod")].verdict == "within_ci"
    assert rows[("Math-Shepherd-Mistral-7B", "accuracy_geometric_mean")].verdict == "within_ci"
    assert pairs[("ReasonEval-34B", "ReasonEval-34B")].verdict == "within_ci"
    assert pairs[("ReasonEval-7B", "ReasonEval-7B")].verdict == "exact"


def test_imported_judges_say_where_they_come_from(document) -> None:
    bench = next(b for b in document.benchmarks if b.name == "rewardmath")
    kinds = {(s.source, s.judge): (s.provenance, s.kind) for s in bench.submissions}
    assert kinds[("reproduced", "ReasonEval-7B")] == ("published_outputs", "process_reward_model")
    assert kinds[("reported", "ReasonEval-7B")] == ("paper", "process_reward_model")
    assert kinds[("reproduced", "GPT-4o (1-10 rating)")] == ("published_outputs", "llm_judge")
    assert kinds[("reported", "Internlm2-7b-reward")] == ("paper", "reward_model")
    assert bench.notes[-1] == "texts: on the Hub; this build carries ids, labels and the problem"
    judgebench = next(b for b in document.benchmarks if b.name == "judgebench")
    arena = next(s for s in judgebench.submissions if s.judge == "Arena-Hard Judge (GPT-4o)")
    assert arena.model is not None
    assert (arena.model.id, arena.model.pipeline) == ("gpt-4o", "Arena-Hard judge prompt")
