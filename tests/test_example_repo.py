"""The shipped example leaderboard repository, run locally: its workflow's own commands, as the
git host would run them, on a pull request that adds a judge and then on main after the merge.

Steps that use a hosted action (checkout, set-up, cache, Pages upload and deploy) or install
mathjudge are the host's part and are skipped; every other `run:` step runs verbatim in bash,
with datasets built from the shared mirror instead of the network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from conftest import REPO, write_jsonl

EXAMPLE = REPO / "examples" / "leaderboard-repo"
WORKFLOW = EXAMPLE / ".github" / "workflows" / "leaderboard.yml"


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def _run_job(job: dict[str, Any], repo: Path, env: dict[str, str]) -> str:
    """Every `run:` step of a job that is not the host's (see the module note); the output."""
    out = []
    for step in job["steps"]:
        if "run" not in step or step.get("name", "").startswith("Install"):
            continue
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=repo, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, (step["name"], done.stdout, done.stderr)
        out.append(done.stdout)
    return "".join(out)


def test_the_workflow_runs_locally_on_a_pull_request_and_on_main(
    tmp_path: Path, mirror: Path, stepmath_rows: list[dict[str, Any]]
) -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"pull_request", "push", "workflow_dispatch"}
    assert triggers["push"]["branches"] == ["main"]
    check, publish = workflow["jobs"]["check"], workflow["jobs"]["publish"]
    assert check["if"] == "github.event_name == 'pull_request'"
    assert publish["permissions"]["pages"] == "write"
    uses = [s["uses"].split("@")[0] for s in publish["steps"] if "uses" in s]
    assert uses[-2:] == ["actions/upload-pages-artifact", "actions/deploy-pages"]

    # The repository on the host: main as shipped, then a pull request adding a judge.
    origin, repo = tmp_path / "origin.git", tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    _git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "leaderboard")
    _git(repo, "remote", "add", "origin", str(origin))
    _git(repo, "push", "-q", "-u", "origin", "main")
    _git(repo, "checkout", "-q", "-b", "add-judge")
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "MATHJUDGE_MIRROR": str(mirror),
        "HF_HUB_OFFLINE": "1",
        "GITHUB_BASE_REF": "main",
        "MATHJUDGE_STORE_LOCK_TIMEOUT": "60",
    }
    # What a submitter does: build, predict, describe, submit (as the README says).
    preds = write_jsonl(
        tmp_path / "preds.jsonl",
        [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in stepmath_rows],
    )
    meta = yaml.safe_load((repo / "meta.example.yaml").read_text(encoding="utf-8"))
    (tmp_path / "meta.yaml").write_text(yaml.safe_dump({**meta, "judge": "Gold copy"}))
    steps = (
        "mathjudge build stepmathbench --out datasets\n"
        f"mathjudge submit stepmathbench {preds} --meta {tmp_path / 'meta.yaml'} --to . "
        "--datasets datasets\n"
    )
    subprocess.run(["bash", "-e", "-c", steps], cwd=repo, env=env, check=True, capture_output=True)
    assert (
        _git(repo, "status", "--porcelain") == "?? submissions/stepmathbench/\n"
    )  # datasets/ ignored
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Add Gold copy")
    shutil.rmtree(repo / "datasets")  # the host starts from a clean checkout

    printed = _run_job(check, repo, env)
    assert "submissions/stepmathbench/gold-copy/predictions.jsonl" in printed
    assert "stepmathbench/gold-copy: Gold copy (version 1)" in printed
    mse = next(line.split() for line in printed.splitlines() if line.strip().startswith("mse "))
    assert mse[1:] == ["0.0000", "[0.0000,", "0.0000]"]  # the gold scores themselves
    assert "repository valid; 1 submission(s) scored" in printed

    # Merged: main syncs and renders the site; a second run scores nothing.
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "add-judge")
    shutil.rmtree(repo / "datasets")
    published = _run_job(publish, repo, env)
    assert "1 submission(s) scored, 0 unchanged, 0 removed" in published
    index = (repo / "site" / "index.html").read_text(encoding="utf-8")
    assert "Gold copy" in index
    assert (repo / "site" / "submit.html").is_file()
    again = _run_job(publish, repo, env)
    assert "0 submission(s) scored, 1 unchanged, 0 removed" in again
    assert os.path.isfile(repo / "results.duckdb")
    assert _git(repo, "status", "--porcelain") == ""  # nothing built is left to commit
