"""Mutated predictions files, and a driver that evaluates them in a child process.

Used by `test_fuzz_submissions.py` (a few hundred cases) and `bench/fuzz_submissions.py`
(thousands). Each case is a valid small submission of one benchmark in one format, damaged by
one seeded mutation: bytes flipped, cut or inserted, lines deleted, repeated or swapped, values
of another type, huge numbers, deep nesting, odd encodings and byte order marks, NUL bytes,
keys given twice, columns of odd Arrow types, ... The driver (`python tests/fuzzing.py CASES`)
runs `mathjudge evaluate` in-process on each case, one after the other, and prints one JSON
line per case: exit code, whether a traceback was printed, whether the store's bytes changed,
whether `--json` was written, and whether the columnar fast path and the row validator
disagree on accepting the file. A case that kills the child (a signal) is the one after the
last line printed.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import random
import subprocess
import sys
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

BENCHMARKS = ("stepmathbench", "opc", "arxivmathgradingbench")
FORMATS = ("jsonl", "csv", "parquet")
ITEMS_CONFIG = {"stepmathbench": "solutions", "opc": "judgments", "arxivmathgradingbench": "papers"}
BASE_ITEMS = 24


@dataclass(frozen=True)
class Case:
    name: str
    benchmark: str
    path: str
    partial: bool


def known_items(datasets: Path, benchmark: str) -> list[str]:
    config = ITEMS_CONFIG[benchmark]
    path = datasets / benchmark / "data" / config / "test-00000-of-00001.parquet"
    return pq.read_table(path, columns=["item_id"]).column("item_id").to_pylist()


def base_rows(benchmark: str, items: list[str], rng: random.Random) -> list[dict[str, Any]]:
    """A valid submission of BASE_ITEMS items, some with two runs."""
    chosen = rng.sample(items, BASE_ITEMS)
    rows: list[dict[str, Any]] = []
    for i, item in enumerate(chosen):
        for run in range(1 + (i % 3 == 0)):
            if benchmark == "stepmathbench":
                rows.append({"item_id": item, "run": run, "score": float(rng.randint(0, 10)),
                             "answer_correct": rng.random() < 0.5})  # fmt: skip
            elif benchmark == "opc":
                rows.append({"item_id": item, "run": run, "verdict": rng.random() < 0.5})
            elif i % 4 == 1:  # arxivmathgradingbench: a run that found no error
                rows.append({"item_id": item, "run": run})
            else:
                rows.append({"item_id": item, "run": run, "location": f"Theorem {i + 1}",
                             "description": "the bound fails for n = 1"})  # fmt: skip
    return rows


# --- mutations of rows (before writing) ----------------------------------------------------

ODD_VALUES: list[Any] = [
    None, True, False, 0, -1, 2**31, 2**63, 2**64, -(2**63) - 1, 10**30, 1e308, -0.0, 0.5,
    10.000001, float("nan"), float("inf"), "", " ", "7", "NaN", "N/A", "NULL", "true", [],
    [1, 2], {}, {"a": 1}, "\u202e", "\x00", "x" * 5000, "stepmath-1", "é",
]  # fmt: skip


def _deep(depth: int, rng: random.Random) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"a": value}
    return value


def mutate_rows(rows: list[dict[str, Any]], rng: random.Random) -> tuple[str, list[dict]]:
    rows = [dict(r) for r in rows]
    row = rng.choice(rows)
    keys = sorted({k for r in rows for k in r})
    kind = rng.choice(["value", "value", "drop", "add", "deep", "rename", "run", "empty", "dupe"])
    if kind == "value":
        row[rng.choice(keys)] = rng.choice(ODD_VALUES)
    elif kind == "drop":
        row.pop(rng.choice(keys), None)
    elif kind == "add":
        row[rng.choice(["note", "item_id ", "Score", "\u202e", "x" * 300])] = rng.choice(ODD_VALUES)
    elif kind == "deep":
        row["extra"] = _deep(rng.choice([3, 20, 70, 500]), rng)
    elif kind == "rename":
        key = rng.choice(keys)
        row[key.upper()] = row.pop(key, None)
    elif kind == "run":
        value = rng.choice([2**31 - 1, 2**31, 2**32, 2**63 - 1, -1, 1.5, "1"])
        for r in rows:
            r["run"] = value
    elif kind == "empty":
        rows = []
    else:
        rows.append(dict(row))
    return f"rows:{kind}", rows


# --- writing and mutating bytes --------------------------------------------------------------


def write_rows(rows: list[dict[str, Any]], fmt: str) -> bytes:
    if fmt == "jsonl":
        return b"".join(json.dumps(r).encode() + b"\n" for r in rows)
    if fmt == "csv":
        keys = list(dict.fromkeys(k for r in rows for k in r)) or ["item_id"]
        out = io.StringIO()
        out.write(",".join(keys) + "\n")
        for r in rows:
            out.write(",".join(_cell(r.get(k)) for k in keys) + "\n")
        return out.getvalue().encode("utf-8", "surrogatepass")
    table = _table(rows)
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    text = json.dumps(value) if isinstance(value, list | dict) else str(value)
    if isinstance(value, bool):
        text = text.lower()
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    """Rows as Arrow; values Arrow cannot type together become their JSON text."""
    try:
        return pa.Table.from_pylist(rows)
    except (pa.ArrowException, OverflowError, TypeError, ValueError):
        texts = [{k: json.dumps(v) for k, v in r.items()} for r in rows]
        return (
            pa.Table.from_pylist(texts)
            if texts
            else pa.table({"item_id": pa.array([], pa.string())})
        )


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    lines = data.split(b"\n")
    kind = rng.choice([
        "flip", "flip", "bit", "truncate", "insert", "nul", "delete-line", "repeat-line",
        "swap-lines", "bom", "utf16", "latin1", "crlf", "cr", "first-null", "dupkey", "deep-text",
        "huge-int", "long-line", "empty",
    ])  # fmt: skip
    pos = rng.randrange(len(data) + 1) if data else 0
    if kind == "flip" and data:
        data = data[:pos] + bytes([rng.randrange(256)]) + data[pos + 1 :]
    elif kind == "bit" and data:
        pos = min(pos, len(data) - 1)
        data = data[:pos] + bytes([data[pos] ^ (1 << rng.randrange(8))]) + data[pos + 1 :]
    elif kind == "truncate":
        data = data[:pos]
    elif kind == "insert":
        data = data[:pos] + rng.randbytes(rng.randint(1, 8)) + data[pos:]
    elif kind == "nul":
        data = data[:pos] + b"\x00" + data[pos:]
    elif kind == "delete-line" and len(lines) > 2:
        del lines[rng.randrange(1, len(lines) - 1)]
        data = b"\n".join(lines)
    elif kind == "repeat-line" and len(lines) > 1:
        i = rng.randrange(len(lines) - 1)
        lines.insert(i, lines[i])
        data = b"\n".join(lines)
    elif kind == "swap-lines" and len(lines) > 2:
        i, j = rng.sample(range(len(lines) - 1), 2)
        lines[i], lines[j] = lines[j], lines[i]
        data = b"\n".join(lines)
    elif kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind == "utf16":
        data = data.decode("utf-8", "replace").encode("utf-16")
    elif kind == "latin1":
        data = data.replace(b"e", b"\xe9", rng.randint(1, 3))
    elif kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif kind == "cr":
        data = data.replace(b"\n", b"\r")
    elif kind == "first-null":
        data = b"null\n" + data
    elif kind == "dupkey":
        data = data.replace(b'"item_id"', b'"score": 3, "item_id"', 1).replace(
            b'"run"', b'"run": 0, "run"', 1
        )
    elif kind == "deep-text":
        depth = rng.choice([100, 1000, 20000])
        data = data.replace(b"}", b', "x": ' + b"[" * depth + b"]" * depth + b"}", 1)
    elif kind == "huge-int":
        data = data.replace(b'"run": 0', b'"run": ' + b"9" * rng.choice([10, 20, 400, 5000]), 1)
    elif kind == "long-line":
        data = data.replace(b"\n", b" " * rng.choice([10, 70000]) + b"\n", 1)
    elif kind == "empty":
        data = b"" if rng.random() < 0.5 else b"\n\n  \n"
    return f"bytes:{kind}", data


PARQUET_COLUMNS: list[Callable[[int], pa.Array]] = [
    lambda n: pa.array(np.arange(n), pa.uint64()),
    lambda n: pa.array(np.full(n, 2**63, dtype=np.uint64)),
    lambda n: pa.array(np.full(n, 5, dtype=np.float16)),
    lambda n: pa.array(np.full(n, 11, dtype=np.float16)),
    lambda n: pa.array(np.arange(n), pa.int8()),
    lambda n: pa.array(["5"] * n),
    lambda n: pa.array([[1, 2]] * n),
    lambda n: pa.array([{"a": 1}] * n),
    lambda n: pa.nulls(n),
    lambda n: pa.array([b"\xff\xfe"] * n, pa.binary()),
    lambda n: pa.array([True] * n),
    lambda n: pa.array(np.full(n, np.nan)),
    lambda n: pa.array([0] * n, pa.timestamp("s", tz="UTC")),
    lambda n: pa.array([1] * n, pa.decimal128(5, 2)),
]


def mutate_parquet(rows: list[dict[str, Any]], rng: random.Random) -> tuple[str, bytes]:
    table = _table(rows)
    n = table.num_rows
    kind = rng.choice(["column", "column", "dictionary", "large", "duplicate", "bytes", "name"])
    if kind == "column" and table.num_columns:
        name = rng.choice([*table.column_names, "extra"])
        column = rng.choice(PARQUET_COLUMNS)(n)
        if name in table.column_names:
            table = table.set_column(table.column_names.index(name), name, column)
        else:
            table = table.append_column(name, column)
    elif kind == "dictionary" and "item_id" in table.column_names:
        i = table.column_names.index("item_id")
        table = table.set_column(i, "item_id", table.column(i).dictionary_encode())
    elif kind == "large" and "item_id" in table.column_names:
        i = table.column_names.index("item_id")
        table = table.set_column(i, "item_id", table.column(i).cast(pa.large_string()))
    elif kind == "duplicate" and table.num_columns:
        name = rng.choice(table.column_names)
        table = table.append_column(name, table.column(name))
    sink = io.BytesIO()
    pq.write_table(table, sink)
    data = sink.getvalue()
    if kind == "name":
        data = data.replace(b"item_id", rng.choice([b"item_\xffd", b"item_ie", b"\xc3("]))
    elif kind == "bytes":
        return mutate_bytes(data, rng)
    return f"parquet:{kind}", data


def make_cases(
    datasets: Path, out: Path, benchmark: str, fmt: str, count: int, seed: int
) -> list[Case]:
    rng = random.Random(f"{seed}:{benchmark}:{fmt}")
    items = known_items(datasets, benchmark)
    cases = []
    for i in range(count):
        rows = base_rows(benchmark, items, rng)
        choice = rng.random()
        if choice < 0.08:
            kind, data = "none", write_rows(rows, fmt)  # valid: the store must change
        elif choice < 0.4:
            kind, rows = mutate_rows(rows, rng)
            data = write_rows(rows, fmt)
        elif fmt == "parquet" and choice < 0.7:
            kind, data = mutate_parquet(rows, rng)
        else:
            kind, data = mutate_bytes(write_rows(rows, fmt), rng)
        path = out / f"{benchmark}-{i:04d}.{fmt}"
        path.write_bytes(data)
        name = f"{benchmark}/{fmt}/{i:04d}/{kind}"
        cases.append(Case(name, benchmark, str(path), partial=rng.random() < 0.8))
    return cases


# --- the driver (child process) --------------------------------------------------------------


def _sha(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def _evaluate(args: list[str]) -> tuple[int, str]:
    from click import ClickException
    from click.exceptions import Abort

    from mathjudge.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main.main(args=args, prog_name="mathjudge", standalone_mode=False)
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except ClickException as exc:
            exc.show()
            code = exc.exit_code
        except Abort:
            code = 1
        except Exception:
            traceback.print_exc()
            code = 99
    return code, out.getvalue()


def _accepts(case: Case, datasets: Path, *, fast: bool) -> bool:
    from mathjudge.base.errors import MathJudgeError
    from mathjudge.scoring.evaluator import validate_file
    from mathjudge.validate import columnar

    original = columnar.accept
    if not fast:
        columnar.accept = lambda *a, **k: None
    try:
        validate_file(case.benchmark, Path(case.path), datasets, allow_partial=case.partial)
        return True
    except MathJudgeError:
        return False
    finally:
        columnar.accept = original


def drive(cases_file: Path) -> None:
    spec = json.loads(cases_file.read_text())
    datasets, store, json_out = (Path(spec[k]) for k in ("datasets", "store", "json_out"))
    for raw in spec["cases"]:
        case = Case(**raw)
        before = _sha(store)
        args = [
            "evaluate", case.benchmark, case.path, "--judge", case.name, "--store", str(store),
            "--datasets", str(datasets), "--bootstrap", "2", "--quiet", "--json", str(json_out),
        ]  # fmt: skip
        if case.partial:
            args.append("--allow-partial")
        code, output = _evaluate(args)
        paths_disagree = _accepts(case, datasets, fast=True) != _accepts(case, datasets, fast=False)
        result = {
            "case": case.name,
            "code": code,
            "traceback": "Traceback" in output,
            "store_changed": _sha(store) != before,
            "json_written": json_out.exists(),
            "paths_disagree": paths_disagree,
            "tail": output[-300:] if code not in (0, 1, 2) or "Traceback" in output else "",
        }
        json_out.unlink(missing_ok=True)
        print(json.dumps(result), flush=True)


def cases_file(path: Path, cases: list[Case], datasets: Path, store: Path, json_out: Path) -> Path:
    spec = {"datasets": str(datasets), "store": str(store), "json_out": str(json_out),
            "cases": [asdict(c) for c in cases]}  # fmt: skip
    path.write_text(json.dumps(spec))
    return path


@dataclass
class Outcome:
    results: list[dict[str, Any]]
    killed: list[tuple[str, int, str]]  # (case, return code of the child, its stderr tail)


def run(
    cases: list[Case],
    datasets: Path,
    workdir: Path,
    *,
    jobs: int = 1,
    resume: bool = True,
    seed_store: Callable[[Path], None] | None = None,
) -> Outcome:
    """Drive `cases` in `jobs` child processes at a time, each with its own store (made by
    `seed_store`, so that even the first case is checked against existing bytes). A child
    killed by a signal names its case; with `resume` a new child goes on after it."""
    chunks = [cases[i::jobs] for i in range(jobs)]
    for i in range(jobs):  # one after the other: evaluating in threads would share DuckDB
        store = workdir / f"job{i}" / "results.duckdb"
        store.parent.mkdir(parents=True, exist_ok=True)
        store.unlink(missing_ok=True)
        if seed_store is not None:
            seed_store(store)
    with ThreadPoolExecutor(jobs) as pool:
        parts = list(
            pool.map(
                lambda i: _run_chunk(chunks[i], datasets, workdir / f"job{i}", resume),
                range(jobs),
            )
        )
    return Outcome(
        [r for part in parts for r in part.results], [k for part in parts for k in part.killed]
    )


def _run_chunk(cases: list[Case], datasets: Path, workdir: Path, resume: bool) -> Outcome:
    store = workdir / "results.duckdb"
    outcome = Outcome([], [])
    remaining = cases
    while remaining:
        spec = cases_file(workdir / "cases.json", remaining, datasets, store, workdir / "out.json")
        child = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), str(spec)],
            capture_output=True,
            text=True,
        )
        done = [json.loads(x) for x in child.stdout.splitlines() if x.startswith('{"case"')]
        outcome.results += done
        if child.returncode == 0 and len(done) == len(remaining):
            break
        outcome.killed.append((remaining[len(done)].name, child.returncode, child.stderr[-500:]))
        if not resume:
            break
        remaining = remaining[len(done) + 1 :]
    return outcome


if __name__ == "__main__":
    drive(Path(sys.argv[1]))
