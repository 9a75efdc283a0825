"""A small leaderboard site for the quick modes (CI): StepMathBench built from
`$MATHJUDGE_MIRROR`, two synthetic judges scored with B = 20, published and rendered."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyarrow.parquet as pq

from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.api import publish_site
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.scoring.evaluator import evaluate_file

BENCH = "stepmathbench"


def tiny_site(workdir: Path) -> Path:
    """The site's folder (rebuilt each call; the dataset is kept in `workdir`)."""
    mirror = Path(os.environ.get("MATHJUDGE_MIRROR", "../shared/data"))
    datasets, store = workdir / "datasets", workdir / "results.duckdb"
    if not (datasets / BENCH / "manifest.json").is_file():
        write_dataset(registry.builder(BENCH).build(mirror), datasets)
    items = pq.read_table(open_dataset(BENCH, datasets).parquet("solutions")).to_pylist()
    store.unlink(missing_ok=True)
    results = []
    for judge, shift in (("exact", 0), ("generous", 2)):
        path = workdir / f"{judge}.jsonl"
        rows = [{"item_id": r["item_id"], "score": min(10, r["gold_score"] + shift)} for r in items]
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        results.append(evaluate_file(BENCH, path, judge, datasets_dir=datasets, n_boot=20))
    results_store.save_many(store, results)
    return publish_site(store, workdir / "site").parent
