"""License lookup over OAI-PMH (against a local stand-in serving GetRecord answers written for
these tests) and the `mathjudge arxiv filter` options around it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from standins import LocalServer, OpenAIStub, Reply, Seen, StubReply

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.mining.licenses import (
    CACHE_FILE,
    LicenseLookup,
    lookup_licenses,
)
from mathjudge.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "arxiv_oai"
RECORDS = {
    "2502.00001": "record_cc_by.xml",
    "2502.00002": "record_nonexclusive.xml",
    "2502.00003": "record_no_license.xml",
}
CC_BY = "http://creativecommons.org/licenses/by/4.0/"
NONEXCLUSIVE = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"


class OaiRecords(LocalServer):
    """GetRecord answers by identifier; the first request for `busy` gets a 503."""

    def __init__(self, busy: str | None = None) -> None:
        super().__init__()
        self.busy = busy

    def respond(self, seen: Seen) -> Reply:
        query = {k: v[0] for k, v in parse_qs(seen.query).items()}
        assert (query["verb"], query["metadataPrefix"]) == ("GetRecord", "arXiv")
        arxiv_id = query["identifier"].removeprefix("oai:arXiv.org:")
        if arxiv_id == self.busy:
            self.busy = None
            return 503, {"Retry-After": "0"}, b"busy"
        name = RECORDS.get(arxiv_id, "no_such_id.xml")
        return 200, {"Content-Type": "text/xml"}, (FIXTURES / name).read_bytes()


pytestmark = pytest.mark.usefixtures("no_network", "stub_key")


def test_lookup_reads_licenses_retries_and_caches(tmp_path: Path) -> None:
    ids = ["2502.00001", "2502.00002", "2502.00003", "2502.00001"]
    with OaiRecords(busy="2502.00002") as oai:
        lookup = LicenseLookup(tmp_path / "cache", oai.url, delay_s=0.0)
        found, fetched = lookup_licenses(ids, lookup)
        assert found == {"2502.00001": CC_BY, "2502.00002": NONEXCLUSIVE, "2502.00003": None}
        assert fetched == 3
        assert len(oai.requests) == 4  # three papers, one asked twice after the 503
        assert all(r.headers["user-agent"].startswith("mathjudge/") for r in oai.requests)
        # Everything is cached: asking again makes no request.
        assert lookup_licenses(ids, lookup) == (found, 0)
        assert len(oai.requests) == 4
    cached = json.loads((tmp_path / "cache" / CACHE_FILE).read_text(encoding="utf-8"))
    assert cached[oai.url]["2502.00003"] is None


def test_an_unknown_identifier_stops_the_lookup_and_keeps_what_was_fetched(
    tmp_path: Path,
) -> None:
    with OaiRecords() as oai:
        lookup = LicenseLookup(tmp_path, oai.url, delay_s=0.0)
        with pytest.raises(MathJudgeError, match="idDoesNotExist"):
            lookup_licenses(["2502.00001", "2599.99999"], lookup)
        assert lookup_licenses(["2502.00001"], lookup) == ({"2502.00001": CC_BY}, 0)


def listing_line(number: int, comment: str) -> dict[str, Any]:
    return {
        "arxiv_id": f"2502.0000{number}",
        "version": "v2",
        "title": f"Made-up paper {number}",
        "updated_date": "2025-03-02",
        "primary_category": "math.NT",
        "comment": comment,
        "abstract": "Made up for a test.",
    }


def run_cli(args: list[str]) -> Any:
    return CliRunner().invoke(main, ["arxiv", "filter", *args, "--quiet"])


def test_listing_candidates_get_their_license_looked_up(tmp_path: Path) -> None:
    listing = write_jsonl(
        tmp_path / "listing.jsonl",
        [
            listing_line(1, "v2: the proof of Lemma 2.1 was wrong and is corrected"),
            listing_line(2, "v2: an error in Theorem 3 is fixed"),
            listing_line(3, "v2: Proposition 4 corrected, its statement was wrong"),
        ],
    )
    common = [str(listing), "--since", "2025-01-01", "--until", "2025-12-31"]
    with OaiRecords() as oai, OpenAIStub(script=lambda _body: StubReply("LABEL: major")) as stub:
        model = ["--classify-model", "openai/stub-model", "--api-base", stub.api_base]
        model += ["--cache", str(tmp_path / "cache")]
        without = run_cli([*common, *model, "--out", str(tmp_path / "without")])
        assert without.exit_code == 0, without.output
        assert oai.requests == []
        lookup = ["--lookup-licenses", "--oai-url", oai.url, "--harvest-delay", "0"]
        result = run_cli([*common, *model, "--out", str(tmp_path / "with"), *lookup])
        assert result.exit_code == 0, result.output
        assert len(oai.requests) == 3

    funnel = json.loads((tmp_path / "without" / "funnel.json").read_text(encoding="utf-8"))
    assert funnel["stage3"]["license_lookup"] == {"run": False, "without_license": 3}
    assert funnel["final"] == 0

    funnel = json.loads((tmp_path / "with" / "funnel.json").read_text(encoding="utf-8"))
    assert funnel["stage3"]["license_lookup"] == {
        "run": True,
        "base_url": oai.url,
        "asked": 3,
        "fetched": 3,
        "stated": 2,
    }
    assert funnel["final"] == 1
    rows = pq.read_table(tmp_path / "with" / "candidates.parquet").to_pylist()
    seen = {(r["arxiv_id"], r["license"], r["license_source"], r["status"]) for r in rows}
    assert seen == {
        ("2502.00001", "cc-by-4.0", "oai-pmh", "kept"),
        ("2502.00002", "arxiv-nonexclusive-distrib-1.0", "oai-pmh", "not_permissive"),
        ("2502.00003", "unknown", None, "not_permissive"),
    }
    split = pq.read_table(
        next((tmp_path / "with" / "arxivmathgradingbench-mined").rglob("*.parquet"))
    ).to_pylist()
    assert [(r["item_id"], r["license_raw"]) for r in split] == [("2502.00001v1", CC_BY)]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["--harvest", "--since", "2025-01-01"], 2, "--harvest needs both --since and --until"),
        ([], 2, "give metadata files, --harvest, or both"),
        (["{listing}", "--correction-pattern", "fix("], 1, "correction = 'fix(' is not valid"),
        (["{listing}", "--format", "kaggle"], 1, "not those of kaggle (categories, id, versions)"),
    ],
)
def test_filter_usage_errors(tmp_path: Path, args: list[str], code: int, message: str) -> None:
    listing = write_jsonl(tmp_path / "listing.jsonl", [listing_line(1, "Lemma 2.1 corrected")])
    out = tmp_path / "out"
    result = run_cli([a.format(listing=listing) for a in args] + ["--out", str(out)])
    assert result.exit_code == code, result.output
    assert message in result.output
    assert not out.exists()


def test_patterns_and_category_prefix_are_configurable(tmp_path: Path) -> None:
    listing = write_jsonl(
        tmp_path / "listing.jsonl",
        [
            listing_line(1, "v2: the proof of Lemma 2.1 was wrong and is corrected"),
            listing_line(2, "v2: a gap in Corollary 5 is closed"),
        ],
    )

    def survivors(*options: str) -> list[str]:
        out = tmp_path / str(len(list(tmp_path.iterdir())))
        result = run_cli([str(listing), "--out", str(out), *options])
        assert result.exit_code == 0, result.output
        return [r["arxiv_id"] for r in pq.read_table(out / "candidates.parquet").to_pylist()]

    assert survivors() == ["2502.00001"]
    assert survivors("--correction-pattern", "gap", "--result-pattern", "corollary") == [
        "2502.00002"
    ]
    assert survivors("--category-prefix", "math.AG") == []
    funnel = json.loads((tmp_path / "2" / "funnel.json").read_text(encoding="utf-8"))
    assert funnel["patterns"]["correction"] == "gap"
