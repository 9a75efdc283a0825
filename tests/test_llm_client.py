"""The litellm client against a local OpenAI-compatible stub, through real litellm: cache and
resume, retries (429 with Retry-After, 5xx, timeouts), strict parsing, accounting, the
concurrency bound, and errors naming the item. No test reaches beyond 127.0.0.1."""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from standins import OpenAIStub, StubReply

from mathjudge.base.errors import MathJudgeError
from mathjudge.llm.answers import AnswerError, final_choice, final_field
from mathjudge.llm.cache import cache_key
from mathjudge.llm.client import LlmCallError, LlmClient
from mathjudge.llm.request import LlmRequest
from mathjudge.llm.retry import RetryPolicy, retry_after
from mathjudge.prompts import load_prompt

FAST = RetryPolicy(attempts=3, initial_wait=0.01, max_wait=2.0, jitter=0.0)
PRICED = "openai/gpt-4o-mini"  # in litellm's bundled cost map
UNPRICED = "openai/stub-model"  # not in it


pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(autouse=True, scope="module")
def warm_litellm() -> None:
    """litellm's first call in a process sets itself up for up to a second; done here once so
    that the timing assertions below measure only what they mean to."""
    with OpenAIStub() as stub:
        client(stub, None).run_batch([request("warm-up")])


def client(stub: OpenAIStub, cache: Path | None, **kwargs: Any) -> LlmClient:
    options: dict[str, Any] = {"model": UNPRICED, "retry": FAST, "concurrency": 4, **kwargs}
    return LlmClient(
        options.pop("model"), cache_dir=cache, api_base=stub.api_base, api_key="k", **options
    )


def request(item_id: str, text: str | None = None, run: int | str = 0) -> LlmRequest:
    return LlmRequest(item_id, [{"role": "user", "content": text or f"question {item_id}"}], run)


def last_user_text(body: dict[str, Any]) -> str:
    return body["messages"][-1]["content"]


def echo(body: dict[str, Any]) -> StubReply:
    return StubReply(content=f"answer to {body['messages'][0]['content']}")


def test_rerun_is_served_from_the_cache(tmp_path: Path) -> None:
    requests = [request(f"item-{i}") for i in range(3)]
    with OpenAIStub(script=echo) as stub:
        first = client(stub, tmp_path).run_batch(requests)
        assert stub.count == 3
        again = client(stub, tmp_path)
        second = again.run_batch(requests)
        assert stub.count == 3  # no new request
    assert (
        [r.text for r in second]
        == [r.text for r in first]
        == [f"answer to question item-{i}" for i in range(3)]
    )
    assert all(r.cached for r in second) and not any(r.cached for r in first)
    assert (again.stats.cache_hits, again.stats.cache_misses, again.stats.requests) == (3, 0, 0)
    entries = sorted(tmp_path.rglob("*.json"))
    assert [p.stem for p in entries] == sorted(r.key for r in first)
    stored = json.loads(entries[0].read_text())
    assert stored["model"] == UNPRICED and stored["usage"]["prompt_tokens"] == 11


def test_run_salt_and_sampling_params_get_their_own_answers(tmp_path: Path) -> None:
    with OpenAIStub(script=echo) as stub:
        client(stub, tmp_path).run_batch([request("a", run=0), request("a", run=1)])
        client(stub, tmp_path, params={"temperature": 0.7}).run_batch([request("a", run=0)])
        assert stub.count == 3
        assert stub.bodies[-1]["temperature"] == 0.7


def test_cache_key_is_a_canonical_hash() -> None:
    base = {
        "model": "m",
        "messages": [{"role": "user", "content": "x"}],
        "params": {"temperature": 0, "max_tokens": 5},
        "run": 0,
    }
    key = cache_key(**base)
    assert key == cache_key(**{**base, "params": {"max_tokens": 5, "temperature": 0}})
    assert key == cache_key(**{**base, "messages": [{"content": "x", "role": "user"}]})
    for change in (
        {"model": "m2"},
        {"messages": [{"role": "user", "content": "y"}]},
        {"params": {"temperature": 1, "max_tokens": 5}},
        {"run": 1},
        {"run": "0"},
    ):
        assert cache_key(**{**base, **change}) != key, change
    assert len(key) == 64


