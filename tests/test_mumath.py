"""μ-MATH: the builder on a fake `toloka/mu-math` snapshot (tests/fixtures/mumath), read from a
mirror folder and downloaded with `snapshot_download` from a local Hub stand-in, plus the
offline failure and an end-to-end evaluation."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import time
import unicodedata
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import datasets
import duckdb
import pytest
from huggingface_hub import constants
from standins import HubSnapshotStandIn, NetworkGuard, closed_port_url

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.mumath import build as mumath
from mathjudge.dataio.writer import Build, content_hash, write_dataset
from mathjudge.scoring.evaluator import evaluate_file

FIXTURES = Path(__file__).parent / "fixtures"
SNAPSHOT = FIXTURES / "mumath"
REPO = "toloka/mu-math"


def upstream_rows(folder: Path = SNAPSHOT) -> list[dict]:
    text = (folder / "data" / "test-00000-of-00001.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def point_hub_at(monkeypatch: pytest.MonkeyPatch, endpoint: str) -> None:
    """huggingface_hub reads its endpoint into `constants` at import, URL template included."""
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(
        constants,
        "HUGGINGFACE_CO_URL_TEMPLATE",
        endpoint + "/{repo_id}/resolve/{revision}/{filename}",
    )


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No mirror, a fresh cache, no Hub token or telemetry, the Hub endpoint on a closed
    loopback port unless a test starts a stand-in, and nothing may leave 127.0.0.1."""
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "hf-home" / "token"))
    point_hub_at(monkeypatch, closed_port_url())
    guard = NetworkGuard(monkeypatch)
    yield
    assert guard.attempts == [], f"tried to reach {guard.attempts}"


@pytest.fixture(scope="module")
def mirrored() -> Build:
    return mumath.build(FIXTURES)


def test_rows_follow_upstream(mirrored: Build) -> None:
    (table,) = mirrored.tables
    assert (table.config, table.split) == ("judgments", "test")
    raw = upstream_rows()
    assert [r["item_id"] for r in table.rows] == [r["uuid"] for r in raw]
    for row, up in zip(table.rows, raw, strict=True):
        assert row["author_model"] == up["model"]
        assert row["label"] is up["label"]
        for key in ("problem_statement", "golden_answer", "model_output"):
            assert row[key] == up[key]
    assert Counter(r["label"] for r in table.rows) == {True: 10, False: 6}


def test_problem_id_groups_the_four_solutions_of_a_problem(mirrored: Build) -> None:
    rows = mirrored.tables[0].rows
    by_problem: dict[str, list[dict]] = {}
    for row in rows:
        by_problem.setdefault(row["problem_id"], []).append(row)
    assert len(by_problem) == 4
    for group in by_problem.values():
        assert len({r["author_model"] for r in group}) == len(group) == 4
    # One statement is stored with a doubled space and a line break; it is the same problem.
    statements = {r["problem_statement"] for r in rows if "series" in r["problem_statement"]}
    assert len(statements) == 2
    assert len({r["problem_id"] for r in rows if "series" in r["problem_statement"]}) == 1


def test_problem_id_is_a_hash_of_the_normalised_statement() -> None:
    statement = "Find  $\\lim_{x\\to 0}$\n sin(x)/x ."
    expected = hashlib.sha256(b"Find $\\lim_{x\\to 0}$ sin(x)/x .").hexdigest()[:12]
    assert mumath.problem_id(statement) == f"mumath-{expected}"
    assert mumath.problem_id(unicodedata.normalize("NFD", "Évaluer  x")) == mumath.problem_id(
        "Évaluer x"
    )
    assert mumath.problem_id("Find x.") != mumath.problem_id("Find y.")


def test_manifest_names_the_snapshot(mirrored: Build) -> None:
    ((source, files),) = mirrored.sources
    assert (source.kind, source.repo, source.revision) == ("huggingface", REPO, "mirror")
    assert sorted(files) == ["README.md", "data/test-00000-of-00001.jsonl"]
    for name, resolved in files.items():
        assert resolved.sha256 == hashlib.sha256((SNAPSHOT / name).read_bytes()).hexdigest()
    assert mirrored.checks == {
        "unique_uuid": "16/16 rows",
        "problems": 4,
        "labels": {"correct": 10, "incorrect": 6},
    }


