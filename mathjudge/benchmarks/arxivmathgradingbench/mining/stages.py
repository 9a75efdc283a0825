"""Stages 2 and 3 of `mathjudge arxiv filter`, the ones that need a model: classification of
the comments, then the earlier-version, license and error-location filters."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.progress import progress_bar
from mathjudge.benchmarks.arxivmathgradingbench.locations import comment_locations, parse_locations
from mathjudge.benchmarks.arxivmathgradingbench.mining.candidates import (
    Candidate,
    Step,
    narrow,
    permissive,
)
from mathjudge.benchmarks.arxivmathgradingbench.mining.licenses import (
    LicenseLookup,
    lookup_licenses,
)
from mathjudge.benchmarks.arxivmathgradingbench.mining.stage1 import Patterns


@dataclass(frozen=True)
class ModelOptions:
    """How stage 2 and the location fallback reach their model (see `mathjudge.llm`)."""

    model: str
    cache_dir: Path
    concurrency: int
    api_base: str | None
    quiet: bool

    def client(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "cache_dir": self.cache_dir,
            "concurrency": self.concurrency,
            "api_base": self.api_base,
        }


def distinct_corrections(candidates: list[Candidate], steps: list[Step]) -> list[Candidate]:
    """One candidate per correction: a later version repeating an earlier version's comment
    announces the same correction, made by the earlier one."""
    first: dict[tuple[str, str | None], Candidate] = {}
    for cand in candidates:  # sorted by (arxiv_id, version)
        first.setdefault((cand.record.arxiv_id, cand.record.comment), cand)
    chosen = {id(c) for c in first.values()}
    return narrow(
        steps, 1, "distinct_corrections", candidates, lambda c: id(c) in chosen, "repeated_comment"
    )


def classify_stage(
    live: list[Candidate], model: ModelOptions, steps: list[Step]
) -> tuple[list[Candidate], dict[str, Any]]:
    """Stage 2: keep the comments the model labels a major or minor error correction. A
    failed label is recorded on its candidate (status `failed_stage2`), never counted as no."""
    from mathjudge.benchmarks.arxivmathgradingbench.mining.classify import classify

    with progress_bar("stage 2: classifying comments", len(live), quiet=model.quiet) as advance:
        report = classify([c.record for c in live], progress=advance, **model.client())
    positive = set()
    for cand, result in zip(live, report.results, strict=True):
        cand.classification, cand.classification_failure = result.label, result.failure
        if result.kept:
            positive.add(id(cand))
    kept = narrow(
        steps, 2, "classified_error", live, lambda c: id(c) in positive, "rejected_stage2"
    )
    for cand in live:
        if cand.classification_failure is not None:
            cand.status = "failed_stage2"
    summary = {k: v for k, v in report.to_json().items() if k != "results"}
    summary["failures"] = [r.to_json() for r in report.failures]  # all results: candidates
    return kept, {"run": True, **summary, "usage_line": report.usage_line}


def locate_stage(live: list[Candidate], patterns: Patterns, model: ModelOptions) -> dict[str, Any]:
    """Error locations: the regex for every candidate, the model for those it finds none in."""
    correction = re.compile(patterns.correction, re.IGNORECASE)
    for cand in live:
        cand.locations = comment_locations(cand.record.comment or "", correction)
        cand.locations_source = "regex" if cand.locations else None
    pending = [c for c in live if not c.locations]
    if not pending:
        return {"run": False, "note": "the regex found locations in every comment"}
    from mathjudge.benchmarks.arxivmathgradingbench.mining.llm_locations import extract_locations

    with progress_bar("stage 3: locating errors", len(pending), quiet=model.quiet) as advance:
        report = extract_locations([c.record for c in pending], progress=advance, **model.client())
    for cand, result in zip(pending, report.results, strict=True):
        cand.locations_failure = result.failure
        parsed = parse_locations(list(result.locations or ()))
        cand.locations = [loc for loc in parsed if loc.kind is not None]
        cand.locations_source = "llm" if cand.locations else None
    return {
        "run": True,
        "model": report.model,
        "prompt_sha256": report.prompt_sha256,
        "asked": len(pending),
        "failures": [r.to_json() for r in report.failures],
        "usage": report.usage,
        "usage_line": report.usage_line,
    }


MODEL_STEPS = (
    (2, "classified_error"),
    (3, "earlier_version"),
    (3, "permissive_license"),
    (3, "error_locations"),
)


def license_stage(
    live: list[Candidate], lookup: LicenseLookup | None, quiet: bool
) -> dict[str, Any]:
    """Look up the license of the candidates whose inputs stated none (when asked to)."""
    unknown = [c for c in live if c.license_raw is None]
    if lookup is None:
        return {"run": False, "without_license": len(unknown)}
    ids = [c.record.arxiv_id for c in unknown]
    with progress_bar("stage 3: looking up licenses", len(ids), quiet=quiet) as advance:
        found, fetched = lookup_licenses(ids, lookup, advance)
    for cand in unknown:
        cand.set_looked_up_license(found[cand.record.arxiv_id])
    return {
        "run": True,
        "base_url": lookup.base_url,
        "asked": len(set(ids)),
        "fetched": fetched,
        "stated": sum(1 for c in unknown if c.license_raw is not None),
    }


def model_stages(
    live: list[Candidate],
    model: ModelOptions,
    patterns: Patterns,
    steps: list[Step],
    licenses: LicenseLookup | None = None,
) -> tuple[list[Candidate], dict[str, Any], dict[str, Any]]:
    """Stages 2 and 3 (the steps of MODEL_STEPS): the split's candidates, and what the funnel
    records of each stage. With `licenses`, papers whose inputs state no license have it
    looked up before the license filter."""
    live, stage2 = classify_stage(live, model, steps)
    live = narrow(
        steps, 3, "earlier_version", live, lambda c: c.record.version > 1, "no_earlier_version"
    )
    looked_up = license_stage(live, licenses, model.quiet)
    live = narrow(
        steps, 3, "permissive_license", live, lambda c: permissive(c.license), "not_permissive"
    )
    located = locate_stage(live, patterns, model)
    kept = narrow(steps, 3, "error_locations", live, lambda c: bool(c.locations), "no_location")
    for cand in live:
        if cand.locations_failure is not None and not cand.locations:
            cand.status = "failed_locations"
    for cand in kept:
        cand.status = "kept"
    return kept, stage2, {"run": True, "license_lookup": looked_up, "locations_model": located}
