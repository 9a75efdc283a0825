"""The arXiv metadata readers: the Kaggle snapshot sample (plain and gzipped), the shared API
listing, format detection and flags, and the live harvest against a local server replaying
Atom pages (paging, a 503 with Retry-After, the delay between requests, the User-Agent)."""

from __future__ import annotations

import datetime as dt
import gzip
import shutil
import time
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from standins import LocalServer, Reply, Seen

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import (
    Format,
    Record,
    harvest,
    normalisation,
    open_input,
    retry_after_s,
    write_records,
)

ATOM_PAGES = Path(__file__).parent / "fixtures" / "arxiv_atom"
KAGGLE_SAMPLE = "arxiv-metadata-samples/kaggle_arxiv_metadata_oai_snapshot_first200.jsonl"
LISTING = "arxiv-metadata-samples/arxiv_api_math_NT_RT_listing_2025-2026.jsonl"


pytestmark = pytest.mark.usefixtures("no_network")


def read_records(path: Path, fmt: Format | str | None = None) -> list[Record]:
    """Every record of one file, as the regex stage's SQL normalises it (`normalisation`)."""
    import duckdb

    with duckdb.connect() as con:
        rows = con.sql(normalisation(open_input(path, fmt)).select()).to_arrow_table()
    return [Record.from_row(row) for row in rows.to_pylist()]


def test_kaggle_sample_one_record_per_paper_latest_version(mirror: Path) -> None:
    records = list(read_records(mirror / KAGGLE_SAMPLE))
    assert len(records) == 200
    assert len({r.arxiv_id for r in records}) == 200
    by_id = {r.arxiv_id: r for r in records}
    paper = by_id["0704.0002"]  # two versions: the record is v2, with v2's date
    assert paper.version == 2
    assert paper.date == dt.date(2008, 12, 13)
    assert paper.v1_date == "2007-03-31T02:26:18"
    assert paper.categories == ("math.CO", "cs.CG")
    assert paper.primary_category == "math.CO"
    assert paper.license == "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    assert paper.comment == "To appear in Graphs and Combinatorics"
    assert paper.source_format == "kaggle"
    # Kaggle keeps hard line breaks; the reader collapses whitespace.
    assert by_id["0704.0001"].title == (
        "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    )
    assert by_id["0704.0001"].abstract.startswith("A fully differential calculation")
    assert sum(1 for r in records if r.version > 1) == 87
    assert sum(1 for r in records if any(c.startswith("math.") for c in r.categories)) == 51


def test_kaggle_gzipped_copy_reads_the_same(mirror: Path, tmp_path: Path) -> None:
    plain = mirror / KAGGLE_SAMPLE
    for name in ("snapshot.json.gz", "snapshot-without-suffix"):
        packed = tmp_path / name
        with plain.open("rb") as src, gzip.open(packed, "wb") as dst:
            shutil.copyfileobj(src, dst)
        source = open_input(packed)
        assert (source.format, source.gzipped) == (Format.KAGGLE, True)
        assert list(read_records(packed)) == list(read_records(plain))


def test_api_listing(mirror: Path) -> None:
    records = list(read_records(mirror / LISTING))
    assert len(records) == 13_131
    assert len({(r.arxiv_id, r.version) for r in records}) == 13_131
    (record,) = [r for r in records if (r.arxiv_id, r.version) == ("2505.01716", 2)]
    assert record == Record(
        arxiv_id="2505.01716",
        version=2,
        title=record.title,
        abstract=record.abstract,
        comment="Lemma 4.2 in v1 is wrong. We modify the proof of Theorem 4.1",
        primary_category="math.AG",
        categories=("math.AG",),
        license=None,
        date=dt.date(2025, 7, 30),
        v1_date=None,
        source_format="listing",
    )
    assert sum(1 for r in records if r.comment is None) == 3_322
    assert sum(1 for r in records if r.date.year == 2025) == 5_059


def test_format_detection_and_flag(mirror: Path, tmp_path: Path) -> None:
    assert open_input(mirror / LISTING).format is Format.LISTING
    assert open_input(mirror / LISTING, "listing").format is Format.LISTING
    with pytest.raises(MathJudgeError, match="not those of kaggle"):
        open_input(mirror / LISTING, "kaggle")
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"paper": 1}\n', encoding="utf-8")
    with pytest.raises(MathJudgeError, match=r"odd\.jsonl"):
        open_input(odd)
    with pytest.raises(MathJudgeError, match="no such file"):
        open_input(tmp_path / "missing.jsonl")


