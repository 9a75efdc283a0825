"""Async model client on `litellm.acompletion`, shared by the arXiv pipeline and the judges so
every model call in mathjudge is bounded, retried, cached and counted the same way.

- concurrency: at most `concurrency` requests in flight (an asyncio.Semaphore per event loop);
- timeout: each attempt is cut after `timeout` seconds;
- retries: rate limits (429), timeouts, 5xx and dropped connections are retried with
  exponential backoff and jitter (tenacity), never sooner than the server's Retry-After;
  litellm's and the OpenAI SDK's own retries are switched off so the policy is ours alone;
- cache: answers are stored on disk by `cache_key` before the caller sees them;
- accounting: `stats` counts requests, cache hits, retries, failures, tokens and cost.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from types import ModuleType
from typing import Any, Generic, TypedDict, TypeVar

from mathjudge.base.errors import MathJudgeError
from mathjudge.llm.answers import AnswerError
from mathjudge.llm.cache import CachedAnswer, ResponseCache, cache_key
from mathjudge.llm.request import LlmRequest, Message
from mathjudge.llm.retry import RetryPolicy, describe, retrying
from mathjudge.llm.usage import LlmStats, Usage

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")
Progress = Callable[[int], None]
Parser = Callable[[str], T]


@cache
def _litellm() -> ModuleType:
    """litellm, imported when a client is first made (its import takes seconds, so importing
    this module does not). It comes with its bundled cost map: `mathjudge.llm` (imported before
    this module) sets LITELLM_LOCAL_MODEL_COST_MAP first. The two settings switch off what else
    could call out or print."""
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    return litellm


def _fatal() -> tuple[type[BaseException], ...]:
    """Configuration errors: every other call would fail the same way, so the batch stops."""
    litellm = _litellm()
    return (litellm.AuthenticationError, litellm.PermissionDeniedError, litellm.NotFoundError)


# Asking again after an unparseable answer, with the reason (our wording).
_REPAIR = (
    "I could not read your answer: {reason}. Please answer again and keep exactly to the "
    "answer format asked for above."
)


class ClientOptions(TypedDict, total=False):
    """The `LlmClient` settings a pipeline step passes through (`**options`)."""

    params: Mapping[str, Any]
    api_base: str | None
    api_key: str | None
    concurrency: int
    timeout: float
    retry: RetryPolicy | None


@dataclass(frozen=True)
class LlmReply:
    item_id: str
    key: str
    text: str | None  # None when the call failed
    usage: Usage
    cached: bool
    error: str | None = None  # why the call failed; names the item

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class ParsedReply(Generic[T]):
    """A parsed answer, or the recorded reason there is none (never a silent default)."""

    item_id: str
    value: T | None
    answers: tuple[str, ...] = ()  # every answer received, in order
    failure: str | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def raw(self) -> str | None:
        return self.answers[-1] if self.answers else None


class LlmCallError(MathJudgeError):
    """A provider error that no retry can fix (bad credentials, unknown model); names the item
    whose call revealed it."""

    def __init__(self, item_id: str, model: str, cause: BaseException) -> None:
        self.item_id = item_id
        super().__init__(f"item {item_id}: {model}: {describe(cause)}")


class LlmClient:
    """Calls one model with fixed sampling `params`; see the module docstring for the policy.

    `cache_dir=None` disables the cache. For a local OpenAI-compatible server use a model name
    `openai/<name>` with `api_base="http://127.0.0.1:PORT/v1"` and any `api_key`.
    """

    def __init__(
        self,
        model: str,
        *,
        cache_dir: Path | str | None,
        params: Mapping[str, Any] | None = None,
        api_base: str | None = None,
        api_key: str | None = None,
        concurrency: int = 8,
        timeout: float = 120.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        _check_model(model, api_base, api_key)
        self.model = model
        self.params = dict(params or {})
        self.api_base = api_base
        self.api_key = api_key
        self.concurrency = concurrency
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self.cache = ResponseCache(Path(cache_dir)) if cache_dir is not None else None
        self.stats = LlmStats()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None

    async def complete(self, request: LlmRequest) -> LlmReply:
        """The answer, from the cache or the model. A call that still fails after the retries
        comes back with `error` set; a configuration error raises `LlmCallError`."""
        return await self._complete(request, list(request.messages))

    async def complete_parsed(
        self, request: LlmRequest, parse: Parser[T], *, attempts: int = 3
    ) -> ParsedReply[T]:
        """Asks until `parse` accepts an answer, at most `attempts` times. Each new attempt shows
        the model its previous answer and the parser's reason, so it is a new cache entry and a
        re-run replays the same sequence from the cache."""
        messages = list(request.messages)
        answers: list[str] = []
        reason = ""
        for _ in range(attempts):
            reply = await self._complete(request, messages)
            if reply.text is None:
                return ParsedReply(request.item_id, None, tuple(answers), reply.error)
            answers.append(reply.text)
            try:
                return ParsedReply(request.item_id, parse(reply.text), tuple(answers))
            except AnswerError as exc:
                reason = str(exc)
                self.stats.invalid_answers += 1
                log.info("item %s: unparseable answer (%s)", request.item_id, reason)
            messages += [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": _REPAIR.format(reason=reason)},
            ]
        self.stats.parse_failures += 1
        failure = f"item {request.item_id}: no parseable answer in {attempts} attempt(s): {reason}"
        log.warning(failure)
        return ParsedReply(request.item_id, None, tuple(answers), failure)

    async def complete_many(
        self, requests: Iterable[LlmRequest], *, progress: Progress | None = None
    ) -> list[LlmReply]:
        """Answers in request order; `progress(1)` after each one."""
        return await gather_in_order((self.complete(r) for r in requests), progress)

    async def complete_parsed_many(
        self,
        jobs: Iterable[tuple[LlmRequest, Parser[T]]],
        *,
        attempts: int = 3,
        progress: Progress | None = None,
    ) -> list[ParsedReply[T]]:
        """Parsed answers in job order; each request has its own parser (which may check the
        answer against the item, e.g. that a quoted label occurs in it)."""
        work = (self.complete_parsed(r, parse, attempts=attempts) for r, parse in jobs)
        return await gather_in_order(work, progress)

    def run_batch(
        self, requests: Iterable[LlmRequest], *, progress: Progress | None = None
    ) -> list[LlmReply]:
        """`complete_many` for synchronous code (CLI): runs its own event loop."""
        return run_sync(self.complete_many(requests, progress=progress))

    def run_parsed_batch(
        self,
        jobs: Iterable[tuple[LlmRequest, Parser[T]]],
        *,
        attempts: int = 3,
        progress: Progress | None = None,
    ) -> list[ParsedReply[T]]:
        """`complete_parsed_many` for synchronous code (CLI): runs its own event loop."""
        return run_sync(self.complete_parsed_many(jobs, attempts=attempts, progress=progress))

    async def _complete(self, request: LlmRequest, messages: list[Message]) -> LlmReply:
        key = cache_key(model=self.model, messages=messages, params=self.params, run=request.run)
        hit = self.cache.get(key) if self.cache else None
        if hit is not None:
            self.stats.cache_hits += 1
            self.stats.replayed.add(hit.usage)
            return LlmReply(request.item_id, key, hit.text, hit.usage, cached=True)
        self.stats.cache_misses += 1
        import openai  # loaded with litellm, which a client imports when it is made

        runner = retrying(self.retry, partial(self._on_retry, request.item_id))
        try:
            answer: Any = await runner(self._ask, messages)
        except _fatal() as exc:
            self.stats.call_failures += 1
            raise LlmCallError(request.item_id, self.model, exc) from exc
        except (openai.OpenAIError, TimeoutError) as exc:
            self.stats.call_failures += 1
            tries = runner.statistics.get("attempt_number", 1)
            error = f"item {request.item_id}: {self.model}: {describe(exc)} ({tries} attempt(s))"
            log.warning(error)
            return LlmReply(request.item_id, key, None, Usage(), cached=False, error=error)
        if self.cache:
            record = {"model": self.model, "params": self.params, "run": request.run}
            self.cache.put(key, answer, record={**record, "item_id": request.item_id})
        self.stats.spent.add(answer.usage)
        return LlmReply(request.item_id, key, answer.text, answer.usage, cached=False)

    def _on_retry(self, item_id: str, error: BaseException | None, wait: float) -> None:
        self.stats.retries += 1
        log.info("item %s: %s; retrying in %.2fs", item_id, describe(error), wait)

    async def _ask(self, messages: list[Message]) -> CachedAnswer:
        async with self._slot():
            self.stats.requests += 1
            async with asyncio.timeout(self.timeout):
                response = await _litellm().acompletion(
                    model=self.model,
                    messages=[dict(m) for m in messages],
                    api_base=self.api_base,
                    api_key=self.api_key,
                    timeout=self.timeout,
                    num_retries=0,
                    max_retries=0,
                    **self.params,
                )
        text = response.choices[0].message.content or ""
        return CachedAnswer(text=text, usage=self._usage(response))

    def _slot(self) -> asyncio.Semaphore:
        """The semaphore of the running loop (a semaphore cannot outlive its loop, and each
        `run_batch` starts a new one)."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            self._loop, self._slots = loop, asyncio.Semaphore(self.concurrency)
        return self._slots

    def _usage(self, response: Any) -> Usage:
        """Tokens, and the price litellm already worked out for this response (its cost map;
        None when the map lacks the model), so no second cost lookup is paid per call."""
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        hidden = getattr(response, "_hidden_params", None) or {}
        if "response_cost" in hidden:
            cost = hidden["response_cost"]
            return Usage(prompt, completion, None if cost is None else float(cost))
        try:
            costs = _litellm().cost_per_token(
                model=self.model, prompt_tokens=prompt, completion_tokens=completion
            )
        except Exception:  # litellm raises a bare Exception for models missing from its map
            return Usage(prompt, completion, None)
        return Usage(prompt, completion, sum(costs))


