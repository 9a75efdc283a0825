"""A newcomer submitting honestly (issue 29, 7 and 8): what `validate` and `submit` say must
lead to the fix in its first lines.

Before: a misspelt column (`scroe`) gave "did you mean 'score'?" on line 2, then a line per row
of the error it causes; a ProcessBench file submitted as StepMathBench gave thousands of field
errors and no word of ProcessBench, and its unknown item ids were not reported at all; a meta
with `licence` and `open_weights: "yes"` got no suggestion, no line and no example, and
pointed to a Submit page that exists only on a built site; and the copied example meta was
accepted unchanged.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from conftest import write_jsonl
from mathjudge.cli import main
from mathjudge.repo.scaffold import template_text


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def datasets(datasets_dir: Path, mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """StepMathBench and ProcessBench built side by side, as `mathjudge build all` leaves them."""
    from mathjudge.benchmarks.processbench import build as processbench
    from mathjudge.dataio.writer import write_dataset

    out = tmp_path_factory.mktemp("two-datasets")
    shutil.copytree(datasets_dir / "stepmathbench", out / "stepmathbench")
    write_dataset(processbench.build(mirror), out)  # the real 3,400 items
    return out


@pytest.fixture
def board(tmp_path: Path) -> Path:
    (tmp_path / "board" / "submissions").mkdir(parents=True)
    (tmp_path / "meta.yaml").write_text(template_text("meta.example.yaml"), encoding="utf-8")
    return tmp_path / "board"


def test_a_misspelt_column_is_the_first_line_and_its_consequence_one_more(
    datasets: Path, stepmath_rows: list[dict], tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "toy.jsonl", [{"item_id": r["uid"], "scroe": 4} for r in stepmath_rows]
    )
    done = run("validate", "stepmathbench", str(path), "--datasets", str(datasets))
    assert done.exit_code == 1
    assert done.output.splitlines() == [
        "error: 1001 problem(s) found:",
        f"  {path}:1 [scroe]: unknown column (did you mean 'score'?); the columns are item_id, "
        "run, score, answer_correct, step_labels",
        f"  {path}:1: give at least one of: score, answer_correct; the same on 1000 lines: 1, 2, "
        "3, ...",
    ]


def test_a_processbench_file_submitted_as_stepmathbench_is_said_to_be_one(
    datasets: Path, board: Path, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    (parquet,) = (datasets / "processbench" / "data").rglob("*.parquet")
    ids = pq.read_table(parquet, columns=["item_id"]).column("item_id").to_pylist()
    path = write_jsonl(tmp_path / "pb.jsonl", [{"item_id": i, "error_step": -1} for i in ids])
    done = run("submit", "stepmathbench", str(path), "--meta", str(tmp_path / "meta.yaml"),
               "--to", str(board), "--datasets", str(datasets))  # fmt: skip
    assert done.exit_code == 1
    lines = done.output.splitlines()
    assert lines[1] == (
        f"  {len(ids)} of the {len(ids)} rows name items this benchmark's dataset does not "
        f"have; they are processbench's (1000 of the 1000 checked): is this a file for "
        "processbench? Validate it as one: `mathjudge validate processbench FILE`"
    )
    # The unknown item ids are reported beside the field errors, and the items left unanswered.
    assert f"  {path}:1 [item_id]: unknown item_id 'gsm8k-0'; the same on {len(ids)} lines" in (
        done.output
    )
    assert "1000 item(s) have no prediction: stepmath-1" in done.output
    assert len(lines) <= 6
    assert list((board / "submissions").iterdir()) == []


def test_a_meta_error_has_its_line_a_suggestion_an_example_and_a_guide_that_opens(
    datasets: Path, board: Path, stepmath_rows: list[dict], tmp_path: Path
) -> None:
    meta = tmp_path / "bad.yaml"
    text = template_text("meta.example.yaml")
    text = text.replace("\nlicense:", "\nlicence:").replace(
        "open_weights: false", 'open_weights: "yes"'
    )
    meta.write_text(text, encoding="utf-8")
    line_of = {line.split(":")[0]: n for n, line in enumerate(text.splitlines(), 1) if ":" in line}
    path = write_jsonl(
        tmp_path / "p.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )
    done = run("submit", "stepmathbench", str(path), "--meta", str(meta), "--to", str(board),
               "--datasets", str(datasets))  # fmt: skip
    assert done.exit_code == 1
    lines = done.output.splitlines()
    (url,) = re.findall(r"file://(\S+?\.md)", lines[0])
    assert Path(url).name == "submitting.md" and Path(url).is_file()
    assert lines[1:] == [
        f"  {meta}:{line_of['licence']} [licence]: not a field of the meta; did you mean "
        "'license'? the fields are judge, model, model_version, organization, link, date, "
        "prompt, config, open_weights, license, contact, kind, converted_from",
        f"  {meta}:{line_of['open_weights']} [open_weights]: Input should be a valid boolean "
        "(got 'yes'); e.g. open_weights: true",
        f"  {meta} [license]: missing (a required field); e.g. license: CC-BY-4.0",
    ]


def test_submit_warns_about_the_example_values_left_in_the_meta(
    datasets: Path, board: Path, stepmath_rows: list[dict], tmp_path: Path
) -> None:
    path = write_jsonl(
        tmp_path / "p.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )
    done = run("submit", "stepmathbench", str(path), "--meta", str(tmp_path / "meta.yaml"),
               "--to", str(board), "--datasets", str(datasets))  # fmt: skip
    assert done.exit_code == 0, done.output
    assert (
        f"warning: {tmp_path / 'meta.yaml'} still holds the values meta.example.yaml gives for "
        "judge, model, model_version, organization, link, prompt, contact: replace them"
    ) in done.output
    # A rule-based judge keeps the example's kind: said too; a meta of its own: nothing said.
    meta = tmp_path / "rule.yaml"
    mine = {
        "judge": "Short is right", "kind": "llm_judge", "model": "none", "organization": "Lab",
        "link": "https://lab.example/short", "date": "2025-06-01", "config": {"rule": "steps"},
        "open_weights": None, "license": "CC0-1.0", "contact": "me@lab.example",
    }  # fmt: skip
    meta.write_text(json.dumps(mine), encoding="utf-8")
    done = run("submit", "stepmathbench", str(path), "--meta", str(meta), "--to", str(board),
               "--datasets", str(datasets))  # fmt: skip
    assert done.exit_code == 0 and "values meta.example.yaml gives for kind:" in done.output
    meta.write_text(json.dumps({**mine, "kind": "rule"}), encoding="utf-8")
    done = run("submit", "stepmathbench", str(path), "--meta", str(meta), "--to", str(board),
               "--datasets", str(datasets))  # fmt: skip
    assert done.exit_code == 0 and "warning" not in done.output
