"""Model metadata in the curated model table (issue 27): type, parameters, open weights,
licence and release date, each only where a source in the shared data states it, checked here
against those sources; a fact without its source is refused."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from mathjudge.base.errors import MathJudgeError
from mathjudge.document.aliases import parse_models, table
from mathjudge.site.modelpages import facts_view
from mathjudge.spec.document import ModelFacts


def _texts(mirror: Path) -> str:
    """Every SOURCE.md of the mirror and the papers' tables, as one text to search."""
    parts = [p.read_text(encoding="utf-8") for p in sorted(mirror.glob("*/SOURCE.md"))]
    parts += [p.read_text(encoding="utf-8") for p in sorted((mirror / "reported").glob("*.csv"))]
    return " ".join("\n".join(parts).split())  # lines wrapped anywhere read as one


def test_every_stated_fact_is_found_in_the_shared_data(mirror: Path) -> None:
    models = table().models
    stated = [m for m in models if m.facts_from]
    assert len(stated) >= 30
    texts = _texts(mirror)
    groups = {
        r["model"]: r["group"]
        for r in csv.DictReader((mirror / "reported" / "processbench_paper_table.csv").open())
        if r["table"] == "3"
    }
    for m in stated:
        where = m.facts_from or ""
        # Open-source / proprietary as ProcessBench groups the named model.
        named = re.search(r"Table 3 \((open-source|proprietary) [a-z ]+?(?:: ([^)]+))?\)", where)
        if named and named.group(2):
            group = groups[named.group(2)]
            assert group.lower().startswith(named.group(1)), (m.id, group)
            assert m.open_weights is (named.group(1) == "open-source"), m.id
        # A release date is the date of a version string the sources name.
        if m.released:
            version = re.search(r"version (\S+)", where)
            assert version, m.id
            assert version.group(1) in texts, (m.id, version.group(1))
            digits = re.sub(r"\D", "", version.group(1))
            assert m.released.replace("-", "") in digits, (m.id, m.released)
        # Parameters as the model's published name states them.
        if m.parameters:
            names = " ".join([m.name, *m.aliases]).upper().replace(" ", "-")
            assert m.parameters.upper() in names, (m.id, m.parameters)
            # Where the source is named with the name, that name is the sources' own.
            quoted = re.search(r"the model's name, (\S+) as", where)
            if quoted:
                assert quoted.group(1) in texts, (m.id, quoted.group(1))
                assert m.parameters.upper() in quoted.group(1).upper(), (m.id, m.parameters)
        if m.license:  # as the model's authors state it for its weights
            assert f"{m.name}: {m.license}" in texts, m.id
    gpt4o = next(m for m in models if m.id == "gpt-4o")
    assert (gpt4o.type, gpt4o.open_weights, gpt4o.released) == (
        "proprietary LLM",
        False,
        "2024-05-13",
    )
    reasoneval = next(m for m in models if m.id == "reasoneval-34b")
    assert (reasoneval.type, reasoneval.license) == ("PRM", "Apache-2.0")
    # Nothing is guessed: no source here states Claude 3.5 Sonnet's weights or parameters.
    sonnet = next(m for m in models if m.id == "claude-3.5-sonnet")
    assert (sonnet.type, sonnet.open_weights, sonnet.parameters) == (None, None, None)
    # ReaLMistake's judges: their names state their sizes, and no source here states anything
    # else of them (Gemini 1.0 Pro's name states no size).
    llama2 = next(m for m in models if m.id == "llama-2-70b-chat")
    assert (llama2.parameters, llama2.type, llama2.open_weights) == ("70B", None, None)
    gemini = next(m for m in models if m.id == "gemini-1.0-pro")
    assert gemini.facts() == ModelFacts()


def test_a_fact_without_its_source_is_refused() -> None:
    with pytest.raises(MathJudgeError, match="facts without `facts_from`"):
        parse_models("models:\n  - {id: a, name: A, parameters: 7B}\n", "models.yaml")
    with pytest.raises(MathJudgeError, match="not a valid alias file"):
        parse_models("models:\n  - {id: a, name: A, type: robot, facts_from: x}\n", "models.yaml")


def test_the_pages_say_what_is_stated_and_what_is_not() -> None:
    llama = next(m for m in table().models if m.id == "llama-3.1-8b")
    view = facts_view(llama.facts())
    assert view.stated == (("Type", "open LLM"), ("Parameters", "8B"), ("Open weights", "yes"))
    assert view.unstated == ("licence", "released") and "ProcessBench" in view.sources
