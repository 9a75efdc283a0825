"""A stranger's pull request against a leaderboard repository (`repo check`, `sync`):
nothing it supplies is read outside the repository, a judge's row cannot be taken over, no
name it chooses can write a line of its own into the log, no file name passes for an option,
and what is scored is what was hashed.

Each case starts from a real submission folder written by `mathjudge submit` on StepMathBench
and breaks it as an attacker would; the links, FIFOs and huge files are made here (they cannot
be committed), the hostile metas and records are in tests/fixtures/hostile/.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.cli import main
from mathjudge.repo.folder import find_folders
from mathjudge.repo.submit import submit
from mathjudge.repo.sync import sync
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.validate import columnar

HOSTILE = Path(__file__).parent / "fixtures" / "hostile"
FOLDER = Path("submissions", "stepmathbench", "plus-one")
META = """judge: Plus one
model: none
organization: Test Lab
link: https://example.org/plus-one
date: 2025-06-01
config: {rule: gold plus one}
open_weights: null
license: CC0-1.0
contact: lab@example.org
"""
B = "5"


@pytest.fixture
def repo(tmp_path: Path, stepmath_rows: list[dict], datasets_dir: Path) -> Path:
    """A leaderboard repository with one honest folder: predictions, meta and details."""
    rows = [{"item_id": r["uid"], "score": min(10, r["gold_score"] + 1)} for r in stepmath_rows]
    preds = write_jsonl(tmp_path / "plus-one.jsonl", rows)
    write_jsonl(tmp_path / "plus-one.details.jsonl", [{"item_id": "stepmath-1", "why": "+1"}])
    (tmp_path / "meta.yaml").write_text(META, encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    submit("stepmathbench", preds, tmp_path / "meta.yaml", repo, datasets_dir=datasets_dir,
           now="2025-06-02T10:00:00+00:00")  # fmt: skip
    return repo


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rehash(folder: Path, **changes: object) -> None:
    """Write the folder's submission.json as an attacker would: checksums of the files as they
    are now (so only the checks under test stand in the way), and any other changes."""
    record = json.loads((folder / "submission.json").read_text())
    names = [p.name for p in folder.iterdir() if p.name != "submission.json"]
    record["files"] = {n: sha(folder / n) for n in names if (folder / n).is_file()}
    record.update(slug=folder.name, **changes)
    (folder / "submission.json").write_text(json.dumps(record), encoding="utf-8")


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def run(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """A real process, for cases that hung or read forever before (a hang is a timeout)."""
    return subprocess.run([sys.executable, "-m", "mathjudge", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=timeout)  # fmt: skip


def check(repo: Path, datasets: Path, *extra: str) -> Result:
    return cli("repo", "check", str(repo), "--bootstrap", B, "--datasets", str(datasets),
               *extra)  # fmt: skip


def refused(result: Result | subprocess.CompletedProcess, *expected: str) -> str:
    """The output of a clean refusal: exit 1, no traceback, every expected text in it."""
    if isinstance(result, Result):
        code, out = result.exit_code, result.output
        assert isinstance(result.exception, SystemExit), out
    else:
        code, out = result.returncode, result.stdout + result.stderr
    assert code == 1 and "Traceback" not in out, out
    assert "repository valid" not in out
    for text in expected:
        assert text in out, out
    return out


# --- 1. nothing outside the repository -------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["predictions.jsonl", "meta.yaml", "details.jsonl", "submission.json"]
)
def test_a_file_linked_outside_with_its_right_sha_is_refused(
    repo: Path, datasets_dir: Path, tmp_path: Path, name: str
) -> None:
    """The link's target is exactly the file the record hashes: check said "repository
    valid" and sync published a file from outside the repository."""
    path = repo / FOLDER / name
    outside = tmp_path / "outside" / name
    outside.parent.mkdir()
    shutil.move(path, outside)
    path.symlink_to(outside)
    refused(check(repo, datasets_dir), f"{path}: a symbolic link")
    store = tmp_path / "results.duckdb"
    args = ["repo", "sync", str(repo), "--store", str(store), "--no-site",
            "--bootstrap", B, "--datasets", str(datasets_dir)]  # fmt: skip
    refused(cli(*args), f"{path}: a symbolic link")
    assert not store.exists()


