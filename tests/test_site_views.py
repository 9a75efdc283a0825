"""The site's view models on hand-made documents whose answers are known by construction: the
glance and its verdict under every filter, the front page's rows, the chart, the models table,
the n of a headline computed on a subset, and the item pages' addresses."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import matplotlib.axes
import pytest
from pydantic import TypeAdapter

from mathjudge import registry
from mathjudge.base.names import canonical
from mathjudge.site import board as boards
from mathjudge.site.items import natural_key, show_value
from mathjudge.site.itemviews import item_href
from mathjudge.site.modelpages import BenchRef, Context, cross_view
from mathjudge.site.plots import benchmark_plots
from mathjudge.site.render import Benchmark
from mathjudge.site.views import (
    counts,
    judge_ref,
    meta_text,
    metric_table,
    metrics,
    standing,
)
from mathjudge.spec.document import (
    BenchmarkDocument,
    BoardSubmission,
    Comparison,
    ModelDocument,
)

BOARD = TypeAdapter(BoardSubmission)

PAPER = "Some paper (arXiv:2501.00001)"


def _score(metric: str, value: float | None, ci=None, scope="overall", subset="all", n=10):
    low, high = ci if ci else (None, None)
    return {"scope": scope, "subset": subset, "metric": metric, "value": value,
            "ci_low": low, "ci_high": high, "n": n}  # fmt: skip


def _sub(sid: str, judge: str, provenance: str, value: float | None, ci=None, coverage=1.0,
         metric="macro_f1", **kw: Any) -> dict[str, Any]:  # fmt: skip
    return {
        "id": sid, "benchmark": "b", "judge": judge,
        "source": "reported" if provenance == "paper" else "reproduced",
        "provenance": provenance, "citation": PAPER if provenance == "paper" else None,
        "coverage": coverage, "partial": coverage < 1, "dataset_version": "1",
        "content_hash": "sha256:x", "meta": {}, "sha256": "0" * 64,
        "created": "2025-01-01T00:00:00+00:00", "n_items": 10, "runs": 1, "runs_agg": "mean",
        "fields": ["verdict"], "bootstrap": {}, "mathjudge_version": "0", "extras": {},
        "scores": [_score(metric, value, ci)], **kw,
    }  # fmt: skip


def _bench(name: str, subs: list[dict[str, Any]], ranks: dict[str, Any]) -> BenchmarkDocument:
    return BenchmarkDocument.model_validate(
        {
            "name": name,
            "presentation": registry.get(name).presentation(),
            "submissions": subs,
            "ranks": ranks,
        }
    )


def _ranked(entries: dict[str, tuple[int, int, int, int]], excluded=None) -> dict[str, Any]:
    return {
        "status": "ranked",
        "judges": {
            sid: {"value": 0.0, "rank": r, "rank_low": lo, "rank_high": hi, "group": g}
            for sid, (r, lo, hi, g) in entries.items()
        },
        "excluded": excluded or {},
    }


def _parts(bench: BenchmarkDocument):  # type: ignore[no-untyped-def]
    cols = metrics(bench.presentation, bench.submissions)
    refs = {s.id: judge_ref(s) for s in bench.submissions}
    standings = {s.id: standing(bench, s, cols.headline.label) for s in bench.submissions}
    return cols, refs, standings, boards.entries(bench, cols, refs, standings)


def _state(states: list[boards.FilterState], sources: tuple[str, ...], kind: str = "all") -> str:
    return next(s.key for s in states if s.sources == sources and s.kind == kind)


def _line(glance: boards.Glance, key: str) -> boards.GlanceLine:
    """The line the page's script shows for a state: the one listing it, else the fallback."""
    listed = [line for line in glance.lines if key in line.when]
    return listed[0] if listed else next(line for line in glance.lines if line.when == ("*",))


