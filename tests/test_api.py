"""The Python API: the example of docs/api.md runs as printed; predictions as a path, a DataFrame or a
list of dicts give the same scores; scoring against a published release fetched from the Hub
stand-in by its version tag."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner
from huggingface_hub import constants
from standins import HubStandIn, NetworkGuard

from conftest import REPO, write_jsonl
from mathjudge import api
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks.opc import build as opc
from mathjudge.cli import main
from mathjudge.dataio.writer import write_dataset


def readme_example() -> str:
    """The first Python block of docs/api.md, exactly as printed."""
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    match = re.search(r"```python\n(.*?)```", text, re.S)
    assert match is not None
    return match.group(1)


def test_the_readme_example_runs_as_printed(
    datasets_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mirror: Path
) -> None:
    shutil.copytree(datasets_dir / "stepmathbench", tmp_path / "datasets" / "stepmathbench")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MATHJUDGE_MIRROR", str(mirror))
    monkeypatch.delenv("MATHJUDGE_DATASETS", raising=False)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(readme_example(), "docs/api.md", "exec"), {"__name__": "readme"})
    output = printed.getvalue()
    assert "corr" in output and "p_value" in output

    # What it stored, against values computed here from the dataset itself.
    items = pd.read_parquet(
        datasets_dir / "stepmathbench" / "data" / "solutions" / "test-00000-of-00001.parquet"
    )
    gold = items["gold_score"].astype(float)
    short = pd.Series([10.0 if len(s) <= 5 else 4.0 for s in items["steps"]])
    expected = {
        ("short is right", "avg_score"): short.mean(),
        ("short is right", "mse"): ((short - gold) ** 2).mean(),
        ("always 7", "avg_score"): 7.0,
        ("always 7", "mse"): ((7.0 - gold) ** 2).mean(),
    }
    with duckdb.connect(str(tmp_path / "results.duckdb"), read_only=True) as con:
        stored = con.execute(
            """SELECT j.judge, s.metric, s.value FROM scores s
               JOIN submissions j ON s.submission_id = j.id
               WHERE s.scope = 'overall' AND s.metric IN ('avg_score', 'mse')"""
        ).fetchall()
        versions = con.execute("SELECT DISTINCT dataset_version FROM submissions").fetchall()
    assert {(j, m): pytest.approx(v) for j, m, v in stored} == expected
    assert versions == [("1.1.0",)]
    assert "1.1.0" in output


def test_a_path_a_dataframe_and_a_list_score_alike(
    datasets_dir: Path, stepmath_rows: list[dict], tmp_path: Path
) -> None:
    rows = [{"item_id": r["uid"], "score": max(r["gold_score"] - 2, 0)} for r in stepmath_rows]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    common = {"datasets": datasets_dir, "n_boot": 50}
    by_path = api.evaluate("stepmathbench", path, "j", **common)
    by_frame = api.evaluate("stepmathbench", pd.DataFrame(rows), "j", **common)
    by_list = api.evaluate("stepmathbench", rows, "j", **common)
    for other in (by_frame, by_list):
        pd.testing.assert_frame_equal(by_path, other)
    overall = by_path.set_index(["scope", "metric"]).loc["overall"]
    gold = [r["gold_score"] for r in stepmath_rows]
    assert overall.loc["avg_score", "value"] == pytest.approx(
        sum(max(g - 2, 0) for g in gold) / len(gold)
    )
    assert by_path.attrs["coverage"] == 1.0 and by_path.attrs["stored_in"] is None
    assert not (tmp_path / "results.duckdb").exists()


def test_bad_in_memory_predictions_name_the_row_and_field(datasets_dir: Path) -> None:
    rows = [{"item_id": "stepmath-1", "score": 11}, {"item_id": "stepmath-2", "score": "x"}]
    with pytest.raises(ValidationFailed) as info:
        api.evaluate("stepmathbench", rows, "j", datasets=datasets_dir, allow_partial=True)
    text = str(info.value)
    assert "<list of dicts> row 1 [score]" in text and "<list of dicts> row 2 [score]" in text
    assert "mathjudge-predictions-" not in text
    frame = pd.DataFrame({"item_id": ["stepmath-1", "nope"], "score": [3, 4]})
    with pytest.raises(ValidationFailed, match=r"<DataFrame> row 2 \[item_id\]"):
        api.evaluate("stepmathbench", frame, "j", datasets=datasets_dir, allow_partial=True)
    with pytest.raises(
        MathJudgeError, match="a file path, a pandas DataFrame, an Arrow table or a list of dicts"
    ):
        api.evaluate("stepmathbench", 42, "j", datasets=datasets_dir)


def test_compare_takes_frames_and_the_cli_prints_the_same(
    datasets_dir: Path, stepmath_rows: list[dict], tmp_path: Path
) -> None:
    minus = [{"item_id": r["uid"], "score": max(r["gold_score"] - 1, 0)} for r in stepmath_rows]
    exact = [{"item_id": r["uid"], "score": r["gold_score"]} for r in stepmath_rows]
    diff = api.compare(
        "stepmathbench", pd.DataFrame(minus), exact, datasets=datasets_dir, n_boot=50
    )
    row = diff.set_index(["scope", "metric"]).loc[("overall", "overlap")]
    share_exact_minus = sum(max(r["gold_score"] - 1, 0) == r["gold_score"] for r in stepmath_rows)
    assert row["a"] == pytest.approx(share_exact_minus / len(stepmath_rows))
    assert row["b"] == 1.0 and row["diff"] == pytest.approx(row["a"] - 1.0)
    write_jsonl(tmp_path / "minus.jsonl", minus)
    write_jsonl(tmp_path / "exact.jsonl", exact)
    args = [
        "compare",
        "stepmathbench",
        str(tmp_path / "minus.jsonl"),
        str(tmp_path / "exact.jsonl"),
    ]
    args += ["--datasets", str(datasets_dir), "--bootstrap", "50", "--quiet"]
    printed = CliRunner().invoke(main, args)
    assert printed.exit_code == 0, printed.output
    cli_row = next(line.split() for line in printed.output.splitlines() if " overlap " in line)
    assert cli_row[3:6] == [f"{row['a']:.4f}", "1.0000", f"{row['diff']:.4f}"]


# ---- scoring a published release ---------------------------------------------------------------

HUB_REPO = "mathjudge-test/opc"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[HubStandIn]:
    """The Hub stand-in as the client's default endpoint (what HF_ENDPOINT sets), isolated as in
    test_hub.py; the download cache in the test's folder."""
    for var in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_OIDC_RESOURCE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "hf-home" / "token"))
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    guard = NetworkGuard(monkeypatch)
    with HubStandIn() as server:
        # What HF_ENDPOINT sets when huggingface_hub is imported.
        monkeypatch.setattr(constants, "ENDPOINT", server.url)
        monkeypatch.setattr(
            constants,
            "HUGGINGFACE_CO_URL_TEMPLATE",
            server.url + "/{repo_id}/resolve/{revision}/{filename}",
        )
        yield server
    assert guard.attempts == [], f"tried to reach {guard.attempts}"


