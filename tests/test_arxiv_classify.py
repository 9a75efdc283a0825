"""Stage 2 (classification of revision comments) against the local OpenAI-compatible stub,
through real litellm: labels, a malformed answer, a 429, the cache, and the report."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from standins import OpenAIStub, StubReply

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.mining.classify import (
    classify,
    parse_label,
    record_id,
)
from mathjudge.llm.answers import AnswerError
from mathjudge.llm.retry import RetryPolicy
from mathjudge.prompts import load_prompt

FAST = RetryPolicy(attempts=3, initial_wait=0.01, max_wait=2.0, jitter=0.0)
MODEL = "openai/stub-model"

RECORDS: list[dict[str, Any]] = [
    {
        "arxiv_id": "2501.01561",
        "version": "v2",
        "title": "On coarse geometry of separable dual Banach spaces",
        "comment": "45 pages. An error in the proof of Theorem 19 is corrected",
    },
    {
        "arxiv_id": "2502.00001",
        "version": 3,
        "title": "A paper",
        "comment": "Corrected typos in the proof of\n  Theorem 3",
    },
    {
        "arxiv_id": "2503.00002",
        "version": "v2",
        "title": "Another paper",
        "comment": "The main theorem was false as stated; corrected statement and new proof",
    },
]
ANSWERS = {
    "Theorem 19": "The proof of one theorem had an error.\nLABEL: minor",
    "typos": "Only typos.\nLABEL: none",
    "main theorem": "**LABEL: major**",
}


def comment_of(body: dict[str, Any]) -> str:
    """The revision comment quoted in the prompt (the instructions mention typos too)."""
    return body["messages"][0]["content"].split("<<<\n")[1].split("\n>>>")[0]


pytestmark = pytest.mark.usefixtures("no_network")


def by_comment(body: dict[str, Any]) -> StubReply:
    comment = comment_of(body)
    for needle, answer in ANSWERS.items():
        if needle in comment:
            return StubReply(content=answer)
    raise AssertionError(f"unexpected comment {comment!r}")


def run(stub: OpenAIStub, cache: Path, records: list[Any] = RECORDS, **kwargs: Any) -> Any:
    return classify(
        records,
        model=MODEL,
        cache_dir=cache,
        concurrency=2,
        api_base=stub.api_base,
        api_key="k",
        retry=FAST,
        **kwargs,
    )


def test_classifies_records_in_order_with_counts_and_prompt_hash(tmp_path: Path) -> None:
    ticks: list[int] = []
    with OpenAIStub(script=by_comment) as stub:
        report = run(stub, tmp_path, progress=ticks.append)
        assert stub.count == 3
        [body] = [b for b in stub.bodies if "typos" in comment_of(b)]
    assert [r.item_id for r in report.results] == ["2501.01561v2", "2502.00001v3", "2503.00002v2"]
    assert [r.label for r in report.results] == ["minor", "none", "major"]
    assert [r.kept for r in report.results] == [True, False, True]
    assert report.counts == {"major": 1, "minor": 1, "none": 1, "failed": 0}
    assert report.prompt_sha256 == load_prompt("arxiv_classify").sha256
    assert report.model == MODEL and ticks == [1, 1, 1]
    assert report.usage["tokens_in"] == 33 and report.usage["cost_usd"] == "unknown"
    prompt = body["messages"][0]["content"]
    assert "arXiv:2502.00001v3" in prompt and "Corrected typos in the proof of Theorem 3" in prompt
    assert body["temperature"] == 0
    json.dumps(report.to_json())  # JSON-ready for the funnel report


def test_rerun_uses_the_cache_only(tmp_path: Path) -> None:
    with OpenAIStub(script=by_comment) as stub:
        first = run(stub, tmp_path)
        second = run(stub, tmp_path)
        assert stub.count == 3
    assert second.results == first.results
    assert second.usage["cache_hits"] == 3 and second.usage["requests"] == 0


def test_malformed_answer_is_retried_then_recorded_as_failure(tmp_path: Path) -> None:
    def script(body: dict[str, Any]) -> StubReply:
        if "typos" in comment_of(body):
            return StubReply(content="It is hard to say.")  # never a LABEL line
        return by_comment(body)

    with OpenAIStub(script=script) as stub:
        report = run(stub, tmp_path, parse_attempts=2)
        assert stub.count == 4  # two records once, the malformed one twice
    failed = report.results[1]
    assert failed.label is None and not failed.kept
    assert failed.failure is not None and failed.failure.startswith("item 2502.00001v3: ")
    assert failed.answers == ("It is hard to say.", "It is hard to say.")
    assert failed.to_json()["answer"] == "It is hard to say."
    assert report.counts == {"major": 1, "minor": 1, "none": 0, "failed": 1}
    assert report.failures == [failed]
    assert (report.usage["invalid_answers"], report.usage["parse_failures"]) == (2, 1)


def test_rate_limit_is_retried(tmp_path: Path) -> None:
    queue: list[StubReply | str] = [StubReply(status=429, headers={"retry-after-ms": "50"})]
    with OpenAIStub(queue, script=by_comment) as stub:
        report = run(stub, tmp_path, records=RECORDS[:1])
        assert stub.count == 2
    assert report.results[0].label == "minor"
    assert report.usage["retries"] == 1


def test_records_may_be_objects_and_need_a_comment(tmp_path: Path) -> None:
    @dataclass(frozen=True)
    class Record:
        arxiv_id: str
        version: int
        title: str | None
        comment: str | None

    assert record_id(Record("2501.01561", 2, None, "x")) == "2501.01561v2"
    assert record_id({"arxiv_id": "2501.01561", "version": "v2"}) == "2501.01561v2"
    with OpenAIStub(script=by_comment) as stub:
        report = run(stub, tmp_path, records=[Record("2501.1", 2, None, "fixed Theorem 19")])
        with pytest.raises(MathJudgeError, match=r"2501\.2v2: the record has no revision comment"):
            run(stub, tmp_path, records=[Record("2501.2", 2, "T", None)])
    assert report.results[0].label == "minor"


@pytest.mark.parametrize(
    ("answer", "label"),
    [("LABEL: major", "major"), ("why\n**LABEL: Minor**", "minor"), ("LABEL: none.", "none")],
)
def test_parse_label(answer: str, label: str) -> None:
    assert parse_label(answer) == label


@pytest.mark.parametrize(
    "answer", ["", "major", "LABEL: substantial", "LABEL: none\nThat is my answer.", '{"a": 1}']
)
def test_parse_label_is_strict(answer: str) -> None:
    with pytest.raises(AnswerError):
        parse_label(answer)
