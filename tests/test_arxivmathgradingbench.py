"""ArxivMathGradingBench: the builder against the real upstream file, its pinned download from a
local stand-in of raw.githubusercontent.com, and `--with-pdfs` against a local stand-in of
arxiv.org/pdf serving small fake PDFs."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import datasets
import duckdb
import pytest
from standins import NetworkGuard, Reply, Seen, StaticServer, closed_port_url

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench import build as amgb
from mathjudge.benchmarks.arxivmathgradingbench.pdfs import (
    PoliteClient,
    check_pdf,
    fetch_pdfs,
    write_with_pdfs,
)
from mathjudge.dataio.hub import verify_build
from mathjudge.dataio.sources import SourceFile, sha256_file
from mathjudge.dataio.writer import content_hash, write_dataset

UPSTREAM_FILE = "arxiv_grading_bench.jsonl"
RAW_PREFIX = f"/Slim205/pseudo-formalization/{amgb.SOURCE.revision}/data/"
DELAY = 0.25  # seconds between PDF requests in these tests
STORED = "2501.05996v1"  # the one CC BY-SA paper; every other license is not redistributable


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """A fresh download cache, and nothing may leave 127.0.0.1."""
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    guard = NetworkGuard(monkeypatch)
    yield
    assert guard.attempts == [], f"tried to reach {guard.attempts}"


@pytest.fixture(scope="module")
def raw_rows(mirror: Path) -> list[dict]:
    path = mirror / amgb.NAME / UPSTREAM_FILE
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def built(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_dataset(amgb.build(mirror), tmp_path_factory.mktemp("datasets"))


@pytest.fixture(scope="module")
def rows(built: Path) -> dict[str, dict]:
    table = datasets.load_dataset(str(built), "papers", split="test")
    return {row["item_id"]: row for row in table}


def naive_split(text: str) -> list[str]:
    """The test's own reading of `Location of Error`, independent of mathjudge.benchmarks.arxivmathgradingbench.mining."""
    return [part.strip() for part in re.split(r",|;| and ", text) if part.strip()]


# --- the builder ---------------------------------------------------------------------------


def test_counts_match_an_independent_reading_of_the_raw_file(
    raw_rows: list[dict], rows: dict[str, dict], built: Path
) -> None:
    assert len(raw_rows) == 35
    assert sum(len(naive_split(r["Location of Error"])) for r in raw_rows) == 40
    assert list(rows) == [f"{r['arxiv_id']}{r['version']}" for r in raw_rows]
    for raw in raw_rows:
        row = rows[f"{raw['arxiv_id']}{raw['version']}"]
        assert row["error_locations"] == naive_split(raw["Location of Error"])
        assert [loc["text"] for loc in row["locations"]] == row["error_locations"]
        assert all(loc["kind"] for loc in row["locations"]), row["item_id"]
        assert row["title"] == raw["title_extracted_from_tex"]
        assert row["comment"] == raw["comments"]
        assert row["category_name"] == raw["category_name_readable"]
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["files"] == [
        {
            "path": "data/papers/test-00000-of-00001.parquet",
            "config": "papers",
            "split": "test",
            "rows": 35,
            "sha256": sha256_file(built / "data/papers/test-00000-of-00001.parquet"),
        }
    ]
    assert manifest["sources"][0]["revision"] == amgb.SOURCE.revision
    assert manifest["sources"][0]["inputs"][0]["sha256"] == amgb.SOURCE.files[0].sha256


@pytest.mark.parametrize(
    ("item_id", "expected"),
    [
        ("2501.01561v1", [("theorem", "19", "Theorem 19")]),
        ("2504.15000v1", [("proposition", "4.1", "Proposition 4.1(b)")]),
        ("2501.05996v1", [("theorem", "B", "Theorem B")]),
        ("2504.02276v1", [("lemma", "4.3", "Lemma 4.3"), ("theorem", None, "main theorem")]),
        (
            "2504.03243v1",
            [
                ("theorem", "3.4", "Theorem 3.4"),
                ("corollary", "3.5", "Corollary 3.5"),
                ("lemma", "6.5", "Lemma 6.5"),
            ],
        ),
    ],
)
def test_locations_are_parsed(
    rows: dict[str, dict], item_id: str, expected: list[tuple[str, str | None, str]]
) -> None:
    got = [(loc["kind"], loc["label"], loc["text"]) for loc in rows[item_id]["locations"]]
    assert got == expected