def test_records_round_trip(mirror: Path, tmp_path: Path) -> None:
    records = list(read_records(mirror / KAGGLE_SAMPLE))[:20]
    path = tmp_path / "records.jsonl"
    assert write_records(records, path) == 20
    assert open_input(path).format is Format.RECORDS
    assert list(read_records(path)) == records


# --- harvest -----------------------------------------------------------------------------------


class AtomReplay(LocalServer):
    """Serves the fixture pages by `start`, answering the first request for `fail_start` with
    503 and Retry-After; records when each request arrived."""

    def __init__(self, fail_start: int | None = None, retry_after: str = "1") -> None:
        super().__init__()
        self.fail_start = fail_start
        self.retry_after = retry_after
        self.arrivals: list[float] = []

    def respond(self, seen: Seen) -> Reply:
        self.arrivals.append(time.monotonic())
        start = int(parse_qs(seen.query)["start"][0])
        if start == self.fail_start:
            self.fail_start = None
            return 503, {"Retry-After": self.retry_after}, b"busy"
        page = ATOM_PAGES / f"page{start // 2 + 1}.xml"
        if not page.is_file():
            return 404, {}, b"no such page"
        return 200, {"Content-Type": "application/atom+xml"}, page.read_bytes()


@pytest.mark.slow  # seconds of work: the full suite runs it
def test_harvest_pages_window_retry_and_politeness() -> None:
    with AtomReplay(fail_start=2, retry_after="1") as server:
        records = list(
            harvest(
                dt.date(2025, 2, 25),
                dt.date(2025, 3, 31),
                base_url=f"{server.url}/api/query",
                page_size=2,
                delay_s=0.3,
                user_agent="mathjudge-test/1 (polite)",
            )
        )
    # Page 1, page 2 answered 503, page 2 again, page 3 (whose first entry ends the walk).
    starts = [parse_qs(s.query)["start"][0] for s in server.requests]
    assert starts == ["0", "2", "2", "4"]
    query = parse_qs(server.requests[0].query)
    assert query["search_query"] == ["cat:math.*"]
    assert query["sortBy"] == ["lastUpdatedDate"]
    assert query["sortOrder"] == ["descending"]
    assert query["max_results"] == ["2"]
    assert {s.headers["user-agent"] for s in server.requests} == {"mathjudge-test/1 (polite)"}
    gaps = [b - a for a, b in zip(server.arrivals, server.arrivals[1:], strict=False)]
    assert gaps[0] >= 0.3 and gaps[2] >= 0.3  # the delay between pages
    assert gaps[1] >= 1.0  # the Retry-After of the 503

    assert [(r.arxiv_id, r.version) for r in records] == [
        ("2502.00123", 2),  # 2504.00011 (2025-04-02) is after the window
        ("2501.04567", 3),
        ("math/0601001", 2),  # then 2409.09999 (2025-02-20) ends the walk
    ]
    first, second, old = records
    assert first.comment == "v2: an error in the proof of Lemma 3.1 is corrected; 18 pages"
    assert first.categories == ("math.NT", "math.AG")
    assert first.license == "http://creativecommons.org/licenses/by/4.0/"
    assert first.date == dt.date(2025, 3, 10)
    assert first.v1_date == "2025-02-03T11:02:45"
    assert first.source_format == "atom"
    assert second.primary_category == "cs.LO"
    assert second.categories == ("cs.LO", "math.LO")
    assert second.license == "http://creativecommons.org/publicdomain/zero/1.0/"
    assert old.license is None and old.title == "An old-style identifier"


def test_harvest_gives_up_after_retries_and_reports_api_errors() -> None:
    class Busy(AtomReplay):
        def respond(self, seen: Seen) -> Reply:
            return 503, {"Retry-After": "0"}, b"busy"

    with Busy() as server, pytest.raises(MathJudgeError, match="HTTP 503"):
        list(
            harvest(
                dt.date(2025, 1, 1),
                dt.date(2025, 1, 2),
                base_url=server.url,
                delay_s=0.0,
                max_retries=2,
            )
        )
    assert len(server.requests) == 3

    class Failing(AtomReplay):
        def respond(self, seen: Seen) -> Reply:
            return 200, {}, (ATOM_PAGES / "error.xml").read_bytes()

    with Failing() as server, pytest.raises(MathJudgeError, match="start must be"):
        list(harvest(dt.date(2025, 1, 1), dt.date(2025, 1, 2), base_url=server.url, delay_s=0))


def test_retry_after_header_forms() -> None:
    assert retry_after_s("7") == 7.0
    assert retry_after_s(None) is None
    assert retry_after_s("100000") == 300.0  # capped
    assert retry_after_s("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past