def test_a_killed_run_resumes_losing_only_calls_in_flight(tmp_path: Path) -> None:
    slow = {"question item-2", "question item-3"}

    def script(body: dict[str, Any]) -> StubReply:
        delay = 30.0 if last_user_text(body) in slow else 0.0
        return StubReply(content="done", delay=delay)

    requests = [request(f"item-{i}") for i in range(4)]
    with OpenAIStub(script=script) as stub:
        first = client(stub, tmp_path)

        async def killed() -> None:
            """Runs the batch until the fast answers are stored and the slow calls are in
            flight, then cancels it."""
            batch = asyncio.ensure_future(first.complete_many(requests))
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if len(list(tmp_path.rglob("*.json"))) == 2 and stub.count == 4:
                    break
                await asyncio.sleep(0.02)
            batch.cancel()
            with pytest.raises(asyncio.CancelledError):
                await batch

        asyncio.run(killed())
        assert stub.count == 4
        assert len(list(tmp_path.rglob("*.json"))) == 2
        assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".")]  # no partial file
        slow.clear()
        resumed = client(stub, tmp_path)
        replies = resumed.run_batch(requests)
        assert stub.count == 6  # only the two lost calls were made again
    assert [r.cached for r in replies] == [True, True, False, False]
    assert all(r.text == "done" for r in replies)


def test_429_waits_for_retry_after_then_succeeds(tmp_path: Path) -> None:
    with OpenAIStub([StubReply(status=429, headers={"Retry-After": "1"}), "fine"]) as stub:
        llm = client(stub, tmp_path)
        started = time.monotonic()
        [reply] = llm.run_batch([request("paper-1")])
        elapsed = time.monotonic() - started
        assert stub.count == 2
    assert reply.text == "fine" and reply.ok
    assert 0.95 <= elapsed < 3.0  # Retry-After (1 s), not the 0.01 s backoff
    assert llm.stats.retries == 1 and llm.stats.requests == 2


def test_retry_after_is_capped_by_max_wait(tmp_path: Path) -> None:
    retry = RetryPolicy(attempts=2, initial_wait=0.01, max_wait=0.2, jitter=0.0)
    queue = [StubReply(status=429, headers={"retry-after-ms": "60000"}), "fine"]
    with OpenAIStub(queue) as stub:
        started = time.monotonic()
        [reply] = client(stub, tmp_path, retry=retry).run_batch([request("a")])
        assert time.monotonic() - started < 2.0
    assert reply.text == "fine"


def test_persistent_5xx_is_a_recorded_failure_naming_the_item(tmp_path: Path) -> None:
    with OpenAIStub(script=lambda _body: StubReply(status=500)) as stub:
        llm = client(stub, tmp_path)
        replies = llm.run_batch([request("paper-7")])
        assert stub.count == FAST.attempts
    [reply] = replies
    assert not reply.ok and reply.text is None
    assert reply.error is not None and reply.error.startswith("item paper-7: ")
    assert "InternalServerError" in reply.error and "3 attempt(s)" in reply.error
    assert llm.stats.call_failures == 1 and llm.stats.retries == 2
    assert not list(tmp_path.rglob("*.json"))  # failures are not cached: a re-run asks again


def test_garbled_response_body_is_retried(tmp_path: Path) -> None:
    with OpenAIStub([StubReply(raw=b"{not json"), StubReply(status=503), "fine"]) as stub:
        [reply] = client(stub, tmp_path).run_batch([request("a")])
        assert stub.count == 3
    assert reply.text == "fine"


@pytest.mark.slow  # seconds of work: the full suite runs it
def test_timeout_is_retried_then_reported(tmp_path: Path) -> None:
    # The timeout is generous next to the stub's 5 s stall so that a loaded machine still gets
    # each request onto the wire before its attempt is cut.
    with OpenAIStub([StubReply(delay=5.0), "fine"]) as stub:
        started = time.monotonic()
        [reply] = client(stub, tmp_path, timeout=1.5).run_batch([request("a")])
        assert time.monotonic() - started < 4.5
        assert stub.count == 2
    assert reply.text == "fine"
    retry = RetryPolicy(attempts=2, initial_wait=0.01, max_wait=0.1, jitter=0.0)
    with OpenAIStub(script=lambda _body: StubReply(delay=5.0)) as stub:
        [reply] = client(stub, tmp_path, timeout=1.5, retry=retry).run_batch([request("slow-9")])
        # The client made both attempts; whether the last one reached the stub before being
        # cut depends on the machine's load, so the count is bounded, not exact.
        assert 1 <= stub.count <= 2
    assert reply.error is not None and reply.error.startswith("item slow-9: ")
    assert "Timeout" in reply.error and "(2 attempt(s))" in reply.error