@pytest.mark.parametrize(
    ("raw", "license_id", "permissive"),
    [
        ("CC 4.0", "cc-4.0-unspecified", False),
        ("CC BY-SA 4.0", "cc-by-sa-4.0", True),
        ("arXiv.org - Non-exclusive license to distribute", amgb.ARXIV_NONEXCLUSIVE, False),
        ("", "unknown", False),
        (None, "unknown", False),
        ("  cc  by 4.0 ", "cc-by-4.0", True),
        ("CC BY-NC-ND 4.0", "cc-by-nc-nd-4.0", False),
        ("CC BY-NC-SA 4.0", "cc-by-nc-sa-4.0", False),
        ("CC0", "cc0-1.0", True),
        ("http://creativecommons.org/licenses/by/4.0/", "cc-by-4.0", True),
        ("http://creativecommons.org/licenses/by-nc-sa/4.0/", "cc-by-nc-sa-4.0", False),
        ("http://creativecommons.org/publicdomain/zero/1.0/", "cc0-1.0", True),
        ("http://arxiv.org/licenses/nonexclusive-distrib/1.0/", amgb.ARXIV_NONEXCLUSIVE, False),
    ],
)
def test_license_normalisation(raw: str | None, license_id: str, permissive: bool) -> None:
    assert amgb.normalize_license(raw) == license_id
    assert amgb.is_permissive(license_id) is permissive


@pytest.mark.parametrize("raw", ["GPL-3.0", "CC NC 4.0", "CC BY-XX 4.0", "CC BY", "MIT"])
def test_unknown_license_spellings_are_rejected(raw: str) -> None:
    with pytest.raises(ValueError, match="unrecognised"):
        amgb.normalize_license(raw)


def test_real_licenses(rows: dict[str, dict], built: Path) -> None:
    manifest = json.loads((built / "manifest.json").read_text())
    assert manifest["checks"]["licenses"] == {
        amgb.ARXIV_NONEXCLUSIVE: 18,
        "cc-4.0-unspecified": 15,
        "cc-by-sa-4.0": 1,
        "unknown": 1,
    }
    assert rows["2504.03243v1"]["license"] == "unknown"
    assert rows["2504.03243v1"]["license_raw"] == ""
    assert rows["2501.01561v1"]["license_raw"] == "CC 4.0"
    assert [i for i, r in rows.items() if amgb.is_permissive(r["license"])] == [STORED]


