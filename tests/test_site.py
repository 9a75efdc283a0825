"""The published site's data: rank intervals and tie groups, item explorer data, downloads
(CSV formula guard, overview), dataset pages and immutable releases, on the real StepMathBench.

Rank checks are tied to independent facts: the stored scores (the rank's value must be the
published headline), `mathjudge compare` (a group split must be a significant paired
difference there), and hand-counted disagreements from the raw upstream rows.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import duckdb
import pyarrow.parquet as pq
import pytest

from mathjudge import store as results_store
from mathjudge.api import publish_site
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.names import canonical
from mathjudge.scoring.compare import compare
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.site.views import judge_page

B = 200
FORMULA_JUDGE = '=HYPERLINK("http://x","y")'
MINUS_JUDGE = "-1+2"


def _judges(gold: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(11)

    def clip(x: float) -> float:
        return float(min(10, max(0, x)))

    exact = [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in gold]
    return {
        "exact judge": exact,
        "exact twin": [dict(r) for r in exact],  # identical predictions: must tie
        "noisy judge": [
            {"item_id": r["uid"], "score": clip(r["gold_score"] + rng.choice((-3, 0, 3)))}
            for r in gold
        ],
        FORMULA_JUDGE: [{"item_id": r["uid"], "score": float(rng.randint(0, 10))} for r in gold],
        MINUS_JUDGE: [
            {"item_id": r["uid"], "score": clip(r["gold_score"] + rng.choice((-1, 0, 1)))}
            for r in gold[:700]
        ],
    }


@pytest.fixture(scope="module")
def site(
    tmp_path_factory: pytest.TempPathFactory,
    stepmath_rows: list[dict[str, Any]],
    datasets_dir: Path,
) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("site")
    store = tmp / "results.duckdb"
    for n, (judge, rows) in enumerate(_judges(stepmath_rows).items()):
        preds = tmp / f"preds-{n}.jsonl"
        preds.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        result = evaluate_file(
            "stepmathbench",
            preds,
            judge,
            datasets_dir=datasets_dir,
            n_boot=B,
            allow_partial=len(rows) < 1000,
        )
        results_store.save(store, result)
    out = tmp / "site"
    publish_site(store, out, release="r1")
    doc = json.loads((out / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    (bench,) = [b for b in doc["benchmarks"] if b["name"] == "stepmathbench"]
    ids = {s["judge"]: s["id"] for s in bench["submissions"]}
    return {"store": store, "out": out, "doc": doc, "bench": bench, "ids": ids, "tmp": tmp}


def _ranks(site: dict[str, Any]) -> dict[str, dict[str, Any]]:
    ranked = site["bench"]["ranks"]
    assert ranked["status"] == "ranked"
    return {j: ranked["judges"][sid] for j, sid in site["ids"].items() if sid in ranked["judges"]}


@pytest.mark.slow
def test_rank_value_is_the_published_headline(site: dict[str, Any]) -> None:
    con = duckdb.connect(str(site["store"]), read_only=True)
    try:
        stored = dict(
            con.execute(
                """SELECT sub.judge, s.value FROM scores s JOIN submissions sub
                   ON s.submission_id = sub.id
                   WHERE s.scope = 'overall' AND s.metric = 'corr'"""
            ).fetchall()
        )
    finally:
        con.close()
    ranks = _ranks(site)
    # Ranked only against judges on the same item set: the 70% judge is shown, not ranked.
    assert set(ranks) == set(stored) - {MINUS_JUDGE}
    excluded = site["bench"]["ranks"]["excluded"][site["ids"][MINUS_JUDGE]]
    assert excluded["kind"] == "partial" and "70.0% of the items" in excluded["text"]
    for judge, entry in ranks.items():
        assert entry["value"] == pytest.approx(stored[judge], abs=1e-12)
    assert site["bench"]["ranks"]["bootstrap"] == {
        "B": B,
        "seed": 2,
        "unit": "problem_id",
        "alpha": 0.05,
    }


@pytest.mark.slow
def test_identical_judges_tie_and_clear_gaps_separate(site: dict[str, Any]) -> None:
    ranks = _ranks(site)
    exact, twin = ranks["exact judge"], ranks["exact twin"]
    # Perfect predictions: corr = 1 in every replicate, for both; competition rank 1 always.
    assert exact["value"] == pytest.approx(1.0)
    assert (exact["rank_low"], exact["rank_high"], exact["group"]) == (1, 1, 1)
    assert (twin["rank_low"], twin["rank_high"], twin["group"]) == (1, 1, 1)
    # A random 0-10 score is worst by far: ranked last (4th of 4) in every replicate.
    rand = ranks[FORMULA_JUDGE]
    assert (rand["rank"], rand["rank_low"], rand["rank_high"]) == (4, 4, 4)
    order = sorted(ranks.values(), key=lambda r: r["rank"])
    assert [r["group"] for r in order] == sorted(r["group"] for r in order)  # groups in rank order
    for entry in ranks.values():
        assert entry["rank_low"] <= entry["rank"] <= entry["rank_high"]


@pytest.mark.slow
def test_group_splits_agree_with_compare(site: dict[str, Any], datasets_dir: Path) -> None:
    """Ranking's noisy-vs-best decision matches the paired test of `mathjudge compare`."""
    ranks = _ranks(site)
    result = compare(
        "stepmathbench",
        "exact judge",
        "noisy judge",
        store=site["store"],
        datasets_dir=datasets_dir,
        n_boot=B,
    )
    (row,) = [r for r in result.rows if (r.scope, r.subset, r.metric) == ("overall", "all", "corr")]
    significant = row.p_value is not None and row.p_value < 0.05
    assert significant == (ranks["noisy judge"]["group"] != ranks["exact judge"]["group"])


