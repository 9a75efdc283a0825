"""Ranks only where comparable: which submissions publish ranks and which are shown unranked,
with the reason, on real datasets (StepMathBench, ExpertMath's shipped example)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import write_jsonl
from mathjudge import store
from mathjudge.benchmarks.expertmath import build as expertmath
from mathjudge.dataio.writer import write_dataset
from mathjudge.document.publish import assemble
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.spec.document import BenchmarkDocument


def _bench(db: Path, name: str) -> BenchmarkDocument:
    return next(b for b in assemble(db).benchmarks if b.name == name)


def _kinds(bench: BenchmarkDocument) -> dict[str, str]:
    judge = {s.id: s.judge for s in bench.submissions}
    return {judge[sid]: e.kind for sid, e in bench.ranks.excluded.items()}


def test_one_full_judge_beside_a_partial_one_is_not_ranked(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict[str, Any]]
) -> None:
    """The issue's 5%-coverage judge shown as "rank 1 · group 1": a partial judge is never
    ranked, and one full judge has nothing to be ranked against."""
    db = tmp_path / "r.duckdb"
    rows = [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in stepmath_rows]
    for judge, part, partial in (("full", rows, False), ("first 50", rows[:50], True)):
        path = write_jsonl(tmp_path / f"{len(part)}.jsonl", part)
        store.save(db, evaluate_file("stepmathbench", path, judge, datasets_dir=datasets_dir,
                                     n_boot=20, allow_partial=partial))  # fmt: skip
    bench = _bench(db, "stepmathbench")
    assert bench.ranks.status == "not ranked: fewer than two comparable judges"
    assert bench.ranks.judges == {}
    assert _kinds(bench) == {"full": "alone", "first 50": "partial"}
    (partial,) = [e for e in bench.ranks.excluded.values() if e.kind == "partial"]
    assert partial.text.startswith("partial: 5.0% of the items answered")


def test_results_on_the_shipped_example_are_labelled_and_never_ranked(tmp_path: Path) -> None:
    datasets = tmp_path / "datasets"
    path = write_dataset(expertmath.build(expertmath.EXAMPLE_PACKAGE), datasets)
    import datasets as hf

    ids = hf.load_dataset(str(path), "candidates", split="test")["item_id"]
    db = tmp_path / "r.duckdb"
    for judge, sign in (("longer is better", 1.0), ("shorter is better", -1.0)):
        preds = [{"item_id": i, "score": sign * n} for n, i in enumerate(ids)]
        file = write_jsonl(tmp_path / f"{judge}.jsonl", preds)
        store.save(db, evaluate_file("expertmath", file, judge, datasets_dir=datasets, n_boot=20))
    bench = _bench(db, "expertmath")
    assert bench.ranks.status == "not ranked: no judge scored on every item of the benchmark's data"
    assert _kinds(bench) == {"longer is better": "example", "shorter is better": "example"}
    assert all(s.example for s in bench.submissions)
