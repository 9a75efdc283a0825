"""The one way mathjudge talks to models: an async litellm client with bounded concurrency,
retries, a disk cache and usage accounting (see `client`), plus strict answer parsing."""

import os

# Set before any submodule imports litellm, which otherwise downloads its model cost map at
# import time (and retries in a background thread); the copy bundled with litellm is used.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from mathjudge.llm.answers import AnswerError, final_choice, final_field
from mathjudge.llm.cache import ResponseCache, cache_key
from mathjudge.llm.client import (
    ClientOptions,
    LlmCallError,
    LlmClient,
    LlmReply,
    LlmRequest,
    ParsedReply,
    Progress,
)
from mathjudge.llm.retry import RetryPolicy
from mathjudge.llm.usage import LlmStats, Usage

__all__ = [
    "AnswerError",
    "ClientOptions",
    "LlmCallError",
    "LlmClient",
    "LlmReply",
    "LlmRequest",
    "LlmStats",
    "ParsedReply",
    "Progress",
    "ResponseCache",
    "RetryPolicy",
    "Usage",
    "cache_key",
    "final_choice",
    "final_field",
]
