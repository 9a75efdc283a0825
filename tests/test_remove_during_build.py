"""`results remove` during a site build (issue 29, 6): the removal reported success while the
build went on, and the site written after it still showed the judge. Removing submissions and
building the site now exclude each other: a removal waits for a build that started first (and
says so), so what it reports is true of every site written after it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from conftest import write_jsonl

# Builds the site, pausing once the document is published until stdin says go on.
PAUSED_BUILD = """
import sys
from pathlib import Path
import mathjudge.site.render as render
from mathjudge.api import publish_site

real = render.build_site
def paused(*args, **kwargs):
    print("building", flush=True)
    sys.stdin.readline()
    return real(*args, **kwargs)
render.build_site = paused
publish_site(Path(sys.argv[1]), Path(sys.argv[2]))
print("built", flush=True)
"""


def _evaluate(store: Path, datasets_dir: Path, preds: Path, judge: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mathjudge", "evaluate", "stepmathbench", str(preds), "--judge",
         judge, "--bootstrap", "5", "--datasets", str(datasets_dir), "--store", str(store)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_a_removal_waits_for_a_build_that_started_first(
    tmp_path: Path, datasets_dir: Path, stepmath_rows: list[dict]
) -> None:
    store = tmp_path / "r.duckdb"
    for judge, score in (("Keeper", 7), ("Leaver", 3)):
        preds = write_jsonl(
            tmp_path / f"{judge}.jsonl",
            [{"item_id": r["uid"], "score": score} for r in stepmath_rows],
        )
        _evaluate(store, datasets_dir, preds, judge)
    site = tmp_path / "site"
    build = subprocess.Popen(
        [sys.executable, "-c", PAUSED_BUILD, str(store), str(site)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert build.stdout is not None and build.stdin is not None
    assert build.stdout.readline() == "building\n"
    remove = subprocess.Popen(
        [sys.executable, "-m", "mathjudge", "results", "remove", "Leaver", "--yes", "--store",
         str(store)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "MATHJUDGE_STORE_LOCK_TIMEOUT": "120"},
    )  # fmt: skip
    assert remove.stderr is not None
    waiting = remove.stderr.readline()
    assert "another process is building a site from it" in waiting, (
        waiting + remove.stderr.read() + (remove.stdout.read() if remove.stdout else "")
    )
    assert remove.poll() is None  # still waiting while the build is paused
    with duckdb.connect(str(store), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM submissions").fetchone() == (2,)
    build.stdin.write("go on\n")
    build.stdin.close()
    assert build.wait(timeout=600) == 0, build.stderr.read() if build.stderr else ""
    out, err = remove.communicate(timeout=600)
    assert remove.returncode == 0, out + err
    assert "removed 1 submission(s)" in out
    # The site was written before the removal, which it shows; every site after it does not.
    assert '"Leaver"' in (site / "data" / "leaderboard.json").read_text(encoding="utf-8")
    again = subprocess.run(
        [sys.executable, "-m", "mathjudge", "site", "build", "--store", str(store), "--out",
         str(tmp_path / "after")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    board = (tmp_path / "after" / "data" / "leaderboard.json").read_text(encoding="utf-8")
    assert '"Keeper"' in board and '"Leaver"' not in board
