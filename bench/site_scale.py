"""Scale benchmark of the leaderboard site: N synthetic judges on each of ten benchmarks.

Setup (not timed, cached in the workdir): builds ten benchmarks (StepMathBench, the Open Proof
Corpus, ArxivMathGradingBench, MR-MATH and both JudgeBench sets from `MATHJUDGE_MIRROR`;
ProofBench, its best-of-n set, μ-MATH and Hard2Verify from the test fixtures, since no copy of
them is reachable here), scores `--judges` synthetic judges of varying quality on each
(B = `--bootstrap`), and imports the papers' reported tables: with 100 judges, 1,000
submissions plus the reported rows.

Measured:
- `mathjudge site build` as a reader runs it (a new process: start-up, publishing the
  document with rank intervals, the data files, every page and plot), wall time against the
  target and its CPU time (on a busy machine the wall time is mostly waiting for a core), then
  in this process the time of each phase (publish, export, render), which says where a second
  process could help;
- the site: MB, files, files outside data/ and assets/ (pages), the overview's size;
- beside it the straightforward way to get tie groups with the existing machinery: one
  `mathjudge compare` (paired bootstrap) per pair of judges, N(N-1)/2 per benchmark, timed on
  `--baseline-pairs` random pairs and extrapolated (labelled so), against the site's one
  shared bootstrap per benchmark, timed directly.

    MATHJUDGE_MIRROR=../shared/data python bench/site_scale.py            # 100 judges x 10
    python bench/site_scale.py --quick                                     # seconds, for CI
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.document.publish import publish
from mathjudge.document.ranks import rank_benchmark
from mathjudge.document.reported import import_reported
from mathjudge.scoring.compare import compare
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.site.export import export_data
from mathjudge.site.render import render_site
from mathjudge.store import read

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
# Where each dataset is built from: the mirror, else the test fixtures (no copy reachable here).
FROM_FIXTURES = {
    "proofbench": FIXTURES,
    "mumath": FIXTURES,
    "hard2verify": FIXTURES / "hard2verify",
}
BENCHMARKS = (
    "stepmathbench", "opc", "arxivmathgradingbench", "mrmath", "judgebench", "judgebench_claude",
    "proofbench", "proofbench_bon", "mumath", "hard2verify",
)  # fmt: skip
QUICK = ("judgebench", "opc")
TARGET_SECONDS = 60.0
TARGET_MB = 150.0
TARGET_OVERVIEW_KB = 300.0
FLIP = {"A>B": "B>A", "B>A": "A>B"}


def _verdict(items: Iterator[dict[str, Any]], quality: float, rng: random.Random, gold: str):
    for item in items:
        right = rng.random() < quality
        verdict = None if rng.random() < 0.02 else bool(item[gold]) == right
        yield {"item_id": item["item_id"], "verdict": verdict}


def _predictions(
    benchmark: str, items: list[dict[str, Any]], quality: float, rng: random.Random
) -> Iterator[dict[str, Any]]:
    """Synthetic predictions of one judge: right with probability `quality`, otherwise off."""
    if benchmark in ("opc", "mumath"):
        yield from _verdict(iter(items), quality, rng, "label")
        return
    for item in items:
        right = rng.random() < quality
        row: dict[str, Any] = {"item_id": item["item_id"]}
        if benchmark == "stepmathbench":
            noise = 0 if right else rng.choice((-3, -2, -1, 1, 2, 3))
            row["score"] = float(min(10, max(0, item["gold_score"] + noise)))
            row["answer_correct"] = bool(item["gold_score_01"]) == right
        elif benchmark == "arxivmathgradingbench":
            for run in (1, 2):
                gold = list(item["error_locations"])
                location = rng.choice(gold) if right and gold else f"Lemma {rng.randint(1, 40)}"
                yield {"item_id": item["item_id"], "run": run, "location": location}
            continue
        elif benchmark in ("judgebench", "judgebench_claude"):
            pick = item["label"] if right else FLIP[item["label"]]
            row["decisions"] = [pick, pick if rng.random() < 0.9 else None]
        elif benchmark == "mrmath":
            row["solution_pred"] = bool(item["solution_label"]) == right
        elif benchmark in ("proofbench", "proofbench_bon"):
            noise = 0 if right else rng.choice((-3, -2, -1, 1, 2, 3))
            row["score"] = float(min(7, max(0, item["expert_score"] + noise)))
        elif benchmark == "hard2verify":
            row["step_labels"] = [
                int(label) if rng.random() < quality else 1 - int(label)
                for label in item["human_labels"]
            ]
        else:
            raise SystemExit(f"no synthetic judge for {benchmark}")
        yield row


def setup(
    workdir: Path, mirror: Path, benchmarks: tuple[str, ...], n_judges: int, n_boot: int
) -> tuple[Path, Path]:
    datasets, store = workdir / "datasets", workdir / "results.duckdb"
    marker = workdir / "params.json"
    params = {
        "judges": n_judges, "bootstrap": n_boot, "mirror": str(mirror),
        "benchmarks": list(benchmarks),
    }  # fmt: skip
    if marker.is_file() and json.loads(marker.read_text()) == params and store.is_file():
        return datasets, store
    store.unlink(missing_ok=True)
    rng = random.Random(0)
    started = time.perf_counter()
    for name in benchmarks:
        spec = registry.get(name)
        if not (datasets / spec.dataset / "manifest.json").is_file():
            source = FROM_FIXTURES.get(spec.dataset, mirror)
            write_dataset(registry.builder(spec.dataset).build(source), datasets)
        table = open_dataset(spec.dataset, datasets).parquet(spec.items_config)
        items = pq.read_table(table).to_pylist()
        results = []
        for j in range(n_judges):
            path = workdir / "predictions" / name / f"judge-{j}.jsonl"
            path.parent.mkdir(parents=True, exist_ok=True)
            quality = 0.35 + 0.6 * j / max(1, n_judges - 1)
            rows = _predictions(name, items, quality, rng)
            path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
            kind = ("llm_judge", "reward_model", "rule")[j % 3]
            meta = {"model": f"synthetic-{j}", "temperature": 0, "kind": kind}
            results.append(
                evaluate_file(
                    name, path, f"judge {j:03d}", datasets_dir=datasets, n_boot=n_boot, meta=meta
                )
            )
        results_store.save_many(store, results)
        print(f"  setup: {n_judges} judges scored on {name} ({len(items)} items)", flush=True)
    import_reported(mirror / "reported", store)
    marker.write_text(json.dumps(params))
    print(f"  setup took {time.perf_counter() - started:.0f} s (cached for the next run)")
    return datasets, store


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def time_ranks(store: Path, names: list[str]) -> dict[str, float]:
    out = {}
    with read.reading(store) as con:
        subs = read.latest_submissions(con)
        for name in names:
            mine = [s for s in subs if s.benchmark == name]
            out[name] = timed(
                lambda mine=mine, name=name: rank_benchmark(registry.get(name), mine, con)
            )
    return out


def time_pairwise(
    store: Path, datasets: Path, names: list[str], n_judges: int, pairs: int, n_boot: int
) -> dict[str, tuple[float, float]]:
    rng = random.Random(1)
    out = {}
    for name in names:
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


def weigh(site: Path) -> dict[str, float]:
    files = [p for p in site.rglob("*") if p.is_file()]
    pages = [p for p in files if p.relative_to(site).parts[0] not in ("data", "assets")]
    return {
        "mb": sum(p.stat().st_size for p in files) / 2**20,
        "files": len(files),
        "pages": len(pages),
        "html": sum(p.suffix == ".html" for p in files),
        "data_mb": sum(p.stat().st_size for p in files if p.relative_to(site).parts[0] == "data")
        / 2**20,
        "largest_kb": max((p.stat().st_size for p in pages), default=0) / 1024,
        "overview_kb": (site / "index.html").stat().st_size / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judges", type=int, default=100)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--benchmarks", nargs="+", default=list(BENCHMARKS), choices=BENCHMARKS)
    parser.add_argument("--baseline-pairs", type=int, default=10)
    parser.add_argument(
        "--quick", action="store_true",
        help="seconds-long: 3 judges on 2 benchmarks, B = 20, 1 baseline pair",
    )  # fmt: skip
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "mathjudge-site-scale"
    )
    args = parser.parse_args()
    if args.quick:
        args.judges, args.bootstrap, args.benchmarks, args.baseline_pairs = 3, 20, QUICK, 1
        args.workdir = args.workdir.with_name(args.workdir.name + "-quick")
    mirror = Path(os.environ.get("MATHJUDGE_MIRROR", "../shared/data"))
    benchmarks = tuple(args.benchmarks)
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    datasets, store = setup(args.workdir, mirror, benchmarks, args.judges, args.bootstrap)

    # `site build` as a reader runs it: a new process, imports included.
    out = args.workdir / "site"
    command = [sys.executable, "-m", "mathjudge", "site", "build", "--store", str(store),
               "--out", str(out)]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    build_s = timed(lambda: subprocess.run(command, check=True, capture_output=True))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    site = weigh(out)
    # Where the time goes, phase by phase, in this process (imports already done).
    phases = args.workdir / "phases"
    publish_s = timed(lambda: publish(store))
    phases.mkdir(exist_ok=True)
    holder: dict[str, Any] = {}
    export_s = timed(lambda: holder.setdefault("doc", export_data(store, phases / "data")))
    render_s = timed(lambda: render_site(phases, holder["doc"]))

    ranked = [b for b in benchmarks if b in ("stepmathbench", "opc")] or list(benchmarks[:1])
    ours = time_ranks(store, ranked)
    theirs = time_pairwise(
        store, datasets, ranked, args.judges, args.baseline_pairs, args.bootstrap
    )

    def verdict(ok: bool) -> str:
        return "met" if ok else "NOT met"

    n = args.judges * len(benchmarks)
    print(f"\nsite: {args.judges} judges x {len(benchmarks)} benchmarks = {n} submissions "
          "+ the papers' reported rows")  # fmt: skip
    print(f"  mathjudge site build (new process): {build_s:.1f} s "
          f"(target <= {TARGET_SECONDS:.0f} s: {verdict(build_s <= TARGET_SECONDS)}); its CPU time "
          f"(user + system, all threads) {cpu_s:.1f} s")  # fmt: skip
    print(f"    phases in one process: publish (ranks) {publish_s:.1f} s, export (data files) "
          f"{export_s:.1f} s, render (pages, plots) {render_s:.1f} s")  # fmt: skip
    print(f"  whole site: {site['mb']:.1f} MB (target <= {TARGET_MB:.0f} MB: "
          f"{verdict(site['mb'] <= TARGET_MB)}) in {site['files']:.0f} files; data/ "
          f"{site['data_mb']:.1f} MB")  # fmt: skip
    print(f"  outside data/ and assets/: {site['pages']:.0f} files ({site['html']:.0f} HTML "
          f"pages in all), the largest {site['largest_kb']:.0f} KB")  # fmt: skip
    print(f"  overview index.html: {site['overview_kb']:.0f} KB "
          f"(target <= {TARGET_OVERVIEW_KB:.0f} KB: "
          f"{verdict(site['overview_kb'] <= TARGET_OVERVIEW_KB)})")  # fmt: skip
    print(f"\ntie groups and rank intervals, B = {args.bootstrap}:")
    for name, seconds in ours.items():
        per_pair, total = theirs[name]
        print(f"  {name}: one shared bootstrap {seconds:.2f} s; baseline pairwise compare "
              f"{per_pair:.2f} s/pair x {args.judges * (args.judges - 1) // 2} pairs = "
              f"{total:.0f} s (extrapolated from {args.baseline_pairs} pairs), "
              f"{total / max(seconds, 1e-9):.0f}x slower")  # fmt: skip


if __name__ == "__main__":
    main()
