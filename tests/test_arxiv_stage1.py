"""Stage 1 of the arXiv filter: each filter on hand-made Kaggle-format records, configurable
patterns, several inputs, and the issue's check on the real API listing: over 2025 it keeps
the ArxivMathGradingBench papers whose listed comment announces their correction."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import open_input
from mathjudge.benchmarks.arxivmathgradingbench.mining.stage1 import (
    FILTERS,
    Patterns,
    Stage1Result,
    run_stage1,
)

LISTING = "arxiv-metadata-samples/arxiv_api_math_NT_RT_listing_2025-2026.jsonl"
BENCH = "arxivmathgradingbench/arxiv_grading_bench.jsonl"
SINCE, UNTIL = dt.date(2025, 1, 1), dt.date(2025, 12, 31)


def kaggle(
    arxiv_id: str,
    comment: str | None,
    *,
    categories: str = "math.NT",
    versions: int = 2,
    last: str = "Mon, 3 Mar 2025 10:00:00 GMT",
    license: str | None = None,
) -> dict[str, Any]:
    """A Kaggle snapshot line; only the last version's date matters to stage 1."""
    dates = ["Thu, 2 Jan 2025 09:00:00 GMT"] * (versions - 1) + [last]
    return {
        "id": arxiv_id,
        "submitter": "A. Person",
        "authors": "A. Person",
        "title": f"Made-up paper\n  {arxiv_id}",
        "comments": comment,
        "journal-ref": None,
        "doi": None,
        "report-no": None,
        "categories": categories,
        "license": license,
        "abstract": "  An abstract that mentions an error term and a theorem.\n",
        "versions": [{"version": f"v{i + 1}", "created": d} for i, d in enumerate(dates)],
        "update_date": "2025-03-04",
        "authors_parsed": [["Person", "A.", ""]],
    }


HAND_MADE = [
    kaggle("2501.00001", "An ERROR in the proof of LEMMA 4.2 is corrected"),  # kept
    kaggle("2501.00002", "Fixed a mistake in Theorem 2", categories="cs.LO math.LO"),  # kept
    kaggle("2501.00003", "Fixed a mistake in Theorem 2", categories="cs.LG stat.ML"),  # math
    kaggle("2501.00004", "Fixed a mistake in Theorem 2", categories="math-ph"),  # math
    kaggle("2501.00005", "Fixed a mistake in Theorem 2", last="Tue, 31 Dec 2024 23:00:00 GMT"),
    kaggle("2501.00006", "Corrected an error in Lemma 2", versions=1),  # revised
    kaggle("2501.00007", "Theorem 2 of the previous\n  version was wrong", versions=1),  # kept
    kaggle("2501.00008", "12 pages, 3 figures; Theorem 5 added"),  # correction
    kaggle("2501.00009", None),  # correction (no comment at all)
    kaggle("2501.00010", "Corrected typos; error in the references fixed"),  # formal_result
]


def step(result: Stage1Result, name: str) -> tuple[int, list[str]]:
    (found,) = [s for s in result.steps if s.name == name]
    return found.kept, [e["arxiv_id"] for e in found.dropped_examples]


def test_each_filter_drops_its_records(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "snapshot.json", HAND_MADE)
    result = run_stage1([open_input(path)], since=SINCE, until=UNTIL)
    assert result.read == 10
    assert step(result, "math_category") == (8, ["2501.00003", "2501.00004"])
    assert step(result, "date_window") == (7, ["2501.00005"])
    assert step(result, "revised") == (6, ["2501.00006"])
    assert step(result, "correction") == (4, ["2501.00008", "2501.00009"])
    assert step(result, "formal_result") == (3, ["2501.00010"])
    assert step(result, "unique") == (3, [])
    kept = {r.arxiv_id: r for r in result.survivors}
    assert list(kept) == ["2501.00001", "2501.00002", "2501.00007"]
    # Whitespace is collapsed before matching: "previous\n  version" is a revision comment.
    assert kept["2501.00007"].comment == "Theorem 2 of the previous version was wrong"
    assert kept["2501.00007"].version == 1
    assert kept["2501.00002"].categories == ("cs.LO", "math.LO")
    assert kept["2501.00001"].title == "Made-up paper 2501.00001"
    assert kept["2501.00001"].date == dt.date(2025, 3, 3)


def test_open_window_and_custom_patterns(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "snapshot.json", HAND_MADE)
    everything = run_stage1([open_input(path)])
    assert step(everything, "date_window")[0] == 8
    narrow = Patterns(correction=r"\bwrong\b", formal_result="theorem")
    result = run_stage1([open_input(path)], since=SINCE, patterns=narrow)
    assert [r.arxiv_id for r in result.survivors] == ["2501.00007"]
    with pytest.raises(MathJudgeError, match="correction"):
        run_stage1([open_input(path)], patterns=Patterns(correction="(?=lookahead)"))
    with pytest.raises(MathJudgeError, match="window is empty"):
        run_stage1([open_input(path)], since=UNTIL, until=SINCE)


def test_inputs_are_combined_and_versions_deduplicated(tmp_path: Path) -> None:
    snapshot = write_jsonl(
        tmp_path / "snapshot.json",
        [kaggle("2501.00001", "An error in Lemma 4.2 is corrected", license="http://x/by")],
    )
    listing = write_jsonl(
        tmp_path / "listing.jsonl",
        [
            {
                "arxiv_id": "2501.00001",
                "version": "v2",
                "title": "Made-up paper",
                "updated_date": "2025-03-03",
                "primary_category": "math.NT",
                "comment": "An error in Lemma 4.2 is corrected",
                "abstract": "...",
            },
            {
                "arxiv_id": "2501.00011",
                "version": "v3",
                "title": "Another",
                "updated_date": "2025-05-01",
                "primary_category": "math.AG",
                "comment": "Lemma 2 was wrong",
                "abstract": "...",
            },
        ],
    )
    result = run_stage1([open_input(listing), open_input(snapshot)], since=SINCE)
    assert result.read == 3
    assert step(result, "formal_result")[0] == 3
    assert step(result, "unique") == (2, ["2501.00001"])
    first, second = result.survivors
    assert (first.arxiv_id, first.source_format, first.license) == (
        "2501.00001",
        "kaggle",
        "http://x/by",
    )
    assert (second.arxiv_id, second.version, second.source_format) == ("2501.00011", 3, "listing")


def test_listing_2025_keeps_the_benchmark_papers_announcing_their_correction(
    mirror: Path,
) -> None:
    """The issue's check on real data: every ArxivMathGradingBench paper whose comment, as
    listed in 2025, is the benchmark's correction comment survives stage 1."""
    result = run_stage1([open_input(mirror / LISTING)], since=SINCE, until=UNTIL)
    funnel = [("read", result.read), *((s.name, s.kept) for s in result.steps)]
    print("\nstage 1 funnel on the shared listing, 2025:", funnel)
    assert [name for name, _ in funnel] == ["read", *FILTERS, "unique"]
    assert result.read == 13_131

    bench = {}
    with (mirror / BENCH).open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            bench[row["arxiv_id"]] = " ".join(row["comments"].split())
    announcing = set()
    with (mirror / LISTING).open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            comment = " ".join((row["comment"] or "").split())
            if row["updated_date"].startswith("2025") and bench.get(row["arxiv_id"]) == comment:
                announcing.add((row["arxiv_id"], int(row["version"][1:])))
    print("benchmark papers announcing their correction in the 2025 listing:", sorted(announcing))
    assert announcing  # the listing does hold such papers (six of them)
    kept = {(r.arxiv_id, r.version) for r in result.survivors}
    assert announcing <= kept
