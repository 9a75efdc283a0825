"""Licenses for candidates whose inputs carry none (the API listing has no license field),
looked up from arXiv's OAI-PMH interface, whose `arXiv` metadata format states the license.

Only candidates that reach the license filter are asked about, one request at a time with the
harvest's delay and User-Agent, and every answer is kept in a small JSON cache written after
each lookup, so an interrupted or repeated run never asks for a paper twice.
"""

from __future__ import annotations

import json
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from mathjudge.base.atomic import atomic_path
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import (
    DEFAULT_DELAY_S,
    USER_AGENT,
    PoliteGetter,
)

OAI_URL = "https://oaipmh.arxiv.org/oai"
NS = {"oai": "http://www.openarchives.org/OAI/2.0/", "arxiv": "http://arxiv.org/OAI/arXiv/"}
CACHE_FILE = "arxiv-licenses.json"


@dataclass(frozen=True)
class LicenseLookup:
    """Where and how politely to ask; `cache_dir` holds `arxiv-licenses.json`."""

    cache_dir: Path
    base_url: str = OAI_URL
    delay_s: float = DEFAULT_DELAY_S
    user_agent: str = USER_AGENT
    max_retries: int = 5


def parse_license(xml: bytes, url: str) -> str | None:
    """The license URL of a GetRecord answer; None when the record states none (arXiv's
    default license, not a permissive one). An OAI-PMH error is raised with its code."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise MathJudgeError(f"{url}: not an OAI-PMH answer ({exc})") from exc
    error = root.find("oai:error", NS)
    if error is not None:
        raise MathJudgeError(f"{url}: OAI-PMH error {error.get('code')}: {error.text or ''}")
    metadata = root.find(".//arxiv:arXiv", NS)
    if metadata is None:
        raise MathJudgeError(f"{url}: the answer has no arXiv metadata record")
    found = metadata.find("arxiv:license", NS)
    if found is None or found.text is None:
        return None
    return " ".join(found.text.split()) or None


def record_url(base_url: str, arxiv_id: str) -> str:
    params = {
        "verb": "GetRecord",
        "identifier": f"oai:arXiv.org:{arxiv_id}",
        "metadataPrefix": "arXiv",
    }
    return f"{base_url}?{urllib.parse.urlencode(params)}"


def lookup_licenses(
    arxiv_ids: Sequence[str],
    options: LicenseLookup,
    progress: Callable[[int], None] | None = None,
) -> tuple[dict[str, str | None], int]:
    """The license of each paper (None: none stated), and how many were fetched (the rest
    came from the cache). A failed request stops the run; what was fetched stays cached."""
    path = options.cache_dir / CACHE_FILE
    cache: dict[str, dict[str, str | None]] = (
        json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    )
    known = cache.setdefault(options.base_url, {})
    getter = PoliteGetter(
        delay_s=options.delay_s, user_agent=options.user_agent, max_retries=options.max_retries
    )
    fetched = 0
    for arxiv_id in dict.fromkeys(arxiv_ids):
        if arxiv_id not in known:
            url = record_url(options.base_url, arxiv_id)
            known[arxiv_id] = parse_license(getter.get(url), url)
            fetched += 1
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_path(path) as tmp:
                tmp.write_text(json.dumps(cache, indent=1, sort_keys=True), encoding="utf-8")
        if progress is not None:
            progress(1)
    return {i: known[i] for i in arxiv_ids}, fetched
