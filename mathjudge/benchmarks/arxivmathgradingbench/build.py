"""ArxivMathGradingBench (Pseudo-Formalization paper, arXiv:2605.20531): 35 arXiv papers whose
later version corrects an error in a named result; a judge reads the erroneous version and must
say where the error is.

Upstream ships one metadata line per paper (no text, no PDFs). The builder renames its quirky
keys (`Liscence`, `Location of Error`), normalises the free-text licenses to ids that decide
whether a paper's PDF may be redistributed (`pdfs`), and splits and parses the error
locations with `locations` (this folder), the parser the strict matcher scores with, so a
location the matcher could not read fails the build instead of silently never matching.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

import datasets
from datasets import List, Value

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.locations import parse_locations, split_locations
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.jsonfiles import read_jsonl
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import ResolvedFile, Source, resolve
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "arxivmathgradingbench"
PINS = load_pins(NAME)  # source.yaml: the version and the upstream file
VERSION = PINS.version
CONFIG = "papers"
HF_COPY = "LukeBailey181Pub/ArxivMathGradingBench"
SOURCE = PINS.source
UPSTREAM_PATH = PINS.files[0].upstream
SOURCE_FILE = SOURCE.files[0].path
# The pinned file's size, re-checked on every build: a parser change that splits a location
# list differently must fail loudly, since every score counts these locations.
EXPECTED_PAPERS = 35
EXPECTED_LOCATIONS = 40

UNKNOWN_LICENSE = "unknown"
ARXIV_NONEXCLUSIVE = "arxiv-nonexclusive-distrib-1.0"
PUBLIC_DOMAIN = "public-domain"
_PUBLIC_DOMAIN = re.compile(
    r"public[\s-]*domain|https?://creativecommons\.org/licenses/publicdomain/?"
)
_CC_MODULES = frozenset({"by", "by-sa", "by-nd", "by-nc", "by-nc-sa", "by-nc-nd"})
_CC_TEXT = re.compile(r"cc(?:[\s-]+(?P<mods>by(?:[\s-]+(?:nc|sa|nd))*))?[\s-]+(?P<ver>\d\.\d)")
_CC_URL = re.compile(r"https?://creativecommons\.org/licenses/(?P<mods>[a-z-]+)/(?P<ver>\d\.\d)/?")
_CC0 = re.compile(
    r"cc0(?:\s+1\.0)?|cc\s+zero|https?://creativecommons\.org/publicdomain/zero/1\.0/?"
)
_ARXIV = re.compile(
    r"arxiv\.org\s*-\s*non-exclusive license to distribute"
    r"|https?://arxiv\.org/licenses/nonexclusive-distrib/1\.0/?"
)
_PERMISSIVE = re.compile(r"cc0-1\.0|cc-by(?:-sa)?-\d\.\d|public-domain")

_ARXIV_ID = re.compile(r"\d{4}\.\d{4,5}")
_VERSION = re.compile(r"v[1-9]\d*")

NULLABLE_KEYS = ("Location of Error", "Liscence")  # null reads as empty
UPSTREAM_KEYS = (
    "arxiv_id",
    "version",
    "url",
    "v1_date",
    "category",
    "category_name_readable",
    "comments",
    "Location of Error",
    "Liscence",
    "title_extracted_from_tex",
)

FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "arxiv_id": Value("string"),
        "version": Value("string"),
        "url": Value("string"),
        "category": Value("string"),
        "category_name": Value("string"),
        "title": Value("string"),
        "comment": Value("string"),
        "license": Value("string"),
        "license_raw": Value("string"),
        "error_locations": List(Value("string")),
        "locations": List(
            {"kind": Value("string"), "label": Value("string"), "text": Value("string")}
        ),
        "v1_date": Value("string"),
    }
)


def normalize_license(raw: str | None) -> str:
    """A license id for an arXiv license as upstream writes it or as arXiv metadata gives it
    (a URL). Empty means upstream recorded none: `unknown`. "CC 4.0" does not say which Creative
    Commons license, so it stays unspecified rather than being guessed permissive. Raises
    ValueError for anything else, so a new spelling is looked at rather than mislabelled."""
    text = " ".join((raw or "").split()).lower()
    if not text:
        return UNKNOWN_LICENSE
    if _ARXIV.fullmatch(text):
        return ARXIV_NONEXCLUSIVE
    if _CC0.fullmatch(text):
        return "cc0-1.0"
    if _PUBLIC_DOMAIN.fullmatch(text):
        return PUBLIC_DOMAIN
    match = _CC_TEXT.fullmatch(text) or _CC_URL.fullmatch(text)
    if match is None:
        raise ValueError(f"unrecognised license {raw!r}")
    if match["mods"] is None:
        return f"cc-{match['ver']}-unspecified"
    mods = re.sub(r"[\s-]+", "-", match["mods"])
    if mods not in _CC_MODULES:
        raise ValueError(f"unrecognised Creative Commons license {raw!r}")
    return f"cc-{mods}-{match['ver']}"


def is_permissive(license_id: str) -> bool:
    """Whether a copy may be redistributed beside the dataset: CC0, public domain, CC BY or
    CC BY-SA only (no NonCommercial or NoDerivatives terms, never an unspecified or unknown
    license)."""
    return _PERMISSIVE.fullmatch(license_id) is not None


def paper(row: dict[str, Any]) -> dict[str, Any]:
    """One benchmark row from one upstream line; raises ValueError naming what is wrong."""
    missing = [key for key in UPSTREAM_KEYS if key not in row]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    not_text = [
        key for key in UPSTREAM_KEYS if key not in NULLABLE_KEYS and not isinstance(row[key], str)
    ] + [key for key in NULLABLE_KEYS if not isinstance(row[key], str | None)]
    if not_text:
        raise ValueError(f"field(s) {', '.join(not_text)} must be text")
    arxiv_id, version = row["arxiv_id"], row["version"]
    if not isinstance(arxiv_id, str) or not _ARXIV_ID.fullmatch(arxiv_id):
        raise ValueError(f"arxiv_id {arxiv_id!r} is not a new-style arXiv id")
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        raise ValueError(f"version {version!r} is not v1, v2, ...")
    if row["url"] != f"https://arxiv.org/abs/{arxiv_id}":
        raise ValueError(f"url {row['url']!r} is not the abs page of {arxiv_id}")
    locations = parse_locations(split_locations(row["Location of Error"] or ""))
    if not locations:
        raise ValueError("no error location")
    unparsed = [loc.text for loc in locations if loc.kind is None]
    if unparsed:
        raise ValueError(f"location(s) {unparsed} name no kind of result")
    return {
        "item_id": f"{arxiv_id}{version}",
        "arxiv_id": arxiv_id,
        "version": version,
        "url": row["url"],
        "category": row["category"],
        "category_name": row["category_name_readable"],
        "title": row["title_extracted_from_tex"],
        "comment": row["comments"],
        "license": normalize_license(row["Liscence"]),
        "license_raw": row["Liscence"] or "",
        "error_locations": [loc.text for loc in locations],
        "locations": [
            {"kind": loc.kind, "label": loc.label, "text": loc.text} for loc in locations
        ],
        "v1_date": row["v1_date"],
    }


def papers(raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Benchmark rows in upstream order. Every problem is reported, naming the line (numbered
    from 1) and its paper, before the build fails."""
    rows, errors = [], []
    for i, row in enumerate(raw, start=1):
        if not isinstance(row, dict):
            errors.append(f"line {i}: not a JSON object")
            continue
        try:
            rows.append(paper(row))
        except ValueError as exc:
            errors.append(f"line {i} ({row.get('arxiv_id')}{row.get('version')}): {exc}")
    counts = Counter(r["item_id"] for r in rows)
    errors += [f"{key}: {n} rows share this item id" for key, n in counts.items() if n > 1]
    n_locations = sum(len(r["error_locations"]) for r in rows)
    if not errors and (len(rows), n_locations) != (EXPECTED_PAPERS, EXPECTED_LOCATIONS):
        several = [
            f"{r['item_id']}: {r['error_locations']}" for r in rows if len(r["locations"]) > 1
        ]
        errors.append(
            f"{len(rows)} papers and {n_locations} locations, expected {EXPECTED_PAPERS} and "
            f"{EXPECTED_LOCATIONS}; papers with several locations: {'; '.join(several) or 'none'}"
        )
    if errors:
        raise MathJudgeError(f"{SOURCE_FILE} is inconsistent:\n  " + "\n  ".join(errors))
    return rows


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    files: dict[str, ResolvedFile] = resolve(source, source_dir)
    rows = papers(read_jsonl(files[SOURCE_FILE].path))
    n_locations = sum(len(r["locations"]) for r in rows)
    licenses = Counter(r["license"] for r in rows)
    facts = {
        "version": VERSION,
        "source": source,
        "upstream_path": UPSTREAM_PATH,
        "hf_copy": HF_COPY,
        "rows": rows,
        "n_papers": len(rows),
        "n_locations": n_locations,
        "n_several": sum(1 for r in rows if len(r["locations"]) > 1),
        "n_unlabelled": sum(1 for r in rows for loc in r["locations"] if loc["label"] is None),
        "kinds": Counter(loc["kind"] for r in rows for loc in r["locations"]),
        "versions": Counter(r["version"] for r in rows),
        "categories": Counter(r["category"] for r in rows),
        "non_math": [r for r in rows if not r["category"].startswith("math.")],
        "dates": (min(r["v1_date"] for r in rows)[:10], max(r["v1_date"] for r in rows)[:10]),
        "license_spellings": Counter((r["license_raw"], r["license"]) for r in rows),
        "is_permissive": is_permissive,
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(Table(CONFIG, "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="ArxivMathGradingBench",
            license="unknown",
            language=("en",),
            task_categories=("text-generation",),
            # The errors are the ones the papers' authors announced in their revision comments.
            annotations_creators=("found",),
            language_creators=("found",),
            size_category="n<1K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, files),),
        checks={
            "papers": f"{len(rows)} (expected {EXPECTED_PAPERS}), item ids unique",
            "locations": f"{n_locations} (expected {EXPECTED_LOCATIONS}), all parsed",
            "licenses": dict(sorted(licenses.items())),
        },
    )
