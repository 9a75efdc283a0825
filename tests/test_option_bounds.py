"""Options are bounded where they are read, from the command line and from Python alike:
`--bootstrap` at most MAX_BOOTSTRAP (100,000,000 tried to allocate 143 GiB after 12 s), seeds
non-negative (`--seed -1` was a traceback), revisions non-empty (`--revision ""` was taken as
none); and `arxiv filter` reports the lines it cannot read by number and goes on, or stops with
advice that names no reader option this CLI lacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge import api
from mathjudge.base.config import MAX_BOOTSTRAP, MAX_SEED
from mathjudge.base.errors import UsageError
from mathjudge.cli import main


@pytest.fixture(scope="module")
def preds(stepmath_rows: list[dict], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("preds") / "p.jsonl"
    return write_jsonl(path, [{"item_id": r["uid"], "score": 5} for r in stepmath_rows])


@pytest.mark.parametrize(
    ("option", "value", "said"),
    [
        ("--bootstrap", str(MAX_BOOTSTRAP + 1), "not in the range 1<=x<=100000"),
        ("--seed", "-1", "not in the range 0<=x<=4294967295"),
        ("--seed", str(MAX_SEED + 1), "not in the range 0<=x<=4294967295"),
        ("--revision", "", "give a non-empty, printable value"),
        ("--revision", " ", "give a non-empty, printable value"),
    ],
)
def test_evaluate_refuses_options_out_of_bounds(
    option: str, value: str, said: str, preds: Path, datasets_dir: Path, tmp_path: Path
) -> None:
    store = tmp_path / "results.duckdb"
    result = CliRunner().invoke(main, [
        "evaluate", "stepmathbench", str(preds), "--judge", "j", "--store", str(store),
        "--datasets", str(datasets_dir), "--quiet", option, value,
    ])  # fmt: skip
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), result.output
    assert f"Invalid value for '{option}'" in result.output and said in result.output
    assert not store.exists()


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"n_boot": MAX_BOOTSTRAP + 1}, "--bootstrap 100001: use 1 to 100,000 resamples"),
        ({"n_boot": 0}, "--bootstrap 0: use 1 to 100,000 resamples"),
        ({"seed": -1}, "--seed -1: use a whole number from 0 to 4,294,967,295"),
        ({"revision": ""}, "--revision is empty"),
    ],
)
def test_the_python_api_has_the_same_bounds(
    kwargs: dict, said: str, preds: Path, datasets_dir: Path
) -> None:
    with pytest.raises(UsageError) as info:
        api.evaluate("stepmathbench", preds, "j", datasets=datasets_dir, **kwargs)
    assert said in str(info.value)
    with pytest.raises(UsageError):
        api.paired("stepmathbench", preds, preds, datasets=datasets_dir,
                   **{k: v for k, v in kwargs.items() if k != "revision"} or {"n_boot": 0})  # fmt: skip


def test_build_refuses_an_empty_revision(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", "stepmathbench", "--revision", "",
                                       "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 2 and "Invalid value for '--revision'" in result.output


# --- arxiv filter: bad lines ---------------------------------------------------------------------

LINE = {
    "arxiv_id": "2501.00001", "version": "v2", "title": "On a bound",
    "abstract": "We fix it.", "comment": "v2: corrected an error in the proof of Theorem 2",
    "primary_category": "math.AG", "updated_date": "2025-01-02",
}  # fmt: skip


def listing(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_arxiv_filter_skips_unreadable_lines_by_number(tmp_path: Path) -> None:
    """One bad line rejected the whole file, with a message suggesting DuckDB options."""
    good = [json.dumps({**LINE, "arxiv_id": f"2501.0000{i}"}) for i in range(1, 5)]
    path = listing(tmp_path / "listing.jsonl", [good[0], "{not json", good[1], "[1, 2]",
                                                *good[2:]])  # fmt: skip
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["arxiv", "filter", str(path), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"warning: skipped unreadable line {path}:2: not JSON (" in result.output
    assert f"warning: skipped unreadable line {path}:4: a JSON list, not an object" in result.output
    assert "stage 1                   read: 4" in result.output
    funnel = json.loads((out / "funnel.json").read_text())
    assert [s.split(": ")[0] for s in funnel["skipped_lines"]] == [f"{path}:2", f"{path}:4"]
    assert funnel["steps"][1] == {
        "stage": 1, "name": "unreadable_lines", "count": 2,
        "note": "2 unreadable line(s) skipped: " + "; ".join(funnel["skipped_lines"]),
    }  # fmt: skip
    counts = {s["name"]: s["count"] for s in funnel["steps"]}
    assert counts["formal_result"] == 4  # all four papers pass every filter of stage 1


def test_arxiv_filter_stops_on_a_value_it_cannot_read_naming_its_line(tmp_path: Path) -> None:
    lines = [json.dumps(LINE), json.dumps({**LINE, "arxiv_id": "2501.00002", "updated_date":
                                           "the second of January"})]  # fmt: skip
    path = listing(tmp_path / "listing.jsonl", lines)
    result = CliRunner().invoke(main, ["arxiv", "filter", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert f"(on {path}:2)" in result.output
    assert "fix or remove the line and run again" in result.output
    for duckdb_advice in ("ignore_errors", "auto_detect", "LINE 1", "Try "):
        assert duckdb_advice not in result.output
