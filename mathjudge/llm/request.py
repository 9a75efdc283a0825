"""What one model call asks, apart from the client that sends it (which imports litellm): a
judge builds requests without paying for that import until it calls a model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Message = Mapping[str, str]


@dataclass(frozen=True)
class LlmRequest:
    """One call. `item_id` names the caller's item in results and errors; `run` salts the cache
    key so repeated runs of one item get their own answers."""

    item_id: str
    messages: Sequence[Message]
    run: int | str = 0