EXCLUDED = {
    "p": {"kind": "reported", "text": "reported in a paper"},
    "h": {"kind": "partial", "text": "partial: 71.7% of the items answered"},
    "u": {"kind": "undefined", "text": "Macro F1 is undefined for it"},
}


def _opc(ranks: dict[str, tuple[int, int, int, int]]) -> BenchmarkDocument:
    subs = [
        _sub("a", "alpha", "submitted", 0.80, (0.75, 0.85), kind="llm_judge"),
        _sub("b", "beta", "published_outputs", 0.70, (0.65, 0.75), kind="reward_model"),
        _sub("p", "paper judge", "paper", 0.90),
        _sub("h", "half", "submitted", 0.95, (0.9, 0.99), coverage=0.717, kind="llm_judge"),
        _sub("u", "undefined", "submitted", None),
    ]
    return _bench("opc", subs, _ranked(ranks, EXCLUDED))


def test_the_glance_names_leader_metric_interval_n_and_a_verdict_that_follows_the_filters() -> None:
    bench = _opc({"a": (1, 1, 1, 1), "b": (2, 2, 2, 2)})
    cols, refs, _, placed = _parts(bench)
    # By value, best first; paper and partial rows placed by value; undefined left out.
    assert [e.judge.judge for _, e in placed] == ["half", "paper judge", "alpha", "beta"]
    states = boards.filter_states(refs[s.id].kind for s in bench.submissions)
    assert len(states) == 8 * 4  # every set of sources x (all, llm_judge, reward_model, unstated)
    glance = boards.glance(bench, "Open Proof Corpus", "opc.html", cols, placed, states)
    assert (glance.metric.name, glance.metric.direction_text) == (
        "Macro F1 ×100",
        "higher is better",
    )
    everything = _line(glance, states[0].key)
    assert everything.default and everything.top is not None
    assert (everything.top.judge.judge, everything.verdict) == ("alpha", "lead")
    assert (everything.top.cell.text, everything.top.cell.ci, everything.top.cell.n) == (
        "80.0", "[75.0, 85.0]", 10,
    )  # fmt: skip
    assert (
        everything.verdict_text == "significant lead"
        and "1 other ranked judge" in everything.reason
    )
    assert everything.higher is not None and everything.higher.judge.judge == "half"
    # Only the papers' results: nothing ranked is shown, and the glance says why.
    papers = _line(glance, _state(states, ("paper",)))
    assert papers.top is not None and papers.top.judge.judge == "paper judge"
    assert papers.verdict == "none" and "copied from a paper" in papers.reason
    # Hiding the leader's source: the best shown is not called the leader of the benchmark.
    outputs = _line(glance, _state(states, ("published_outputs", "paper")))
    assert outputs.top is not None and outputs.top.judge.judge == "beta"
    assert outputs.verdict == "filtered" and "alpha, is hidden by the filters" in outputs.reason
    # A kind the leader is not: the same.
    rewards = _line(
        glance, _state(states, ("submitted", "published_outputs", "paper"), "reward_model")
    )
    assert rewards.top is not None and rewards.top.judge.judge == "beta"
    nothing = _line(glance, _state(states, ()))
    assert nothing.top is None and nothing.verdict == "empty"
    # Lines are rendered once per distinct text; exactly one is the fallback.
    assert sum(line.when == ("*",) for line in glance.lines) == 1
    assert len({line.model_dump_json() for line in glance.lines}) == len(glance.lines)
    # Two judges in one tie group: the lead is not significant.
    tied = _opc({"a": (1, 1, 2, 1), "b": (2, 1, 2, 1)})
    cols, refs, _, placed = _parts(tied)
    line = _line(boards.glance(tied, "x", "x", cols, placed, states), states[0].key)
    assert line.verdict == "tied" and line.verdict_text == "tied with 1" and "beta" in line.reason