@pytest.mark.parametrize("how", ["source-dir-root", "source-dir-folder", "env"])
def test_every_way_to_name_the_mirror_gives_the_same_build(
    mirrored: Build, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "env":
        monkeypatch.setenv("MATHJUDGE_MIRROR", str(FIXTURES))
        build = mumath.build(None)
    else:
        build = mumath.build(FIXTURES if how == "source-dir-root" else SNAPSHOT)
    assert content_hash(build.tables) == content_hash(mirrored.tables)


def test_written_dataset_loads_and_is_deterministic(mirrored: Build, tmp_path: Path) -> None:
    first = write_dataset(mirrored, tmp_path / "a")
    second = write_dataset(mumath.build(FIXTURES), tmp_path / "b")
    parquet = "data/judgments/test-00000-of-00001.parquet"
    assert (first / parquet).read_bytes() == (second / parquet).read_bytes()
    loaded = datasets.load_dataset(
        str(first), "judgments", split="test", cache_dir=str(tmp_path / "hf")
    )
    assert loaded.to_list() == mirrored.tables[0].rows
    assert loaded.features == mumath.FEATURES
    per_author = duckdb.sql(
        f"SELECT author_model, count(*) FROM '{first / parquet}' GROUP BY 1"
    ).fetchall()
    assert sorted(n for _, n in per_author) == [4, 4, 4, 4]
    card = (first / "README.md").read_text(encoding="utf-8")
    assert "license: mit" in card and "arXiv:2412.03205" in card


def test_download_from_the_hub_gives_the_mirror_build(
    mirrored: Build, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with HubSnapshotStandIn(REPO, SNAPSHOT) as hub:
        point_hub_at(monkeypatch, hub.url)
        downloaded = mumath.build(None)
    assert hub.unhandled == []
    assert ("GET", f"/api/datasets/{REPO}/revision/main") in [
        (r.method, r.path) for r in hub.requests
    ]
    fetched = {
        r.path.rsplit(f"/resolve/{hub.commit}/", 1)[1]
        for r in hub.requests
        if r.method == "GET" and "/resolve/" in r.path
    }
    assert fetched == {"README.md", "data/test-00000-of-00001.jsonl"}
    assert content_hash(downloaded.tables) == content_hash(mirrored.tables)
    ((source, files),) = downloaded.sources
    assert (source.repo, source.revision) == (REPO, hub.commit)
    ((_, mirror_files),) = mirrored.sources
    assert {n: f.sha256 for n, f in files.items()} == {n: f.sha256 for n, f in mirror_files.items()}
    assert all(f.origin == f"huggingface:{REPO}@{hub.commit}" for f in files.values())
    assert all(f.path.is_relative_to(tmp_path / "cache") for f in files.values())


@pytest.mark.parametrize("mode", ["unreachable", "hf-offline"])
def test_no_network_and_no_mirror_fails_in_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    if mode == "hf-offline":
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    started = time.monotonic()
    with pytest.raises(MathJudgeError) as exc:
        mumath.build(None)
    assert time.monotonic() - started < 10
    message = str(exc.value)
    assert "\n" not in message
    assert re.search(r"could not download the Hugging Face dataset toloka/mu-math at main", message)
    assert "--source-dir or MATHJUDGE_MIRROR" in message and "mumath/" in message


def broken_copy(tmp_path: Path, edit) -> Path:
    folder = Path(shutil.copytree(SNAPSHOT, tmp_path / "mumath"))
    rows = upstream_rows(folder)
    edit(rows)
    write_jsonl(folder / "data" / "test-00000-of-00001.jsonl", rows)
    return folder


def test_inconsistent_rows_are_all_named(tmp_path: Path) -> None:
    def edit(rows: list[dict]) -> None:
        rows[1]["uuid"] = rows[0]["uuid"]
        rows[4]["label"] = None
        rows[6]["model_output"] = None
        rows[8]["problem_statement"] = " \n"

    with pytest.raises(MathJudgeError) as exc:
        mumath.build(broken_copy(tmp_path, edit))
    first = upstream_rows()[0]["uuid"]
    uuids = [r["uuid"] for r in upstream_rows()]
    assert str(exc.value).splitlines() == [
        "toloka/mu-math source is inconsistent:",
        f"  row 5 (uuid {uuids[4]!r}): label None is not a boolean",
        f"  row 7 (uuid {uuids[6]!r}): model_output is None, not text",
        f"  row 9 (uuid {uuids[8]!r}): problem_statement is empty",
        f"  row 2 (uuid {first!r}): duplicate uuid (first in row 1)",
    ]


def test_a_snapshot_that_is_not_the_dataset_is_named(tmp_path: Path) -> None:
    folder = broken_copy(tmp_path, lambda rows: [r.pop("label") for r in rows])
    (folder / "README.md").write_text("# no card metadata\n", encoding="utf-8")
    with pytest.raises(
        MathJudgeError, match=re.escape(f"{folder}: the {REPO} test split lacks column(s) label")
    ):
        mumath.build(folder)


def test_a_snapshot_without_data_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "mumath"
    folder.mkdir()
    shutil.copy(SNAPSHOT / "README.md", folder)
    with pytest.raises(MathJudgeError, match=re.escape(f"{folder}: cannot load the test split")):
        mumath.build(folder)


def test_end_to_end_evaluation(mirrored: Build, tmp_path: Path) -> None:
    """A judge that calls every Qwen solution correct and abstains elsewhere."""
    datasets_dir = tmp_path / "datasets"
    write_dataset(mirrored, datasets_dir)
    rows = mirrored.tables[0].rows
    preds = [
        {"item_id": r["item_id"], "verdict": True if r["author_model"].startswith("Qwen") else None}
        for r in rows
    ]
    result = evaluate_file(
        "mumath",
        write_jsonl(tmp_path / "p.jsonl", preds),
        "j",
        datasets_dir=datasets_dir,
        n_boot=50,
    )
    got = {(s.scope, s.subset, s.metric): s for s in result.scores}
    # Qwen: 3 of its 4 solutions are correct; 12 null verdicts; 10 correct solutions in all.
    assert got[("overall", "all", "ppv")].value == pytest.approx(3 / 4)
    assert got[("overall", "all", "tpr")].value == pytest.approx(3 / 10)
    assert got[("overall", "all", "inconclusive_rate")].value == pytest.approx(12 / 16)
    assert got[("overall", "all", "npv")].value is None
    assert got[("author_model", "Qwen2.5-72B-Instruct", "tpr")].value == 1.0
    assert got[("author_model", "gpt-4o-2024-08-06", "inconclusive_rate")].value == 1.0
    assert result.bootstrap["seed"] == 4 and result.content_hash == content_hash(mirrored.tables)
