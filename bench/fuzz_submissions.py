"""Thousands of mutated submissions through `mathjudge evaluate`; prints what happened.

    python bench/fuzz_submissions.py                      # 400 per (benchmark, format): 3,600
    python bench/fuzz_submissions.py --per 50 --seed 7    # a quicker, different sample

Every case is a small valid submission of StepMathBench, OPC or ArxivMathGradingBench (JSONL,
CSV or Parquet) damaged by one seeded mutation (see tests/fuzzing.py). The cases run in child
processes that evaluate them in-process one after another; a child killed by a signal is
counted and a new one goes on after the case that killed it. Printed: cases, exit codes,
tracebacks, signals, store changes and `--json` files left by rejected cases, fast-path and
row-validator disagreements, wall time. The same checks run in the test suite on a smaller
sample (tests/test_fuzz_submissions.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import fuzzing  # noqa: E402  (the mutations live with the tests)

from mathjudge.dataio.writer import write_dataset  # noqa: E402
from mathjudge.registry import builder  # noqa: E402


def datasets(workdir: Path) -> Path:
    out = workdir / "datasets"
    for name in fuzzing.BENCHMARKS:
        if not (out / name / "manifest.json").is_file():
            write_dataset(builder(name).build(None), out)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per", type=int, default=400, help="cases per (benchmark, format)")
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--jobs", type=int, default=2, help="child processes at a time")
    parser.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "mj-fuzz")
    parser.add_argument("--quick", action="store_true", help="CI: 2 cases per (benchmark, format)")
    args = parser.parse_args()
    if args.quick:
        args.per = 2
    print(f"load average {os.getloadavg()}, {os.cpu_count()} cpus")
    workdir = args.workdir
    (workdir / "cases").mkdir(parents=True, exist_ok=True)
    data = datasets(workdir)
    cases = [
        case
        for benchmark in fuzzing.BENCHMARKS
        for fmt in fuzzing.FORMATS
        for case in fuzzing.make_cases(data, workdir / "cases", benchmark, fmt, args.per, args.seed)
    ]
    start = time.perf_counter()
    outcome = fuzzing.run(cases, data, workdir, jobs=args.jobs)
    elapsed = time.perf_counter() - start
    results = outcome.results
    rejected = [r for r in results if r["code"] != 0]
    print(f"cases: {len(cases)} ({args.per} per benchmark and format), {elapsed:.0f} s")
    print(f"exit codes: {dict(sorted(Counter(r['code'] for r in results).items()))}")
    print(f"tracebacks: {sum(r['traceback'] for r in results)}")
    print(f"killed by a signal: {len(outcome.killed)}")
    for name, code, tail in outcome.killed:
        print(f"  {name}: return code {code} {tail[-200:]!r}")
    print(f"store changed by a rejected case: {sum(r['store_changed'] for r in rejected)}")
    print(f"--json written by a rejected case: {sum(r['json_written'] for r in rejected)}")
    print(f"fast path and row validator disagree: {sum(r['paths_disagree'] for r in results)}")
    by_kind = Counter((r["case"].split("/")[1], r["code"]) for r in results)
    for fmt in fuzzing.FORMATS:
        codes = {code: n for (f, code), n in sorted(by_kind.items()) if f == fmt}
        print(f"  {fmt}: {codes}")
    odd = [r for r in results if r["code"] not in (0, 1, 2) or r["traceback"]]
    for r in odd[:10]:
        print(f"  {r['case']}: {r['tail']!r}")
    harmed = sum(r["store_changed"] or r["json_written"] for r in rejected)
    disagree = sum(r["paths_disagree"] for r in results)
    return 1 if odd or outcome.killed or harmed or disagree else 0


if __name__ == "__main__":
    sys.exit(main())
