"""Seeded mutations of valid submissions (JSONL, CSV, Parquet x StepMathBench, OPC,
ArxivMathGradingBench) through `mathjudge evaluate`, in child processes so that a crash is a
failure naming its case rather than a dead test run. Every case ends in exit 0, 1 or 2 with no
traceback; a rejected case leaves the store's bytes as they were and writes no `--json`; the
columnar fast path and the row validator agree on what they accept. `bench/fuzz_submissions.py`
runs the same on thousands of cases."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import fuzzing
import pytest

from conftest import write_jsonl
from mathjudge import store as results_store
from mathjudge.scoring.evaluator import evaluate_file

PER_BENCHMARK_AND_FORMAT = 70  # 630 cases, about a minute on two cores
SEED = 20261123


@pytest.fixture(scope="module")
def fuzz_datasets(datasets_dir: Path, mirror: Path, tmp_path_factory) -> Path:
    from mathjudge.benchmarks.arxivmathgradingbench import build as arxivmathgradingbench
    from mathjudge.benchmarks.opc import build as opc
    from mathjudge.dataio.writer import write_dataset

    out = tmp_path_factory.mktemp("fuzz-datasets")
    (out / "stepmathbench").symlink_to(datasets_dir / "stepmathbench")
    write_dataset(opc.build(mirror), out)
    write_dataset(arxivmathgradingbench.build(mirror), out)
    return out


def test_mutated_submissions_never_crash_or_touch_the_store(
    fuzz_datasets: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    cases_dir = tmp_path / "cases"
    cases_dir.mkdir()
    cases = [
        case
        for benchmark in fuzzing.BENCHMARKS
        for fmt in fuzzing.FORMATS
        for case in fuzzing.make_cases(
            fuzz_datasets, cases_dir, benchmark, fmt, PER_BENCHMARK_AND_FORMAT, SEED
        )
    ]
    seed_file = write_jsonl(
        tmp_path / "seed.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )

    def seed_store(path: Path) -> None:  # a store with a result in it before the first case
        result = evaluate_file("stepmathbench", seed_file, "seed", datasets_dir=fuzz_datasets,
                               n_boot=2)  # fmt: skip
        results_store.save(path, result)

    outcome = fuzzing.run(cases, fuzz_datasets, tmp_path / "run", jobs=2, resume=False,
                          seed_store=seed_store)  # fmt: skip

    assert outcome.killed == [], f"killed by a signal: {outcome.killed}"
    assert len(outcome.results) == len(cases)
    failures = [
        f"{r['case']}: {problem}"
        for r in outcome.results
        for problem, bad in (
            (f"exit code {r['code']}", r["code"] not in (0, 1, 2)),
            ("traceback", r["traceback"]),
            ("rejected, but the store changed", r["code"] != 0 and r["store_changed"]),
            ("rejected, but --json was written", r["code"] != 0 and r["json_written"]),
            ("accepted, but the store did not change", r["code"] == 0 and not r["store_changed"]),
            ("fast path and row validator disagree", r["paths_disagree"]),
        )
        if bad
    ]
    assert failures == [], "\n".join(failures[:20])
    # The sample exercises both outcomes in every format (the mutations are not all harmless).
    codes = Counter((r["case"].split("/")[1], r["code"]) for r in outcome.results)
    for fmt in fuzzing.FORMATS:
        assert codes[(fmt, 0)] >= 10 and codes[(fmt, 1)] >= 100, codes
