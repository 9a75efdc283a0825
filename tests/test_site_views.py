"""The front page's view models and the item pages' names and order, on hand-made documents
whose answers are known by construction."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from typing import Any

import matplotlib.axes
import pytest

from mathjudge import registry
from mathjudge.leaderboard.board import board, chart, cross_view
from mathjudge.leaderboard.export import download_names
from mathjudge.leaderboard.pages import item_file, natural_key
from mathjudge.leaderboard.plots import benchmark_plots
from mathjudge.leaderboard.views import benchmark_view, meta_text


def _score(metric: str, value: float | None, ci=None, scope="overall", subset="all"):
    low, high = ci if ci else (None, None)
    return {"scope": scope, "subset": subset, "metric": metric, "value": value,
            "ci_low": low, "ci_high": high, "n": 10}  # fmt: skip


def _sub(sid: str, judge: str, source: str, value: float | None, ci=None, coverage=1.0, **kw):
    return {
        "id": sid, "judge": judge, "source": source, "citation": None, "coverage": coverage,
        "partial": coverage < 1, "dataset_version": "1", "content_hash": "sha256:x", "meta": {},
        "sha256": "0" * 64, "created": "2025-01-01T00:00:00+00:00", "n_items": 10, "runs": 1,
        "runs_agg": "mean", "fields": ["verdict"], "bootstrap": {}, "mathjudge_version": "0",
        "extras": {}, "scores": [_score("macro_f1", value, ci)], **kw,
    }  # fmt: skip


def _bench(name: str, subs: list[dict[str, Any]], ranks: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "presentation": registry.get(name).presentation(),
        "submissions": subs,
        "ranks": ranks,
        "downloads": download_names(name),
    }


def _ranked(entries: dict[str, tuple[int, int, int, int]], excluded=None) -> dict[str, Any]:
    return {
        "status": "ranked",
        "judges": {
            sid: {"value": 0.0, "rank": r, "rank_low": lo, "rank_high": hi, "group": g}
            for sid, (r, lo, hi, g) in entries.items()
        },
        "excluded": excluded or {},
    }


def test_the_leader_and_whether_its_lead_is_significant() -> None:
    subs = [
        _sub("a", "alpha", "reproduced", 0.80, (0.75, 0.85)),
        _sub("b", "beta", "reproduced", 0.70, (0.65, 0.75)),
        _sub("p", "paper judge", "reported", 0.90),
        _sub("h", "half", "reproduced", 0.95, (0.9, 0.99), coverage=0.717),
        _sub("u", "undefined", "reproduced", None),
    ]
    excluded = {
        "p": {"kind": "reported", "text": "reported in a paper"},
        "h": {"kind": "partial", "text": "partial: 71.7% of the items answered"},
        "u": {"kind": "undefined", "text": "Macro F1 is undefined for it"},
    }
    bench = _bench("opc", subs, _ranked({"a": (1, 1, 1, 1), "b": (2, 2, 2, 2)}, excluded))
    view = benchmark_view(bench)
    b = board(view, bench)
    # By value, best first; reported and partial rows placed by value; undefined left out.
    assert [r.judge for r in b.rows] == ["half", "paper judge", "alpha", "beta"]
    assert b.total == 4 and b.n_ranked == 2
    assert b.leader is not None and b.leader.judge == "alpha" and b.tied == ()  # alone in group 1
    assert b.top_unranked is not None and b.top_unranked.judge == "half"
    standing = {r.judge: r.standing for r in b.rows}
    assert (standing["half"].kind, standing["half"].label) == ("partial", "partial 71.7%")
    assert standing["paper judge"].rank is None and standing["alpha"].rank.text == "1"
    # Two judges in one tie group: the lead is not significant; the leader stays listed even
    # when it is not among the first rows.
    tied = _bench("opc", subs, _ranked({"a": (1, 1, 2, 1), "b": (2, 1, 2, 1)}, excluded))
    short = board(benchmark_view(tied), tied, limit=1)
    assert [r.judge for r in short.rows] == ["half", "alpha"]
    assert [t.judge for t in short.tied] == ["beta"]


def test_the_chart_places_points_and_draws_whiskers_only_for_intervals() -> None:
    subs = [
        _sub("a", "alpha", "reproduced", 0.5, (0.4, 0.6)),
        _sub("p", "paper", "reported", 0.7),
    ]
    bench = _bench("opc", subs, {"status": "not ranked: fewer than two comparable judges"})
    view = benchmark_view(bench)
    ch = chart(view, bench, board(view, bench).rows)
    # Axis: 0.4 .. 0.7, padded by 5% of 0.3 on each side -> 0.385 .. 0.715.
    (paper, alpha) = ch.rows
    assert paper.row.judge == "paper" and (paper.low, paper.high) == (None, None)
    assert paper.point == pytest.approx(round(100 * (0.7 - 0.385) / 0.33, 2))
    assert alpha.point == pytest.approx(round(100 * (0.5 - 0.385) / 0.33, 2))
    assert alpha.low == pytest.approx(round(100 * (0.4 - 0.385) / 0.33, 2))
    assert alpha.high == pytest.approx(round(100 * (0.6 - 0.385) / 0.33, 2))
    assert [t for _, t in ch.ticks] == ["40.0", "50.0", "60.0", "70.0"]  # ×100, one decimal


def test_models_are_compared_across_benchmarks_only_where_they_have_two() -> None:
    opc = _bench("opc", [_sub("a", "m-cot", "reproduced", 0.6), _sub("b", "m-auto", "reproduced", 0.7),
                         _sub("c", "solo", "reproduced", 0.9)], {"status": "x"})  # fmt: skip
    mumath = _bench("mumath", [_sub("d", "m", "reported", 0.5)], {"status": "x"})
    docs = [opc, mumath]
    views = [benchmark_view(d) for d in docs]
    models = [
        {"id": "m", "name": "Model M", "results": [
            {"benchmark": "opc", "submission": "a", "judge": "m-cot", "source": "reproduced", "variant": "CoT"},
            {"benchmark": "opc", "submission": "b", "judge": "m-auto", "source": "reproduced", "variant": "AutoCoT"},
            {"benchmark": "mumath", "submission": "d", "judge": "m", "source": "reported", "variant": "CoT"},
        ]},
        {"id": "s", "name": "Solo", "results": [
            {"benchmark": "opc", "submission": "c", "judge": "solo", "source": "reproduced", "variant": ""},
        ]},
    ]  # fmt: skip
    cross = cross_view(views, docs, models)
    assert [r.model["id"] for r in cross.rows] == ["m"]  # Solo is on one benchmark only
    assert [v.name for v in cross.benchmarks] == ["opc", "mumath"]
    best_opc, best_mumath = cross.rows[0].cells
    assert (best_opc.judge, best_opc.variant, best_opc.cell.text) == ("m-auto", "AutoCoT", "70.0")
    assert best_mumath.cell.text == "50.0"


def test_item_pages_are_named_safely_and_ordered_naturally() -> None:
    ids = ["stepmath-10", "stepmath-2", "stepmath-1", "IMOSL_2015_29::gemini/gemini-pro-2.5",
           "A", "a", "index", "2501.01561v1", "../x"]  # fmt: skip
    files = [item_file(i) for i in ids]
    assert len(set(files)) == len(ids)  # distinct, also where only case differs
    assert files[:3] == ["stepmath-10.html", "stepmath-2.html", "stepmath-1.html"]
    assert item_file("2501.01561v1") == "2501.01561v1.html"
    for odd in ("IMOSL_2015_29::gemini/gemini-pro-2.5", "A", "index", "../x"):
        name = item_file(odd)
        assert "/" not in name and not name.startswith(".") and name != "index.html"
    assert sorted(ids[:3], key=natural_key) == ["stepmath-1", "stepmath-2", "stepmath-10"]
    assert sorted(["b-2", "a-10", "a-9"], key=natural_key) == ["a-9", "a-10", "b-2"]


def test_meta_is_shown_as_a_reader_needs_it() -> None:
    assert meta_text("transcribed_from", '["stepmathbench_table3.csv:5"]') is None
    assert meta_text("tables", '["Table 5", "Table 7"]') == "Table 5, Table 7"
    assert meta_text("notes", "[]") == "none"
    assert meta_text("source", '{"repository": "x"}') == '{"repository": "x"}'
    assert meta_text("prompt", "[not JSON") == "[not JSON"


def test_plots_draw_no_whiskers_without_intervals_and_no_one_point_curves(monkeypatch) -> None:
    drawn: list[int] = []
    real = matplotlib.axes.Axes.errorbar

    def spy(self, x, *args, **kwargs):  # type: ignore[no-untyped-def]
        drawn.append(len(x) if hasattr(x, "__len__") else 1)
        return real(self, x, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "errorbar", spy)
    show = registry.get("stepmathbench").presentation()
    by_type = [_score("corr", 0.5, scope="type", subset=t) for t in ("Proof", "Calculation")]
    reported = {"judge": "paper", "source": "reported", "scores": by_type, "extras": {}}
    assert [p.file for p in benchmark_plots(show, {"submissions": [reported]})] == [
        "stepmathbench-scope_bars.svg"
    ]
    assert drawn == []  # the paper gives no interval: none drawn
    ours = {"judge": "ours", "source": "reproduced", "extras": {},
            "scores": [_score("corr", 0.4, (0.3, 0.5), "type", "Proof"),
                       _score("corr", 0.6, None, "type", "Calculation")]}  # fmt: skip
    benchmark_plots(show, {"submissions": [ours]})
    assert drawn == [1]  # one whisker, for the one value with an interval
    one_n = [_score("bon_score", 4.1, scope="bon", subset="n=16"), _score("bon_score", 4.1)]
    bon = {"judge": "j", "source": "reported", "scores": one_n, "extras": {}}
    assert (
        benchmark_plots(registry.get("proofbench_bon").presentation(), {"submissions": [bon]}) == []
    )


def test_benchmark_view_keeps_bootstrap_lines_of_reproduced_results_only() -> None:
    subs = [
        _sub("a", "alpha", "reproduced", 0.8, (0.7, 0.9), bootstrap={"B": 1000, "seed": 4}),
        _sub("p", "paper", "reported", 0.9),
    ]
    view = benchmark_view(_bench("opc", subs, {"status": "x"}))
    assert view.bootstraps == ("B = 1000 resamples, seed 4",) and view.n_reported == 1
    assert dataclasses.asdict(view.headline)["key"] == "macro_f1"


def test_vendored_katex_matches_its_recorded_checksums() -> None:
    """The KaTeX files are exactly those the README records (from `npm pack katex@VERSION`)."""
    folder = Path(__file__).resolve().parents[1] / "mathjudge" / "leaderboard" / "assets" / "katex"
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "katex@0.19.1" in readme and "cdn" not in readme.casefold().replace("no cdn", "")
    recorded = dict(re.findall(r"^\| `([^`]+)` \| `([0-9a-f]{64})` \|$", readme, re.M))
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert set(recorded) == present - {"README.md"}
    assert len([f for f in recorded if f.startswith("fonts/")]) == 20
    for name, digest in recorded.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
