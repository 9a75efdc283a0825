"""`mathjudge validate` and `evaluate` on a StepMathBench submission of 10 million rows.

    python bench/large_submission.py                 # 10,000 runs x 1,000 items, valid + invalid
    python bench/large_submission.py --runs 1000     # 1 million rows, quicker
    python bench/large_submission.py --quick         # CI: 10,000 rows (seconds)

Writes (not timed) a valid JSONL submission of every StepMathBench item in RUNS runs (score and
answer_correct on every row, about 480 MB at 10,000 runs: under the 1 GiB limit) and one as long
whose every row has an out-of-range score. Each command then runs in a fresh process, and the
script prints its wall time and peak RSS beside two baselines measured in the same run on the
same file: hashing it (the least any reader pays) and Arrow's JSON reader alone (what the fast
path builds on). Needs the built StepMathBench (`--datasets`, default ./datasets).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITEMS = [f"stepmath-{i}" for i in range(1, 1001)]


def write(path: Path, runs: int, *, valid: bool) -> None:
    if path.is_file():
        return
    rng = random.Random(3)
    with path.open("w") as out:
        for run in range(runs):
            out.write(
                "".join(
                    f'{{"item_id":"{item}","run":{run},'
                    f'"score":{rng.randint(0, 10) if valid else 11},'
                    f'"answer_correct":{"true" if rng.random() < 0.5 else "false"}}}\n'
                    for item in ITEMS
                )
            )


def measure(label: str, argv: list[str]) -> int:
    """Run argv in a fresh process (under a fresh wrapper, so that the peak RSS is its own);
    print wall time, peak RSS and the first line it printed."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", WRAP, *argv], capture_output=True, text=True)
    wall = time.perf_counter() - start
    lines = (done.stdout + done.stderr).strip().splitlines()
    peak = next((int(x.split()[1]) for x in lines if x.startswith("PEAK_KB ")), 0)
    said = next((x for x in lines if not x.startswith("PEAK_KB ")), "")
    code = done.returncode
    print(f"{label:<34} {wall:7.1f} s   peak RSS {peak / 1024:6.0f} MB   exit {code}")
    print(f"{'':<34} {said[:100]}")
    return code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--datasets", type=Path, default=Path("datasets"))
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "mj-large")
    parser.add_argument(
        "--quick",
        action="store_true",
        help="CI: 10 runs, StepMathBench built from $MATHJUDGE_MIRROR into the workdir",
    )
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.quick:
        args.runs = 10
        args.datasets = args.workdir / "datasets"
        if not (args.datasets / "stepmathbench" / "manifest.json").is_file():
            from mathjudge import registry
            from mathjudge.dataio.writer import write_dataset

            write_dataset(registry.builder("stepmathbench").build(None), args.datasets)
    valid = args.workdir / f"valid-{args.runs}.jsonl"
    invalid = args.workdir / f"invalid-{args.runs}.jsonl"
    write(valid, args.runs, valid=True)
    write(invalid, args.runs, valid=False)
    rows = args.runs * len(ITEMS)
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cpus")
    print(f"{rows:,} rows; valid file {valid.stat().st_size / 1e6:.0f} MB, invalid file "
          f"{invalid.stat().st_size / 1e6:.0f} MB")  # fmt: skip
    py = sys.executable
    measure("baseline: sha256 of the file", [py, "-c", HASH, str(valid)])
    measure("baseline: Arrow JSON reader alone", [py, "-c", ARROW, str(valid)])
    store = args.workdir / "results.duckdb"
    store.unlink(missing_ok=True)
    common = ["--datasets", str(args.datasets)]
    mj = [py, "-m", "mathjudge"]
    codes = [
        measure("validate (invalid rows)", [*mj, "validate", "stepmathbench", str(invalid), *common]),
        measure("validate (valid)", [*mj, "validate", "stepmathbench", str(valid), *common]),
        measure(
            "evaluate (valid, B = 1000)",
            [*mj, "evaluate", "stepmathbench", str(valid), "--judge", "large", "--store",
             str(store), "--quiet", *common],
        ),
    ]  # fmt: skip
    if codes != [1, 0, 0]:
        print(f"FAILED: exit codes {codes}, expected [1, 0, 0]")
        return 1
    return 0


WRAP = """
import resource, subprocess, sys
code = subprocess.run(sys.argv[1:]).returncode
print("PEAK_KB", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(code)
"""
HASH = """
import hashlib, sys
digest = hashlib.sha256()
with open(sys.argv[1], "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
print(digest.hexdigest()[:16])
"""
ARROW = """
import sys
import pyarrow.json as pj
print(pj.open_json(sys.argv[1]).read_all().num_rows, "rows")
"""

if __name__ == "__main__":
    sys.exit(main())
