"""The curated alias table (model identity) and the reported-vs-reproduced comparison.

The table is data reviewed like code, so its entries are checked against the judges that
really exist: every reported entry against the papers' tables in the shared mirror, every
reproduced one against the baselines and the published judge outputs the demo scores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mathjudge import registry
from mathjudge.errors import MathJudgeError
from mathjudge.publish.aliases import compare_pair, parse, table
from mathjudge.publish.reported import load_reported


def _existing(mirror: Path) -> set[tuple[str, str, str]]:
    found = {(r.benchmark, "reported", r.judge) for r in load_reported(mirror / "reported")}
    for spec in registry.specs():
        found |= {(spec.name, "reproduced", b.judge_name) for b in spec.baselines}
        if spec.outputs:
            converted = spec.resolve(spec.outputs)(spec.name, mirror)
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
    assert [(p.reported, p.reproduced) for p in aliases.pairs] == [
        ("RuleEM", "RuleEM (final-answer match)")
    ]


def test_a_submission_names_its_model_in_meta() -> None:
    aliases = table()
    model, variant = aliases.model_of(
        "opc", "reproduced", "my grader", {"model": "GPT-4o-2024-08-06"}
    )
    assert (model.id, variant) == ("gpt-4o", "my grader")
    assert aliases.model_of("opc", "reported", "my grader", {"model": "gpt-4o"}) is None
    assert aliases.model_of("opc", "reproduced", "x", {"model": "no such model"}) is None
    assert aliases.model_of("opc", "reproduced", "x", {"model": ["gpt-4o"]}) is None


def test_bad_tables_are_refused_with_the_reason() -> None:
    entry = "{benchmark: b, source: reported, judge: J}"
    twice = f"models:\n  - {{id: a, name: A, judges: [{entry}]}}\n  - {{id: b, name: B, judges: [{entry}]}}\n"
    with pytest.raises(MathJudgeError, match=r"t.yaml: .*listed under both a and b"):
        parse(twice, "t.yaml")
    pair = (
        f"models:\n  - {{id: a, name: A, judges: [{entry}]}}\n"
        "pairs:\n  - {benchmark: b, reported: J, reproduced: K}\n"
    )
    with pytest.raises(MathJudgeError, match="must be listed under one model"):
        parse(pair, "t.yaml")
    with pytest.raises(MathJudgeError, match=r"t\.yaml: not a valid alias table"):
        parse("models:\n  - {id: 'Bad Id', name: A}\n", "t.yaml")
    with pytest.raises(MathJudgeError, match=r"t\.yaml: not a valid alias table"):
        parse("models: []\nextra: 1\n", "t.yaml")


def _score(metric: str, value: float, low: float | None = None, high: float | None = None):
    return {"scope": "type", "subset": "Calculation", "metric": metric, "value": value,
            "ci_low": low, "ci_high": high, "n": 10}  # fmt: skip


def test_paper_values_outside_our_interval_are_flagged() -> None:
    """The issue's example: the paper's RuleEM Ans Corr 72.6 against ours 89.2 [84.1, 93.3]."""
    paper = {"id": "p", "scores": [
        _score("answer_corr", 0.726), _score("answer_overlap", 0.854),
        _score("answer_mse", 0.146), _score("only_in_paper", 0.5),
    ]}  # fmt: skip
    ours = {"id": "o", "scores": [
        _score("answer_corr", 0.892, 0.841, 0.933),
        _score("answer_overlap", 0.943, 0.854, 0.966),  # on the lower bound: inside
        _score("answer_mse", 0.057),  # no interval: nothing to test
    ]}  # fmt: skip
    result = compare_pair(paper, ours)
    rows = {r["metric"]: r for r in result["rows"]}
    assert set(rows) == {"answer_corr", "answer_overlap", "answer_mse"}
    assert rows["answer_corr"]["outside"] is True
    assert rows["answer_overlap"]["outside"] is False
    assert rows["answer_mse"]["outside"] is None
    assert result["n_outside"] == 1
    assert (result["reported"], result["reproduced"]) == ("p", "o")