@pytest.mark.parametrize("level", ["folder", "benchmark", "submissions"])
def test_a_folder_linked_outside_is_refused(
    repo: Path, datasets_dir: Path, tmp_path: Path, level: str
) -> None:
    path = {
        "folder": repo / FOLDER,
        "benchmark": repo / FOLDER.parent,
        "submissions": repo / "submissions",
    }[level]
    outside = tmp_path / "outside"
    shutil.move(path, outside)
    path.symlink_to(outside, target_is_directory=True)
    refused(check(repo, datasets_dir), f"{path}: a symbolic link")
    with pytest.raises(MathJudgeError, match="a symbolic link"):
        find_folders(repo)


@pytest.mark.parametrize("target", ["/proc/self/pagemap", "/dev/zero", "/etc/passwd"])
@pytest.mark.slow
def test_links_with_a_wrong_sha_are_refused_before_reading(
    repo: Path, datasets_dir: Path, target: str
) -> None:
    """A link to /proc/self/pagemap (a regular file that never ends) hung check: every file
    was hashed before its type was looked at."""
    path = repo / FOLDER / "predictions.jsonl"
    path.unlink()
    path.symlink_to(target)
    result = run("repo", "check", str(repo), "--datasets", str(datasets_dir))
    refused(result, f"{path}: a symbolic link")


@pytest.mark.slow
def test_a_fifo_or_an_oversized_file_is_refused_before_reading(
    repo: Path, datasets_dir: Path
) -> None:
    """A FIFO would block a reader; a 64 GiB (sparse) file is refused by its size, not read
    through to find that its sha256 differs."""
    path = repo / FOLDER / "predictions.jsonl"
    path.unlink()
    os.mkfifo(path)
    refused(run("repo", "check", str(repo), "--datasets", str(datasets_dir)),
            f"{path}: a submission folder holds regular files only")  # fmt: skip
    path.unlink()
    with path.open("wb") as handle:
        handle.truncate(64 << 30)
    result = run("repo", "check", str(repo), "--datasets", str(datasets_dir), timeout=30)
    refused(result, f"{path}: the predictions file has {64 << 30} bytes, more than the")


# --- 2. one folder per judge -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["Plus one", "PLUS  one", "\uff30lus one"])
def test_a_second_folder_claiming_a_judge_is_refused_naming_both(
    repo: Path, datasets_dir: Path, stepmath_rows: list[dict], name: str
) -> None:
    """Another organisation, constant predictions and the latest possible date: after sync the
    site showed the impostor under the honest judge's name. The name is compared as shown
    (case, spacing and compatibility forms of letters ignored)."""
    impostor = repo / "submissions" / "stepmathbench" / "impostor"
    shutil.copytree(repo / FOLDER, impostor)
    (impostor / "meta.yaml").write_text(
        META.replace("Plus one", name).replace("Test Lab", "Impostor Inc"), encoding="utf-8"
    )
    write_jsonl(impostor / "predictions.jsonl",
                [{"item_id": r["uid"], "score": 5} for r in stepmath_rows])  # fmt: skip
    rehash(impostor, submitted="9999-12-31T00:00:00+00:00")
    refused(
        check(repo, datasets_dir),
        "stepmathbench/impostor and stepmathbench/plus-one both claim the judge",
        "a judge belongs to one submission folder",
    )


def test_submit_refuses_a_judge_another_folder_holds(
    repo: Path, datasets_dir: Path, tmp_path: Path
) -> None:
    """A resubmission goes through the judge's own folder, as a new version."""
    meta = tmp_path / "again.yaml"
    meta.write_text(META.replace("Test Lab", "Impostor Inc"), encoding="utf-8")
    preds = tmp_path / "plus-one.jsonl"
    args = ["submit", "stepmathbench", str(preds), "--meta", str(meta), "--to", str(repo),
            "--datasets", str(datasets_dir)]  # fmt: skip
    refused(cli(*args, "--slug", "impostor"), "holds the judge 'Plus one' already",
            "--slug plus-one")  # fmt: skip
    assert not (repo / "submissions" / "stepmathbench" / "impostor").exists()
    done = cli(*args)
    assert done.exit_code == 0 and "new version (version 2)" in done.output, done.output