def test_the_front_page_rows_cover_the_top_of_every_filter_state() -> None:
    subs = [_sub(f"p{i}", f"paper {i}", "paper", 0.9 - i / 100) for i in range(6)]
    subs += [
        _sub("a", "alpha", "submitted", 0.5, (0.4, 0.6)),
        _sub("b", "beta", "submitted", 0.4, (0.3, 0.5)),
    ]
    excluded = {f"p{i}": {"kind": "reported", "text": "paper"} for i in range(6)}
    bench = _bench("opc", subs, _ranked({"a": (1, 1, 1, 1), "b": (2, 2, 2, 2)}, excluded))
    cols, refs, _, placed = _parts(bench)
    states = boards.filter_states(refs[s.id].kind for s in bench.submissions)
    glance = boards.glance(bench, "x", "x", cols, placed, states)
    made = boards.board(glance, placed, states, counts(bench.submissions).text, len(subs))
    shown = [r.entry.judge.judge for r in made.rows]
    # Everything shown: the five best values (papers) and the ranked leader below them; the
    # reproduced-only state adds beta; the sixth paper is in no state's top five.
    assert shown == ["paper 0", "paper 1", "paper 2", "paper 3", "paper 4", "alpha", "beta"]
    assert [r.default for r in made.rows] == [True] * 6 + [False]
    assert made.count_text == "8 results (2 reproduced, 6 paper)"


def test_a_headline_on_a_subset_shows_its_own_n() -> None:
    """JudgeBench's headline is its math pairs: the n beside it is theirs, not all pairs'."""
    scores = [
        _score("math_accuracy", 0.82, (0.7, 0.9), n=56),
        _score("accuracy", 0.6, (0.55, 0.65), n=350),
    ]
    sub = _sub("a", "o1-mini", "published_outputs", None, scores=scores)
    bench = _bench("judgebench", [sub], {"status": "not ranked: fewer than two comparable judges"})
    cols, refs, standings, placed = _parts(bench)
    table = metric_table("x", bench, cols, "overall", "all", refs=refs, standings=standings)
    (row,) = table.rows
    assert row.n == 56 and row.n_mixed
    assert [c.n for c in row.cells][:2] == [56, 350]
    (_, entry), = placed  # fmt: skip
    assert entry.cell.n == 56 and entry.judge.source.label == "converted"


def test_the_chart_places_points_and_draws_whiskers_only_for_intervals() -> None:
    subs = [
        _sub("a", "alpha", "submitted", 0.5, (0.4, 0.6)),
        _sub("p", "paper", "paper", 0.7),
    ]
    bench = _bench("opc", subs, {"status": "not ranked: fewer than two comparable judges"})
    cols, _, _, placed = _parts(bench)
    ch = boards.chart(cols, placed)
    # Axis: 0.4 .. 0.7, padded by 5% of 0.3 on each side -> 0.385 .. 0.715.
    (paper, alpha) = ch.rows
    assert paper.entry.judge.judge == "paper" and (paper.low, paper.high) == (None, None)
    assert paper.point == pytest.approx(round(100 * (0.7 - 0.385) / 0.33, 2))
    assert alpha.point == pytest.approx(round(100 * (0.5 - 0.385) / 0.33, 2))
    assert alpha.low == pytest.approx(round(100 * (0.4 - 0.385) / 0.33, 2))
    assert alpha.high == pytest.approx(round(100 * (0.6 - 0.385) / 0.33, 2))
    assert [t for _, t in ch.ticks] == ["40.0", "50.0", "60.0", "70.0"]  # ×100, one decimal


def _context(bench: BenchmarkDocument) -> Context:
    cols, refs, standings, _ = _parts(bench)
    ref = BenchRef(
        name=bench.name, title=bench.name, page=f"{bench.name}.html", metric=cols.headline
    )
    return Context(bench=bench, ref=ref, cols=cols, refs=refs, standings=standings, comparisons=())