def test_dataset_loads_and_queries(built: Path) -> None:
    papers = datasets.load_dataset(str(built), "papers", split="test")
    assert papers.num_rows == 35
    assert papers.features == amgb.FEATURES
    first = papers[0]
    assert first["item_id"] == "2501.01561v1" and first["version"] == "v1"
    assert first["url"] == "https://arxiv.org/abs/2501.01561"
    assert first["v1_date"] == "2025-01-02T22:35:26"
    kinds = dict(
        duckdb.execute(
            "SELECT loc.kind, count(*) FROM (SELECT unnest(locations) AS loc FROM read_parquet(?))"
            " GROUP BY 1",
            [str(built / "data/papers/test-00000-of-00001.parquet")],
        ).fetchall()
    )
    assert sum(kinds.values()) == 40 and kinds["lemma"] == 15
    card = (built / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: papers" in card
    assert "no license stated upstream" in card
    assert "| `2504.03243v1` | math.AG | `unknown` | no |" in card
    assert '| "CC 4.0" | `cc-4.0-unspecified` | 15 | no |' in card
    assert "LukeBailey181Pub/ArxivMathGradingBench" in card


def test_builds_are_byte_identical(mirror: Path, tmp_path: Path) -> None:
    first = write_dataset(amgb.build(mirror), tmp_path / "a")
    second = write_dataset(amgb.build(mirror), tmp_path / "b")
    names = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for path in names:
        assert (first / path).read_bytes() == (second / path).read_bytes(), path


def _tampered(raw_rows: list[dict], tmp_path: Path, edit) -> amgb.Source:
    """The upstream rows with `edit` applied, pinned to the new digest so that only the
    builder's own checks can catch the change."""
    rows = [dict(r) for r in raw_rows]
    edit(rows)
    folder = tmp_path / amgb.NAME
    folder.mkdir()
    (folder / UPSTREAM_FILE).write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = dataclasses.replace(amgb.SOURCE.files[0], sha256=sha256_file(folder / UPSTREAM_FILE))
    return dataclasses.replace(amgb.SOURCE, files=(spec,))


def test_inconsistent_rows_fail_naming_each(raw_rows: list[dict], tmp_path: Path) -> None:
    def edit(rows: list[dict]) -> None:
        rows[1]["Liscence"] = "All rights reserved"
        rows[3]["version"] = "2"
        rows.append(dict(rows[0]))

    with pytest.raises(MathJudgeError) as caught:
        amgb.build(tmp_path, source=_tampered(raw_rows, tmp_path, edit))
    message = str(caught.value)
    assert "line 2 (2501.04482v2): unrecognised license 'All rights reserved'" in message
    assert "line 4 (2501.088772): version '2' is not v1, v2" in message
    assert "2501.01561v1: 2 rows share this item id" in message


def test_missing_and_null_fields_fail_naming_line_and_field(
    raw_rows: list[dict], tmp_path: Path
) -> None:
    def edit(rows: list[dict]) -> None:
        del rows[1]["url"]
        rows[2]["category"] = None
        rows[3]["Liscence"] = None  # null reads as "no license recorded"

    with pytest.raises(MathJudgeError) as caught:
        amgb.build(tmp_path, source=_tampered(raw_rows, tmp_path, edit))
    message = str(caught.value)
    assert "line 2 (2501.04482v2): missing field(s) url" in message
    assert (
        f"line 3 ({raw_rows[2]['arxiv_id']}{raw_rows[2]['version']}): field(s) category must be text"
        in message
    )
    assert "line 4" not in message


def test_a_location_count_change_fails(raw_rows: list[dict], tmp_path: Path) -> None:
    def edit(rows: list[dict]) -> None:
        rows[0]["Location of Error"] = "Theorem 19 and Lemma 20"

    with pytest.raises(MathJudgeError, match=r"35 papers and 41 locations, expected 35 and 40"):
        amgb.build(tmp_path, source=_tampered(raw_rows, tmp_path, edit))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no error location"),
        ("the last page", r"location\(s\) \['the last page'\] name no kind"),
    ],
)
def test_a_location_naming_no_result_fails(
    raw_rows: list[dict], tmp_path: Path, text: str, message: str
) -> None:
    def edit(rows: list[dict]) -> None:
        rows[2]["Location of Error"] = text

    with pytest.raises(MathJudgeError, match=rf"line 3 \(2501.05996v1\): {message}"):
        amgb.build(tmp_path, source=_tampered(raw_rows, tmp_path, edit))


def test_pinned_download_from_a_local_stand_in(mirror: Path, monkeypatch) -> None:
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    (spec,) = amgb.SOURCE.files
    assert spec.url == f"https://raw.githubusercontent.com{RAW_PREFIX}{UPSTREAM_FILE}"
    with StaticServer(mirror / amgb.NAME, RAW_PREFIX) as server:
        served = dataclasses.replace(
            amgb.SOURCE, files=(SourceFile(spec.path, server.url_for(UPSTREAM_FILE), spec.sha256),)
        )
        downloaded = amgb.build(None, source=served)
        assert [(r.method, r.path) for r in server.requests] == [
            ("GET", RAW_PREFIX + UPSTREAM_FILE)
        ]
        amgb.build(None, source=served)
        assert len(server.requests) == 1, "the second build must come from the cache"
    assert content_hash(downloaded.tables) == content_hash(amgb.build(mirror).tables)


# --- --with-pdfs ---------------------------------------------------------------------------


def fake_pdf(item_id: str) -> bytes:
    return b"%PDF-1.5\n% stand-in for " + item_id.encode() + b"\n" + b"x" * 2000 + b"\n%%EOF\n"


class ArxivStandIn(StaticServer):
    """Plays arxiv.org/pdf/<item_id> from a folder, noting when each request arrived."""

    def __init__(self, root: Path) -> None:
        super().__init__(root, "/pdf")
        self.arrivals: list[float] = []

    def respond(self, seen: Seen) -> Reply:
        self.arrivals.append(time.monotonic())
        return super().respond(seen)


@pytest.fixture
def pdf_root(tmp_path: Path) -> Path:
    root = tmp_path / "arxiv"
    root.mkdir()
    return root


def serve(root: Path, files: dict[str, bytes]) -> None:
    for name, content in files.items():
        (root / name).write_bytes(content)


