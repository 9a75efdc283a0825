"""The inclusive LLM location matcher against the local OpenAI-compatible stub."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from standins import OpenAIStub, StubReply

from mathjudge.benchmarks.arxivmathgradingbench.llm_match import LlmMatcher, parse_match
from mathjudge.benchmarks.arxivmathgradingbench.locations import parse_location
from mathjudge.benchmarks.arxivmathgradingbench.matching import (
    MatchPair,
    PaperContext,
    PredictedLocation,
)
from mathjudge.llm.answers import AnswerError
from mathjudge.llm.retry import RetryPolicy
from mathjudge.prompts import load_prompt

FAST = RetryPolicy(attempts=2, initial_wait=0.01, max_wait=1.0, jitter=0.0)
PAPER = PaperContext("2501.01561v1", "2501.01561", "v1", "On coarse geometry")
OTHER = PaperContext("2501.04482v2", "2501.04482", "v2")


pytestmark = pytest.mark.usefixtures("no_network")


def pair(predicted: str, truth: str, paper: PaperContext = PAPER, note: str = "") -> MatchPair:
    return (
        PredictedLocation(parse_location(predicted), note or None),
        parse_location(truth),
        paper,
    )


def judge(body: dict[str, Any]) -> StubReply:
    prompt = body["messages"][0]["content"]
    if "Reported location: Lemma 0" in prompt:
        return StubReply(content="I am not sure.")  # never parseable
    inside = "Reported location: eq. (4.2) in the proof of Theorem 19" in prompt
    return StubReply(content=f"Reasoning.\nMATCH: {'yes' if inside else 'no'}")


def matcher(stub: OpenAIStub, cache: Path, **kwargs: Any) -> LlmMatcher:
    return LlmMatcher(
        "openai/stub-model",
        cache,
        api_base=stub.api_base,
        api_key="k",
        retry=FAST,
        parse_attempts=2,
        **kwargs,
    )


def test_decides_pairs_and_reports_undecided_ones(tmp_path: Path) -> None:
    pairs = [
        pair("eq. (4.2) in the proof of Theorem 19", "Theorem 19"),
        pair("Theorem 18", "Theorem 19"),
        pair("eq. (4.2) in the proof of Theorem 19", "Theorem 19"),  # asked once
        pair("Lemma 0", "Proposition 6.10", OTHER),
    ]
    with OpenAIStub(script=judge) as stub:
        llm = matcher(stub, tmp_path)
        assert llm.match_many(pairs) == [True, False, True, None]
        assert stub.count == 4  # three distinct questions, the unparseable one asked twice
        assert llm.match_many(pairs) == [True, False, True, None]
        assert stub.count == 4  # the cache answers the second time
    assert len(llm.failures) == 2  # the undecided pair, once per call of match_many
    failure = llm.failures[0]
    assert (failure.item_id, failure.predicted, failure.truth) == (
        "2501.04482v2",
        "Lemma 0",
        "Proposition 6.10",
    )
    assert failure.matched is None and failure.failure is not None
    assert failure.failure.startswith("item 2501.04482v2 ['Lemma 0' within 'Proposition 6.10']")
    assert failure.answers == ("I am not sure.", "I am not sure.")
    assert llm.prompt_sha256 == load_prompt("location_match").sha256


def test_paper_text_and_description_reach_the_prompt(tmp_path: Path) -> None:
    asked: list[PaperContext] = []

    def text_of(context: PaperContext) -> str | None:
        asked.append(context)
        return "x" * 50 + "TAIL" if context == PAPER else None

    with OpenAIStub(script=judge) as stub:
        llm = matcher(stub, tmp_path, paper_text=text_of, max_paper_chars=50)
        decisions = llm.decide_many(
            [
                pair("Theorem 18", "Theorem 19", note="the bound fails for n = 2"),
                pair("Lemma 2", "Theorem 19"),
                pair("Theorem 1", "Theorem 2", OTHER),
            ]
        )
        prompts = [body["messages"][0]["content"] for body in stub.bodies]  # in any order
    [first] = [p for p in prompts if "Reported location: Theorem 18\n" in p]
    [third] = [p for p in prompts if "Reported location: Theorem 1\n" in p]
    assert [d.matched for d in decisions] == [False, False, False]
    assert asked == [PAPER, OTHER]  # each paper's text is fetched once
    assert "x" * 50 + "\n[... the rest of the paper is left out]" in first
    assert "TAIL" not in first and "the bound fails for n = 2" in first
    assert "(not available)" in third and "(no description given)" in third


def test_a_failed_call_is_undecided_not_a_non_match(tmp_path: Path) -> None:
    with OpenAIStub(script=lambda _body: StubReply(status=503)) as stub:
        llm = matcher(stub, tmp_path)
        assert llm.match_many([pair("Theorem 19", "Theorem 19")]) == [None]
        assert stub.count == FAST.attempts
    assert "ServiceUnavailableError" in (llm.failures[0].failure or "")
    assert llm.stats.call_failures == 1


def test_parse_match() -> None:
    assert parse_match("MATCH: yes") is True
    assert parse_match("thinking\n**MATCH: No.**") is False
    for answer in ("yes", "MATCH: probably", "MATCH: yes\nok"):
        with pytest.raises(AnswerError):
            parse_match(answer)
