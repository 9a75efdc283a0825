"""When a failed model call is worth repeating and how long to wait first.

Rate limits (429), timeouts, 5xx and dropped connections are transient; anything else (a bad
request, bad credentials) fails the same way again. Waits grow exponentially with jitter, are
never shorter than the server's Retry-After and never longer than `max_wait`.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_exponential_jitter


@dataclass(frozen=True)
class RetryPolicy:
    """Waits are initial_wait * 2^(n-1) plus up to `jitter` seconds before retry n, at least the
    server's Retry-After and at most `max_wait`."""

    attempts: int = 6  # tries per call, the first included
    initial_wait: float = 1.0
    max_wait: float = 60.0
    jitter: float = 1.0


def retrying(
    policy: RetryPolicy, on_retry: Callable[[BaseException | None, float], None]
) -> AsyncRetrying:
    """A tenacity runner for one call; `on_retry(error, wait)` is told before each wait. It
    re-raises the last error once the attempts are spent."""
    backoff = wait_exponential_jitter(
        multiplier=policy.initial_wait, max=policy.max_wait, jitter=policy.jitter
    )

    def wait(state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        return min(max(backoff(state), retry_after(error) or 0.0), policy.max_wait)

    def before_sleep(state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        on_retry(error, state.next_action.sleep if state.next_action else 0.0)

    return AsyncRetrying(
        stop=stop_after_attempt(policy.attempts),
        wait=wait,
        retry=retry_if_exception(is_transient),
        before_sleep=before_sleep,
        reraise=True,
    )


def is_transient(error: BaseException) -> bool:
    """Worth retrying: a timeout, a dropped connection, a rate limit or a server error."""
    import litellm  # loaded already: only a client's calls fail with its errors

    if isinstance(error, TimeoutError | litellm.Timeout | litellm.APIConnectionError):
        return True
    status = getattr(error, "status_code", None)
    return isinstance(status, int) and (status == 429 or status >= 500)


def retry_after(error: BaseException | None) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, or `Retry-After` in seconds or as
    an HTTP date), if it said."""
    headers = getattr(error, "litellm_response_headers", None) or getattr(
        getattr(error, "response", None), "headers", None
    )
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    try:
        if "retry-after-ms" in lowered:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000)
        if "retry-after" in lowered:
            return max(0.0, float(lowered["retry-after"]))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(lowered["retry-after"])
        except (KeyError, TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())
    return None


def describe(error: BaseException | None) -> str:
    """`Type: message` on one line, cut to a readable length."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:300]}"