def test_models_table_labels_sources_and_keeps_configurations_apart() -> None:
    model = {"id": "m", "name": "Model M", "variant": ""}
    agent = {**model, "pipeline": "StepAgent"}
    opc = _bench("opc", [
        _sub("a", "m-cot", "submitted", 0.6, (0.5, 0.7), model={**model, "variant": "CoT"}),
        _sub("b", "m-auto", "paper", 0.7, model={**model, "variant": "AutoCoT"}),
        _sub("c", "solo", "submitted", 0.9),
        _sub("g", "m agent", "paper", 0.95, model=agent),
    ], {"status": "x"})  # fmt: skip
    mumath = _bench("mumath", [_sub("d", "m", "paper", 0.5, model=model),
                               _sub("e", "m agent", "paper", 0.4, model=agent)], {"status": "x"})  # fmt: skip
    models = [ModelDocument.model_validate({"id": "m", "name": "Model M", "results": [
        {"benchmark": "opc", "submission": "a", "judge": "m-cot", "source": "reproduced", "variant": "CoT"},
        {"benchmark": "opc", "submission": "b", "judge": "m-auto", "source": "reported", "variant": "AutoCoT"},
        {"benchmark": "opc", "submission": "g", "judge": "m agent", "source": "reported", "variant": ""},
        {"benchmark": "mumath", "submission": "d", "judge": "m", "source": "reported", "variant": "CoT"},
        {"benchmark": "mumath", "submission": "e", "judge": "m agent", "source": "reported", "variant": ""},
    ]})]  # fmt: skip
    cross = cross_view([_context(opc), _context(mumath)], models)
    # The agent built on the model is a row of its own, never the model's value.
    assert [r.name for r in cross.rows] == ["Model M", "StepAgent (on Model M)"]
    assert [b.name for b in cross.benchmarks] == ["opc", "mumath"]
    opc_cell, mumath_cell = cross.rows[0].cells
    # Best first, each candidate labelled: the paper's 70.0, then our 60.0 with its interval.
    assert [(c.cell.text, c.judge.source.label, c.variant) for c in opc_cell.candidates] == [
        ("70.0", "paper", "AutoCoT"),
        ("60.0", "reproduced", "CoT"),
    ]
    assert opc_cell.candidates[1].cell.ci == "[50.0, 70.0]"
    assert [c.cell.text for c in mumath_cell.candidates] == ["50.0"]
    agent_opc = cross.rows[1].cells[0].candidates[0]
    assert agent_opc.judge.source.configuration == "StepAgent" and agent_opc.cell.text == "95.0"


def _rewardmath_board() -> BenchmarkDocument:
    """Our InternLM2-7B-Reward, the paper's row of it under another spelling (declared its
    pair, so its identity is ours), another judge, and two shortcut baselines, which publish
    excludes from the ranks."""
    ours = canonical("InternLM2-7B-Reward")
    subs = [
        _sub("a", "InternLM2-7B-Reward", "published_outputs", 0.3727, (0.33, 0.42),
             metric="accuracy", kind="reward_model"),
        _sub("p", "Internlm2-7b-reward", "paper", 0.3727, metric="accuracy", identity=ours),
        _sub("b", "Other RM", "published_outputs", 0.20, (0.16, 0.24), metric="accuracy",
             kind="reward_model"),
        _sub("s", "Shortcut (shorter solution)", "submitted", 0.41, (0.37, 0.46),
             metric="accuracy", kind="baseline", reference_note="Scores by minus length. Tells."),
        _sub("l", "Shortcut (longer solution)", "submitted", 0.04, (0.02, 0.06),
             metric="accuracy", kind="baseline"),
    ]  # fmt: skip
    excluded = {
        "p": {"kind": "reported", "text": "reported in a paper"},
        "s": {"kind": "baseline", "text": "a baseline: a reference line"},
        "l": {"kind": "baseline", "text": "a baseline: a reference line"},
    }
    bench = _bench("rewardmath", subs, _ranked({"a": (1, 1, 1, 1), "b": (2, 2, 2, 2)}, excluded))
    comparison = {"reported": "p", "reproduced": "a", "rows": [], "n_outside": 0,
                  "verdict": "exact"}  # fmt: skip
    return bench.model_copy(update={"comparisons": [Comparison.model_validate(comparison)]})


