"""The results store: replace-in-one-transaction, and untouched by anything invalid."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import pytest

from conftest import write_jsonl
from mathjudge import store as store
from mathjudge.scoring.evaluator import evaluate_file


def counts(path: Path) -> tuple[int, int]:
    with duckdb.connect(str(path), read_only=True) as con:
        subs = con.execute("SELECT count(*) FROM submissions").fetchone()[0]
        scores = con.execute("SELECT count(*) FROM scores").fetchone()[0]
    return subs, scores


@pytest.fixture
def result(datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]):
    rows = [{"item_id": r["uid"], "score": min(10, r["gold_score"] + 1)} for r in stepmath_rows]
    return evaluate_file(
        "stepmathbench",
        write_jsonl(tmp_path / "p.jsonl", rows),
        "plus one",
        datasets_dir=datasets_dir,
        n_boot=20,
    )


def test_reevaluation_replaces_rows(result, tmp_path: Path) -> None:
    db = tmp_path / "r.duckdb"
    sid = store.save(db, result)
    n_scores = len(result.scores)
    assert counts(db) == (1, n_scores)
    assert store.save(db, result) == sid
    assert counts(db) == (1, n_scores)
    store.save(db, dataclasses.replace(result, judge="another"))
    assert counts(db) == (2, 2 * n_scores)
    with duckdb.connect(str(db), read_only=True) as con:
        judge, partial, fields, source = con.execute(
            "SELECT judge, partial, fields, source FROM submissions WHERE id = ?", [sid]
        ).fetchone()
        value = con.execute(
            "SELECT value FROM scores WHERE submission_id = ? AND scope = 'overall' AND metric = 'mse'",
            [sid],
        ).fetchone()[0]
    assert (judge, partial, fields, source) == ("plus one", False, ["score"], "reproduced")
    assert value == next(
        s.value for s in result.scores if s.scope == "overall" and s.metric == "mse"
    )


def test_failure_mid_write_rolls_back(result, tmp_path: Path) -> None:
    db = tmp_path / "r.duckdb"
    store.save(db, result)
    before = counts(db)
    broken = dataclasses.replace(result, scores=(*result.scores[:3], "not a score"))  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        store.save(db, broken)
    assert counts(db) == before


def test_changed_meta_is_a_new_version_not_a_replacement(result, tmp_path: Path) -> None:
    """Re-evaluating the same file with another --meta keeps the first submission and stores a
    second; the site shows the newer one (latest per judge), and the older stays in history."""
    from mathjudge.store import read

    db = tmp_path / "r.duckdb"
    first = store.save(db, dataclasses.replace(result, meta={"model": "m-1"}))
    later = dataclasses.replace(
        result, meta={"model": "m-1", "prompt": "v2"}, created="2100-01-01T00:00:00+00:00"
    )
    second = store.save(db, later)
    assert first != second
    assert counts(db)[0] == 2
    with read.reading(db) as con:
        (shown,) = read.latest_submissions(con)
    assert shown.id == second and shown.meta == {"model": "m-1", "prompt": "v2"}
    # The same meta again (key order aside) is the same submission: replaced, not added.
    assert (
        store.save(db, dataclasses.replace(later, meta={"prompt": "v2", "model": "m-1"})) == second
    )
    assert counts(db)[0] == 2


def test_the_later_of_two_quick_evaluations_is_the_latest(
    datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    """A judge re-evaluated within the same second: the second result is the one shown. With
    timestamps cut to seconds the tie went to the larger submission id, i.e. to chance."""
    from mathjudge.store import read

    db = tmp_path / "r.duckdb"
    saved = []
    for shift in (0, 1, 2, 3):  # four quick re-runs, each with different predictions
        rows = [
            {"item_id": r["uid"], "score": min(10, r["gold_score"] + shift)} for r in stepmath_rows
        ]
        path = write_jsonl(tmp_path / f"p{shift}.jsonl", rows)
        result = evaluate_file("stepmathbench", path, "rerun", datasets_dir=datasets_dir, n_boot=5)
        assert "." in result.created  # kept to the microsecond
        saved.append(store.save(db, result))
    with read.reading(db) as con:
        (shown,) = read.latest_submissions(con)
    assert shown.id == saved[-1]
