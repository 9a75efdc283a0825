"""Files that crashed or fooled the evaluator, each now a clean exit with a located
message. The small ones are in tests/fixtures/hostile/; the big ones are generated here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from mathjudge.cli import main

HOSTILE = Path(__file__).parent / "fixtures" / "hostile"


def validate(datasets_dir: Path, path: Path, *extra: str, benchmark: str = "stepmathbench"):
    args = ["validate", benchmark, str(path), "--datasets", str(datasets_dir), *extra]
    return CliRunner().invoke(main, [*args, "--allow-partial"])


def cli_subprocess(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """A real process: a segfault shows as a negative return code, not a dead test runner."""
    return subprocess.run(
        [sys.executable, "-m", "mathjudge", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


# file -> the located message (file:line [field]: ...) it must produce
CRASHES = {
    "first_line_null.jsonl": ":1: each record must be an object",
    "nested_1000.jsonl": ":2: nested deeper than 64 levels",
    "run_2pow31.jsonl": ":2 [run]: Input should be less than or equal to 2147483647",
    "run_2pow63.jsonl": ":2 [run]: Input should be less than or equal to 2147483647 (got 9223372036854775808)",
    "key_not_utf8.jsonl": ":2: not UTF-8 text (byte 0xff at column 41)",
    "value_not_utf8.jsonl": ":2: not UTF-8 text (byte 0xe9 at column 51)",
    "header_not_utf8.csv": ":1: not UTF-8 text (byte 0xff at column 16)",
    "run_uint64.parquet": " row 2 [run]: Input should be less than or equal to 2147483647",
    "score_float16.parquet": " row 2 [score]: Input should be less than or equal to 10 (got 11.0)",
    "column_not_utf8.parquet": ": a column name is not UTF-8 text (invalid start byte)",
    "duplicate_key.jsonl": ":2 [score]: key given twice in one object",
    "score_all_nan.csv": ":2 [score]: Input should be a finite number (got 'NaN')",
    "score_all_na.csv": ":2 [score]: Input should be a valid number",
    "score_all_null.csv": ":2 [score]: Input should be a valid number",
}


@pytest.mark.parametrize("name", sorted(CRASHES))
def test_each_hostile_file_is_a_located_exit_1(datasets_dir: Path, name: str) -> None:
    path = HOSTILE / name
    result = validate(datasets_dir, path)
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert f"{path}{CRASHES[name]}" in result.output, result.output


@pytest.mark.slow
def test_the_segfaulting_files_exit_cleanly_in_a_real_process(datasets_dir: Path) -> None:
    """Arrow's JSON reader killed the process (exit 139) on these two."""
    for name in ("first_line_null.jsonl", "nested_1000.jsonl"):
        path = HOSTILE / name
        result = cli_subprocess(
            "validate", "stepmathbench", str(path), "--datasets", str(datasets_dir)
        )
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        assert f"{path}{CRASHES[name]}" in result.stderr


def test_nested_20000_deep_in_an_ignored_column(datasets_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    deep = b"[" * 20_000 + b"]" * 20_000
    path.write_bytes(b'{"item_id": "stepmath-1", "score": 5, "x": ' + deep + b"}\n")
    result = validate(datasets_dir, path)
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"{path}:1: nested deeper than 64 levels" in result.output


def test_a_float16_score_column_is_read_exactly(datasets_dir: Path, tmp_path: Path) -> None:
    table = pq.read_table(HOSTILE / "score_float16.parquet").slice(0, 1)
    pq.write_table(table, tmp_path / "half.parquet")
    result = validate(datasets_dir, tmp_path / "half.parquet")
    assert result.exit_code == 0, result.output
    assert "1 rows, 1/1000 items" in result.output


def test_one_odd_row_is_named_not_the_many_that_agree(datasets_dir: Path) -> None:
    result = validate(datasets_dir, HOSTILE / "run_on_one_row.jsonl")
    assert result.exit_code == 1
    assert result.output.count("[run]") == 1
    assert (
        f"{HOSTILE / 'run_on_one_row.jsonl'}:2 [run]: a run given here, but most rows give none"
        in (result.output)
    )


@pytest.mark.slow  # seconds of work: the full suite runs it
def test_millions_of_bad_lines_make_one_line_per_kind_with_the_count(
    datasets_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"item_id": "stepmath-1", "score": 11}\n' * 200_000)
    result = validate(datasets_dir, path)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "error: 200000 problem(s) found:",
        f"  {path}:1 [score]: Input should be less than or equal to 10 (got 11); the same on "
        "200000 lines: 1, 2, 3, ...",
    ]


