"""Site parts on hand-made inputs: rank intervals where the answer is known by construction,
and the SVG plots with hostile judge names."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from pydantic import TypeAdapter

from mathjudge import registry
from mathjudge.document.ranks import rank_judges
from mathjudge.scoring.engine import ClusterStats
from mathjudge.site.export import download_names
from mathjudge.site.plots import benchmark_plots
from mathjudge.site.render import render_site
from mathjudge.spec.document import BoardSubmission
from mathjudge.spec.presentation import MetricSpec

BOARD = TypeAdapter(BoardSubmission)

MAE = MetricSpec("mae", "MAE", "mean error", direction="lower")


# A scorer whose one metric is the mean per-item error: sums of errors over sums of items.
def _mae(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    with np.errstate(invalid="ignore", divide="ignore"):  # no items: undefined, as in scorers
        return {"mae": sums["err"] / sums["n"]}


SCORER = SimpleNamespace(finalize=_mae)


def _stats(errors: list[float]) -> ClusterStats:
    """One item per cluster with the given error."""
    matrix = np.column_stack([np.ones(len(errors)), np.asarray(errors, dtype=float)])
    return ClusterStats([("overall", "all")], ["n", "err"], np.array([len(errors)]), matrix)


def test_rank_intervals_on_known_orders() -> None:
    """best: error 0 everywhere, so MAE 0 in every resample (rank 1, alone in group 1).
    steady: error 1 everywhere (MAE exactly 1). swinging: errors 0 and 2 alternating (MAE 1 at
    the point, but above or below 1 in a resample as 2s or 0s are drawn more often), so
    steady and swinging trade places 2 and 3 and cannot be told apart; worst: error 5."""
    n = 40
    stats = [
        ("steady", _stats([1.0] * n)),
        ("worst", _stats([5.0] * n)),
        ("best", _stats([0.0] * n)),
        ("swinging", _stats([0.0, 2.0] * (n // 2))),
    ]
    ranked = {r.submission_id: r.entry for r in rank_judges(stats, SCORER, (), MAE, 1000, 7)}
    best, steady, swinging, worst = (ranked[k] for k in ("best", "steady", "swinging", "worst"))
    assert (best.value, best.rank, best.rank_low, best.rank_high, best.group) == (0, 1, 1, 1, 1)
    # Ties at the point estimate share the competition rank 2.
    assert (steady.value, steady.rank) == (1.0, 2) and (swinging.value, swinging.rank) == (1.0, 2)
    # P(swinging draws fewer 2s than 0s) ~ 0.44: both orders are common.
    assert (steady.rank_low, steady.rank_high) == (2, 3)
    assert (swinging.rank_low, swinging.rank_high) == (2, 3)
    assert steady.group == swinging.group == 2
    assert (worst.rank, worst.rank_low, worst.rank_high, worst.group) == (4, 4, 4, 3)


def test_undefined_headline_is_not_ranked() -> None:
    stats = [("empty", _stats([])), ("one", _stats([1.0, 2.0]))]
    stats[0] = ("empty", ClusterStats([("overall", "all")], ["n", "err"], np.array([0]),
                                      np.zeros((2, 2))))  # fmt: skip
    ranked = rank_judges(stats, SCORER, (), MAE, 200, 0)
    assert [r.submission_id for r in ranked] == ["one"]


def _sub(judge: str, source: str, scores: list[dict[str, Any]], **extra: Any) -> BoardSubmission:
    return BOARD.validate_python(
        {
            "id": judge, "benchmark": "b", "judge": judge, "source": source, "citation": None, "coverage": 1.0,
            "partial": False, "dataset_version": "1", "content_hash": "sha256:x", "meta": {},
            "sha256": "0" * 64, "created": "2026-01-01T00:00:00+00:00", "n_items": 4,
            "runs": 1, "runs_agg": "mean", "fields": ["score"], "bootstrap": {},
            "mathjudge_version": "0", "extras": extra, "scores": scores,
            "provenance": "paper" if source == "reported" else "submitted",
        }
    )  # fmt: skip


def _score(metric: str, value: float, scope: str = "overall", subset: str = "all", ci=None):
    low, high = ci if ci else (None, None)
    return {"scope": scope, "subset": subset, "metric": metric, "value": value,
            "ci_low": low, "ci_high": high, "n": 10}  # fmt: skip


HOSTILE = ["<script>alert(1)</script>", "$x^2$ & co", '"><img src=x onerror=alert(1)>']


def _texts(svg: str) -> str:
    root = ET.fromstring(svg)  # well-formed XML, whatever the names were
    assert not [e for e in root.iter() if e.tag.split("}")[-1] in ("script", "foreignObject")]
    return " ".join("".join(e.itertext()) for e in root.iter() if e.tag.endswith("text"))


def test_plots_keep_hostile_names_as_text_and_are_deterministic() -> None:
    subs = [
        _sub(
            name,
            "reproduced",
            [
                _score("macro_f1", 0.5 + i / 10),
                _score("tpr", 0.4 + i / 10, ci=(0.45, 0.55)),  # CI misses 2 of 3 points
                _score("tnr", 0.7, ci=(0.6, 0.8)),
            ],
        )
        for i, name in enumerate(HOSTILE)
    ]
    show = registry.get("opc").presentation()
    plots = benchmark_plots(show, subs)
    assert [p.file for p in plots] == ["opc-tpr_tnr.svg"]
    text = _texts(plots[0].svg)
    for name in HOSTILE:
        assert name in text  # verbatim text, "$" not turned into math
    assert "<script>" not in plots[0].svg
    assert benchmark_plots(show, subs)[0].svg == plots[0].svg


def test_heatmap_curves_and_bars_from_their_scores() -> None:
    cells = [{"expert": e, "predicted": p, "count": 3 if e == p else e}
             for e in range(8) for p in range(8)]  # fmt: skip
    proofbench = benchmark_plots(
        registry.get("proofbench").presentation(),
        [_sub(HOSTILE[0], "reproduced", [_score("mae", 1.0)], confusion_matrix=cells)],
    )
    assert [p.file for p in proofbench] == ["proofbench-confusion_heatmap-1.svg"]
    numbers = _texts(proofbench[0].svg).split()
    assert numbers.count("3") >= 8 and "7" in numbers  # diagonal 3s, expert-7 row 7s
    k_scores = [_score(m, v, "k", str(k)) for k in (1, 2, 3)
                for m, v in (("precision", 0.5), ("recall", 0.2 * k))]  # fmt: skip
    arxiv = benchmark_plots(
        registry.get("arxivmathgradingbench").presentation(),
        [_sub("a", "reproduced", [_score("f1", 0.3), *k_scores])],
    )
    assert [p.file for p in arxiv] == ["arxivmathgradingbench-k_curve.svg"]
    bon = [_score(m, v, "bon", f"n={n}") for n in (1, 4, 16)
           for m, v in (("bon_score", 3 + n / 16), ("bon_oracle", 5.0), ("bon_first_n_mean", 3.0))]  # fmt: skip
    plots = benchmark_plots(
        registry.get("proofbench_bon").presentation(),
        [_sub("judge", "reported", [_score("bon_score", 4.0), *bon])],
    )
    text = _texts(plots[0].svg)
    assert "oracle" in text and "mean of first n" in text and "judge (paper)" in text
    # No judge gives the plotted metric: no figure rather than an empty one.
    assert benchmark_plots(registry.get("stepmathbench").presentation(), [
        _sub("j", "reproduced", [_score("mse", 1.0)])]) == []  # fmt: skip


def test_a_benchmark_joins_the_overview_through_its_spec(tmp_path: Path) -> None:
    """A leaderboard document with ExpertMath scores (no store or dataset needed): the
    overview gains its column with the spec's headline, scaled, and the reported row's
    badge; the benchmark page shows its scope tab."""
    created = "2026-01-01T00:00:00+00:00"
    sub = {
        "id": "s1", "benchmark": "b", "judge": "ranker", "source": "reported", "provenance": "paper",
        "citation": "CBU, arXiv:2601.00001",
        "coverage": 1.0, "partial": False, "dataset_version": "1", "content_hash": "sha256:x",
        "meta": {}, "sha256": "0" * 64, "created": created, "n_items": 4, "runs": 1,
        "runs_agg": "mean", "fields": ["score"], "bootstrap": {}, "mathjudge_version": "0",
        "extras": {},
        "scores": [_score("auc", 0.8125, ci=(0.7, 0.9)), _score("auc", 0.75, "problem_kind", "variant")],
    }  # fmt: skip
    presentation = dataclasses.asdict(registry.get("expertmath").presentation())
    doc = {
        "schema_version": 5, "datasets": [],
        "generated_from": {"store": "r.duckdb", "submissions_in_store": 1,
                           "mathjudge_version": "0", "latest_submission": created},
        "benchmarks": [{"name": "expertmath", "presentation": presentation,
                        "downloads": download_names("expertmath"), "submissions": [sub],
                        "ranks": {"status": "not ranked: no reproduced judge"}}],
    }  # fmt: skip
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "leaderboard.json").write_text(json.dumps(doc), encoding="utf-8")
    index = render_site(tmp_path).read_text(encoding="utf-8")
    assert "ExpertMath-style</a>" in index and "AUC ×100" in index
    assert "81.2" in index and "[70.0, 90.0]" in index  # ×100, one decimal, as the spec says
    assert 'href="https://arxiv.org/abs/2601.00001"' in index
    assert 'class="badge src-paper"' in index and "copied from a paper" in index
    page = (tmp_path / "expertmath.html").read_text(encoding="utf-8")
    assert "Originals and variants" in page and "Problems: variant" in page


def test_the_glance_says_why_a_lone_judge_is_not_ranked(tmp_path: Path) -> None:
    """One reproduced judge at full coverage has no rival to be ranked against: the glance
    says so in words, not as the badge 'unranked' followed by 'not ranked'."""
    created = "2026-01-01T00:00:00+00:00"
    sub = {
        "id": "s1", "benchmark": "b", "judge": "lonely", "source": "reproduced", "citation": None,
        "coverage": 1.0, "partial": False, "dataset_version": "1", "content_hash": "sha256:x",
        "meta": {}, "sha256": "0" * 64, "created": created, "n_items": 4, "runs": 1,
        "runs_agg": "mean", "fields": ["score"], "bootstrap": {"B": 10, "seed": 1, "unit": "item"},
        "mathjudge_version": "0", "extras": {}, "example": False, "model": None,
        "scores": [_score("auc", 0.8125, ci=(0.7, 0.9))],
    }  # fmt: skip
    presentation = dataclasses.asdict(registry.get("expertmath").presentation())
    reason = {"kind": "alone", "text": "fewer than two comparable judges"}
    doc = {
        "schema_version": 5, "datasets": [],
        "generated_from": {"store": "r.duckdb", "submissions_in_store": 1,
                           "mathjudge_version": "0", "latest_submission": created},
        "benchmarks": [{"name": "expertmath", "presentation": presentation,
                        "downloads": download_names("expertmath"), "submissions": [sub],
                        "ranks": {"status": "not ranked: fewer than two comparable judges",
                                  "excluded": {"s1": reason}}}],
    }  # fmt: skip
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "leaderboard.json").write_text(json.dumps(doc), encoding="utf-8")
    index = render_site(tmp_path).read_text(encoding="utf-8")
    glance = index[index.index('class="glance"') : index.index("</section>")]
    assert (
        "lonely" in glance
        and 'no ranking</span><span class="reason">: fewer than two comparable judges' in glance
    )
    assert "unranked, not ranked" not in index
