"""The shared contracts of the published document that say where a number comes from: the
judge kind and `converted_from` of a submission's meta, `Submission.kind` and `.provenance`,
`ModelRef.pipeline`, and a benchmark's notes (its spec's plus its dataset's limitations)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import ValidationError

from conftest import write_jsonl
from mathjudge import registry
from mathjudge.benchmarks.stepmathbench import build as stepmathbench
from mathjudge.dataio.writer import write_dataset
from mathjudge.document.publish import assemble
from mathjudge.document.reported import import_reported
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.spec.folder import SubmissionMeta
from mathjudge.store import save

LIMITATION = "texts: on the Hub; this build carries ids, labels and the problem"


def _meta(**extra: object) -> dict:
    return SubmissionMeta(
        judge="j",
        model="none",
        organization="o",
        link="https://example.org",
        date=dt.date(2025, 1, 2),
        config={"t": 0},
        open_weights=None,
        license="CC0-1.0",
        contact="c",
        **extra,  # type: ignore[arg-type]
    ).stored()


def test_meta_kind_is_one_of_five_and_converted_from_is_kept() -> None:
    meta = _meta(kind="process_reward_model", converted_from="https://github.com/a/b/tree/c: x")
    assert meta["kind"] == "process_reward_model"
    assert meta["converted_from"] == "https://github.com/a/b/tree/c: x"
    assert "kind" not in _meta()  # optional: left out when absent
    with pytest.raises(ValidationError, match="kind"):
        _meta(kind="robot")


@pytest.fixture(scope="module")
def document(mirror: Path, stepmath_rows: list[dict], tmp_path_factory: pytest.TempPathFactory):
    """StepMathBench built with a declared limitation, three judges of three provenances and
    the papers' tables, published."""
    root = tmp_path_factory.mktemp("provenance")
    built = replace(stepmathbench.build(mirror), limitations=(LIMITATION,))
    write_dataset(built, root / "datasets")
    preds = write_jsonl(
        root / "p.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )
    store = root / "results.duckdb"
    metas = {
        "Mine": _meta(kind="llm_judge"),
        "Converted": _meta(kind="reward_model", converted_from="https://github.com/a/b/tree/c: f"),
        "Unsaid": {},
    }
    for judge, meta in metas.items():
        result = evaluate_file(
            "stepmathbench", preds, judge, datasets_dir=root / "datasets", n_boot=20, meta=meta
        )
        save(store, result)
    import_reported(mirror / "reported", store)
    return assemble(store)


def test_kind_and_provenance_reach_the_document(document) -> None:
    bench = next(b for b in document.benchmarks if b.name == "stepmathbench")
    by_judge = {(s.source, s.judge): s for s in bench.submissions}
    mine = by_judge[("reproduced", "Mine")]
    converted = by_judge[("reproduced", "Converted")]
    unsaid = by_judge[("reproduced", "Unsaid")]
    paper = by_judge[("reported", "GPT-4oV2")]
    assert (mine.kind, mine.provenance) == ("llm_judge", "submitted")
    assert (converted.kind, converted.provenance) == ("reward_model", "published_outputs")
    assert (unsaid.kind, unsaid.provenance) == (None, "submitted")
    assert (paper.kind, paper.provenance) == (None, "paper")


def test_a_pipeline_on_a_model_is_never_the_model_itself(document) -> None:
    bench = next(b for b in document.benchmarks if b.name == "stepmathbench")
    by_judge = {s.judge: s for s in bench.submissions if s.source == "reported"}
    agent = by_judge["StepMathAgentO"].model
    plain = by_judge["o1-miniV2"].model
    assert agent is not None and plain is not None
    assert (agent.id, agent.pipeline) == ("o1-mini", "StepMathAgent")
    assert (plain.id, plain.pipeline) == ("o1-mini", None)
    o1_mini = next(m for m in document.models if m.id == "o1-mini")
    pipelines = {r.judge: r.pipeline for r in o1_mini.results}
    assert pipelines["StepMathAgentO"] == "StepMathAgent"
    assert pipelines["o1-miniV2"] is None


def test_notes_join_the_spec_and_the_dataset_limitations(document) -> None:
    bench = next(b for b in document.benchmarks if b.name == "stepmathbench")
    assert bench.notes == [*registry.get("stepmathbench").notes, LIMITATION]
    dataset = next(d for d in document.datasets if d.name == "stepmathbench")
    assert dataset.manifest["limitations"] == [LIMITATION]
    # Reported results are scored on no build of ours: their benchmarks carry only spec notes.
    mumath = next(b for b in document.benchmarks if b.name == "mumath")
    assert mumath.notes == list(registry.get("mumath").notes)


def test_the_opc_split_is_said_in_its_spec() -> None:
    notes = " ".join(registry.get("opc").notes)
    assert "434-row test.parquet" in notes and "292-row" in notes
