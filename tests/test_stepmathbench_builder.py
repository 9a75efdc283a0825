from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import datasets
import duckdb
import pytest

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.stepmathbench import build as stepmathbench
from mathjudge.benchmarks.stepmathbench.build import normalize_step_label
from mathjudge.benchmarks.stepmathbench.eq1 import eq1_score
from mathjudge.dataio.sources import SourceFile, sha256_file
from mathjudge.dataio.writer import Table, content_hash, write_dataset

C, X, M = "correct", "incorrect", "correct_but_meaningless"


def test_final_answer_label_other_than_0_or_1_fails_with_id(mirror: Path, tmp_path: Path) -> None:
    """The scorer sums the label as 0/1 (p * p = p): another value is refused at the build."""

    def edit(rows: list[dict]) -> None:
        rows[2]["gold_score_01"] = 2

    with pytest.raises(MathJudgeError, match="stepmath-3: gold_score_01 is 2, not 0 or 1"):
        stepmathbench.build(tmp_path, source=_tampered_source(mirror, tmp_path, edit))


@pytest.mark.parametrize(
    ("raw", "label"),
    [("1", C), (1, C), ("0", X), (0, X), ("1(0)", M), ("1（0）", M), ("1(0) ", M), ("1 ", C)],
)
def test_upstream_label_quirks_normalise(raw: object, label: str) -> None:
    assert normalize_step_label(raw) == label


def test_unknown_label_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown step label '2'"):
        normalize_step_label("2")


@pytest.mark.parametrize(
    ("kind", "labels", "expected"),
    [
        ("Calculation", [C], 10),
        ("Calculation", [X], 0),
        ("Calculation", [M], 0),  # meaningless counts as not correct
        ("Calculation", [C, X, C, C], 8),  # 6*2/3 + 4 = 8
        ("Calculation", [C, X, X, X, C], 6),  # 6*1/4 + 4 = 5.5 -> 6 (half to even)
        ("Calculation", [C, C, C, X, X], 4),  # 6*3/4 = 4.5 -> 4 (half to even)
        ("Calculation", [C, M, C, X], 4),  # 6*2/3 = 4
        ("Proof", [C, X, X, X], 2),  # 10*1/4 = 2.5 -> 2
        ("Proof", [C, C, C, X], 8),  # 7.5 -> 8
        ("Open-ended", [C, M, C], 7),  # 6.67 -> 7
    ],
)
def test_eq1_hand_computed(kind: str, labels: list[str], expected: int) -> None:
    assert eq1_score(kind, labels) == expected


def test_real_build_matches_upstream_facts(datasets_dir: Path) -> None:
    root = datasets_dir / "stepmathbench"
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["checks"]["eq1_gold_score"] == "1000/1000 rows agree"
    # Counts from the upstream SOURCE.md: 6,011 "1"/"0" strings + 69 ints + 290 "1(0)"
    # + 86 full-width + 7 "1(0) " + 1 "1 " = 6,464 steps, 383 of them "1(0)"-style.
    labels = manifest["checks"]["step_labels"]
    assert sum(labels.values()) == 6464
    assert labels["correct_but_meaningless"] == 290 + 86 + 7
    assert {f["config"]: f["rows"] for f in manifest["files"]} == {
        "solutions": 1000,
        "problems": 200,
    }
    for entry in manifest["files"]:
        assert sha256_file(root / entry["path"]) == entry["sha256"]
    assert manifest["sources"][0]["revision"] == stepmathbench.SOURCE.revision

    solutions = datasets.load_dataset(str(root), "solutions", split="test")
    assert solutions.num_rows == 1000
    assert solutions.features["step_labels"].feature.names == [C, X, M]
    first = solutions[0]
    assert first["item_id"] == "stepmath-1" and first["problem_id"] == "math-01"
    assert first["generator"] == "GPT-4o" and first["type"] == "Proof"
    problems = datasets.load_dataset(str(root), "problems", split="test")
    assert problems.num_rows == 200

    by_type = dict(
        duckdb.execute(
            "SELECT type, count(*) FROM read_parquet(?) GROUP BY type",
            [str(root / "data/solutions/test-00000-of-00001.parquet")],
        ).fetchall()
    )
    assert by_type == {"Calculation": 725, "Proof": 250, "Open-ended": 25}

    card = (root / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: solutions" in card
    assert "None stated upstream" in card


def test_builds_are_byte_identical(mirror: Path, tmp_path: Path) -> None:
    first = write_dataset(stepmathbench.build(mirror), tmp_path / "a")
    second = write_dataset(stepmathbench.build(mirror), tmp_path / "b")
    for path in sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file()):
        assert (first / path).read_bytes() == (second / path).read_bytes(), path