SYNTHETIC = [
    {"item_id": "2501.00001v1", "license": "cc-by-4.0"},
    {"item_id": "2501.00002v2", "license": amgb.ARXIV_NONEXCLUSIVE},
    {"item_id": "2501.00003v1", "license": "cc0-1.0"},
    {"item_id": "2501.00004v1", "license": "cc-4.0-unspecified"},
    {"item_id": "2501.00005v3", "license": "cc-by-sa-4.0"},
    {"item_id": "2501.00006v1", "license": "unknown"},
]
PERMISSIVE = ["2501.00001v1", "2501.00003v1", "2501.00005v3"]


def test_fetch_is_polite_and_only_for_permissive_papers(pdf_root: Path, tmp_path: Path) -> None:
    serve(pdf_root, {p["item_id"]: fake_pdf(p["item_id"]) for p in SYNTHETIC})
    cache = tmp_path / "pdfs"
    with ArxivStandIn(pdf_root) as server:
        got = fetch_pdfs(
            SYNTHETIC, cache, base_url=f"{server.url}/pdf", client=PoliteClient(delay_s=DELAY)
        )
    assert [r.path for r in server.requests] == [f"/pdf/{i}" for i in PERMISSIVE]
    assert all(r.headers["user-agent"].startswith("mathjudge/") for r in server.requests)
    assert all("ArxivMathGradingBench" in r.headers["user-agent"] for r in server.requests)
    gaps = [b - a for a, b in zip(server.arrivals, server.arrivals[1:], strict=False)]
    assert min(gaps) >= DELAY, gaps
    assert list(got) == PERMISSIVE
    for item_id, path in got.items():
        assert path == cache / f"{item_id}.pdf"
        assert path.read_bytes() == fake_pdf(item_id)
    assert sorted(p.name for p in cache.iterdir()) == [f"{i}.pdf" for i in PERMISSIVE]


def test_fetch_resumes_without_requests_for_complete_files(pdf_root: Path, tmp_path: Path) -> None:
    serve(pdf_root, {i: fake_pdf(i) for i in PERMISSIVE})
    cache = tmp_path / "pdfs"
    cache.mkdir()
    (cache / f"{PERMISSIVE[0]}.pdf").write_bytes(fake_pdf(PERMISSIVE[0]))  # complete
    (cache / f"{PERMISSIVE[1]}.pdf").write_bytes(fake_pdf(PERMISSIVE[1])[:500])  # cut off
    (cache / f".{PERMISSIVE[2]}.pdf.part-x").write_bytes(b"%PDF-1.5\n")  # a killed run's temp
    with ArxivStandIn(pdf_root) as server:
        client = PoliteClient(delay_s=DELAY)
        fetch_pdfs(SYNTHETIC, cache, base_url=f"{server.url}/pdf", client=client)
        assert [r.path for r in server.requests] == [f"/pdf/{i}" for i in PERMISSIVE[1:]]
        got = fetch_pdfs(SYNTHETIC, cache, base_url=f"{server.url}/pdf", client=client)
        assert len(server.requests) == 2, "a second run must not ask for complete files again"
    assert all(check_pdf(path) is None for path in got.values())


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"<!DOCTYPE html><html>reCAPTCHA</html>", "not a PDF"),
        (b"%PDF-1.5\n" + b"x" * 5000, "incomplete PDF"),
    ],
)
def test_a_bad_response_is_rejected_and_not_cached(
    pdf_root: Path, tmp_path: Path, content: bytes, reason: str
) -> None:
    serve(pdf_root, {PERMISSIVE[0]: fake_pdf(PERMISSIVE[0]), PERMISSIVE[1]: content})
    cache = tmp_path / "pdfs"
    with ArxivStandIn(pdf_root) as server:
        url = f"{server.url}/pdf/{PERMISSIVE[1]}"
        with pytest.raises(MathJudgeError, match=rf"{PERMISSIVE[1]}: .*{re.escape(url)}.*{reason}"):
            fetch_pdfs(
                SYNTHETIC, cache, base_url=f"{server.url}/pdf", client=PoliteClient(delay_s=0)
            )
        assert len(server.requests) == 2, "the run stops at the first failure"
    assert [p.name for p in cache.iterdir()] == [f"{PERMISSIVE[0]}.pdf"]


