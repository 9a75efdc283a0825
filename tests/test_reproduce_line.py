"""A reproduce line per row (issue 27): a built site's score download names, for each result,
the dataset build, mathjudge's version, the scoring options and the exact command; running that
command, as a reader would, on the predictions file the site publishes gives the same numbers.

On the real StepMathBench: a judge with two runs combined by their median, scored on part of
the items, from a CSV file, so that every option the command must carry is exercised."""

from __future__ import annotations

import csv
import hashlib
import html
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from mathjudge.api import publish_site
from mathjudge.base.names import canonical
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.site.views import judge_page
from mathjudge.store import save

JUDGE = "Median of two (it's a test)"  # a quote the command must keep


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory, datasets_dir: Path, stepmath_rows: list[dict]
) -> Path:
    tmp = tmp_path_factory.mktemp("reproduce")
    path = tmp / "two-runs.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["item_id", "run", "score"])
        for r in stepmath_rows[:700]:
            writer.writerow([r["uid"], 0, min(10, r["gold_score"] + 1)])
            writer.writerow([r["uid"], 1, max(0, r["gold_score"] - 2)])
    result = evaluate_file(
        "stepmathbench", path, JUDGE, datasets_dir=datasets_dir, n_boot=60, seed=123,
        runs_agg="median", allow_partial=True, meta={"kind": "rule"},
    )  # fmt: skip
    store = tmp / "results.duckdb"
    save(store, result)
    publish_site(store, tmp / "site")
    return tmp / "site"


def _download(site: Path) -> list[dict]:
    data = json.loads((site / "data" / "stepmathbench_scores.json").read_text(encoding="utf-8"))
    return [r for r in data["rows"] if r["judge"] == JUDGE]


@pytest.mark.slow
def test_each_row_of_the_download_names_what_recomputes_it(site: Path) -> None:
    rows = _download(site)
    assert rows and len({r["command"] for r in rows}) == 1
    row = rows[0]
    assert (row["dataset"], row["bootstrap_b"], row["seed"], row["runs_agg"]) == (
        "stepmathbench", 60, 123, "median",
    )  # fmt: skip
    assert row["content_hash"].startswith("sha256:") or len(row["content_hash"]) >= 16
    assert row["mathjudge_version"] and row["predictions_file"].endswith(".csv")
    command = row["command"]
    for part in ("--bootstrap 60", "--seed 123", "--runs-agg median", "--allow-partial",
                 f"--revision {row['dataset_version']}"):  # fmt: skip
        assert part in command, command
    # The CSV download carries the same line; the judge's page prints it too.
    with (site / "data" / "stepmathbench_scores.csv").open(encoding="utf-8") as handle:
        commands = {r["command"] for r in csv.DictReader(handle) if r["judge"] == JUDGE}
    assert commands == {command}
    page = (site / judge_page(canonical(JUDGE))).read_text(encoding="utf-8")
    assert command in html.unescape(page) and "'s a test" not in page  # quotes escaped
    assert f"mathjudge build {row['dataset']}" in page


def test_the_command_run_on_the_download_gives_the_same_numbers(
    site: Path, tmp_path: Path, mirror: Path
) -> None:
    rows = _download(site)
    row = rows[0]
    published = site / "data" / row["predictions_file"]
    stored = duckdb.connect(str(site.parent / "results.duckdb"), read_only=True)
    recorded = stored.execute("SELECT sha256 FROM submissions WHERE judge = ?", [JUDGE]).fetchone()
    stored.close()
    assert recorded is not None
    assert hashlib.sha256(published.read_bytes()).hexdigest() == recorded[0]  # as submitted
    # A reader saves the file, builds the dataset and runs the printed command, in a shell.
    work = tmp_path / "reader"
    work.mkdir()
    shutil.copy(published, work / published.name)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "MATHJUDGE_MIRROR": str(mirror),
    }
    for command in (f"mathjudge build {row['dataset']}", row["command"]):
        done = subprocess.run(
            ["bash", "-c", command], cwd=work, env=env, capture_output=True, text=True,
            timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
    with duckdb.connect(str(work / "results.duckdb"), read_only=True) as con:
        again = con.execute(
            """SELECT scope, subset, metric, value, ci_low, ci_high, n FROM scores
               JOIN submissions ON id = submission_id WHERE judge = ?""",
            [JUDGE],
        ).fetchall()
    site_values = {
        (r["scope"], r["subset"], r["metric"]): (r["value"], r["ci_low"], r["ci_high"], r["n"])
        for r in rows
    }
    assert len(again) == len(site_values) > 10
    assert {(s, u, m): (v, lo, hi, n) for s, u, m, v, lo, hi, n in again} == site_values