def _tampered_source(mirror: Path, tmp_path: Path, edit) -> stepmathbench.Source:
    """A copy of the upstream files with `edit` applied to the stepmath rows, pinned to the
    tampered digests so only the builder's own checks can catch it."""
    folder = tmp_path / "stepmathbench"
    folder.mkdir()
    shutil.copy(mirror / "stepmathbench" / "question.jsonl", folder)
    rows = [json.loads(x) for x in (mirror / "stepmathbench" / "stepmath.jsonl").open()]
    edit(rows)
    (folder / "stepmath.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    files = tuple(
        SourceFile(f.path, f.url, sha256_file(folder / f.path)) for f in stepmathbench.SOURCE.files
    )
    return dataclasses.replace(stepmathbench.SOURCE, files=files)


def test_gold_score_disagreeing_with_eq1_fails_with_ids(mirror: Path, tmp_path: Path) -> None:
    def edit(rows: list[dict]) -> None:
        rows[4]["gold_score"] = (rows[4]["gold_score"] + 1) % 11
        rows[9]["gold_score"] = (rows[9]["gold_score"] + 3) % 11

    source = _tampered_source(mirror, tmp_path, edit)
    with pytest.raises(MathJudgeError, match=r"2 solution\(s\): stepmath-5, stepmath-10"):
        stepmathbench.build(tmp_path, source=source)


def test_unknown_step_label_fails_with_id(mirror: Path, tmp_path: Path) -> None:
    def edit(rows: list[dict]) -> None:
        rows[0]["gold_step_score"][2] = "maybe"

    with pytest.raises(MathJudgeError, match="stepmath-1: unknown step label 'maybe'"):
        stepmathbench.build(tmp_path, source=_tampered_source(mirror, tmp_path, edit))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: rows[6].pop("gold_score"), ":7 [gold_score]: missing"),
        (
            lambda rows: rows[6].update(gold_step_score=None),
            ":7 [gold_step_score]: expected list, got None",
        ),
        (lambda rows: rows[2].update(level="3"), ":3 [level]: expected int, got '3'"),
        (lambda rows: rows[2].update(gold_score=True), ":3 [gold_score]: expected int, got True"),
    ],
    ids=["missing", "null-labels", "string-level", "bool-score"],
)
def test_a_missing_or_mistyped_field_is_located(
    mirror: Path, tmp_path: Path, edit, message: str
) -> None:
    """Not a KeyError or TypeError: the file, its line and the field."""
    source = _tampered_source(mirror, tmp_path, edit)
    with pytest.raises(MathJudgeError) as info:
        stepmathbench.build(tmp_path, source=source)
    assert str(info.value) == f"{tmp_path / 'stepmathbench' / 'stepmath.jsonl'}{message}"


def test_mirror_with_other_bytes_is_rejected(mirror: Path, tmp_path: Path) -> None:
    folder = tmp_path / "stepmathbench"
    shutil.copytree(mirror / "stepmathbench", folder)
    (folder / "question.jsonl").chmod(0o644)
    with (folder / "question.jsonl").open("a") as handle:
        handle.write("\n")
    with pytest.raises(MathJudgeError, match="does not match the pinned"):
        stepmathbench.build(tmp_path)


def test_failed_write_leaves_previous_dataset_untouched(mirror: Path, tmp_path: Path) -> None:
    good = stepmathbench.build(mirror)
    path = write_dataset(good, tmp_path)
    before = {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}
    broken_rows = [dict(r, gold_score="not a number") for r in good.tables[0].rows]
    broken = dataclasses.replace(
        good, tables=(Table("solutions", "test", good.tables[0].features, broken_rows),)
    )
    with pytest.raises(Exception):  # noqa: B017 - any Arrow conversion error
        write_dataset(broken, tmp_path)
    assert {p: p.read_bytes() for p in path.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["stepmathbench"]


def test_content_hash_names_the_rows_not_the_file(mirror: Path) -> None:
    build = stepmathbench.build(mirror)
    same = content_hash(build.tables)
    assert same == content_hash(stepmathbench.build(mirror).tables)
    edited = [dict(r) for r in build.tables[1].rows]
    edited[0]["level"] = 1 if edited[0]["level"] != 1 else 2
    changed = (build.tables[0], dataclasses.replace(build.tables[1], rows=edited))
    assert content_hash(changed) != same