def test_a_model_variant_of_the_alias_table_belongs_to_one_folder(
    repo: Path, datasets_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two judge names the alias table shows as one model variant are one judge."""
    from mathjudge.document import aliases

    models = aliases.parse_models("models:\n  - {id: plus-model, name: Plus model}\n", "m.yaml")
    judges = aliases.parse_aliases(
        """judges:
  - {model: plus-model, source: reproduced, judge: Plus one, variant: "v1"}
  - {model: plus-model, source: reproduced, judge: Plus uno, variant: "v1"}
""",
        "stepmathbench/aliases.yaml",
    )
    table = aliases.assemble(models, {"stepmathbench": (judges, "stepmathbench/aliases.yaml")})
    monkeypatch.setattr(aliases, "table", lambda: table)
    other = repo / "submissions" / "stepmathbench" / "plus-uno"
    shutil.copytree(repo / FOLDER, other)
    (other / "meta.yaml").write_text(META.replace("Plus one", "Plus uno"), encoding="utf-8")
    rehash(other)
    with pytest.raises(MathJudgeError, match=r"model plus-model, variant v1"):
        find_folders(repo)


# --- 5. printed text cannot start a line or drive a terminal ---------------------------------


def _clean_log(output: str) -> None:
    for line in output.splitlines():
        assert not line.lstrip().startswith("::"), line
    assert "\x1b" not in output and "\r" not in output and "\x07" not in output


@pytest.mark.parametrize("where", ["folder", "file", "benchmark", "meta key"])
def test_hostile_names_are_escaped_in_every_message(
    repo: Path, datasets_dir: Path, where: str
) -> None:
    """A newline in a folder or file name (or a meta key) printed raw let a pull request write
    `::error file=...::` lines into the check's log; an OSC sequence in a name retitled the
    terminal."""
    evil = "x\n::error file=README.md,line=1::pwned\x1b]0;pwned\x07"
    folder = repo / FOLDER
    if where == "folder":
        (folder.parent / evil).mkdir()
    elif where == "file":
        (folder / evil).write_text("x")
    elif where == "benchmark":
        (repo / "submissions" / evil).mkdir()
    else:
        (folder / "meta.yaml").write_text(META + f"{json.dumps(evil)}: 1\n", encoding="utf-8")
        rehash(folder)
    output = refused(check(repo, datasets_dir))
    _clean_log(output)
    assert "\\n::error file=README.md,line=1::pwned\\x1b]0;pwned\\x07" in output


# --- 6. no file name passes for an option ------------------------------------------------------


@pytest.fixture
def fake_gold(repo: Path, datasets_dir: Path) -> list[str]:
    """What the example workflow expanded unquoted: the changed files of a pull request that
    adds its own gold labels and a file named to pass for options."""
    shutil.copytree(datasets_dir, repo / "submissions" / ".fake")
    odd = repo / "submissions" / ".f --datasets submissions" / ".fake --"
    odd.parent.mkdir()
    odd.write_text("x")
    return [f"{FOLDER}/predictions.jsonl", "submissions/.f --datasets submissions/.fake --"]


@pytest.mark.slow
def test_gold_labels_never_come_from_the_pull_request(
    repo: Path, datasets_dir: Path, fake_gold: list[str]
) -> None:
    """`check . $(cat changed.txt)` split the odd name into `--datasets submissions/.fake`:
    check scored against the pull request's own gold and said "repository valid"."""
    words = " ".join(fake_gold).split()
    result = run("repo", "check", ".", *words, "--bootstrap", B, cwd=repo)
    refused(result, "--datasets submissions/.fake: lies inside", "must be built outside it")


@pytest.mark.slow
def test_paths_from_keeps_each_name_one_path(
    repo: Path, datasets_dir: Path, fake_gold: list[str], tmp_path: Path
) -> None:
    """With --paths-from (NUL-separated, as `git diff --name-only -z` writes) the odd name
    stays a path, and one that names no submission folder is refused with a message."""
    listing = tmp_path / "changed"
    listing.write_bytes(b"\0".join(p.encode() for p in fake_gold) + b"\0")
    args = ["--paths-from", str(listing), "--bootstrap", B, "--datasets", str(datasets_dir)]
    result = run("repo", "check", ".", *args, cwd=repo)
    refused(result, "'.f --datasets submissions' is not a benchmark")
    listing.write_bytes(f"{FOLDER}/predictions.jsonl\0README.md\0".encode())
    refused(run("repo", "datasets", ".", "--paths-from", str(listing), cwd=repo),
            "'README.md': not a path under submissions/")  # fmt: skip
    # The list of a pull request that changes one folder: that folder is scored, read from
    # a file or from standard input.
    listing.write_bytes(f"{FOLDER}/meta.yaml\0".encode())
    ok = cli("repo", "check", str(repo), *args)
    assert ok.exit_code == 0 and "1 submission(s) scored" in ok.output, ok.output
    piped = subprocess.run(
        [sys.executable, "-m", "mathjudge", "repo", "datasets", ".", "--paths-from", "-"],
        input=f"{FOLDER}/meta.yaml\0".encode(), capture_output=True, cwd=repo, timeout=60,
    )  # fmt: skip
    assert piped.returncode == 0 and piped.stdout == b"stepmathbench\n", piped.stderr


# --- 7. what is scored is what was hashed --------------------------------------------------------


def test_a_file_swapped_while_it_is_scored_never_mixes_scores_and_checksums(
    repo: Path, datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """The predictions are swapped for others right after they are parsed, where a second read
    (to hash them) would see the new file: 18 of 30 syncs stored scores that did not belong to
    the stored sha256. Read once, the bytes scored are the bytes hashed."""
    path = repo / FOLDER / "predictions.jsonl"
    honest = path.read_bytes()
    swapped = "".join(
        json.dumps({"item_id": r["uid"], "score": 0}) + "\n" for r in stepmath_rows
    ).encode()
    parse = columnar.accept

    def parse_then_swap(*args: object, **kwargs: object) -> object:
        result = parse(*args, **kwargs)
        path.write_bytes(swapped)
        return result

    monkeypatch.setattr(columnar, "accept", parse_then_swap)
    store = tmp_path / "results.duckdb"
    sync(repo, store, datasets_dir, n_boot=int(B))
    with duckdb.connect(str(store), read_only=True) as con:
        stored, sid = con.execute("SELECT sha256, id FROM submissions").fetchone()
        mse = con.execute(
            "SELECT value FROM scores WHERE submission_id = ? AND scope = 'overall' "
            "AND metric = 'mse'", [sid],
        ).fetchone()[0]  # fmt: skip
    monkeypatch.setattr(columnar, "accept", parse)
    (tmp_path / "honest.jsonl").write_bytes(honest)
    direct = evaluate_file("stepmathbench", tmp_path / "honest.jsonl", "x",
                           datasets_dir=datasets_dir, n_boot=int(B))  # fmt: skip
    assert stored == hashlib.sha256(honest).hexdigest() == direct.sha256
    assert mse == next(s.value for s in direct.scores if (s.scope, s.metric) == ("overall", "mse"))


# --- 8. no item's details can make its view do unbounded work -----------------------------------

# Issue 29: 40 rows of "x\n\n" x 3,300 for one item (660 KB, 132,000 paragraphs) made its item
# view take 34 s to load; 65 runs' rows, or 21 rows of 9,999 characters, pass the other bounds.
PER_ITEM = {
    "paragraphs": ([{"item_id": "stepmath-1", "why": "x\n\n" * 3300}] * 40,
                   "details.jsonl:1 [why]: the details of item 'stepmath-1' pass 2,000 "
                   "paragraphs"),
    "rows": ([{"item_id": "stepmath-1", "run": k, "why": "+1"} for k in range(65)],
             "details.jsonl:65 [item_id]: item 'stepmath-1' has more than 64 details rows"),
    "characters": ([{"item_id": "stepmath-1", "why": "y" * 9999}] * 21,
                   "details.jsonl:21 [why]: the details of item 'stepmath-1' pass 200,000 "
                   "characters"),
}  # fmt: skip


@pytest.mark.parametrize("bound", sorted(PER_ITEM))
def test_details_past_what_one_item_view_shows_are_refused_at_the_line(
    repo: Path, datasets_dir: Path, tmp_path: Path, bound: str
) -> None:
    rows, message = PER_ITEM[bound]
    folder = repo / FOLDER
    write_jsonl(folder / "details.jsonl", rows)
    rehash(folder)
    out = refused(check(repo, datasets_dir), message)
    assert out.count("pass") + out.count("has more than") == 1  # once per item, not per row
    # `submit` refuses the same file before writing anything.
    write_jsonl(tmp_path / "again.jsonl", [json.loads(line) for line in
                (folder / "predictions.jsonl").read_text().splitlines()])  # fmt: skip
    write_jsonl(tmp_path / "again.details.jsonl", rows)
    (tmp_path / "meta.yaml").write_text(META.replace("Plus one", "Again"), encoding="utf-8")
    with pytest.raises(ValidationFailed, match=re.escape(message.split(":", 1)[1])):
        submit("stepmathbench", tmp_path / "again.jsonl", tmp_path / "meta.yaml", repo,
               datasets_dir=datasets_dir)  # fmt: skip
    assert [p.name for p in (repo / "submissions" / "stepmathbench").iterdir()] == ["plus-one"]