# Cancelling the rest of the batch can interrupt litellm between creating and awaiting its
# inner coroutine; Python then warns about that coroutine.
@pytest.mark.filterwarnings("ignore:coroutine .* was never awaited:RuntimeWarning")
def test_configuration_errors_stop_the_batch_and_name_the_item(tmp_path: Path) -> None:
    with OpenAIStub(script=lambda _body: StubReply(status=401)) as stub:
        with pytest.raises(LlmCallError, match=r"^item paper-3: .*AuthenticationError") as caught:
            client(stub, tmp_path, concurrency=1).run_batch([request("paper-3"), request("b")])
        assert stub.count == 1  # not retried, and the rest of the batch was not sent
    assert caught.value.item_id == "paper-3"


def test_unroutable_model_or_missing_key_fail_before_any_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(MathJudgeError, match="cannot route"):
        LlmClient("no-provider-model", cache_dir=tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(MathJudgeError, match="OPENAI_API_KEY"):
        LlmClient(UNPRICED, cache_dir=tmp_path, api_base="http://127.0.0.1:9/v1")


def test_unparseable_answers_are_retried_then_recorded(tmp_path: Path) -> None:
    def parse(text: str) -> str:
        return final_choice(text, "LABEL", ("major", "minor", "none"))

    queue: list[StubReply | str] = ["I think it is major", "LABEL: maybe", "still no label"]
    with OpenAIStub(queue) as stub:
        llm = client(stub, tmp_path)
        [parsed] = llm.run_parsed_batch([(request("p-1"), parse)], attempts=3)
        assert stub.count == 3
        second = stub.bodies[1]["messages"]
        assert [m["role"] for m in second] == ["user", "assistant", "user"]
        assert second[1]["content"] == "I think it is major"
        assert "could not read your answer" in second[2]["content"]
        assert not parsed.ok and parsed.value is None
        assert parsed.failure is not None and parsed.failure.startswith("item p-1: ")
        assert "3 attempt(s)" in parsed.failure and "still no label" in parsed.failure
        assert parsed.answers == ("I think it is major", "LABEL: maybe", "still no label")
        assert (llm.stats.invalid_answers, llm.stats.parse_failures) == (3, 1)
        # The same sequence replays from the cache, and fails the same way.
        [again] = client(stub, tmp_path).run_parsed_batch([(request("p-1"), parse)])
        assert stub.count == 3 and again == parsed


def test_a_repaired_answer_is_accepted(tmp_path: Path) -> None:
    def parse(text: str) -> str:
        return final_choice(text, "LABEL", ("major", "minor", "none"))

    with OpenAIStub(["no idea", "Reasoning...\n**LABEL: Minor.**"]) as stub:
        llm = client(stub, tmp_path)
        [parsed] = llm.run_parsed_batch([(request("p-1"), parse)])
    assert parsed.ok and parsed.value == "minor" and parsed.raw == "Reasoning...\n**LABEL: Minor.**"
    assert (llm.stats.invalid_answers, llm.stats.parse_failures) == (1, 0)


def test_usage_and_cost_summary(tmp_path: Path) -> None:
    reply = StubReply(content="x", prompt_tokens=1000, completion_tokens=100)
    with OpenAIStub(script=lambda _body: reply) as stub:
        priced = client(stub, tmp_path / "a", model=PRICED)
        priced.run_batch([request("a"), request("b")])
        unpriced = client(stub, tmp_path / "b", model=UNPRICED)
        unpriced.run_batch([request("a")])
        replayed = client(stub, tmp_path / "a", model=PRICED)
        replayed.run_batch([request("a"), request("b")])
    import litellm  # here, not at the top: mathjudge.llm must be imported first (cost map)

    rates = litellm.model_cost["gpt-4o-mini"]
    unit = 1000 * rates["input_cost_per_token"] + 100 * rates["output_cost_per_token"]
    assert unit > 0
    summary = priced.stats.summary()
    assert (summary["tokens_in"], summary["tokens_out"]) == (2000, 200)
    assert summary["cost_usd"] == pytest.approx(2 * unit)
    assert unpriced.stats.summary()["cost_usd"] == "unknown"
    assert unpriced.stats.summary()["tokens_in"] == 1000
    again = replayed.stats.summary()
    assert (again["tokens_in"], again["cost_usd"], again["cache_hits"]) == (0, 0.0, 2)
    assert again["cached_tokens_in"] == 2000
    assert again["cached_cost_usd"] == pytest.approx(2 * unit)
    assert "2 new call(s), 0 from cache" in priced.stats.describe()
    assert "cost unknown" in unpriced.stats.describe()


def test_concurrency_bound_is_respected(tmp_path: Path) -> None:
    with OpenAIStub(script=lambda _body: StubReply(delay=0.15)) as stub:
        ticks: list[int] = []
        replies = client(stub, tmp_path / "a", concurrency=3).run_batch(
            [request(f"i{i}") for i in range(12)], progress=ticks.append
        )
        assert stub.max_in_flight == 3
        assert len(replies) == 12 and ticks == [1] * 12
        stub.max_in_flight = 0
        client(stub, tmp_path / "b", concurrency=12).run_batch(
            [request(f"i{i}") for i in range(12)]
        )
        assert stub.max_in_flight == 12  # the stub really serves in parallel


def test_retry_after_header_forms() -> None:
    class Failure(Exception):
        def __init__(self, headers: dict[str, str]) -> None:
            self.litellm_response_headers = headers

    assert retry_after(Failure({"Retry-After": "2"})) == 2.0
    assert retry_after(Failure({"retry-after-ms": "250"})) == 0.25
    date = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < (retry_after(Failure({"Retry-After": date})) or 0) <= 30
    assert retry_after(Failure({"Retry-After": "soon"})) is None
    assert retry_after(Failure({})) is None
    assert retry_after(None) is None


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("LABEL: major", "major"),
        ("thinking\n\n**LABEL:** none\n", "none"),
        ("`label: MINOR.`", "minor"),
    ],
)
def test_final_choice_accepts(answer: str, value: str) -> None:
    assert final_choice(answer, "LABEL", ("major", "minor", "none")) == value


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("", "empty"),
        ("LABEL: major\nbecause of Lemma 2", "last line"),
        ("LABEL: major or minor", "must be followed by one of"),
        ("LABEL:", "gives no value"),
        ("VERDICT: major", "last line"),
    ],
)
def test_final_choice_rejects(answer: str, reason: str) -> None:
    with pytest.raises(AnswerError, match=reason):
        final_choice(answer, "LABEL", ("major", "minor", "none"))