@pytest.mark.parametrize("suffix", ["jsonl", "csv"])
@pytest.mark.parametrize("benchmark", ["stepmathbench", "opc"])
def test_a_utf8_bom_is_accepted_for_every_benchmark(
    hostile_datasets: Path, tmp_path: Path, benchmark: str, suffix: str
) -> None:
    item = "stepmath-1" if benchmark == "stepmathbench" else opc_item(hostile_datasets)
    field, value = ("score", "5") if benchmark == "stepmathbench" else ("verdict", "true")
    path = tmp_path / f"bom.{suffix}"
    text = (
        f'{{"item_id": "{item}", "{field}": {value}}}\n'
        if suffix == "jsonl"
        else f"item_id,{field}\n{item},{value}\n"
    )
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    result = validate(hostile_datasets, path, benchmark=benchmark)
    assert result.exit_code == 0, result.output
    assert "1 rows" in result.output


def test_a_directory_or_fifo_is_not_a_regular_file(datasets_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "preds.jsonl"
    folder.mkdir()
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    for path, kind in ((folder, "a directory"), (fifo, "a FIFO, device or socket")):
        result = validate(datasets_dir, path)
        assert result.exit_code == 1
        assert f"{path}: not a regular file ({kind})" in result.output


@pytest.mark.slow
def test_an_unusable_size_limit_is_a_usage_error(datasets_dir: Path) -> None:
    result = cli_subprocess(
        "validate",
        "stepmathbench",
        str(HOSTILE / "first_line_null.jsonl"),
        "--datasets",
        str(datasets_dir),
        env={"MATHJUDGE_MAX_SUBMISSION_BYTES": "abc"},
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "MATHJUDGE_MAX_SUBMISSION_BYTES='abc': expected a positive whole number" in result.stderr


@pytest.fixture(scope="module")
def hostile_datasets(datasets_dir: Path, mirror: Path, tmp_path_factory) -> Path:
    """StepMathBench (linked from the session build) and OPC, built from the mirror."""
    from mathjudge.benchmarks.opc import build as opc
    from mathjudge.dataio.writer import write_dataset

    out = tmp_path_factory.mktemp("hostile-datasets")
    (out / "stepmathbench").symlink_to(datasets_dir / "stepmathbench")
    write_dataset(opc.build(mirror), out)
    return out


def opc_item(datasets: Path) -> str:
    table = pq.read_table(datasets / "opc" / "data" / "judgments" / "test-00000-of-00001.parquet")
    return table.column("item_id")[0].as_py()


@pytest.mark.slow
def test_a_file_holding_more_than_its_size_says_is_read_no_further(
    datasets_dir: Path, tmp_path: Path
) -> None:
    """/proc/self/pagemap states a size of 0 and holds gigabytes: a file is read up to the
    size it states, as predictions (`validate FILE`) and as a side file (`--meta`)."""
    link = tmp_path / "pagemap.jsonl"
    link.symlink_to("/proc/self/pagemap")
    result = cli_subprocess("validate", "stepmathbench", str(link), "--datasets", str(datasets_dir))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"{link}: grew while it was read" in result.stderr
    result = cli_subprocess(
        "evaluate", "stepmathbench", str(HOSTILE / "first_line_null.jsonl"), "--judge", "j",
        "--meta", str(link), "--datasets", str(datasets_dir), "--store", str(tmp_path / "r.duckdb"),
    )  # fmt: skip
    assert (
        result.returncode == 1 and f"{link}: the meta file grew while it was read" in result.stderr
    )