def verdicts(mirror: Path) -> list[dict]:
    rows = opc.judgments(opc.read_source(mirror))
    return [{"item_id": r["item_id"], "verdict": r["label"]} for r in rows]


def test_evaluate_at_a_published_revision_fetches_the_tagged_release(
    hub: HubStandIn, mirror: Path, tmp_path: Path
) -> None:
    built = write_dataset(opc.build(mirror), tmp_path / "built")
    result = CliRunner().invoke(
        main, ["build", "opc", "--out", str(tmp_path / "x"), "--push-to-hub", HUB_REPO]
    )
    assert result.exit_code == 0, result.output
    assert list(hub.repo(HUB_REPO).tags) == [opc.VERSION]
    preds = write_jsonl(tmp_path / "perfect.jsonl", verdicts(mirror))
    empty = tmp_path / "no-datasets"
    args = ["evaluate", "opc", str(preds), "--judge", "perfect", "--bootstrap", "20", "--quiet"]
    args += ["--datasets", str(empty), "--store", str(tmp_path / "r.duckdb")]
    args += ["--json", str(tmp_path / "r.json")]
    fetched = CliRunner().invoke(main, [*args, "--revision", opc.VERSION, "--from-hub", HUB_REPO])
    assert fetched.exit_code == 0, fetched.output
    assert f"dataset version {opc.VERSION}" in fetched.output
    saved = json.loads((tmp_path / "r.json").read_text())
    manifest = json.loads((built / "manifest.json").read_text())
    assert (saved["dataset_version"], saved["content_hash"]) == (
        opc.VERSION,
        manifest["content_hash"],
    )
    macro_f1 = next(
        s["value"] for s in saved["scores"] if (s["scope"], s["metric"]) == ("overall", "macro_f1")
    )
    assert macro_f1 == 1.0  # the human labels themselves
    release = tmp_path / "cache" / "releases" / "mathjudge-test--opc" / opc.VERSION / "opc"
    assert (release / "manifest.json").read_bytes() == (built / "manifest.json").read_bytes()

    # The cached release is used again without downloading anything.
    downloads = len([r for r in hub.requests if "/resolve/" in r.path])
    again = CliRunner().invoke(main, [*args, "--revision", opc.VERSION, "--from-hub", HUB_REPO])
    assert again.exit_code == 0, again.output
    assert len([r for r in hub.requests if "/resolve/" in r.path]) == downloads

    missing = CliRunner().invoke(main, [*args, "--revision", "9.9.9", "--from-hub", HUB_REPO])
    assert missing.exit_code == 1
    assert f"could not fetch release 9.9.9 of dataset repo {HUB_REPO}" in missing.output
    usage = CliRunner().invoke(main, [*args, "--from-hub", HUB_REPO])
    assert usage.exit_code == 2 and "--from-hub goes with --revision" in usage.output