def test_a_papers_row_of_our_judge_is_our_row_and_baselines_are_reference_lines() -> None:
    states = boards.filter_states(["reward_model", "baseline"])
    b = Benchmark(_rewardmath_board(), states)
    assert b.folded == {"p": "a"}
    # One row per judge, the paper's value and verdict in ours; no baseline among them.
    assert [r.judge.judge for r in b.table.rows] == ["InternLM2-7B-Reward", "Other RM"]
    paper = b.table.rows[0].judge.paper
    assert paper is not None and (paper.cell.text, paper.verdict_label) == ("37.27", "exact")
    assert paper.ref.source.label == "paper"
    # The baselines: their own table, a line each across the chart, never the leader even
    # though the shorter solution scores above every judge.
    assert [r.judge.judge for r in b.reference_table.rows] == [
        "Shortcut (shorter solution)", "Shortcut (longer solution)",
    ]  # fmt: skip
    assert b.reference_table.rows[0].judge.note == "Scores by minus length. Tells."
    assert not b.reference_table.ranks
    chart = boards.chart(b.cols, b.placed, b.reference_lines)
    assert [r.entry.judge.judge for r in chart.rows] == ["InternLM2-7B-Reward", "Other RM"]
    assert [line.entry.judge.judge for line in chart.lines] == [
        "Shortcut (shorter solution)", "Shortcut (longer solution)",
    ]  # fmt: skip
    assert chart.rows[0].paper == chart.rows[0].point  # the paper's 37.27 on our row
    for line in b.glance.lines:
        assert line.top is None or line.top.judge.kind != "baseline"
        assert line.higher is None or line.higher.judge.kind != "baseline"
    default = next(line for line in b.glance.lines if line.default)
    assert (default.top.judge.judge, default.verdict) == ("InternLM2-7B-Reward", "lead")  # type: ignore[union-attr]
    front = boards.board(b.glance, b.placed, states, "x", 5, [e for _, e in b.reference_lines])
    assert "Shortcut" not in " ".join(r.entry.judge.judge for r in front.rows)
    assert [e.cell.text for e in front.references] == ["41.00", "4.00"]


def test_a_board_of_baselines_and_papers_says_no_judge_is_reproduced() -> None:
    subs = [
        _sub("p", "o1-mini", "paper", 0.879, metric="f1"),
        _sub("c", "Constant (first paragraph wrong)", "submitted", 0.0, (0.0, 0.0), metric="f1",
             kind="baseline"),
    ]  # fmt: skip
    excluded = {"p": {"kind": "reported", "text": "paper"},
                "c": {"kind": "baseline", "text": "a baseline"}}  # fmt: skip
    bench = _bench("processbench", subs, {"status": "not ranked: x", "excluded": excluded})
    b = Benchmark(bench, boards.filter_states(["baseline"]))
    default = next(line for line in b.glance.lines if line.default)
    assert default.top is not None and default.top.judge.judge == "o1-mini"
    assert "no judge reproduced here yet" in default.reason
    assert [r.judge.judge for r in b.table.rows] == ["o1-mini"]


def test_item_views_are_addressed_safely_and_ordered_naturally() -> None:
    assert item_href("IMOSL_2015_29::gemini/gemini-pro-2.5") == (
        "item.html#IMOSL_2015_29%3A%3Agemini%2Fgemini-pro-2.5"
    )
    assert item_href('"><script>') == "item.html#%22%3E%3Cscript%3E"
    assert sorted(["stepmath-10", "stepmath-2", "stepmath-1"], key=natural_key) == [
        "stepmath-1", "stepmath-2", "stepmath-10",
    ]  # fmt: skip
    assert sorted(["b-2", "a-10", "a-9"], key=natural_key) == ["a-9", "a-10", "b-2"]
    assert [show_value("verdict", v) for v in (1, -1, 0, None)] == [
        "correct", "incorrect", "inconclusive", "none",
    ]  # fmt: skip
    assert show_value("binary", 1.0, gold=True) == "correct" and show_value("score", 7.5) == "7.5"


