"""The mined split as a dataset: ArxivMathGradingBench's schema, a card that tells how it was
mined, and a manifest pinning the inputs, window, patterns, models and prompt hashes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mathjudge.benchmarks.arxivmathgradingbench.build import CONFIG, FEATURES
from mathjudge.benchmarks.arxivmathgradingbench.mining.candidates import Candidate
from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import InputFile
from mathjudge.dataio.sources import ResolvedFile, Source, SourceFile, sha256_file
from mathjudge.dataio.writer import Build, CardInfo, Table

BENCHMARK = "arxivmathgradingbench-mined"
VERSION = "1.0.0"

MATH_CATEGORY_NAMES = {
    "math.AC": "Commutative Algebra",
    "math.AG": "Algebraic Geometry",
    "math.AP": "Analysis of PDEs",
    "math.AT": "Algebraic Topology",
    "math.CA": "Classical Analysis and ODEs",
    "math.CO": "Combinatorics",
    "math.CT": "Category Theory",
    "math.CV": "Complex Variables",
    "math.DG": "Differential Geometry",
    "math.DS": "Dynamical Systems",
    "math.FA": "Functional Analysis",
    "math.GM": "General Mathematics",
    "math.GN": "General Topology",
    "math.GR": "Group Theory",
    "math.GT": "Geometric Topology",
    "math.HO": "History and Overview",
    "math.IT": "Information Theory",
    "math.KT": "K-Theory and Homology",
    "math.LO": "Logic",
    "math.MG": "Metric Geometry",
    "math.MP": "Mathematical Physics",
    "math.NA": "Numerical Analysis",
    "math.NT": "Number Theory",
    "math.OA": "Operator Algebras",
    "math.OC": "Optimization and Control",
    "math.PR": "Probability",
    "math.QA": "Quantum Algebra",
    "math.RA": "Rings and Algebras",
    "math.RT": "Representation Theory",
    "math.SG": "Symplectic Geometry",
    "math.SP": "Spectral Theory",
    "math.ST": "Statistics Theory",
}


def split_row(cand: Candidate) -> dict[str, Any]:
    """The candidate as an ArxivMathGradingBench row (the builder's FEATURES)."""
    r = cand.record
    category = r.primary_category or ""
    return {
        "item_id": cand.item_id,
        "arxiv_id": r.arxiv_id,
        "version": f"v{r.version - 1}",
        "url": f"https://arxiv.org/abs/{r.arxiv_id}",
        "category": category,
        "category_name": MATH_CATEGORY_NAMES.get(category, category),
        "title": r.title or "",
        "comment": r.comment or "",
        "license": cand.license,
        "license_raw": cand.license_raw or "",
        "error_locations": [loc.text for loc in cand.locations],
        "locations": [{"kind": x.kind, "label": x.label, "text": x.text} for x in cand.locations],
        "v1_date": r.v1_date,
    }


def card_body(funnel: dict[str, Any], n_rows: int) -> str:
    steps = "\n".join(
        f"| {s['stage']} | {s['name']} | {'not run' if s['count'] is None else s['count']} |"
        for s in funnel["steps"]
    )
    inputs = "\n".join(
        f"- `{i['path']}` ({i['format']}, sha256 `{i['sha256']}`)" for i in funnel["inputs"]
    )
    window, patterns, stage2 = funnel["window"], funnel["patterns"], funnel["stage2"]
    return f"""
# ArxivMathGradingBench, mined split

{n_rows} arXiv papers whose later version says, in its comment, that an error in a named
result was corrected, mined by `mathjudge arxiv filter` (pipeline version {VERSION}) from arXiv
metadata with version dates from {window["since"] or "the start"} to {window["until"] or "the end"}.
The schema is ArxivMathGradingBench's. `item_id` is `<arxiv_id>v<k>`, the version before the
one whose comment announces the correction (the earliest version in the inputs carrying that
comment); `error_locations` are the results the comment names as erroneous.

## How it was made

1. Regular expressions on the comment, case-insensitive: a `{patterns["category_prefix"]}*`
   category, a later version or a revision comment, a correction word
   (`{patterns["correction"]}`) and a formal result (`{patterns["formal_result"]}`).
2. The model `{stage2["model"]}` (prompt sha256 `{stage2["prompt_sha256"]}`) labelled each
   comment a major or minor error correction, or neither; neither and failures were dropped.
3. Only papers under CC BY, CC BY-SA, CC0 or a public-domain dedication were kept. Error
   locations come from the comment: a regular expression for labelled results, the model where
   it found none.

| stage | step | papers |
|---|---|---|
{steps}

Inputs:

{inputs}

## Caveats

The error locations are what the authors' comment names, read by a heuristic and a model, and
were not checked against the papers. A version missing from the inputs can make the erroneous
version look later than it is. The metadata is arXiv's (CC0); each paper keeps its own license,
given per row.
"""


def input_pins(sources: Sequence[InputFile], origins: dict[Path, str]) -> list[dict[str, Any]]:
    return [
        {
            "path": str(s.path),
            "format": str(s.format),
            "sha256": sha256_file(s.path),
            "origin": origins.get(s.path, f"file:{s.path}"),
        }
        for s in sources
    ]


def split_build(funnel: dict[str, Any], rows: list[dict[str, Any]]) -> Build:
    """The split with a card and a manifest pinning the inputs (sha256) and, under `checks`,
    the window, patterns, models and prompt hashes."""
    files = {
        i["path"]: ResolvedFile(Path(i["path"]), i["sha256"], i["origin"]) for i in funnel["inputs"]
    }
    pin = Source(
        kind="arxiv-metadata",
        repo="mathjudge arxiv filter",
        revision=VERSION,
        mirror_name="",
        files=tuple(SourceFile(name, "", f.sha256) for name, f in files.items()),
    )
    locations = funnel["stage3"].get("locations_model", {})
    provenance = {
        "window": funnel["window"],
        "patterns": funnel["patterns"],
        "harvest": funnel["harvest"],
        "classify_model": funnel["stage2"]["model"],
        "classify_prompt_sha256": funnel["stage2"]["prompt_sha256"],
        "license_lookup": funnel["stage3"].get("license_lookup"),
        "locations_model": locations.get("model"),
        "locations_prompt_sha256": locations.get("prompt_sha256"),
        "funnel": {s["name"]: s["count"] for s in funnel["steps"]},
    }
    return Build(
        benchmark=BENCHMARK,
        version=VERSION,
        tables=(Table(CONFIG, "test", FEATURES, rows),),
        card_info=CardInfo(
            pretty_name="ArxivMathGradingBench (mined split)",
            license="cc0-1.0",
            language=("en",),
            task_categories=("text-generation",),
            size_category="n<1K",
        ),
        card_body=card_body(funnel, len(rows)),
        sources=((pin, files),),
        checks={"arxiv_filter": provenance},
    )