@pytest.mark.slow
def test_explorer_data_matches_hand_counted_disagreements(
    site: dict[str, Any], stepmath_rows: list[dict[str, Any]]
) -> None:
    gold = {r["uid"]: r["gold_score"] for r in stepmath_rows}
    data = site["out"] / "data"
    table = pq.read_table(data / "stepmathbench_predictions.parquet").to_pylist()
    noisy = site["ids"]["noisy judge"]
    rows = [r for r in table if r["submission_id"] == noisy and r["field"] == "score"]
    assert len(rows) == 1000
    rng = random.Random(11)  # replay the noisy judge's choices
    expected = 0
    for r in stepmath_rows:
        score = min(10, max(0, r["gold_score"] + rng.choice((-3, 0, 3))))
        expected += score != r["gold_score"]
    assert sum(not r["agrees"] for r in rows) == expected
    assert all(r["gold"] == gold[r["item_id"]] for r in rows)
    partial = [r for r in table if r["submission_id"] == site["ids"][MINUS_JUDGE]]
    assert len(partial) == 700
    # Per item, how many judges get it wrong: counted again here from the predictions.
    items = pq.read_table(data / "stepmathbench_items.parquet").to_pylist()
    wrong: dict[str, int] = {}
    for r in table:
        wrong[r["item_id"]] = wrong.get(r["item_id"], 0) + (not r["agrees"])
    assert {r["item_id"]: r["judges_wrong"] for r in items} == wrong
    assert sum(r["judges_answered"] for r in items) == 4 * 1000 + 700
    # The judge's page says it and links into the item explorer filtered to its disagreements.
    page = (site["out"] / judge_page(canonical("noisy judge"))).read_text(encoding="utf-8")
    assert f"{expected} of 1000 disagree with the gold label" in page
    judges = site["bench"]["items"]["judges"]
    position = [j["submission"] for j in judges].index(noisy)
    assert f'href="../items/stepmathbench/index.html#judge={position}&amp;disagree=1"' in page
    assert judges[position] == {"submission": noisy, "answered": 1000, "disagree": expected}


