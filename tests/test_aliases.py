"""The curated alias table (model identity) and the reported-vs-reproduced comparison.

The table is data reviewed like code, so its entries are checked against the judges that
really exist: every reported entry against the papers' tables in the shared mirror, every
reproduced one against the baselines and the published judge outputs the demo scores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
from mathjudge.document.aliases import (
    assemble,
    compare_pair,
    parse_aliases,
    parse_models,
    table,
)
from mathjudge.document.reported import load_reported
from mathjudge.spec.results import Score, Submission


def _existing(mirror: Path) -> set[tuple[str, str, str]]:
    found = {(r.benchmark, "reported", r.judge) for r in load_reported(mirror / "reported")}
    for spec in registry.specs():
        found |= {(spec.name, "reproduced", b.judge_name) for b in spec.baselines}
        if spec.outputs:
            converted = registry.resolve(spec.name, spec.outputs)(spec.name, mirror)
            found |= {(spec.name, "reproduced", c.judge) for c in converted}
    return found


def test_every_entry_names_a_judge_that_exists(mirror: Path) -> None:
    existing = _existing(mirror)
    aliases = table()
    listed = [(j.benchmark, j.source, j.judge) for m in aliases.models for j in m.judges]
    assert len(listed) > 100
    assert [key for key in listed if key not in existing] == []
    # The names the issue found unlinked are one model now, each with its configuration.
    gpt4o = next(m for m in aliases.models if m.id == "gpt-4o")
    variants = {(j.benchmark, j.judge): j.variant for j in gpt4o.judges}
    assert variants[("mumath", "GPT-4o")] == "CoT prompt"
    assert variants[("proofbench", "gpt-4o (MS)")] == "+ marking scheme"
    assert variants[("stepmathbench", "GPT-4oV2")] == "process-aware prompt (V2)"
    pairs = {(p.benchmark, p.reported, p.reproduced) for p in aliases.pairs}
    assert ("stepmathbench", "RuleEM", "RuleEM (final-answer match)") in pairs
    # Every judge reproduced from published outputs whose paper prints a number is paired:
    # JudgeBench's o1-mini and five reward models, RewardMATH's 9 + 4 quoted reward models.
    assert sum(b == "judgebench" for b, _, _ in pairs) == 6
    assert sum(b == "rewardmath" for b, _, _ in pairs) == 13
    # ReaLMistake: each of the 12 judges of the paper's simple-prompt table.
    assert sum(b == "realmistake" for b, _, _ in pairs) == 12
    # A pipeline on a model is never the model itself.
    o1_mini = next(m for m in aliases.models if m.id == "o1-mini")
    arena = {j.judge: j.pipeline for j in o1_mini.judges if j.benchmark == "judgebench"}
    assert arena == {
        "o1-mini (Arena-Hard judge)": "Arena-Hard judge prompt",
        "Arena-Hard Judge (o1-mini)": "Arena-Hard judge prompt",
    }


def test_a_submission_names_its_model_in_meta() -> None:
    aliases = table()
    model, variant, pipeline = aliases.model_of(
        "opc", "reproduced", "my grader", {"model": "GPT-4o-2024-08-06"}
    )
    assert (model.id, variant, pipeline) == ("gpt-4o", "my grader", None)
    assert aliases.model_of("opc", "reported", "my grader", {"model": "gpt-4o"}) is None
    assert aliases.model_of("opc", "reproduced", "x", {"model": "no such model"}) is None
    assert aliases.model_of("opc", "reproduced", "x", {"model": ["gpt-4o"]}) is None


def test_bad_alias_files_are_refused_with_the_reason() -> None:
    models = parse_models("models:\n  - {id: a, name: A}\n  - {id: b, name: B}\n", "models.yaml")
    judge = "{model: a, source: reported, judge: J}"

    def aliases(text: str) -> dict:
        return {"b": (parse_aliases(text, "b/aliases.yaml"), "b/aliases.yaml")}

    twice = f"judges:\n  - {judge}\n  - {{model: b, source: reported, judge: J}}\n"
    with pytest.raises(
        MathJudgeError, match=r"'b', 'reported', 'J'\) is listed under both a and b"
    ):
        assemble(models, aliases(twice))
    pair = f"judges:\n  - {judge}\npairs:\n  - {{reported: J, reproduced: K}}\n"
    with pytest.raises(MathJudgeError, match="must be listed under one model"):
        assemble(models, aliases(pair))
    unknown = "judges:\n  - {model: zz, source: reported, judge: J}\n"
    with pytest.raises(
        MathJudgeError, match=r"b/aliases\.yaml: judges\.0 \('J'\) names model 'zz'"
    ):
        assemble(models, aliases(unknown))
    with pytest.raises(MathJudgeError, match=r"t\.yaml: not a valid alias file"):
        parse_models("models:\n  - {id: 'Bad Id', name: A}\n", "t.yaml")
    with pytest.raises(MathJudgeError, match=r"t\.yaml: not a valid alias file"):
        parse_models("models: []\nextra: 1\n", "t.yaml")
    with pytest.raises(MathJudgeError, match=r"t\.yaml: not a valid alias file"):
        parse_aliases(f"judges:\n  - {{benchmark: b, {judge[1:]}\n", "t.yaml")


def test_a_benchmark_brings_its_aliases_in_its_folder() -> None:
    """Every benchmark whose judges are tied to models says so in its own folder; models.yaml
    holds models only (a judge entry there is refused)."""
    folders = {n for n in registry.names() if (registry.folder(n) / "aliases.yaml").is_file()}
    assert {"judgebench", "rewardmath", "stepmathbench", "processbench"} <= folders
    listed = {j.benchmark for m in table().models for j in m.judges}
    assert listed == folders
    with pytest.raises(MathJudgeError, match="not a valid alias file"):
        parse_models(
            "models:\n  - {id: a, name: A, judges: [{model: a, source: reported, judge: J}]}\n",
            "m.yaml",
        )


def _score(metric: str, value: float, low: float | None = None, high: float | None = None):
    return Score("type", "Calculation", metric, value, low, high, 10)


def _stored(sid: str, scores: list[Score], meta: dict | None = None) -> Submission:
    """A stored result with these scores (the other facts play no part in a comparison)."""
    return Submission(
        id=sid, benchmark="b", dataset_version="1", content_hash="h", judge=sid, meta=meta or {},
        sha256="s", created="2025-01-01T00:00:00+00:00", partial=False, coverage=1.0, n_items=10,
        runs=1, runs_agg="mean", fields=[], bootstrap={}, source="reported", citation=None,
        mathjudge_version="0", extras={}, scores=scores,
    )  # fmt: skip


def test_paper_values_outside_our_interval_are_flagged() -> None:
    """The issue's example: the paper's RuleEM Ans Corr 72.6 against ours 89.2 [84.1, 93.3]."""
    paper = _stored("p", [
        _score("answer_corr", 0.726), _score("answer_overlap", 0.854),
        _score("answer_mse", 0.146), _score("only_in_paper", 0.5),
    ])  # fmt: skip
    ours = _stored("o", [
        _score("answer_corr", 0.892, 0.841, 0.933),
        _score("answer_overlap", 0.943, 0.854, 0.966),  # on the lower bound: inside
        _score("answer_mse", 0.057),  # no interval: nothing to test
    ])  # fmt: skip
    result = compare_pair(paper, ours)
    rows = {r.metric: r for r in result.rows}
    assert set(rows) == {"answer_corr", "answer_overlap", "answer_mse"}
    assert rows["answer_corr"].outside is True
    assert rows["answer_overlap"].outside is False
    assert rows["answer_mse"].outside is None
    assert result.n_outside == 1
    assert (result.reported, result.reproduced) == ("p", "o")


def _cell(metric: str, value: float, low: float | None = None, high: float | None = None):
    return Score("overall", "all", metric, value, low, high, 56)


def test_verdicts_round_our_value_as_the_paper_prints_it() -> None:
    """Hand-computed: 37/56 = 66.0714...% prints as 66.07 (exact); 0.70049 prints 70.0 at one
    decimal (exact: the trailing zero is the paper's precision), 0.70051 prints 70.1; 76/483 =
    15.7349...% prints 15.73, not the 15.74 of a paper that rounded twice (within the CI);
    a value outside the CI and one with no CI are told apart."""
    printed = {
        "overall/all/math": {"text": "66.07", "scale": 100},
        "overall/all/one_decimal": {"text": "70.0", "scale": 100},
        "overall/all/one_decimal_off": {"text": "70.0", "scale": 100},
        "overall/all/twice_rounded": {"text": "15.74", "scale": 100},
        "overall/all/far": {"text": "50.00", "scale": 100},
        "overall/all/no_interval": {"text": "50.00", "scale": 100},
    }
    paper = _stored("p", [
        _cell("math", 0.6607), _cell("one_decimal", 0.7), _cell("one_decimal_off", 0.7),
        _cell("twice_rounded", 0.1574), _cell("far", 0.5), _cell("no_interval", 0.5),
    ], meta={"printed": printed})  # fmt: skip
    ours = _stored("o", [
        _cell("math", 37 / 56, 0.53, 0.78), _cell("one_decimal", 0.70049, 0.6, 0.8),
        _cell("one_decimal_off", 0.70051, 0.6, 0.8), _cell("twice_rounded", 76 / 483, 0.12, 0.19),
        _cell("far", 0.6, 0.55, 0.65), _cell("no_interval", 0.6),
    ])  # fmt: skip
    verdicts = {r.metric: r.verdict for r in compare_pair(paper, ours).rows}
    assert verdicts == {
        "math": "exact",
        "one_decimal": "exact",
        "one_decimal_off": "within_ci",
        "twice_rounded": "within_ci",
        "far": "outside_ci",
        "no_interval": "no_ci",
    }
    # The pair's verdict is the worst row of the headline; all rows without one.
    assert compare_pair(paper, ours, "math").verdict == "exact"
    assert compare_pair(paper, ours, "twice_rounded").verdict == "within_ci"
    assert compare_pair(paper, ours).verdict == "outside_ci"
    # A paper value with no printed cell recorded can only be judged by the interval.
    bare = _stored("p", [_cell("math", 0.6607)])
    assert compare_pair(bare, ours).rows[0].verdict == "within_ci"
