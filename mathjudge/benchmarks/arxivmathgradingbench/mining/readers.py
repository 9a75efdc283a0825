"""arXiv metadata as one normalised `Record` per (arxiv_id, version), whatever the source.

Each file format is normalised by one DuckDB SELECT (`normalisation`), inside which the regex
stage filters, streamed from the file rather than loaded into Python:

- `kaggle`: the Kaggle `arxiv-metadata-oai-snapshot.json` (JSON lines, optionally gzipped), one
  line per paper. Only the latest version carries a comment, so it is the one record per paper.
- `listing`: arXiv API listing JSONL, one line per version seen (no license, no category list).
- `records`: normalised records as JSON lines; a `harvest` is saved in this format.

`harvest` reads the live arXiv API (Atom XML) politely. Titles, abstracts and comments have
their whitespace collapsed, so a pattern with a space matches across the hard line breaks the
Kaggle snapshot keeps.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import gzip
import http.client
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from mathjudge import __version__
from mathjudge.base.atomic import atomic_path
from mathjudge.base.errors import MathJudgeError


class Format(StrEnum):
    KAGGLE = "kaggle"
    LISTING = "listing"
    RECORDS = "records"


@dataclass(frozen=True)
class Record:
    """One version of one paper. `date` is that version's date; `v1_date` (ISO timestamp of the
    first version) only where the source gives it."""

    arxiv_id: str
    version: int
    title: str | None
    abstract: str | None
    comment: str | None
    primary_category: str | None
    categories: tuple[str, ...]
    license: str | None
    date: dt.date
    v1_date: str | None
    source_format: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Record:
        return cls(**{**row, "categories": tuple(row["categories"] or ())})

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "categories": list(self.categories), "date": self.date.isoformat()}


@dataclass(frozen=True)
class InputFile:
    path: Path
    format: Format
    gzipped: bool
    skip_unreadable: bool = False  # lines that are not JSON objects (found and reported first)


GZIP_MAGIC = b"\x1f\x8b"
KAGGLE_DATE = "%a, %d %b %Y %H:%M:%S GMT"  # e.g. "Mon, 2 Apr 2007 19:18:42 GMT"
SIGNATURES = {  # the keys that identify a format on a file's first line
    Format.KAGGLE: frozenset({"id", "versions", "categories"}),
    Format.LISTING: frozenset({"arxiv_id", "version", "updated_date"}),
    Format.RECORDS: frozenset({"arxiv_id", "version", "date", "source_format"}),
}


def _first_line(path: Path, gzipped: bool) -> str:
    with gzip.open(path, "rt", encoding="utf-8") if gzipped else path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                return str(line)
    raise MathJudgeError(f"{path}: empty file, no arXiv records")


def open_input(path: Path, fmt: Format | str | None = None) -> InputFile:
    """`path` with its format, recognised from the first line's keys. A format given as `fmt`
    is checked against them, so a wrong flag fails here instead of reading nulls."""
    if not path.is_file():
        raise MathJudgeError(f"{path}: no such file")
    with path.open("rb") as handle:
        gzipped = handle.read(2) == GZIP_MAGIC
    try:
        keys = set(json.loads(_first_line(path, gzipped)))
    except (json.JSONDecodeError, UnicodeDecodeError, OSError, EOFError, TypeError) as exc:
        raise MathJudgeError(f"{path}: not JSON lines of arXiv metadata ({exc})") from exc
    if fmt is not None and fmt not in set(Format):
        raise MathJudgeError(f"unknown input format {fmt!r}: one of {', '.join(Format)}")
    wanted = [Format(fmt)] if fmt is not None else list(Format)
    for name in wanted:
        if SIGNATURES[name] <= keys:
            return InputFile(path, name, gzipped)
    expected = " or ".join(f"{n} ({', '.join(sorted(SIGNATURES[n]))})" for n in wanted)
    raise MathJudgeError(f"{path}: the first line has keys {sorted(keys)}, not those of {expected}")


def sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def clean_sql(column: str) -> str:
    r"""Whitespace runs collapsed to one space, trimmed, empty as NULL. RE2's `\s` is tab,
    newline, form feed, carriage return and space; the regex (the costly part of a scan) runs
    only on strings that substring tests show it would change."""
    messy = " OR ".join(
        [f"contains({column}, chr({code}))" for code in (9, 10, 12, 13)]
        + [f"contains({column}, '  ')", f"starts_with({column}, ' ')", f"ends_with({column}, ' ')"]
    )
    collapsed = f"trim(regexp_replace({column}, '\\s+', ' ', 'g'))"
    return f"nullif(CASE WHEN {messy} THEN {collapsed} ELSE {column} END, '')"


def _version(column: str) -> str:
    """ "v3" -> 3 (anything else fails the cast, loudly)."""
    return f"CAST(substr({column}, 2) AS INTEGER)"


def _read_json(source: InputFile, columns: dict[str, str]) -> str:
    spec = ", ".join(f"{sql_string(k)}: {sql_string(v)}" for k, v in columns.items())
    compression = "gzip" if source.gzipped else "none"
    skip = ", ignore_errors = true" if source.skip_unreadable else ""
    return (
        f"read_json({sql_string(str(source.path))}, format = 'newline_delimited', "
        f"columns = {{{spec}}}, compression = '{compression}'{skip})"
    )


@dataclass(frozen=True)
class Normalisation:
    """How one file becomes records: a table expression of its raw columns and, for each
    `Record` field, an SQL expression over them. Kept apart so that a query can compute an
    expensive field (cleaned text) only for the rows it keeps."""

    table: str
    fields: dict[str, str]
    # Cheap forms for scanning every row: the raw comment (previews clean only what they show)
    # and the categories as one space-separated string (a substring test, no list built).
    comment_column: str
    categories_text: str

    def select(self) -> str:
        columns = ", ".join(f"{expr} AS {name}" for name, expr in self.fields.items())
        return f"SELECT {columns} FROM {self.table}"


def normalisation(source: InputFile, *, abstract: bool = True) -> Normalisation:
    """`abstract=False` leaves the abstract unread (NULL): a scan that never needs it is a
    quarter faster when the JSON reader does not have to materialise the longest field."""
    if source.format is Format.KAGGLE:
        raw = {
            "id": "VARCHAR",
            "title": "VARCHAR",
            "abstract": "VARCHAR",
            "comments": "VARCHAR",
            "categories": "VARCHAR",
            "license": "VARCHAR",
            "versions": "STRUCT(version VARCHAR, created VARCHAR)[]",
        }
        fields = {
            "arxiv_id": "id",
            "version": _version("versions[-1].version"),
            "title": clean_sql("title"),
            "abstract": clean_sql("abstract"),
            "comment": clean_sql("comments"),
            "primary_category": "split_part(trim(categories), ' ', 1)",
            "categories": "regexp_split_to_array(trim(categories), '\\s+')",
            "license": "license",
            "date": f"CAST(strptime(versions[-1].created, '{KAGGLE_DATE}') AS DATE)",
            "v1_date": f"strftime(strptime(versions[1].created, '{KAGGLE_DATE}'), "
            "'%Y-%m-%dT%H:%M:%S')",
            "source_format": "'kaggle'",
        }
    elif source.format is Format.LISTING:
        names = ("arxiv_id", "version", "title", "abstract", "comment", "primary_category")
        raw = {k: "VARCHAR" for k in (*names, "updated_date")}
        fields = {
            "arxiv_id": "arxiv_id",
            "version": _version("version"),
            "title": clean_sql("title"),
            "abstract": clean_sql("abstract"),
            "comment": clean_sql("comment"),
            "primary_category": "primary_category",
            "categories": "[primary_category]",
            "license": "CAST(NULL AS VARCHAR)",
            "date": "CAST(updated_date AS DATE)",
            "v1_date": "CAST(NULL AS VARCHAR)",
            "source_format": "'listing'",
        }
    else:
        raw = {
            "arxiv_id": "VARCHAR",
            "version": "INTEGER",
            "title": "VARCHAR",
            "abstract": "VARCHAR",
            "comment": "VARCHAR",
            "primary_category": "VARCHAR",
            "categories": "VARCHAR[]",
            "license": "VARCHAR",
            "date": "DATE",
            "v1_date": "VARCHAR",
            "source_format": "VARCHAR",
        }
        text = ("title", "abstract", "comment")
        fields = {name: clean_sql(name) if name in text else name for name in raw}
    comment, categories = {
        Format.KAGGLE: ("comments", "categories"),
        Format.LISTING: ("comment", "primary_category"),
        Format.RECORDS: ("comment", "array_to_string(categories, ' ')"),
    }[source.format]
    if not abstract:
        raw.pop("abstract")
        fields["abstract"] = "CAST(NULL AS VARCHAR)"
    return Normalisation(_read_json(source, raw), fields, comment, categories)


def write_records(records: Iterable[Record], path: Path) -> int:
    """Save records as `records`-format JSON lines (atomically); returns how many."""
    count = 0
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
            count += 1
    return count


# --- live harvest from the arXiv API (Atom) ---------------------------------------------------

API_URL = "http://export.arxiv.org/api/query"
MATH_QUERY = "cat:math.*"
DEFAULT_DELAY_S = 3.0  # arXiv asks automated clients for one request every three seconds
MAX_WAIT_S = 300.0
TIMEOUT_S = 60
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
USER_AGENT = (
    f"mathjudge/{__version__} (arXiv metadata harvest for mining error corrections; "
    "one request at a time)"
)
NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "arxiv": "http://arxiv.org/schemas/atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
}
API_ERROR_PREFIX = "http://arxiv.org/api/errors"
_ABS_LINK = re.compile(r"/abs/(?P<id>.+?)v(?P<version>\d+)$")


def _text(node: ET.Element, path: str) -> str | None:
    found = node.find(path, NS)
    if found is None or found.text is None:
        return None
    return " ".join(found.text.split()) or None


def _timestamp(text: str | None) -> dt.datetime | None:
    """An Atom timestamp in UTC (one without an offset is taken as UTC)."""
    if not text:
        return None
    value = dt.datetime.fromisoformat(text)
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def parse_entry(entry: ET.Element) -> Record:
    """One Atom entry; the version comes from its abs link, the date from `updated` (UTC)."""
    links = {link.get("rel"): link.get("href") for link in entry.findall("atom:link", NS)}
    abs_link = links.get("alternate") or _text(entry, "atom:id") or ""
    match = _ABS_LINK.search(abs_link)
    updated = _timestamp(_text(entry, "atom:updated"))
    if match is None or updated is None:
        raise ValueError(f"entry {abs_link!r} has no versioned abs link or no updated date")
    primary = entry.find("arxiv:primary_category", NS)
    primary_term = primary.get("term") if primary is not None else None
    terms = [c.get("term") or "" for c in entry.findall("atom:category", NS)]
    categories = dict.fromkeys([t for t in (primary_term, *terms) if t])
    published = _timestamp(_text(entry, "atom:published"))
    return Record(
        arxiv_id=match["id"],
        version=int(match["version"]),
        title=_text(entry, "atom:title"),
        abstract=_text(entry, "atom:summary"),
        comment=_text(entry, "arxiv:comment"),
        primary_category=primary_term,
        categories=tuple(categories),
        license=_text(entry, "arxiv:license") or links.get("license"),
        date=updated.date(),
        v1_date=published.strftime("%Y-%m-%dT%H:%M:%S") if published else None,
        source_format="atom",
    )


def parse_feed(body: bytes, url: str) -> tuple[list[Record], int | None]:
    """The records of one Atom page and the total the query matches (None if not stated)."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise MathJudgeError(f"{url}: the response is not Atom XML ({exc})") from exc
    entries = root.findall("atom:entry", NS)
    for entry in entries:
        if (_text(entry, "atom:id") or "").startswith(API_ERROR_PREFIX):
            raise MathJudgeError(f"{url}: arXiv API error: {_text(entry, 'atom:summary')}")
    total = _text(root, "opensearch:totalResults")
    try:
        return [parse_entry(e) for e in entries], int(total) if total else None
    except ValueError as exc:
        raise MathJudgeError(f"{url}: {exc}") from exc


