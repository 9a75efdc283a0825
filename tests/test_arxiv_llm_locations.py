"""The stage 3 LLM fallback for error locations, against the local OpenAI-compatible stub."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from standins import OpenAIStub, StubReply

from mathjudge.benchmarks.arxivmathgradingbench.mining.llm_locations import (
    extract_locations,
    parse_locations_answer,
)
from mathjudge.llm.answers import AnswerError
from mathjudge.llm.retry import RetryPolicy
from mathjudge.prompts import load_prompt

FAST = RetryPolicy(attempts=2, initial_wait=0.01, max_wait=1.0, jitter=0.0)
RECORDS = [
    {"arxiv_id": "2501.00001", "version": "v2", "title": "A", "comment": "fixed the main theorem"},
    {"arxiv_id": "2501.00002", "version": "v2", "title": "B", "comment": "gap in Claim 5 closed"},
    {"arxiv_id": "2501.00003", "version": "v3", "title": "C", "comment": "an error corrected"},
]


def comment_of(body: dict[str, Any]) -> str:
    """The revision comment quoted in the prompt (the instructions mention typos too)."""
    return body["messages"][0]["content"].split("<<<\n")[1].split("\n>>>")[0]


pytestmark = pytest.mark.usefixtures("no_network")


def run(stub: OpenAIStub, cache: Path, **kwargs: Any) -> Any:
    return extract_locations(
        RECORDS,
        model="openai/stub-model",
        cache_dir=cache,
        api_base=stub.api_base,
        api_key="k",
        retry=FAST,
        **kwargs,
    )


def test_extracts_locations_and_records_failures(tmp_path: Path) -> None:
    def script(body: dict[str, Any]) -> StubReply:
        comment = comment_of(body)
        if "main theorem" in comment:
            return StubReply(content='The comment names it.\nLOCATIONS: ["main theorem"]')
        if "Claim 5" in comment:
            return StubReply(content='LOCATIONS: ["Claim 5", "Claim 5"]')
        return StubReply(content='LOCATIONS: ["Theorem 7"]')  # invented: 7 is not in it

    with OpenAIStub(script=script) as stub:
        report = run(stub, tmp_path, parse_attempts=2)
        assert stub.count == 4
        [repair] = [b["messages"][-1]["content"] for b in stub.bodies if len(b["messages"]) == 3]
    first, second, third = report.results
    assert first.locations == ("main theorem",) and first.failure is None
    assert second.locations == ("Claim 5",)
    assert third.locations is None
    assert third.failure is not None and third.failure.startswith("item 2501.00003v3: ")
    assert "'Theorem 7' is not named in the comment" in third.failure
    assert "'Theorem 7' is not named in the comment" in repair
    assert report.failures == [third]
    assert report.prompt_sha256 == load_prompt("arxiv_locations").sha256
    assert third.to_json()["locations"] is None


def test_an_empty_list_is_an_answer_not_a_failure(tmp_path: Path) -> None:
    with OpenAIStub(script=lambda _body: StubReply(content="LOCATIONS: []")) as stub:
        report = run(stub, tmp_path)
        again = run(stub, tmp_path)
        assert stub.count == 3  # the re-run is served from the cache
    assert [r.locations for r in report.results] == [(), (), ()]
    assert again.results == report.results


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ('LOCATIONS: ["Theorem 2.3", "Lemma  4"]', ("Theorem 2.3", "Lemma 4")),
        ('**LOCATIONS:** ["Proposition 4.1(b)"]', ("Proposition 4.1(b)",)),
        ("LOCATIONS: []", ()),
    ],
)
def test_parse_locations(answer: str, expected: tuple[str, ...]) -> None:
    comment = "errors in Theorem 2.3, Lemma 4 and Proposition 4.1(b) fixed"
    assert parse_locations_answer(answer, comment=comment) == expected


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("LOCATIONS: Theorem 2.3", "not a JSON array"),
        ('LOCATIONS: {"a": 1}', "JSON array of strings"),
        ("LOCATIONS: [1, 2]", "JSON array of strings"),
        ('LOCATIONS: ["Theorem 2"]', "not named in the comment"),
        ('LOCATIONS: ["Theorem 2.3"]\nDone.', "last line"),
    ],
)
def test_parse_locations_is_strict(answer: str, reason: str) -> None:
    with pytest.raises(AnswerError, match=reason):
        parse_locations_answer(answer, comment="an error in Theorem 2.3 is fixed")
