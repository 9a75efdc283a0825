"""A column a benchmark does not take is an error naming the field it most likely means, in
every command that reads predictions; the optional fields a benchmark keeps stay accepted.

Before, a file giving `scroe` beside a valid `answer_correct` was scored on `answer_correct`
alone (exit 0): the misspelt score was silently dropped. Each registered benchmark is checked,
with a valid row built from its own prediction model.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge import api, registry
from mathjudge.base.errors import ValidationFailed
from mathjudge.cli import main
from mathjudge.dataio.reader import open_dataset
from mathjudge.scoring.evaluator import validate_file
from mathjudge.spec.prediction import PredictionRow

BENCHMARKS = registry.names()


@pytest.fixture(scope="module")
def built(all_written: Path) -> Path:
    return all_written


def misspelt(field: str) -> str:
    """`score` -> `scroe`: two letters swapped, as fingers do."""
    return field[:2] + field[3] + field[2] + field[4:] if len(field) >= 4 else field + "s"


def _value(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    """A value the JSON schema of a field accepts (the first choice, the lower bound)."""
    if "$ref" in schema:
        return _value(defs[schema["$ref"].split("/")[-1]], defs)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"]
            return _value(options[0], defs)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("number", "integer"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        return low if "minimum" in schema else low + 1
    if kind == "boolean":
        return True
    if kind == "string":
        return "Theorem 1"
    if kind == "array":
        return [_value(schema.get("items", {"type": "string"}), defs)] * schema.get("minItems", 1)
    raise AssertionError(f"no example value for {schema}")


def valid_row(model: type[PredictionRow], item: str) -> tuple[str, dict[str, Any]]:
    """(the field given, a valid row giving only it)."""
    schema = model.model_json_schema()
    field = (model.requires_one_of or model.prediction_fields())[0]
    value = _value(schema["properties"][field], schema.get("$defs", {}))
    row = {"item_id": item, field: value}
    model.model_validate(row, strict=True)  # the example itself must be valid
    return field, row


@pytest.mark.slow  # seconds of work: the full suite runs it
@pytest.mark.parametrize("bench", BENCHMARKS)
def test_a_misspelt_field_is_an_error_with_its_suggestion(bench: str, built: Path) -> None:
    spec = registry.get(bench)
    model = registry.scorer(bench).prediction
    items = open_dataset(spec.dataset, built).item_ids(spec.items_config)
    tmp = built.parent / f"unknown-{bench}"
    tmp.mkdir(exist_ok=True)
    for field in model.prediction_fields():
        typo = misspelt(field)
        given, row = valid_row(model, items[0])
        rows = [{**valid_row(model, item)[1], typo: row[given]} for item in items]
        path = write_jsonl(tmp / f"{field}.jsonl", rows)
        with pytest.raises(ValidationFailed) as info:
            validate_file(bench, path, built)
        assert [str(p) for p in info.value.problems] == [
            f"{path}:1 [{typo}]: unknown column (did you mean {field!r}?); the columns are "
            + ", ".join(model.model_fields)
        ], (bench, field)


@pytest.mark.parametrize("bench", BENCHMARKS)
def test_every_field_the_benchmark_documents_is_accepted(bench: str, built: Path) -> None:
    """Optional fields that are kept but not scored (`step_labels`, `raw_verdict`, ...) are
    columns of the model, so a file naming them all, empty where not given, is valid."""
    spec = registry.get(bench)
    model = registry.scorer(bench).prediction
    items = open_dataset(spec.dataset, built).item_ids(spec.items_config)
    rows = []
    for item in items:
        _, row = valid_row(model, item)
        rows.append({**dict.fromkeys(model.model_fields), **row})
    path = write_jsonl(built.parent / f"all-fields-{bench}.jsonl", rows)
    submission = validate_file(bench, path, built)
    assert submission.n_items == len(items)


@pytest.fixture
def scroe(tmp_path: Path, stepmath_rows: list[dict]) -> Path:
    """The file of the issue: `answer_correct` valid on every row, the score misspelt."""
    rows = [{"item_id": r["uid"], "scroe": 7, "answer_correct": True} for r in stepmath_rows]
    return write_jsonl(tmp_path / "scroe.jsonl", rows)


EXPECTED = "scroe.jsonl:1 [scroe]: unknown column (did you mean 'score'?)"
META = {
    "judge": "J", "model": "m", "organization": "o", "link": "https://example.org",
    "date": "2025-01-01", "prompt": "p", "open_weights": False, "license": "CC-BY-4.0",
    "contact": "a@example.org",
}  # fmt: skip


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_validate_names_the_column_in_every_format(
    fmt: str, scroe: Path, datasets_dir: Path
) -> None:
    import pyarrow as pa
    import pyarrow.csv
    import pyarrow.parquet as pq

    rows = [json.loads(line) for line in scroe.read_text().splitlines()]
    path = scroe.with_suffix(f".{fmt}")
    if fmt == "csv":
        pa.csv.write_csv(pa.Table.from_pylist(rows), path)
    elif fmt == "parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    result = CliRunner().invoke(main, ["validate", "stepmathbench", str(path), "--datasets",
                                       str(datasets_dir)])  # fmt: skip
    assert result.exit_code == 1
    where = {"jsonl": "scroe.jsonl:1", "csv": "scroe.csv:1", "parquet": "scroe.parquet"}[fmt]
    assert f"{where} [scroe]: unknown column (did you mean 'score'?)" in result.output


@pytest.mark.slow
def test_evaluate_submit_check_and_the_api_refuse_it(
    scroe: Path, datasets_dir: Path, tmp_path: Path
) -> None:
    store = tmp_path / "results.duckdb"
    evaluate = subprocess.run(
        [sys.executable, "-m", "mathjudge", "evaluate", "stepmathbench", str(scroe), "--judge",
         "j", "--store", str(store), "--datasets", str(datasets_dir)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert evaluate.returncode == 1 and EXPECTED in evaluate.stderr
    assert not store.exists()

    meta = tmp_path / "meta.yaml"
    meta.write_text(yaml.safe_dump(META))
    board = tmp_path / "board"
    board.mkdir()
    submit = CliRunner().invoke(main, ["submit", "stepmathbench", str(scroe), "--meta", str(meta),
                                       "--to", str(board), "--datasets", str(datasets_dir)])  # fmt: skip
    assert submit.exit_code == 1 and EXPECTED in submit.output
    assert not (board / "submissions" / "stepmathbench").exists()

    with pytest.raises(ValidationFailed, match=r"\[scroe\]: unknown column \(did you mean"):
        api.evaluate("stepmathbench", scroe, "j", datasets=datasets_dir)
    rows = [json.loads(line) for line in scroe.read_text().splitlines()]
    with pytest.raises(ValidationFailed, match=r"<list of dicts> row 1 \[scroe\]: unknown column"):
        api.evaluate("stepmathbench", rows, "j", datasets=datasets_dir)
    import pandas as pd

    with pytest.raises(ValidationFailed, match=r"<DataFrame> \[scroe\]: unknown column \(did"):
        api.evaluate("stepmathbench", pd.DataFrame(rows), "j", datasets=datasets_dir)


def test_leaderboard_check_refuses_a_folder_edited_to_give_it(
    scroe: Path, datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    """A submission folder whose predictions gain a misspelt column after `submit`: the
    repository check names it (the checksum check alone would not say what is wrong)."""
    good = write_jsonl(
        tmp_path / "good.jsonl",
        [{"item_id": r["uid"], "answer_correct": True} for r in stepmath_rows],
    )
    meta = tmp_path / "meta.yaml"
    meta.write_text(yaml.safe_dump(META))
    board = tmp_path / "board"
    board.mkdir()
    done = CliRunner().invoke(main, ["submit", "stepmathbench", str(good), "--meta", str(meta),
                                     "--to", str(board), "--datasets", str(datasets_dir)])  # fmt: skip
    assert done.exit_code == 0, done.output
    folder = board / "submissions" / "stepmathbench" / "j"
    record = json.loads((folder / "submission.json").read_text())
    (folder / "predictions.jsonl").write_bytes(scroe.read_bytes())
    digest = hashlib.sha256(scroe.read_bytes()).hexdigest()
    text = json.dumps(record).replace(record["files"]["predictions.jsonl"], digest)
    (folder / "submission.json").write_text(text)
    check = CliRunner().invoke(main, ["repo", "check", str(board), "--datasets",
                                      str(datasets_dir)])  # fmt: skip
    assert check.exit_code == 1
    assert "predictions.jsonl:1 [scroe]: unknown column (did you mean 'score'?)" in check.output
