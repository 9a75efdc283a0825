"""Cold-start latency of the `mathjudge` command: wall and CPU time of fresh processes.

Setup (not timed, kept in `--workdir` and reused while its parameters match): StepMathBench
built from `MATHJUDGE_MIRROR`, a 1,000-row predictions file, two judges evaluated into a store
for `compare`, and the demo's results store (`mathjudge demo --quiet`, a few minutes the first
time).

Measured: every command runs as a new process of the installed `mathjudge` entry point, once
as a warm-up (its time discarded: it fills the OS file cache) and then `--runs` times; the
median wall time (`time.perf_counter`) and CPU time (user + system, from the change in
`resource.getrusage(RUSAGE_CHILDREN)`) are printed, with the floor measured the same way in
the same run: `python -c "import duckdb, pyarrow"`, what any command that touches data pays.
Before each `evaluate` the two-judge store is copied afresh (so every run saves into the same
store), and before each `site build` the site folder is removed (untimed).

Targets on a quiet 2-core machine: `--help` <= 0.4 s, `evaluate` of 1,000 rows with B = 1,000
into the store <= 3x the floor (wall), `site build` of the demo's store <= 5 s (wall). A
missed target prints MISSED; nothing fails.

`--quick` (CI: the script must keep running) times one run of each command and builds the site
from the two-judge store instead of the demo's (no `mathjudge demo` in the setup).

    MATHJUDGE_MIRROR=../shared/data python bench/cli_latency.py [--runs 5] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = "stepmathbench"


@dataclass(frozen=True)
class Case:
    name: str
    argv: list[str]
    target_s: float | None = None
    reset: Callable[[], object] | None = None  # run (untimed) before every run
    floor_times: float | None = None  # target: at most this many times the floor's wall


@dataclass(frozen=True)
class Timing:
    wall: list[float]
    cpu: list[float]


def entry_point() -> list[str]:
    """The console script installed beside this Python, else `python -m mathjudge`."""
    script = Path(sys.executable).parent / "mathjudge"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "mathjudge"]


def mirror_root() -> Path:
    root = Path(os.environ.get("MATHJUDGE_MIRROR") or REPO.parent / "shared" / "data")
    if not (root / BENCH / "stepmath.jsonl").is_file():
        sys.exit(f"shared data missing: set MATHJUDGE_MIRROR (looked in {root})")
    return root.resolve()


def run(argv: list[str], cwd: Path) -> None:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")


def setup(workdir: Path, mirror: Path, mathjudge: list[str], *, demo: bool) -> dict[str, Path]:
    """Build what the commands read; reused when `params.json` matches."""
    paths = {
        "datasets": workdir / "datasets",
        "predictions": workdir / "predictions.jsonl",
        "store": workdir / "two-judges.duckdb",
        "demo": workdir / "demo",
    }
    marker = workdir / "params.json"
    params = {"mirror": str(mirror), "version": 2, "demo": demo}
    if marker.is_file() and json.loads(marker.read_text()) == params:
        return paths
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    started = time.perf_counter()
    run([*mathjudge, "build", BENCH, "--source-dir", str(mirror), "--out", "datasets"], workdir)
    with (mirror / BENCH / "stepmath.jsonl").open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    with paths["predictions"].open("w", encoding="utf-8") as out:
        for r in rows:  # gold plus a bias, so the metrics are not degenerate
            score = min(10, r["gold_score"] + 1)
            out.write(json.dumps({"item_id": r["uid"], "score": score}) + "\n")
    for judge in ("A", "B"):
        run(
            [*mathjudge, "evaluate", BENCH, str(paths["predictions"]), "--judge", judge,
             "--store", str(paths["store"]), "--datasets", "datasets", "--quiet"],
            workdir,
        )  # fmt: skip
    if demo:
        run(
            [*mathjudge, "demo", "--workdir", "demo", "--source-dir", str(mirror), "--quiet"],
            workdir,
        )
    marker.write_text(json.dumps(params))
    print(f"setup: {time.perf_counter() - started:.0f} s in {workdir}")
    return paths


def cases(paths: dict[str, Path], workdir: Path, mathjudge: list[str], *, demo: bool) -> list[Case]:
    data = ["--datasets", str(paths["datasets"])]
    evaluated = workdir / "evaluate.duckdb"
    site = workdir / "site"
    shown = paths["demo"] / "results.duckdb" if demo else paths["store"]
    return [
        Case("floor: python -c 'import duckdb, pyarrow'",
             [sys.executable, "-c", "import duckdb, pyarrow"]),
        Case("mathjudge --help", [*mathjudge, "--help"], 0.4),
        Case("validate (1,000 rows)",
             [*mathjudge, "validate", BENCH, str(paths["predictions"]), *data]),
        Case(
            "evaluate --store (1,000 rows, B=1000)",
            [*mathjudge, "evaluate", BENCH, str(paths["predictions"]), "--judge", "C",
             "--store", str(evaluated), "--quiet", *data],
            None,
            partial(shutil.copyfile, paths["store"], evaluated),
            3.0,
        ),
        Case("compare A B (stored, B=1000)",
             [*mathjudge, "compare", BENCH, "A", "B", "--store", str(paths["store"]), "--quiet",
              *data]),
        Case(
            f"site build ({'demo' if demo else 'two-judge'} store)",
            [*mathjudge, "site", "build", "--store", str(shown), "--out", str(site)],
            5.0 if demo else None,
            partial(shutil.rmtree, site, ignore_errors=True),
        ),
    ]  # fmt: skip


def measure(case: Case, runs: int, cwd: Path) -> Timing:
    wall, cpu = [], []
    for i in range(runs + 1):
        if case.reset is not None:
            case.reset()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(case.argv, cwd=cwd, capture_output=True, check=False)
        elapsed = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            sys.exit(f"{case.name}: exit {done.returncode}\n{done.stderr.decode()}")
        if i == 0:
            continue  # warm-up
        wall.append(elapsed)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return Timing(wall, cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs per command")
    parser.add_argument(
        "--workdir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "mathjudge-cli-latency",
        help="where the setup is kept and reused",
    )
    parser.add_argument("--quick", action="store_true", help="one run, no demo store (CI)")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    mathjudge = entry_point()
    workdir = args.workdir.resolve()
    paths = setup(workdir, mirror_root(), mathjudge, demo=not args.quick)

    print(f"entry point: {' '.join(mathjudge)}; {os.cpu_count()} cores")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"median of {runs} cold processes after one warm-up\n")
    header = f"{'command':<40} {'wall s':>7} {'cpu s':>7} {'wall range':>13}  target"
    print(header)
    print("-" * len(header))
    floor = None
    for case in cases(paths, workdir, mathjudge, demo=not args.quick):
        t = measure(case, runs, workdir)
        wall, cpu = statistics.median(t.wall), statistics.median(t.cpu)
        floor = wall if floor is None else floor  # the first case is the floor
        spread = f"{min(t.wall):.2f}-{max(t.wall):.2f}"
        if case.floor_times is not None:
            times = wall / floor
            verdict = f"{times:.1f}x floor, <= {case.floor_times:g}x " + (
                "ok" if times <= case.floor_times else "MISSED"
            )
        elif case.target_s is None:
            verdict = ""
        else:
            verdict = f"<= {case.target_s:g} s " + ("ok" if wall <= case.target_s else "MISSED")
        print(f"{case.name:<40} {wall:>7.2f} {cpu:>7.2f} {spread:>13}  {verdict}")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
