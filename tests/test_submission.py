"""Validation reports every problem with file, line (or Parquet row) and field."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

from conftest import write_jsonl
from mathjudge import registry
from mathjudge.base.errors import ValidationFailed
from mathjudge.scoring.evaluator import validate_file
from mathjudge.validate import columnar

ALL = [f"stepmath-{i}" for i in range(1, 1001)]


def problems(path: Path, datasets_dir: Path, **kwargs) -> list[str]:
    with pytest.raises(ValidationFailed) as info:
        validate_file("stepmathbench", path, datasets_dir, **kwargs)
    return [str(p) for p in info.value.problems]


def full(score: float = 5.0) -> list[dict]:
    return [{"item_id": item, "score": score} for item in ALL]


def test_valid_full_submission(tmp_path: Path, datasets_dir: Path) -> None:
    rows = [{"item_id": i, "score": 7, "answer_correct": True} for i in ALL]
    sub = validate_file("stepmathbench", write_jsonl(tmp_path / "p.jsonl", rows), datasets_dir)
    assert (sub.n_items, sub.coverage, sub.partial) == (1000, 1.0, False)
    assert sub.fields == ("score", "answer_correct")
    assert sub.table.column("score").type == pa.float64()


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (
            {"item_id": "stepmath-2", "score": 10.5},
            "p.jsonl:2 [score]: Input should be less than or equal to 10",
        ),
        (
            {"item_id": "stepmath-2", "score": -1},
            "p.jsonl:2 [score]: Input should be greater than or equal to 0",
        ),
        (
            {"item_id": "stepmath-2", "score": float("nan")},
            "p.jsonl:2 [score]: Input should be a finite number",
        ),
        (
            {"item_id": "stepmath-2", "score": "7"},
            "p.jsonl:2 [score]: Input should be a valid number",
        ),
        (
            {"item_id": "stepmath-2", "score": True},
            "p.jsonl:2 [score]: Input should be a valid number",
        ),
        ({"item_id": 2, "score": 1}, "p.jsonl:2 [item_id]: Input should be a valid string"),
        (
            {"item_id": "stepmath-2"},
            "p.jsonl:2: Value error, give at least one of: score, answer_correct",
        ),
        ({"score": 3}, "p.jsonl:2 [item_id]: Field required"),
        (
            {"item_id": "stepmath-2", "score": 3, "run": -1},
            "p.jsonl:2 [run]: Input should be greater than or equal to 0",
        ),
        (
            {"item_id": "stepmath-x", "score": 3},
            "p.jsonl:2 [item_id]: unknown item_id 'stepmath-x'",
        ),
        (
            {"item_id": "stepmath-1", "score": 3},
            "p.jsonl:2 [item_id]: duplicate 'stepmath-1' (first on line 1)",
        ),
        (
            {"item_id": "stepmath-2", "score": 3, "answer_correct": "yes"},
            "p.jsonl:2 [answer_correct]: Input should be a valid boolean",
        ),
    ],
)
def test_each_bad_row_is_located(
    tmp_path: Path, datasets_dir: Path, row: dict, expected: str
) -> None:
    rows = [{"item_id": "stepmath-1", "score": 1.0}, row]
    found = problems(write_jsonl(tmp_path / "p.jsonl", rows), datasets_dir, allow_partial=True)
    assert any(expected in p for p in found), found


def test_every_problem_is_reported_in_line_order(tmp_path: Path, datasets_dir: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"item_id": "stepmath-1", "score": 3}\n'
        "\n"
        '{"item_id": "stepmath-2", "score": 3\n'
        '{"item_id": "stepmath-3", "score": 99}\n'
        "[1, 2]\n"
        '{"item_id": "stepmath-3", "score": 2, "answer_correct": false}\n'
    )
    found = problems(path, datasets_dir)
    assert found[0].endswith("p.jsonl:3: not valid JSON (Expecting ',' delimiter)")
    assert "p.jsonl:4 [score]" in found[1]
    assert found[2].endswith("p.jsonl:5: each record must be an object")
    assert "p.jsonl:6 [answer_correct]: fields differ from most rows" in found[3]
    assert "998 item(s) have no prediction" in found[4]  # file-level problems come last
    assert len(found) == 5


def test_missing_items_need_allow_partial(tmp_path: Path, datasets_dir: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", full()[:10])
    assert "990 item(s) have no prediction: stepmath-11" in problems(path, datasets_dir)[0]
    sub = validate_file("stepmathbench", path, datasets_dir, allow_partial=True)
    assert (sub.n_items, sub.partial, sub.coverage) == (10, True, 0.01)


def test_runs_are_all_or_nothing_and_unique(tmp_path: Path, datasets_dir: Path) -> None:
    rows = [
        {"item_id": "stepmath-1", "score": 1, "run": 0},
        {"item_id": "stepmath-1", "score": 2, "run": 1},
        {"item_id": "stepmath-2", "score": 2, "run": 1},
        {"item_id": "stepmath-2", "score": 2, "run": 1},
        {"item_id": "stepmath-3", "score": 2},
    ]
    found = problems(write_jsonl(tmp_path / "p.jsonl", rows), datasets_dir, allow_partial=True)
    assert found == [
        f"{tmp_path}/p.jsonl:4 [item_id]: duplicate 'stepmath-2' run 1 (first on line 3)",
        f"{tmp_path}/p.jsonl:5 [run]: missing: other rows give a run",
    ]


def test_csv_lines_and_lax_cells(tmp_path: Path, datasets_dir: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text(
        'item_id,score,answer_correct\nstepmath-1,7.5,true\n"stepmath-2",abc,false\n'
        "stepmath-3,,true\nstepmath-4,3,0,extra\n"
    )
    found = problems(path, datasets_dir, allow_partial=True)
    assert any("p.csv:3 [score]: Input should be a valid number" in p for p in found)
    assert any("p.csv:4 [score]: fields differ" in p for p in found)
    assert any("p.csv:5: more values than header columns" in p for p in found)
    path.write_text("item_id,score,answer_correct\nstepmath-1,7.5,true\nstepmath-2,0,false\n")
    sub = validate_file("stepmathbench", path, datasets_dir, allow_partial=True)
    assert sub.table.column("score").to_pylist() == [7.5, 0.0]
    assert sub.table.column("answer_correct").to_pylist() == [True, False]


def test_csv_without_item_id_header(tmp_path: Path, datasets_dir: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("id,score\nstepmath-1,3\n")
    assert problems(path, datasets_dir) == [f"{path}:1 [item_id]: CSV header has no item_id column"]


def test_parquet_rows_and_types(tmp_path: Path, datasets_dir: Path) -> None:
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"item_id": ["stepmath-1", "stepmath-2"], "score": [3.0, 12.0]}), path)
    assert problems(path, datasets_dir, allow_partial=True) == [
        f"{path} row 2 [score]: Input should be less than or equal to 10 (got 12.0)"
    ]
    path.write_bytes(b"PAR1 not really")
    assert "not parseable as Parquet" in problems(path, datasets_dir)[0]


def test_file_level_problems(
    tmp_path: Path, datasets_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert problems(tmp_path / "absent.jsonl", datasets_dir) == [
        f"{tmp_path}/absent.jsonl: file not found"
    ]
    odd = tmp_path / "p.txt"
    odd.write_text("x")
    assert "unknown format" in problems(odd, datasets_dir)[0]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert problems(empty, datasets_dir, allow_partial=True) == [f"{empty}: no predictions in file"]
    big = write_jsonl(tmp_path / "big.jsonl", full())
    monkeypatch.setenv("MATHJUDGE_MAX_SUBMISSION_BYTES", "1000")
    assert "file too large" in problems(big, datasets_dir)[0]


def _both_paths(path: Path, datasets_dir: Path, monkeypatch: pytest.MonkeyPatch, **kwargs):
    fast = validate_file("stepmathbench", path, datasets_dir, **kwargs)
    with monkeypatch.context() as patch:
        patch.setattr(columnar, "accept", lambda *a, **k: None)
        slow = validate_file("stepmathbench", path, datasets_dir, **kwargs)
    return fast, slow


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_columnar_and_row_paths_agree_on_clean_files(
    tmp_path: Path, datasets_dir: Path, monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    rows = [
        {
            "item_id": item,
            "run": r,
            "score": (i * 7 + r) % 11,
            "answer_correct": i % 3 == 0,
        }
        for i, item in enumerate(ALL[:600])
        for r in range(2)
    ]
    path = tmp_path / f"p.{fmt}"
    if fmt == "jsonl":
        write_jsonl(path, rows)
    else:
        table = pa.Table.from_pylist(rows)
        pq.write_table(table, path) if fmt == "parquet" else pa.csv.write_csv(table, path)
    fast, slow = _both_paths(path, datasets_dir, monkeypatch, allow_partial=True)
    assert fast.table.equals(slow.table)
    assert (fast.fields, fast.n_items) == (slow.fields, slow.n_items)
    assert fast.fields == ("score", "answer_correct") and fast.runs == 2 and fast.n_items == 600


@pytest.mark.parametrize(
    "text",
    [
        '{"item_id": "stepmath-1", "score": NaN}\n',  # Arrow parses NaN; the fast path must not accept it
        '{"item_id": "stepmath-1", "score": 10.01}\n',
        '{"item_id": "stepmath-1", "score": true}\n',
        '{"item_id": "stepmath-1", "score": 1}\n{"item_id": "stepmath-2", "answer_correct": true}\n',
        '{"item_id": "stepmath-1", "score": 1}\n{"item_id": "stepmath-1", "score": 2}\n',
        '{"item_id": "stepmath-1", "score": 1, "run": 1.5}\n',
        '{"item_id": "", "score": 1}\n',
        '{"item_id": "stepmath-9999", "score": 1}\n',
        '{"item_id": "stepmath-1"}\n',
        # Arrow reads two objects on one line as two rows; JSON lines allow one.
        '{"item_id": "stepmath-1", "score": 1} {"item_id": "stepmath-2", "score": 1}\n',
        '{"item_id": "stepmath-1", "score": 1, "run": 2147483648}\n',
        '{"item_id": "stepmath-1", "score": 1, "score": 2}\n',
        '{"item_id": "stepmath-1", "score": 1, "note": "\\ud800"}\n',
        '{"item_id": "stepmath-1", "score": 1, "note": "a column the model does not take"}\n',
        'null\n{"item_id": "stepmath-1", "score": 1}\n',
    ],
)
def test_columnar_path_never_accepts_what_rows_reject(
    tmp_path: Path, datasets_dir: Path, text: str
) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text(text)
    model = registry.scorer("stepmathbench").prediction
    known = pa.array(ALL, pa.string())
    assert columnar.accept(path.read_bytes(), "jsonl", model, known, allow_partial=True) is None
    assert problems(path, datasets_dir, allow_partial=True)


def test_nested_and_bracketed_unknown_columns_are_named_where_they_first_appear(
    tmp_path: Path, datasets_dir: Path
) -> None:
    """Depth 3 (within the fast path's limit) and brackets inside strings (not nesting): each
    unknown column is one problem, on the line where it first appears, whatever follows."""
    rows = [
        {
            "item_id": item,
            "score": 4,
            **({"why": {"steps": [[1, 2], [3]]}} if i else {}),
            "note": "[[[[[[[[[[[[[[[[[[[",
        }
        for i, item in enumerate(ALL)
    ]
    found = problems(write_jsonl(tmp_path / "p.jsonl", rows), datasets_dir)
    columns = "item_id, run, score, answer_correct, step_labels"
    assert found == [
        f"{tmp_path}/p.jsonl:1 [note]: unknown column; the columns are {columns}",
        f"{tmp_path}/p.jsonl:2 [why]: unknown column; the columns are {columns}",
    ]


def test_repeated_rows_are_one_kind_counted_with_its_first_three(
    tmp_path: Path, datasets_dir: Path
) -> None:
    rows = [{"item_id": "stepmath-1", "score": 1}] * 120
    found = problems(write_jsonl(tmp_path / "p.jsonl", rows), datasets_dir, allow_partial=True)
    assert found == [
        f"{tmp_path}/p.jsonl:{line} [item_id]: duplicate 'stepmath-1' (first on line 1)"
        for line in (2, 3, 4)
    ]
    with pytest.raises(ValidationFailed) as info:
        validate_file("stepmathbench", tmp_path / "p.jsonl", datasets_dir, allow_partial=True)
    assert info.value.omitted == 116
    assert str(info.value) == (
        "119 problem(s) found:\n"
        f"  {tmp_path}/p.jsonl:2 [item_id]: duplicate 'stepmath-1' (first on line 1); the same "
        "on 119 lines: 2, 3, 4, ..."
    )


def test_csv_and_parquet_name_a_column_given_twice(tmp_path: Path, datasets_dir: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("item_id,score,score\nstepmath-1,1,2\n")
    assert problems(path, datasets_dir, allow_partial=True) == [
        f"{path}:1 [score]: column named twice in the header"
    ]
    table = pa.table([pa.array(["stepmath-1"]), pa.array([1.0]), pa.array([2.0])],
                     names=["item_id", "score", "score"])  # fmt: skip
    pq.write_table(table, tmp_path / "p.parquet")
    assert problems(tmp_path / "p.parquet", datasets_dir, allow_partial=True) == [
        f"{tmp_path}/p.parquet [score]: column named twice"
    ]


@pytest.mark.parametrize(
    "extra",
    [
        '"big": 18446744073709551616',  # beyond 64 bits: Arrow reads a double
        '"huge": ' + "9" * 5000,  # beyond int(): read as an infinite float, as Arrow does
        '"nested": {"a": [1, {"b": null}]}',
    ],
)
def test_a_column_that_is_no_prediction_field_is_named_whatever_its_value(
    tmp_path: Path, datasets_dir: Path, extra: str
) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(f'{{"item_id": "{i}", "score": 4, {extra}}}\n' for i in ALL[:5]))
    key = extra.split('"')[1]
    assert problems(path, datasets_dir, allow_partial=True) == [
        f"{path}:1 [{key}]: unknown column; the columns are item_id, run, score, "
        "answer_correct, step_labels"
    ]