@pytest.mark.slow
def test_each_judge_predictions_download_is_what_it_was_scored_on(
    site: dict[str, Any], stepmath_rows: list[dict[str, Any]]
) -> None:
    submitted = _judges(stepmath_rows)
    files = {judge: f"preds-{n}.jsonl" for n, judge in enumerate(submitted)}
    for judge, sid in site["ids"].items():
        (sub,) = [s for s in site["bench"]["submissions"] if s["id"] == sid]
        assert sub["predictions_file"] == f"predictions/{sid}.jsonl"
        published = (site["out"] / "data" / sub["predictions_file"]).read_bytes()
        # The file as submitted, byte for byte: its sha256 is the recorded one.
        assert published == (site["tmp"] / files[judge]).read_bytes()
        assert hashlib.sha256(published).hexdigest() == sub["sha256"]
        rows = [json.loads(line) for line in published.decode().splitlines()]
        assert rows == submitted[judge]
        page = (site["out"] / judge_page(canonical(judge))).read_text(encoding="utf-8")
        assert f'href="../data/predictions/{sid}.jsonl" download' in page


@pytest.mark.slow
def test_csv_neutralises_formulas_but_keeps_numbers(site: dict[str, Any]) -> None:
    for name in ("stepmathbench_scores.csv", "overview.csv"):
        with (site["out"] / "data" / name).open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
        judges = {r["judge"] for r in rows}
        assert "'" + FORMULA_JUDGE in judges and "'" + MINUS_JUDGE in judges
        assert not any(j.startswith(("=", "+", "-", "@")) for j in judges)
        values = [float(r["value"]) for r in rows if r["value"]]
        assert any(v < 0 for v in values) or name == "overview.csv"  # negatives stay numbers
    # JSON keeps the name as submitted; escaping is the renderer's job.
    data = json.loads((site["out"] / "data" / "overview.json").read_text(encoding="utf-8"))
    assert FORMULA_JUDGE in {r["judge"] for r in data["rows"]}


@pytest.mark.slow
def test_overview_download_has_every_judge_with_its_rank(site: dict[str, Any]) -> None:
    data = json.loads((site["out"] / "data" / "overview.json").read_text(encoding="utf-8"))
    rows = {r["judge"]: r for r in data["rows"] if r["benchmark"] == "stepmathbench"}
    ranks = _ranks(site)
    assert set(rows) == set(site["ids"])
    for judge, row in rows.items():
        assert row["metric"] == "corr"
        if judge == MINUS_JUDGE:  # partial: shown without a rank
            assert row["rank_low"] is None and row["tie_group"] is None
            continue
        assert row["rank_low"] == ranks[judge]["rank_low"]
        assert row["tie_group"] == ranks[judge]["group"]
    assert rows[MINUS_JUDGE]["partial"] is True and rows[MINUS_JUDGE]["coverage"] == 0.7


@pytest.mark.slow
def test_dataset_page_from_card_and_manifest(site: dict[str, Any], datasets_dir: Path) -> None:
    manifest = json.loads((datasets_dir / "stepmathbench" / "manifest.json").read_text())
    page = (site["out"] / "datasets" / "stepmathbench.html").read_text(encoding="utf-8")
    assert manifest["content_hash"] in page
    for entry in manifest["files"]:
        assert entry["sha256"] in page and f">{entry['rows']}<" in page
    assert 'load_dataset("datasets/stepmathbench", "solutions", split="test")' in page.replace(
        "&#34;", '"'
    )
    assert "read_parquet" in page


@pytest.mark.slow
def test_release_is_immutable(site: dict[str, Any], datasets_dir: Path) -> None:
    out = site["out"]
    frozen = {
        p.relative_to(out / "releases" / "r1"): p.read_bytes()
        for p in (out / "releases" / "r1").rglob("*")
        if p.is_file()
    }
    assert (out / "releases" / "r1" / "index.html").is_file()
    assert 'href="releases/r1/index.html"' in (out / "index.html").read_text(encoding="utf-8")
    with pytest.raises(MathJudgeError, match="already exists"):
        publish_site(site["store"], out, release="r1")
    with pytest.raises(MathJudgeError, match="--release"):
        publish_site(site["store"], out, release="../escape")
    publish_site(site["store"], out, release="r2")
    publish_site(site["store"], out)  # a plain rebuild keeps releases
    after = {
        p.relative_to(out / "releases" / "r1"): p.read_bytes()
        for p in (out / "releases" / "r1").rglob("*")
        if p.is_file()
    }
    assert after == frozen
    assert (out / "releases" / "r2" / "index.html").is_file()
    assert "releases/" not in (out / "releases" / "r2" / "index.html").read_text("utf-8")