def _check_model(model: str, api_base: str | None, api_key: str | None) -> None:
    """Fails fast on a model litellm cannot route or an OpenAI-style model without a key, which
    would otherwise fail (and be retried) once per item."""
    litellm = _litellm()
    try:
        _, provider, _, _ = litellm.get_llm_provider(model, api_base=api_base)
    except litellm.BadRequestError as exc:
        raise MathJudgeError(f"litellm cannot route model {model!r}: {describe(exc)}") from exc
    if provider == "openai" and api_key is None and not os.environ.get("OPENAI_API_KEY"):
        raise MathJudgeError(
            f"model {model!r} needs an API key: set OPENAI_API_KEY or pass one "
            "(any value works for a local server that checks none)"
        )


async def gather_in_order(work: Iterable[Awaitable[R]], progress: Progress | None) -> list[R]:
    """Runs all of `work` concurrently, in order; on an exception cancels the rest."""

    async def tick(item: Awaitable[R]) -> R:
        result = await item
        if progress is not None:
            progress(1)
        return result

    tasks = [asyncio.ensure_future(tick(item)) for item in work]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def run_sync(work: Coroutine[Any, Any, R]) -> R:
    """Runs `work` in a fresh event loop and lets litellm's background logging finish inside
    it, so no litellm task is left bound to a closed loop."""
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    async def main() -> R:
        try:
            return await work
        finally:
            try:
                await asyncio.wait_for(GLOBAL_LOGGING_WORKER.flush(), timeout=5)
            except TimeoutError:
                log.debug("litellm's logging queue did not drain in 5 s")

    return asyncio.run(main())