def test_final_field_returns_the_value() -> None:
    assert final_field('x\nLOCATIONS: ["Lemma 2"]', "LOCATIONS") == '["Lemma 2"]'


def test_prompts_load_with_their_hash() -> None:
    for name in ("arxiv_classify", "arxiv_locations", "location_match"):
        prompt = load_prompt(name)
        path = Path(__file__).parents[1] / "mathjudge" / "prompts" / f"{name}.md"
        assert prompt.text == path.read_text(encoding="utf-8")
        text, digest = prompt
        assert len(digest) == 64 and text == prompt.text
    prompt = load_prompt("arxiv_classify")
    filled = prompt.fill(paper="arXiv:1v2", title="T", comment="fixed {{title}}")
    assert "fixed {{title}}" in filled and "{{" not in filled.replace("fixed {{title}}", "")
    with pytest.raises(KeyError, match="do not match"):
        prompt.fill(paper="p", title="t")


def test_litellm_was_imported_with_its_bundled_cost_map() -> None:
    """Imported any other way, litellm downloads its cost map (and retries in a background
    thread). mathjudge.llm sets LITELLM_LOCAL_MODEL_COST_MAP before importing it; this checks
    that the litellm of this test process was loaded that way."""
    from litellm.litellm_core_utils.get_model_cost_map import get_model_cost_map_source_info

    info = get_model_cost_map_source_info()
    assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"
    assert (info["source"], info["is_env_forced"], info["url"]) == ("local", True, None)
