"""Disk cache of model answers: one small JSON file per request key.

Each answer is written atomically (temp file + rename) the moment it arrives, so killing a run
loses only the calls in flight, and the next run replays everything else without a request.
Files are sharded by the key's first two hex digits to keep folders small.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.atomic import atomic_path
from mathjudge.llm.usage import Usage

# Bumped whenever the key's payload changes meaning, so old entries are never misread.
KEY_VERSION = 1

log = logging.getLogger(__name__)


def cache_key(
    *,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    run: int | str,
) -> str:
    """sha256 of the canonical JSON (sorted keys, no spaces, UTF-8) of everything that shapes
    an answer: the model name, the messages, the sampling params and the caller's `run` salt.
    Where the model is served (api_base) and client settings (timeouts, retries) are not part
    of it."""
    payload = {
        "v": KEY_VERSION,
        "model": model,
        "messages": [dict(m) for m in messages],
        "params": dict(params),
        "run": run,
    }
    canonical = json.dumps(
        payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    text: str
    usage: Usage


class ResponseCache:
    """Answers by key under `root`; safe to share between concurrent runs (last write wins,
    and both writers hold the same answer's key)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedAnswer | None:
        path = self.path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            return CachedAnswer(text=str(entry["text"]), usage=Usage.from_json(entry["usage"]))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ignoring unreadable cache entry %s: %s", path, exc)
            return None

    def put(self, key: str, answer: CachedAnswer, *, record: Mapping[str, Any]) -> None:
        """Stores the answer with `record` (model, params, run, item id) for auditing."""
        entry = {"key": key, **record, "text": answer.text, "usage": answer.usage.to_json()}
        with atomic_path(self.path(key)) as tmp:
            tmp.write_text(json.dumps(entry, ensure_ascii=False, indent=1), encoding="utf-8")
