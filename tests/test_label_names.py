"""Labels read with pandas or DuckDB come with names beside the codes, and `datasets` still
restores the ClassLabel feature."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest
from datasets import ClassLabel, load_dataset


@pytest.fixture(scope="module")
def written(all_written: Path) -> Path:
    return all_written


def parquet(out: Path, name: str, config: str) -> str:
    return str(out / name / "data" / config / "test-00000-of-00001.parquet")


def test_step_labels_have_names_in_pandas_and_a_class_label_in_datasets(
    written: Path, mirror: Path
) -> None:
    frame = pd.read_parquet(parquet(written, "stepmathbench", "solutions"))
    names = ["correct", "incorrect", "correct_but_meaningless"]
    for codes, named in zip(frame["step_labels"], frame["step_label_names"], strict=True):
        assert [names[c] for c in codes] == list(named)
    # Upstream marks correct-but-meaningless steps "1(0)" (also with full-width brackets).
    upstream = [
        json.loads(line)
        for line in (mirror / "stepmathbench" / "stepmath.jsonl").read_text("utf-8").splitlines()
    ]
    meaningless = sum(
        str(v).replace("（", "(").replace("）", ")").strip() == "1(0)"
        for row in upstream
        for v in row["gold_step_score"]
    )
    counted = duckdb.sql(
        "SELECT count(*) FROM (SELECT unnest(step_label_names) AS n FROM read_parquet(?)) "
        "WHERE n = 'correct_but_meaningless'",
        params=[parquet(written, "stepmathbench", "solutions")],
    ).fetchall()[0][0]
    assert counted == meaningless > 0
    loaded = load_dataset(str(written / "stepmathbench"), "solutions", split="test")
    assert loaded.features["step_labels"].feature == ClassLabel(names=names)


def test_binary_labels_have_names(written: Path, mirror: Path) -> None:
    upstream = pq.read_table(mirror / "open-proof-corpus" / "test_discrete_long.parquet")
    truths = [r["ground_truth"] for r in upstream.column("reward_model").to_pylist()]
    rows = duckdb.sql(
        "SELECT label_name, count(*), bool_and(label = (label_name = 'correct')) "
        "FROM read_parquet(?) GROUP BY ALL ORDER BY 1",
        params=[parquet(written, "opc", "judgments")],
    ).fetchall()
    assert rows == [
        ("correct", truths.count("correct"), True),
        ("incorrect", truths.count("incorrect"), True),
    ]
    for name, config, column, names in (
        ("mumath", "judgments", "label", ("correct", "incorrect")),
        ("expertmath", "candidates", "correct", ("correct", "wrong")),
    ):
        frame = pd.read_parquet(parquet(written, name, config))
        expected = [names[0] if v else names[1] for v in frame[column]]
        assert list(frame[f"{column}_name"]) == expected


def test_mrmath_labels_are_named_per_set(written: Path) -> None:
    frame = pd.read_parquet(parquet(written, "mrmath", "solutions")).set_index("item_id")
    flawed = frame[(frame["set"] == "invalid") & ~frame["solution_label"]]
    assert len(flawed) == 83  # the paper's count of invalid-set solutions with an invalid step
    for _, row in flawed.iterrows():
        k, n = int(row["first_error_step"]), int(row["n_steps"])
        assert row["solution_label_name"] == "invalid"
        assert list(row["step_label_names"]) == ["valid"] * (k - 1) + ["invalid"] + [None] * (n - k)
    redundant = frame[frame["set"] == "redundant"]
    for _, row in redundant.iterrows():
        assert list(row["step_label_names"]) == [
            "useful" if r else "redundant" for r in row["ratings"]
        ]
        has = 0 in list(row["ratings"])
        assert row["solution_label_name"] == ("has_redundant_step" if has else "no_redundant_step")


def test_hard2verify_step_labels_are_named(written: Path) -> None:
    frame = pd.read_parquet(parquet(written, "hard2verify", "responses"))
    for codes, named in zip(frame["human_labels"], frame["human_label_names"], strict=True):
        assert list(named) == ["correct" if c == 1 else "incorrect" for c in codes]