def test_a_missing_pdf_names_the_status(pdf_root: Path, tmp_path: Path) -> None:
    with (
        ArxivStandIn(pdf_root) as server,
        pytest.raises(MathJudgeError, match=r"HTTP 404.*0 of 3 PDFs are in"),
    ):
        fetch_pdfs(SYNTHETIC, tmp_path / "pdfs", base_url=f"{server.url}/pdf")


def test_an_unreachable_server_fails_fast(tmp_path: Path) -> None:
    base = closed_port_url()
    started = time.monotonic()
    with pytest.raises(MathJudgeError, match=rf"could not fetch its PDF from {re.escape(base)}"):
        fetch_pdfs(SYNTHETIC, tmp_path / "pdfs", base_url=f"{base}/pdf")
    assert time.monotonic() - started < 5
    assert not any((tmp_path / "pdfs").glob("*"))


def test_with_pdfs_publishes_dataset_and_permissive_pdfs_together(
    mirror: Path, built: Path, pdf_root: Path, tmp_path: Path
) -> None:
    build = amgb.build(mirror)
    # Serve every paper, so that a request for a non-redistributable one would succeed.
    serve(pdf_root, {row["item_id"]: fake_pdf(row["item_id"]) for row in build.tables[0].rows})
    out = tmp_path / "out"
    with ArxivStandIn(pdf_root) as server:
        base = f"{server.url}/pdf"
        folder = write_with_pdfs(build, out, base_url=base, client=PoliteClient(delay_s=DELAY))
        assert [r.path for r in server.requests] == [f"/pdf/{STORED}"]
        first = (folder / "pdfs.json").read_bytes()
        write_with_pdfs(build, out, base_url=base, client=PoliteClient(delay_s=DELAY))
        assert len(server.requests) == 1, "a rebuild reuses the cached PDFs"
        assert (folder / "pdfs.json").read_bytes() == first
    assert folder == out / amgb.NAME
    assert sorted(p.name for p in out.iterdir()) == [amgb.NAME], "no staging leftovers"
    assert sorted(p.name for p in (folder / "pdfs").iterdir()) == [f"{STORED}.pdf"]
    assert (folder / "pdfs" / f"{STORED}.pdf").read_bytes() == fake_pdf(STORED)

    # The dataset itself is exactly the plain build: the PDFs are attachments, not data.
    for name in ("manifest.json", "README.md", "data/papers/test-00000-of-00001.parquet"):
        assert (folder / name).read_bytes() == (built / name).read_bytes(), name
    assert "pdfs" not in " ".join(verify_build(folder).paths)
    assert datasets.load_dataset(str(folder), "papers", split="test").num_rows == 35

    manifest = json.loads((folder / "pdfs.json").read_text())
    dataset_manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["content_hash"] == dataset_manifest["content_hash"]
    entries = {e["item_id"]: e for e in manifest["papers"]}
    assert len(entries) == 35
    assert entries[STORED] == {
        "item_id": STORED,
        "url": f"{base}/{STORED}",
        "license": "cc-by-sa-4.0",
        "pdf": f"pdfs/{STORED}.pdf",
        "sha256": sha256_file(folder / "pdfs" / f"{STORED}.pdf"),
        "bytes": len(fake_pdf(STORED)),
        "status": "stored",
    }
    assert entries["2504.03243v1"]["status"] == "not redistributed: license unknown"
    assert entries["2501.01561v1"] == {
        "item_id": "2501.01561v1",
        "url": f"{base}/2501.01561v1",
        "license": "cc-4.0-unspecified",
        "pdf": None,
        "sha256": None,
        "bytes": None,
        "status": "not redistributed: license cc-4.0-unspecified",
    }


def test_a_failed_fetch_leaves_the_published_dataset_untouched(
    mirror: Path, pdf_root: Path, tmp_path: Path
) -> None:
    build = amgb.build(mirror)
    previous = write_dataset(build, tmp_path)
    before = {p: p.read_bytes() for p in previous.rglob("*") if p.is_file()}
    serve(pdf_root, {STORED: b"<html>not today</html>"})
    with ArxivStandIn(pdf_root) as server, pytest.raises(MathJudgeError, match="not a PDF"):
        write_with_pdfs(build, tmp_path, base_url=f"{server.url}/pdf")
    assert {p: p.read_bytes() for p in previous.rglob("*") if p.is_file()} == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")], "staging left"