def test_a_local_build_of_another_version_is_refused(datasets_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(MathJudgeError, match=r"dataset version 1\.1\.0, not 1\.0\.0; fetch"):
        api.evaluate("stepmathbench", [], "j", datasets=datasets_dir, revision="1.0.0")


# ---- one request, resolved once -----------------------------------------------------------------


def test_in_memory_predictions_are_validated_where_they_are(
    datasets_dir: Path, stepmath_rows: list[dict], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A DataFrame reaches the validator as an Arrow table and a list as its rows: nothing is
    written to a temporary file (which the messages would then have to hide)."""
    import tempfile

    import pyarrow as pa

    def no_files(*args: object, **kwargs: object) -> None:
        raise AssertionError("in-memory predictions were written to a file")

    monkeypatch.setattr(tempfile, "TemporaryDirectory", no_files)
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", no_files)
    rows = [{"item_id": r["uid"], "score": r["gold_score"]} for r in stepmath_rows]
    asked = api.request("stepmathbench", pd.DataFrame(rows), "j", datasets=datasets_dir)
    assert isinstance(asked.predictions.rows, pa.Table)
    assert asked.predictions.label == "<DataFrame>"
    for given in (pd.DataFrame(rows), pa.Table.from_pylist(rows), rows):
        scores = api.evaluate("stepmathbench", given, "j", datasets=datasets_dir, n_boot=20)
        overall = scores.set_index(["scope", "metric"]).loc[("overall", "mse"), "value"]
        assert overall == 0.0  # the gold scores themselves


def test_the_dataset_of_a_revision_is_opened_once(
    datasets_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The request names the benchmark and revision once and the evaluator resolves them once:
    one read of the built dataset's manifest, not one to check the revision and one to score."""
    from mathjudge.base import sidefiles

    reads: list[str] = []
    real = sidefiles.read_json

    def counted(path: Path, *args: object, **kwargs: object) -> object:
        if path.name == "manifest.json":
            reads.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(sidefiles, "read_json", counted)
    rows = [{"item_id": "stepmath-1", "score": 3}]
    api.evaluate(
        "stepmathbench", rows, "j", datasets=datasets_dir, revision="1.1.0", allow_partial=True
    )
    assert reads == [str(datasets_dir / "stepmathbench" / "manifest.json")]
