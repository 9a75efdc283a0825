"""Drafting an ExpertMath-style package from real RealMath theorems, with a local stub playing
the generator and two solver models: the agreement filter, the provenance record, the cache and
the package the draft becomes once candidates are added."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from standins import NetworkGuard, OpenAIStub, StubReply

from mathjudge.base.errors import ValidationFailed
from mathjudge.benchmarks.expertmath import build as expertmath
from mathjudge.benchmarks.expertmath.realmath import generate_package
from mathjudge.llm.retry import RetryPolicy
from mathjudge.prompts import load_prompt

pytestmark = pytest.mark.usefixtures("math_verify_unhurried")

FAST = RetryPolicy(attempts=2, initial_wait=0.01, max_wait=0.1, jitter=0.0)


def generation(question: str, answer: str, variants: list[tuple[str, str]]) -> str:
    data = {
        "question": question,
        "answer": answer,
        "solution": f"Solution of {question}",
        "variants": [
            {"question": q, "answer": a, "solution": f"Solution of {q}"} for q, a in variants
        ],
    }
    return f"Some thinking first.\n```json\n{json.dumps(data)}\n```"


# What each solver answers per question (the generated answers: Q0 12, Q0a 3, Q0b 1/2, Q2 7,
# Q2a 5). Solver b misses Q0a, solver a misses Q2a; 0.5 and 1/2 are the same answer.
SOLVED = {
    "solver-a": {"Q0?": "12", "Q0a?": "3", "Q0b?": "0.5", "Q2?": "7", "Q2a?": "6"},
    "solver-b": {"Q0?": "12", "Q0a?": "4", "Q0b?": "\\frac{1}{2}", "Q2?": "7", "Q2a?": "5"},
}


@pytest.fixture(scope="module")
def theorems(mirror: Path) -> list[dict[str, Any]]:
    return json.loads((mirror / "realmath" / "realmath_processed.json").read_text())[:3]


def script_for(theorems: list[dict[str, Any]]):
    replies = [
        generation("Q0?", "12", [("Q0a?", "3"), ("Q0b?", "\\frac{1}{2}")]),
        'No short answer here.\n```json\n{"skip": "the theorem is qualitative"}\n```',
        generation("Q2?", "7", [("Q2a?", "5")]),
    ]

    def script(body: dict[str, Any]) -> StubReply:
        content = body["messages"][0]["content"]
        if body["model"] == "gen":
            index = next(i for i, t in enumerate(theorems) if t["theorem"] in content)
            return StubReply(content=replies[index])
        question = content.split("<<<\n", 1)[1].split("\n>>>", 1)[0]
        return StubReply(content=f"Reasoning.\nANSWER: {SOLVED[body['model']][question]}")

    return script


def run(stub: OpenAIStub, source: Path, out: Path, cache: Path, **kwargs: Any):
    return generate_package(
        source,
        out,
        generator="openai/gen",
        solvers=["openai/solver-a", "openai/solver-b"],
        cache_dir=cache,
        limit=3,
        api_base=stub.api_base,
        api_key="k",
        retry=FAST,
        concurrency=2,
        **kwargs,
    )


def test_agreement_filter_provenance_and_cache(
    mirror: Path, theorems: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = NetworkGuard(monkeypatch)
    source = mirror / "realmath" / "realmath_processed.json"
    out, cache = tmp_path / "draft", tmp_path / "cache"
    with OpenAIStub(script=script_for(theorems)) as stub:
        report = run(stub, source, out, cache)
        assert stub.count == 3 + 2 * 5  # three generations, five questions per solver
        again = run(stub, source, tmp_path / "again", cache)
        assert stub.count == 13  # the second run is replayed from the cache
    assert guard.attempts == []
    assert again.record == report.record

    assert report.funnel == {
        "theorems": 3,
        "generated": 2,
        "skipped": 1,
        "failed": 0,
        "kept": 1,
        "variants_kept": 1,
    }
    record = json.loads((out / "generation.json").read_text())
    assert record["prompt_sha256"] == {
        "expertmath_realmath_question": load_prompt("expertmath_realmath_question").sha256,
        "expertmath_realmath_solve": load_prompt("expertmath_realmath_solve").sha256,
    }
    assert record["generator"] == "openai/gen" and record["min_agreement"] == 1.0
    first, skipped, dropped = record["items"]
    assert first["id"].endswith("-t0") and first["kept"] is True
    assert first["agreement"] == {
        first["id"]: 1.0,
        f"{first['id']}-v1": 0.5,
        f"{first['id']}-v2": 1.0,
    }
    assert first["kept_variants"] == [f"{first['id']}-v2"]
    assert first["answers"][f"{first['id']}-v1"] == {
        "generated": "3",
        "openai/solver-a": "3",
        "openai/solver-b": "4",
    }
    assert skipped["reason"] == "skipped by the generator: the theorem is qualitative"
    assert dropped["kept"] is False and dropped["agreement"][f"{dropped['id']}-v1"] == 0.5

    # The draft is a package that only lacks candidates; with a pool it builds.
    with pytest.raises(ValidationFailed, match="has no correct candidate"):
        expertmath.build(out)
    candidates = out / first["id"] / "candidates"
    candidates.joinpath("h.md").write_text("---\nsource: human\ncorrect: true\n---\nIt is 12.\n")
    candidates.joinpath("m.md").write_text("---\nsource: m\ncorrect: false\n---\nIt is 11.\n")
    built = expertmath.build(out)
    problems = next(t for t in built.tables if t.config == "problems").rows
    assert [(p["problem_id"], p["answer"]) for p in problems] == [
        (first["id"], "12"),
        (f"{first['id']}-v2", "\\frac{1}{2}"),
    ]
    assert problems[0]["title"] == theorems[0]["title"]


def test_lower_threshold_keeps_more(
    mirror: Path, theorems: list[dict[str, Any]], tmp_path: Path
) -> None:
    source = mirror / "realmath" / "realmath_processed.json"
    with OpenAIStub(script=script_for(theorems)) as stub:
        report = run(stub, source, tmp_path / "draft", tmp_path / "cache", min_agreement=0.5)
    assert report.funnel["kept"] == 2 and report.funnel["variants_kept"] == 3


def test_unparseable_generation_is_recorded_not_dropped(
    mirror: Path, theorems: list[dict[str, Any]], tmp_path: Path
) -> None:
    source = mirror / "realmath" / "realmath_processed.json"

    def script(body: dict[str, Any]) -> StubReply:
        if body["model"] == "gen":
            return StubReply(content="I cannot produce JSON today.")
        raise AssertionError("no question should reach the solvers")

    with OpenAIStub(script=script) as stub:
        report = run(stub, source, tmp_path / "draft", tmp_path / "cache")
        assert stub.count == 3 * 3  # each generation asked three times
    assert report.funnel["failed"] == 3 and report.funnel["kept"] == 0
    reasons = [i["reason"] for i in report.record["items"]]
    assert all("does not end with a ```json block" in r for r in reasons)