def test_meta_is_shown_as_a_reader_needs_it() -> None:
    assert meta_text("transcribed_from", '["stepmathbench_table3.csv:5"]') is None
    assert meta_text("tables", '["Table 5", "Table 7"]') == "Table 5, Table 7"
    assert meta_text("notes", "[]") == "none"
    assert meta_text("source", '{"repository": "x"}') == '{"repository": "x"}'
    assert meta_text("prompt", "[not JSON") == "[not JSON"


def test_sources_are_labelled_with_their_paper_link_only_from_an_arxiv_id() -> None:
    paper = judge_ref(BOARD.validate_python(_sub("p", "x", "paper", 0.5)))
    assert (paper.source.label, paper.source.citation_href) == (
        "paper", "https://arxiv.org/abs/2501.00001",
    )  # fmt: skip
    hostile = _sub("q", "y", "paper", 0.5)
    hostile["citation"] = "javascript:alert(1) arXiv: nothing"
    assert judge_ref(BOARD.validate_python(hostile)).source.citation_href == ""
    ours = judge_ref(BOARD.validate_python(_sub("a", "z", "submitted", 0.5, kind="rule")))
    assert (ours.source.label, ours.kind_label) == ("reproduced", "rule")


def test_plots_draw_no_whiskers_without_intervals_and_no_one_point_curves(monkeypatch) -> None:
    drawn: list[int] = []
    real = matplotlib.axes.Axes.errorbar

    def spy(self, x, *args, **kwargs):  # type: ignore[no-untyped-def]
        drawn.append(len(x) if hasattr(x, "__len__") else 1)
        return real(self, x, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "errorbar", spy)
    show = registry.get("stepmathbench").presentation()
    by_type = [_score("corr", 0.5, scope="type", subset=t) for t in ("Proof", "Calculation")]
    reported = BOARD.validate_python(_sub("p", "paper", "paper", None, scores=by_type))
    assert [p.file for p in benchmark_plots(show, [reported])] == ["stepmathbench-scope_bars.svg"]
    assert drawn == []  # the paper gives no interval: none drawn
    ours = BOARD.validate_python(_sub("o", "ours", "submitted", None, scores=[
        _score("corr", 0.4, (0.3, 0.5), "type", "Proof"),
        _score("corr", 0.6, None, "type", "Calculation"),
    ]))  # fmt: skip
    benchmark_plots(show, [ours])
    assert drawn == [1]  # one whisker, for the one value with an interval
    one_n = [_score("bon_score", 4.1, scope="bon", subset="n=16"), _score("bon_score", 4.1)]
    bon = BOARD.validate_python(_sub("j", "j", "paper", None, scores=one_n))
    assert benchmark_plots(registry.get("proofbench_bon").presentation(), [bon]) == []


def test_vendored_katex_matches_its_recorded_checksums() -> None:
    """The KaTeX files are exactly those the README records (from `npm pack katex@VERSION`)."""
    folder = Path(__file__).resolve().parents[1] / "mathjudge" / "site" / "assets" / "katex"
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "katex@0.19.1" in readme and "cdn" not in readme.casefold().replace("no cdn", "")
    recorded = dict(re.findall(r"^\| `([^`]+)` \| `([0-9a-f]{64})` \|$", readme, re.M))
    present = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert set(recorded) == present - {"README.md"}
    assert len([f for f in recorded if f.startswith("fonts/")]) == 20
    for name, digest in recorded.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, name