def retry_after_s(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (delta-seconds or an HTTP date), capped."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        seconds = (when - dt.datetime.now(dt.UTC)).total_seconds()
    return min(max(seconds, 0.0), MAX_WAIT_S)


class PoliteGetter:
    """Sequential GETs, each at least `delay_s` after the previous response ended (longer when
    the server sent Retry-After), retried on 429/5xx and network errors with backoff."""

    def __init__(self, *, delay_s: float, user_agent: str, max_retries: int) -> None:
        self.delay_s = delay_s
        self.user_agent = user_agent
        self.max_retries = max_retries
        self._last_end: float | None = None
        self._wait_s = 0.0

    def get(self, url: str) -> bytes:
        attempt = 0
        while True:
            if self._last_end is not None:
                time.sleep(max(0.0, self._last_end + self._wait_s - time.monotonic()))
            self._wait_s = self.delay_s
            request = urllib.request.Request(url, headers={"User-Agent": self.user_agent})
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
                    return bytes(response.read())
            except urllib.error.HTTPError as exc:
                if exc.code not in RETRY_STATUSES or attempt == self.max_retries:
                    raise MathJudgeError(f"{url}: HTTP {exc.code} {exc.reason}") from exc
                asked = retry_after_s(exc.headers.get("Retry-After") if exc.headers else None)
                self._wait_s = self._backoff(attempt) if asked is None else max(asked, self.delay_s)
            except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
                if attempt == self.max_retries:
                    raise MathJudgeError(f"{url}: {exc}") from exc
                self._wait_s = self._backoff(attempt)
            finally:
                self._last_end = time.monotonic()
            attempt += 1

    def _backoff(self, attempt: int) -> float:
        return min(max(self.delay_s, 1.0) * 2**attempt, MAX_WAIT_S)


def harvest(
    since: dt.date,
    until: dt.date,
    *,
    base_url: str = API_URL,
    query: str = MATH_QUERY,
    page_size: int = 100,
    delay_s: float = DEFAULT_DELAY_S,
    user_agent: str = USER_AGENT,
    max_retries: int = 5,
) -> Iterator[Record]:
    """Records of `query` whose version date lies in [since, until], from the arXiv API.

    Pages are walked newest update first and the walk stops at the first entry older than
    `since`. No date range goes into the query: the API's `lastUpdatedDate:[..]` range does not
    reliably select on the last update, while its sort order does. An empty page before the
    stated total is a known API hiccup and is asked for again, up to `max_retries` times.
    """
    getter = PoliteGetter(delay_s=delay_s, user_agent=user_agent, max_retries=max_retries)
    start, empty_pages = 0, 0
    while True:
        params = {
            "search_query": query,
            "sortBy": "lastUpdatedDate",
            "sortOrder": "descending",
            "start": start,
            "max_results": page_size,
        }
        url = f"{base_url}?{urllib.parse.urlencode(params)}"
        records, total = parse_feed(getter.get(url), url)
        if not records:
            if total is None or start >= total:
                return
            empty_pages += 1
            if empty_pages > max_retries:
                raise MathJudgeError(
                    f"{url}: {empty_pages} empty pages at {start} of {total} results; "
                    "the harvest is incomplete"
                )
            continue
        empty_pages = 0
        for record in records:
            if record.date < since:
                return
            if record.date <= until:
                yield record
        start += len(records)
        if total is not None and start >= total:
            return
