"""Scale benchmark of the leaderboard site: N judges on every benchmark built from the mirror.

Setup (not timed, cached in the workdir): builds StepMathBench, the Open Proof Corpus and
ArxivMathGradingBench from `MATHJUDGE_MIRROR`, scores `--judges` synthetic judges of varying
quality on each (B = `--bootstrap`), and imports the papers' reported tables. Measured:
`publish_and_render` (the leaderboard document with rank intervals, then the export incl. item
explorer data, plots, every page; no datasets needed), the overview page's size (plots are separate files, so excluded by construction)
and the size of the whole site.

Baseline: the straightforward way to get tie groups with the existing machinery is one
`mathjudge compare` (paired bootstrap) per pair of judges, N(N-1)/2 of them per benchmark. It
is timed on `--baseline-pairs` random pairs and extrapolated to all pairs (labelled so), next
to the site's one shared bootstrap per benchmark, timed directly.

    MATHJUDGE_MIRROR=../shared/data python bench/site_scale.py [--judges 100]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.benchmarks.arxivmathgradingbench import build as arxivmathgradingbench
from mathjudge.benchmarks.opc import build as opc
from mathjudge.benchmarks.stepmathbench import build as stepmathbench
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.publish.ranks import rank_benchmark
from mathjudge.publish.reported import import_reported
from mathjudge.scoring.compare import compare
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.site import publish_and_render
from mathjudge.store import read

BUILDERS = {
    "stepmathbench": (stepmathbench, "solutions"),
    "opc": (opc, "judgments"),
    "arxivmathgradingbench": (arxivmathgradingbench, "papers"),
}
TARGET_SECONDS = 20.0
TARGET_OVERVIEW_KB = 300.0


def _predictions(benchmark: str, items: list[dict[str, Any]], quality: float, rng: random.Random):
    """Synthetic predictions: right with probability `quality`, otherwise off."""
    for item in items:
        right = rng.random() < quality
        if benchmark == "stepmathbench":
            noise = 0 if right else rng.choice((-3, -2, -1, 1, 2, 3))
            yield {
                "item_id": item["item_id"],
                "score": float(min(10, max(0, item["gold_score"] + noise))),
                "answer_correct": bool(item["gold_score_01"]) == right,
            }
        elif benchmark == "opc":
            verdict = None if rng.random() < 0.02 else item["label"] == right
            yield {"item_id": item["item_id"], "verdict": verdict}
        else:
            for run in (1, 2):
                gold = list(item["error_locations"])
                location = rng.choice(gold) if right and gold else f"Lemma {rng.randint(1, 40)}"
                yield {"item_id": item["item_id"], "run": run, "location": location}


def setup(workdir: Path, mirror: Path, n_judges: int, n_boot: int) -> tuple[Path, Path]:
    datasets, store = workdir / "datasets", workdir / "results.duckdb"
    marker = workdir / "params.json"
    params = {"judges": n_judges, "bootstrap": n_boot, "mirror": str(mirror)}
    if marker.is_file() and json.loads(marker.read_text()) == params and store.is_file():
        return datasets, store
    store.unlink(missing_ok=True)
    rng = random.Random(0)
    started = time.perf_counter()
    for name, (builder, config) in BUILDERS.items():
        write_dataset(builder.build(mirror), datasets)
        items = pq.read_table(open_dataset(name, datasets).parquet(config)).to_pylist()
        results = []
        for j in range(n_judges):
            path = workdir / "predictions" / name / f"judge-{j}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            rows = _predictions(name, items, 0.35 + 0.6 * j / max(1, n_judges - 1), rng)
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            results.append(
                evaluate_file(
                    name,
                    path,
                    f"judge {j:03d}",
                    datasets_dir=datasets,
                    n_boot=n_boot,
                    meta={"model": f"synthetic-{j}", "temperature": 0},
                )
            )
        results_store.save_many(store, results)
        print(f"  setup: {n_judges} judges scored on {name}", flush=True)
    import_reported(mirror / "reported", store)
    marker.write_text(json.dumps(params))
    print(f"  setup took {time.perf_counter() - started:.0f} s (cached for the next run)")
    return datasets, store


def time_ranks(store: Path) -> dict[str, float]:
    out = {}
    with read.reading(store) as con:
        subs = read.latest_submissions(con)
        for name in ("stepmathbench", "opc"):
            mine = [s for s in subs if s.benchmark == name]
            started = time.perf_counter()
            rank_benchmark(registry.get(name), mine, con)
            out[name] = time.perf_counter() - started
    return out


def time_pairwise(store: Path, datasets: Path, n_judges: int, pairs: int, n_boot: int):
    rng = random.Random(1)
    out = {}
    for name in ("stepmathbench", "opc"):
        started = time.perf_counter()
        for _ in range(pairs):
            a, b = rng.sample(range(n_judges), 2)
            compare(
                name, f"judge {a:03d}", f"judge {b:03d}", store=store, datasets_dir=datasets,
                n_boot=n_boot,
            )  # fmt: skip
        per_pair = (time.perf_counter() - started) / pairs
        out[name] = (per_pair, per_pair * n_judges * (n_judges - 1) / 2)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judges", type=int, default=100)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--baseline-pairs", type=int, default=10)
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "mathjudge-site-scale"
    )
    parser.add_argument(
        "--quick", action="store_true", help="CI: 3 judges, B = 20, one baseline pair"
    )
    args = parser.parse_args()
    if args.quick:
        args.judges, args.bootstrap, args.baseline_pairs = 3, 20, 1
    mirror = Path(os.environ.get("MATHJUDGE_MIRROR", "../shared/data"))
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    datasets, store = setup(args.workdir, mirror, args.judges, args.bootstrap)

    out = args.workdir / "site"
    started = time.perf_counter()
    index = publish_and_render(store, out)
    build_s = time.perf_counter() - started
    overview_kb = index.stat().st_size / 1024
    files = [p for p in out.rglob("*") if p.is_file()]
    site_mb = sum(p.stat().st_size for p in files) / 2**20
    pages = sum(p.suffix == ".html" for p in files)

    ours = time_ranks(store)
    theirs = time_pairwise(store, datasets, args.judges, args.baseline_pairs, args.bootstrap)

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    print(f"\nsite: {args.judges} judges x {len(BUILDERS)} built benchmarks + reported rows")
    print(f"  build_site (export, ranks, explorers, plots, {pages} pages): {build_s:.1f} s "
          f"(target <= {TARGET_SECONDS:.0f} s: {verdict(build_s <= TARGET_SECONDS)})")  # fmt: skip
    print(f"  overview index.html: {overview_kb:.0f} KB "
          f"(target <= {TARGET_OVERVIEW_KB:.0f} KB: {verdict(overview_kb <= TARGET_OVERVIEW_KB)})")  # fmt: skip
    print(f"  whole site: {site_mb:.1f} MB in {len(files)} files")
    print(f"\ntie groups and rank intervals, B = {args.bootstrap}:")
    for name, seconds in ours.items():
        per_pair, total = theirs[name]
        print(f"  {name}: one shared bootstrap {seconds:.2f} s; baseline pairwise compare "
              f"{per_pair:.2f} s/pair x {args.judges * (args.judges - 1) // 2} pairs = "
              f"{total:.0f} s (extrapolated from {args.baseline_pairs} pairs), "
              f"{total / seconds:.0f}x slower")  # fmt: skip


if __name__ == "__main__":
    main()
