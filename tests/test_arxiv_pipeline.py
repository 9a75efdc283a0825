"""`run_filter` end to end: stage 1 only (no model) on the shared listing, and all three stages
on hand-made records and on a harvest from a local Atom server, with stage 2 and the location
fallback answered by the local OpenAI-compatible stub through litellm."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import datasets
import pyarrow.parquet as pq
import pytest
from standins import LocalServer, OpenAIStub, Reply, Seen, StubReply
from test_arxiv_stage1 import kaggle

from conftest import write_jsonl
from mathjudge.benchmarks.arxivmathgradingbench.mining.candidates import license_id, permissive
from mathjudge.benchmarks.arxivmathgradingbench.mining.mined_split import BENCHMARK
from mathjudge.benchmarks.arxivmathgradingbench.mining.pipeline import (
    CANDIDATES_FILE,
    FUNNEL_FILE,
    HARVEST_FILE,
    HarvestOptions,
    run_filter,
)
from mathjudge.dataio.sources import sha256_file
from mathjudge.prompts import load_prompt

LISTING = "arxiv-metadata-samples/arxiv_api_math_NT_RT_listing_2025-2026.jsonl"
ATOM_PAGES = Path(__file__).parent / "fixtures" / "arxiv_atom"
MODEL = "openai/stub-model"
SINCE, UNTIL = dt.date(2025, 1, 1), dt.date(2025, 12, 31)
CC_BY = "http://creativecommons.org/licenses/by/4.0/"

# (record, what the stub answers the classification prompt)
PAPERS = [
    (
        kaggle("2501.10001", "An error in the proof of Lemma 3.1 is corrected", license=CC_BY),
        "minor",
    ),
    (
        kaggle(
            "2501.10002",
            "Fixed a mistake in Theorem 2",
            versions=3,
            license="http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
        ),
        "major",
    ),
    (
        kaggle(
            "2501.10003",
            "Corrected typos in the proof of Theorem 3",
            license="http://creativecommons.org/publicdomain/zero/1.0/",
        ),
        "none",
    ),
    (
        kaggle(
            "2501.10004",
            "The main theorem was wrong; the argument behind it is now corrected",
            license="http://creativecommons.org/licenses/by-sa/4.0/",
        ),
        "major",
    ),
    (
        kaggle(
            "2501.10005",
            "Erratum: Proposition 5 is wrong",
            license="http://creativecommons.org/licenses/publicdomain/",
        ),
        None,  # the stub never gives a readable label
    ),
    (
        kaggle("2501.10006", "This revised version corrects Lemma 2", versions=1, license=CC_BY),
        "major",
    ),
    (
        kaggle(
            "2501.10007",
            "Theorems 2.3 and 2.4 were wrong and are fixed; Corollary 9 added",
            versions=4,
            license=CC_BY,
        ),
        "major",
    ),
    (kaggle("2501.10008", "A flaw in the key lemma is fixed", license=CC_BY), "minor"),
]
# What the stub answers the location prompt; the second answer is never readable.
LOCATIONS = {
    "The main theorem was wrong; the argument behind it is now corrected": (
        'The comment names the main theorem.\nLOCATIONS: ["main theorem"]'
    ),
    "A flaw in the key lemma is fixed": "Some lemma, I suppose.",
}


pytestmark = pytest.mark.usefixtures("no_network", "stub_key")


def prompt_comment(body: dict[str, Any]) -> str:
    text = body["messages"][0]["content"]
    return re.search(r"<<<\n(.*)\n>>>", text, re.DOTALL)[1]


def model_script(labels: dict[str, str | None]) -> Any:
    """Answers both prompts: a label per comment (none: unreadable), and LOCATIONS."""

    def answer(body: dict[str, Any]) -> StubReply:
        comment = prompt_comment(body)
        if "LOCATIONS:" in body["messages"][0]["content"]:
            return StubReply(LOCATIONS[comment])
        label = labels.get(comment)
        return StubReply(f"Reasoning.\nLABEL: {label}" if label else "I cannot tell.")

    return answer


def test_without_a_model_the_run_stops_after_stage_1(mirror: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    report = run_filter([mirror / LISTING], since=SINCE, until=UNTIL, out_dir=out)
    assert report.dataset is None and not (out / BENCHMARK).exists()
    funnel = json.loads((out / FUNNEL_FILE).read_text(encoding="utf-8"))
    assert funnel == report.funnel
    counts = [(s["name"], s["count"]) for s in funnel["steps"]]
    print("\nfunnel on the shared listing, 2025, no model:", counts)
    assert counts[:8] == [
        ("read", 13_131),
        ("math_category", 12_686),
        ("date_window", 4_893),
        ("revised", 2_366),
        ("correction", 479),
        ("formal_result", 104),
        ("unique", 104),
        ("distinct_corrections", 103),
    ]
    assert counts[8:] == [
        ("classified_error", None),
        ("earlier_version", None),
        ("permissive_license", None),
        ("error_locations", None),
    ]
    assert all("stopped after stage 1" in s["note"] for s in funnel["steps"][8:])
    assert funnel["final"] is None and funnel["stage2"]["run"] is False
    assert funnel["inputs"][0]["sha256"] == sha256_file(mirror / LISTING)
    assert all(s["dropped_examples"] for s in funnel["steps"][1:6])
    candidates = pq.read_table(out / CANDIDATES_FILE).to_pylist()
    assert len(candidates) == 104 == len(report.candidates)
    assert {c["status"] for c in candidates} == {"stage1", "repeated_comment"}
    assert {c["stage_reached"] for c in candidates} == {1}


def test_all_stages_with_the_stub_model(tmp_path: Path) -> None:
    snapshot = write_jsonl(tmp_path / "snapshot.json", [p for p, _ in PAPERS])
    repeat = {  # a later version repeating 2501.10001's comment: the same correction
        "arxiv_id": "2501.10001",
        "version": "v3",
        "title": "Made-up paper",
        "updated_date": "2025-04-01",
        "primary_category": "math.NT",
        "comment": "An error in the proof of Lemma 3.1 is corrected",
        "abstract": "...",
    }
    listing = write_jsonl(tmp_path / "listing.jsonl", [repeat])
    labels = {p["comments"]: label for p, label in PAPERS}
    out = tmp_path / "out"
    with OpenAIStub(script=model_script(labels)) as stub:
        report = run_filter(
            [snapshot, listing],
            since=SINCE,
            until=UNTIL,
            out_dir=out,
            classify_model=MODEL,
            cache_dir=tmp_path / "cache",
            concurrency=3,
            api_base=stub.api_base,
        )
        asked = stub.count
        # Every answer is cached: a second run asks nothing and builds the same split.
        again = run_filter(
            [snapshot, listing],
            since=SINCE,
            until=UNTIL,
            out_dir=tmp_path / "again",
            classify_model=MODEL,
            cache_dir=tmp_path / "cache",
            api_base=stub.api_base,
        )
        assert stub.count == asked
    # 8 classifications, the unreadable one asked 3 times (7 + 3), and 2 location fallbacks,
    # the unreadable one asked 3 times (1 + 3).
    assert asked == 7 + 3 + 1 + 3

    counts = [(s["name"], s["count"]) for s in report.funnel["steps"]]
    assert counts[6:] == [
        ("unique", 9),
        ("distinct_corrections", 8),
        ("classified_error", 6),
        ("earlier_version", 5),
        ("permissive_license", 4),
        ("error_locations", 3),
    ]
    assert report.funnel["final"] == 3
    assert report.funnel["stage2"]["counts"] == {"major": 4, "minor": 2, "none": 1, "failed": 1}
    assert [f["item_id"] for f in report.funnel["stage2"]["failures"]] == ["2501.10005v2"]
    located = report.funnel["stage3"]["locations_model"]
    assert located["asked"] == 2
    assert [f["item_id"] for f in located["failures"]] == ["2501.10008v2"]

    status = {(c["arxiv_id"], c["version"]): c["status"] for c in report.candidates}
    assert status == {
        ("2501.10001", 2): "kept",
        ("2501.10001", 3): "repeated_comment",
        ("2501.10002", 3): "not_permissive",
        ("2501.10003", 2): "rejected_stage2",
        ("2501.10004", 2): "kept",
        ("2501.10005", 2): "failed_stage2",
        ("2501.10006", 1): "no_earlier_version",
        ("2501.10007", 4): "kept",
        ("2501.10008", 2): "failed_locations",
    }
    assert pq.read_table(out / CANDIDATES_FILE).to_pylist() == report.candidates
    item_ids = {c["arxiv_id"]: c["item_id"] for c in report.candidates if c["version"] != 3}
    assert item_ids["2501.10007"] == "2501.10007v3" and item_ids["2501.10006"] is None

    assert report.dataset == out / BENCHMARK
    rows = datasets.load_dataset(str(report.dataset), "papers", split="test").to_list()
    assert [r["item_id"] for r in rows] == ["2501.10001v1", "2501.10004v1", "2501.10007v3"]
    first, main, listed = rows
    assert first["version"] == "v1" and first["url"] == "https://arxiv.org/abs/2501.10001"
    assert first["error_locations"] == ["Lemma 3.1"]
    assert first["locations"] == [{"kind": "lemma", "label": "3.1", "text": "Lemma 3.1"}]
    assert (first["license"], first["category_name"]) == ("cc-by-4.0", "Number Theory")
    assert main["error_locations"] == ["main theorem"]  # from the model: the regex found none
    assert main["license"] == "cc-by-sa-4.0"
    assert listed["error_locations"] == ["Theorem 2.3", "Theorem 2.4"]
    assert first["v1_date"] == "2025-01-02T09:00:00"

    manifest = json.loads((report.dataset / "manifest.json").read_text(encoding="utf-8"))
    inputs = manifest["sources"][0]["inputs"]
    assert {i["path"]: i["sha256"] for i in inputs} == {
        str(snapshot): sha256_file(snapshot),
        str(listing): sha256_file(listing),
    }
    provenance = manifest["checks"]["arxiv_filter"]
    assert provenance["classify_model"] == MODEL
    assert provenance["classify_prompt_sha256"] == load_prompt("arxiv_classify").sha256
    assert provenance["locations_prompt_sha256"] == load_prompt("arxiv_locations").sha256
    assert provenance["patterns"]["correction"].startswith("correct|errat")
    again_manifest = json.loads((again.dataset / "manifest.json").read_text(encoding="utf-8"))
    assert again_manifest["content_hash"] == manifest["content_hash"]
    card = (report.dataset / "README.md").read_text(encoding="utf-8")
    assert "3 arXiv papers" in card and MODEL in card

    # A later run without a model leaves no split that its funnel would contradict.
    rerun = run_filter([snapshot, listing], since=SINCE, until=UNTIL, out_dir=out)
    assert rerun.dataset is None and not (out / BENCHMARK).exists()


class AtomPages(LocalServer):
    def respond(self, seen: Seen) -> Reply:
        page = ATOM_PAGES / f"page{int(parse_qs(seen.query)['start'][0]) // 2 + 1}.xml"
        return 200, {"Content-Type": "application/atom+xml"}, page.read_bytes()


def test_harvest_feeds_the_pipeline(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with AtomPages() as atom, OpenAIStub(script=lambda _body: "LABEL: major") as stub:
        report = run_filter(
            [],
            since=dt.date(2025, 2, 25),
            until=dt.date(2025, 3, 31),
            out_dir=out,
            classify_model=MODEL,
            cache_dir=tmp_path / "cache",
            api_base=stub.api_base,
            harvest=HarvestOptions(base_url=atom.url, page_size=2, delay_s=0.0),
        )
    (harvested,) = report.funnel["inputs"]
    assert harvested["path"] == str(out / HARVEST_FILE)
    assert harvested["origin"] == f"harvest:{atom.url}"
    assert report.funnel["harvest"]["page_size"] == 2
    rows = datasets.load_dataset(str(report.dataset), "papers", split="test").to_list()
    assert [(r["item_id"], r["license"], r["error_locations"]) for r in rows] == [
        ("2501.04567v2", "cc0-1.0", ["Theorem 2", "Theorem 4.1"]),
        ("2502.00123v1", "cc-by-4.0", ["Lemma 3.1"]),
    ]


def test_licenses() -> None:
    assert license_id(CC_BY) == "cc-by-4.0"
    assert license_id("http://creativecommons.org/licenses/publicdomain/") == "public-domain"
    assert license_id("http://arxiv.org/licenses/nonexclusive-distrib/1.0/") == (
        "arxiv-nonexclusive-distrib-1.0"
    )
    assert license_id(None) == "unknown"
    assert license_id("all rights reserved") == "unrecognised"
    assert [permissive(license_id(x)) for x in (CC_BY, "CC BY-SA 4.0", "CC0", "public domain")] == [
        True
    ] * 4
    assert not any(
        permissive(license_id(x))
        for x in (
            "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
            "http://creativecommons.org/licenses/by-nc-nd/4.0/",
            "CC 4.0",
            None,
            "all rights reserved",
        )
    )
