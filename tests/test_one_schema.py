"""`check` accepts only what `sync` can store and the site can render (issue 29, 4 and 6).

A details row with `"run": 3000000000` passed `submit` and `check` ("repository valid"); `sync`
then failed with `ArrowInvalid: Value 3000000000 too large to fit in C integer type`, and every
publish job failed until the folder was removed. And a folder with 20,000 unlisted files
printed one 4 MB line. The property test feeds whatever `check` accepts, of predictions,
details and meta drawn from wide strategies (huge and tiny numbers, every kind of JSON value,
any text), through `sync` and the site build: none of them may fail or leave a row out.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_hostile_repository import FOLDER, META, cli, refused, rehash
from test_hostile_repository import repo as repo  # the fixture

from mathjudge.api import publish_site
from mathjudge.base.errors import MathJudgeError
from mathjudge.repo.sync import check, sync

B = 5


def test_a_details_run_the_store_cannot_hold_is_refused_at_check(
    repo: Path, datasets_dir: Path
) -> None:
    folder = repo / FOLDER
    (folder / "details.jsonl").write_text(
        json.dumps({"item_id": "stepmath-1", "run": 3_000_000_000, "why": "+1"}) + "\n",
        encoding="utf-8",
    )
    rehash(folder)
    refused(
        cli("repo", "check", str(repo), "--bootstrap", "5", "--datasets", str(datasets_dir)),
        f"{folder / 'details.jsonl'}:1 [run]: must be a whole number from 0 to 2147483647",
    )


@pytest.mark.slow  # seconds of work: the full suite runs it
def test_twenty_thousand_unlisted_files_make_one_short_line(repo: Path, datasets_dir: Path) -> None:
    folder = repo / FOLDER
    for k in range(20_000):
        (folder / f"unlisted-{k:05d}.txt").touch()
    out = refused(
        cli("repo", "check", str(repo), "--bootstrap", "5", "--datasets", str(datasets_dir)),
        "the files differ from submission.json; not listed: unlisted-00000.txt, unlisted-00001.txt",
        "and 19,990 more",
    )
    assert max(len(line) for line in out.splitlines()) < 1_000


# --- the property: what check accepts, sync stores and the site renders ----------------------

# Text a page can show (controls and unassigned characters are refused at check, by design),
# and numbers at the edges of what JSON, a DOUBLE and an INTEGER column hold.
TEXT = st.text(st.characters(exclude_categories=("C",)), max_size=30)
EXACT = st.one_of(
    st.integers(min_value=-(2**53), max_value=2**53), st.sampled_from([2**53, -(2**53), 0])
)
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1.7976931348623157e308, -1.7976931348623157e308, 5e-324, -0.0]),
)
JSON_SCALARS = st.one_of(st.none(), st.booleans(), EXACT, FLOATS, TEXT)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
RUNS = st.one_of(
    st.none(), st.integers(min_value=0, max_value=2**31 - 1), st.sampled_from([0, 2**31 - 1])
)
SCORES = st.one_of(
    st.floats(min_value=0, max_value=10),
    st.integers(min_value=0, max_value=10),
    st.sampled_from([0, 10, 5e-324, 1e-300, 9.999999999999998]),
)
KEYS = st.text(st.characters(exclude_categories=("C",)), min_size=1, max_size=10)


@st.composite
def folders(draw: st.DrawFn) -> dict[str, Any]:
    """What a stranger's folder may hold: the predictions with a few rows changed, details
    rows with any JSON, and a meta whose judge, model, config, date and flags are drawn
    widely."""
    changed = draw(st.dictionaries(st.integers(0, 999), SCORES, max_size=4))
    run = draw(RUNS)
    details = draw(
        st.lists(
            st.fixed_dictionaries(
                {"item": st.integers(0, 999), "run": RUNS,
                 "fields": st.dictionaries(KEYS.filter(lambda k: k not in ("item_id", "run")),
                                           JSON_VALUES, max_size=3)}
            ),
            max_size=4,
        )
    )  # fmt: skip
    meta = {
        "judge": draw(TEXT.filter(str.strip)),
        "model": draw(TEXT.filter(str.strip)),
        "organization": draw(TEXT),
        "link": "https://example.org/" + draw(st.text("abcxyz0189-._~%", max_size=20)),
        "date": draw(st.dates()),
        "config": draw(
            st.dictionaries(KEYS, st.one_of(st.booleans(), EXACT, FLOATS, TEXT), min_size=1,
                            max_size=4)
        ),
        "open_weights": draw(st.one_of(st.none(), st.booleans())),
        "license": draw(TEXT),
        "contact": draw(TEXT),
    }  # fmt: skip
    return {"changed": changed, "run": run, "details": details, "meta": meta}


def _write(folder: Path, drawn: dict[str, Any], rows: list[dict]) -> None:
    predictions = []
    for k, row in enumerate(rows):
        line: dict[str, Any] = {"item_id": row["uid"], "score": drawn["changed"].get(k, 5)}
        if drawn["run"] is not None:
            line["run"] = drawn["run"]
        predictions.append(json.dumps(line))
    (folder / "predictions.jsonl").write_text("\n".join(predictions) + "\n", encoding="utf-8")
    details = [
        json.dumps({**d["fields"], "item_id": rows[d["item"]]["uid"], "run": d["run"]})
        for d in drawn["details"]
    ]
    (folder / "details.jsonl").write_text("".join(f"{d}\n" for d in details), encoding="utf-8")
    meta = {k: (v.isoformat() if isinstance(v, dt.date) else v) for k, v in drawn["meta"].items()}
    (folder / "meta.yaml").write_text(yaml.safe_dump(meta, allow_unicode=True), encoding="utf-8")
    rehash(folder)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, datasets_dir: Path, stepmath_rows) -> Path:
    """One honest repository, copied for each example."""
    from conftest import write_jsonl
    from mathjudge.repo.submit import submit

    root = tmp_path_factory.mktemp("template")
    preds = write_jsonl(
        root / "p.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )
    (root / "meta.yaml").write_text(META, encoding="utf-8")
    (root / "repo" / "submissions").mkdir(parents=True)
    submit("stepmathbench", preds, root / "meta.yaml", root / "repo", datasets_dir=datasets_dir)
    return root / "repo"


@settings(
    max_examples=8,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=folders())
@example(
    drawn={
        "changed": {},
        "run": None,
        "meta": {**yaml.safe_load(META), "config": {"n": 1}},
        "details": [{"item": 0, "run": 3_000_000_000, "fields": {"why": "x"}}],
    }
)
@example(
    drawn={
        "changed": {3: 5e-324, 4: 10},
        "run": 2**31 - 1,
        "meta": {
            **yaml.safe_load(META),
            "judge": "a\u0301 \U0001d400",
            "config": {"big": 2**53, "tiny": 5e-324},
        },
        "details": [{"item": 1, "run": 2**31 - 1, "fields": {"n": -(2**53), "x": [None]}}],
    }
)
@pytest.mark.slow
def test_whatever_check_accepts_sync_stores_and_the_site_renders(
    drawn: dict[str, Any], template: Path, datasets_dir: Path, stepmath_rows: list[dict],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:  # fmt: skip
    work = tmp_path_factory.mktemp("example")
    repo = work / "repo"
    shutil.copytree(template, repo)
    _write(repo / FOLDER, drawn, stepmath_rows)
    try:
        check(repo, datasets_dir, n_boot=B)
    except MathJudgeError:
        return  # refused at check: the property says nothing of it
    store = work / "results.duckdb"
    report = sync(repo, store, datasets_dir, n_boot=B)
    assert report.evaluated == ["stepmathbench/plus-one"]
    skipped: list[str] = []
    publish_site(store, work / "site", on_skip=skipped.append)
    assert skipped == []
    board = json.loads((work / "site" / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    judges = [s["judge"] for b in board["benchmarks"] for s in b["submissions"]]
    assert judges == [yaml.safe_load((repo / FOLDER / "meta.yaml").read_text())["judge"].strip()]
