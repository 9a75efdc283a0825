"""Commands pay only for what they use: the real `mathjudge` entry point, run in a fresh process
on the real StepMathBench, never imports the LLM stack (litellm, tenacity, math-verify) for
`--help`, `validate`, `evaluate`, `compare` or `site build`, nor the dataset and plotting
libraries where the command has no use for them. Read from the process's own `sys.modules`."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import write_jsonl
from mathjudge.cli import COMMANDS

# Runs `mathjudge ARGS...` as the console script does, then reports the exit code, what it
# printed and every module the process imported.
PROBE = """
import contextlib, io, json, runpy, sys
sys.argv = ["mathjudge", *json.loads(sys.argv[1])]
code = 0
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        runpy.run_module("mathjudge", run_name="__main__")
    except SystemExit as exc:
        code = exc.code
print(json.dumps({"code": code, "stdout": out.getvalue(), "modules": sorted(sys.modules)}))
"""

LLM_STACK = {"litellm", "tenacity", "math_verify", "openai"}
DATA_AND_PLOTS = {"datasets", "matplotlib", "jinja2"}
# pyarrow would import pandas (a third of a second) just to probe its inputs: validate,
# evaluate and compare are handed no pandas object, so they never load it.
SCORING_NEEDS_NONE_OF = LLM_STACK | DATA_AND_PLOTS | {"pandas"}


def mathjudge(*args: str, cwd: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["code"] in (0, None), (args, report["stdout"], done.stderr)
    report["top_level"] = {name.split(".")[0] for name in report["modules"]}
    return report


@pytest.fixture(scope="module")
def work(
    datasets_dir: Path, stepmath_rows: list[dict], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A 1,000-row StepMathBench submission (gold scores, one point lower where possible)."""
    work = tmp_path_factory.mktemp("imports")
    rows = [
        {
            "item_id": r["uid"],
            "score": max(r["gold_score"] - 1, 0),
            "answer_correct": bool(r["gold_score_01"]),
        }
        for r in stepmath_rows
    ]
    write_jsonl(work / "preds.jsonl", rows)
    return work


@pytest.mark.slow
def test_help_lists_every_command_and_imports_no_library_beyond_click(work: Path) -> None:
    report = mathjudge("--help", cwd=work)
    for name in ("build", "validate", "evaluate", "compare", "arxiv", "expertmath", "reported"):
        assert f"\n  {name} " in report["stdout"], name
    assert re.search(r"\n  site +The static leaderboard site, rendered", report["stdout"])
    assert re.search(r"\n  repo +The leaderboard as a git repository", report["stdout"])
    assert re.search(r"\n  judge +Reference judges \(LLM judges through litellm", report["stdout"])
    heavy = LLM_STACK | DATA_AND_PLOTS | {"duckdb", "pyarrow", "pandas", "rich"}
    assert report["top_level"] & heavy == set()


@pytest.mark.slow
def test_validate_evaluate_compare_and_site_never_import_litellm_nor_pandas(
    work: Path, datasets_dir: Path, stepmath_rows: list[dict]
) -> None:
    data = ["--datasets", str(datasets_dir)]
    store = ["--store", str(work / "results.duckdb")]
    checked = mathjudge("validate", "stepmathbench", "preds.jsonl", *data, cwd=work)
    assert "valid — 1000 rows, 1000/1000 items" in checked["stdout"]
    assert checked["top_level"] & SCORING_NEEDS_NONE_OF == set()

    for judge in ("minus one", "again"):
        scored = mathjudge(
            "evaluate", "stepmathbench", "preds.jsonl", "--judge", judge,
            "--bootstrap", "50", "--quiet", *store, *data, cwd=work,
        )  # fmt: skip
        assert "saved as submission" in scored["stdout"]
        assert scored["top_level"] & SCORING_NEEDS_NONE_OF == set()

    # Two identical submissions: the same value on both sides, a difference of exactly zero.
    compared = mathjudge(
        "compare", "stepmathbench", "minus one", "again", "--bootstrap", "50", "--quiet",
        *store, *data, cwd=work,
    )  # fmt: skip
    mean = sum(max(r["gold_score"] - 1, 0) for r in stepmath_rows) / len(stepmath_rows)
    row = next(line.split() for line in compared["stdout"].splitlines() if "avg_score" in line)
    assert row[:7] == ["overall", "all", "avg_score", f"{mean:.4f}", f"{mean:.4f}", "0.0000",
                       "[0.0000,"]  # fmt: skip
    assert compared["top_level"] & SCORING_NEEDS_NONE_OF == set()

    # The site needs the store only (no --datasets, none in the working folder).
    assert not (work / "datasets").exists()
    site = mathjudge("site", "build", "--out", "site", *store, cwd=work)
    assert (work / "site" / "index.html").is_file()
    assert "site written" in site["stdout"]
    # The site renders with jinja2 and draws its plots with matplotlib, in one process; still
    # no LLM stack, no `datasets`.
    assert {"jinja2", "matplotlib"} <= site["top_level"]
    assert site["top_level"] & (LLM_STACK | {"datasets"}) == set()
    assert [p.name for p in (work / "site" / "plots").glob("*.svg")]


@pytest.mark.slow
def test_judge_group_loads_on_use(work: Path) -> None:
    listed = mathjudge("judge", "list", cwd=work)
    assert "answer-equivalence   no model" in listed["stdout"]
    # The probe sees what a command imports: the judges reach the model client (its retries)
    # and math-verify, but not litellm, which a client imports only when one is made.
    assert {"tenacity", "math_verify"} <= listed["top_level"]
    assert "mathjudge.llm.client" in listed["modules"] and "litellm" not in listed["top_level"]


def test_the_help_table_says_what_each_command_says() -> None:
    """`--help` lists commands from a table without importing them; each entry must be the
    command's own name and the start of its own help."""
    for name, (module, attribute, short_help) in COMMANDS.items():
        command = getattr(importlib.import_module(f"mathjudge.cli.{module}"), attribute)
        assert command.name == name
        assert " ".join((command.help or "").split()).startswith(short_help.rstrip(".")), name
