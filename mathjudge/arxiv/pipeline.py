"""`mathjudge arxiv filter`: arXiv metadata in, an ArxivMathGradingBench-style split out, of
papers whose later version says it corrected an error in a named result.

Stage 1 keeps comments that look like corrections (regex, DuckDB). Versions of one paper that
repeat the same comment announce one correction, made by the earliest of them. Stage 2 (only
with a model) keeps the comments a model labels a major or minor error correction. Stage 3
keeps papers with a permissive license, finds the error locations in the comment (regex, the
model where the regex finds none) and writes the split. Every candidate of stage 1 stays in
`candidates.parquet` with the stage it reached and why it stopped, and `funnel.json` counts
every step, so a run can be audited and, from its manifest, reproduced.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mathjudge.arxiv import readers
from mathjudge.arxiv.locations import (
    RESULT_KINDS,
    Location,
    parse_locations,
    split_locations,
)
from mathjudge.arxiv.readers import InputFile, Record
from mathjudge.arxiv.stage1 import DEFAULT_PATTERNS, EXAMPLES, Patterns, run_stage1
from mathjudge.atomic import atomic_path
from mathjudge.builders.arxivmathgradingbench import (
    CONFIG,
    FEATURES,
    is_permissive,
    normalize_license,
)
from mathjudge.builders.sources import ResolvedFile, Source, SourceFile, sha256_file
from mathjudge.builders.writer import PARQUET_OPTIONS, Build, CardInfo, Table, write_dataset
from mathjudge.config import cache_dir as default_cache_dir
from mathjudge.errors import MathJudgeError
from mathjudge.progress import progress_bar

BENCHMARK = "arxivmathgradingbench-mined"
VERSION = "1.0.0"
HARVEST_FILE = "harvest.jsonl"
CANDIDATES_FILE = "candidates.parquet"
FUNNEL_FILE = "funnel.json"

UNRECOGNISED_LICENSE = "unrecognised"

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

# --- stage 3: licenses -------------------------------------------------------------------------


def license_id(raw: str | None) -> str:
    """The builder's license id; a spelling the builder refuses is `unrecognised` here, which
    is simply not permissive (mined metadata is not ours to vet row by row)."""
    try:
        return normalize_license(raw)
    except ValueError:
        return UNRECOGNISED_LICENSE


permissive = is_permissive  # CC0, public domain, CC BY or CC BY-SA


# --- stage 3: error locations ------------------------------------------------------------------

_KIND_WORDS = sorted({w for words in RESULT_KINDS.values() for w in words}, key=len, reverse=True)
_NUMBER = r"\d+(?:\.\d+)*[a-z]?|[A-Z]\.\d+(?:\.\d+)*"  # "19", "3.2.1", "4a", "A.1"
_PART = r"(?:\s?\([a-z0-9]{1,4}\))?(?!\w)"  # "(b)" of "Proposition 4.1(b)"
# A kind word, its label, and more labels listed after it ("Theorems 2.3 and 2.4"). Bare
# letters and roman numerals count only right after the word: in "Theorem 2.2, I give" the
# "I" is a pronoun.
_MENTION = re.compile(
    rf"(?<![A-Za-z])(?i:(?:{'|'.join(_KIND_WORDS)})(?![a-z]))\.?\s*"
    rf"(?:{_NUMBER}|[A-Z]|[IVX]+){_PART}(?:(?:\s*,\s*|\s+and\s+|\s*&\s*)(?:{_NUMBER}){_PART})*"
)
_CLAUSE_END = re.compile(r"[.;:!?,](?=\s|$)")


def comment_locations(comment: str, correction: re.Pattern[str]) -> list[Location]:
    """The labelled results a comment names as erroneous: those in a clause (text between
    punctuation) with a correction word, or, when no clause has both, every one it names.
    "Corrected Theorem 4.8, added Corollary 4.9" gives Theorem 4.8 only; lists such as
    "Thms. 2.3 and 2.4" give both. Each is written canonically ("Theorem 2.4")."""
    mentions = list(_MENTION.finditer(comment))
    cuts = [
        c.start()
        for c in _CLAUSE_END.finditer(comment)
        if not any(m.start() <= c.start() < m.end() for m in mentions)
    ]

    def clause(mention: re.Match[str]) -> str:
        start = max((c + 1 for c in cuts if c < mention.start()), default=0)
        end = min((c for c in cuts if c >= mention.end()), default=len(comment))
        return comment[start:end]

    chosen = [m for m in mentions if correction.search(clause(m))] or mentions
    found: dict[str, Location] = {}
    for mention in chosen:
        for loc in parse_locations(split_locations(mention.group())):
            if loc.kind is not None and loc.label is not None:  # written as "Theorem 2.4"
                found.setdefault(
                    loc.key, Location(f"{loc.kind.capitalize()} {loc.label}", loc.kind, loc.label)
                )
    return list(found.values())


# --- candidates --------------------------------------------------------------------------------


@dataclass
class Candidate:
    """A stage-1 survivor and what became of it. `status` says where it stopped (`kept` for a
    row of the split); `stage_reached` is the last stage that looked at it."""

    record: Record
    license: str
    stage_reached: int = 1
    status: str = "stage1"
    classification: str | None = None
    classification_failure: str | None = None
    locations: list[Location] = field(default_factory=list)
    locations_source: str | None = None
    locations_failure: str | None = None

    @property
    def item_id(self) -> str | None:
        """The erroneous version, the one before the correcting one (None before v2)."""
        version = self.record.version
        return f"{self.record.arxiv_id}v{version - 1}" if version > 1 else None

    def row(self) -> dict[str, Any]:
        r = self.record
        return {
            "item_id": self.item_id,
            "arxiv_id": r.arxiv_id,
            "version": r.version,
            "date": r.date,
            "title": r.title,
            "comment": r.comment,
            "primary_category": r.primary_category,
            "categories": list(r.categories),
            "license_raw": r.license,
            "license": self.license,
            "source_format": r.source_format,
            "stage_reached": self.stage_reached,
            "status": self.status,
            "classification": self.classification,
            "classification_failure": self.classification_failure,
            "error_locations": [loc.text for loc in self.locations] or None,
            "locations_source": self.locations_source,
            "locations_failure": self.locations_failure,
        }

    def example(self) -> dict[str, Any]:
        r = self.record
        return {"arxiv_id": r.arxiv_id, "version": r.version, "comment": r.comment}


CANDIDATE_SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("arxiv_id", pa.string()),
        ("version", pa.int32()),
        ("date", pa.date32()),
        ("title", pa.string()),
        ("comment", pa.string()),
        ("primary_category", pa.string()),
        ("categories", pa.list_(pa.string())),
        ("license_raw", pa.string()),
        ("license", pa.string()),
        ("source_format", pa.string()),
        ("stage_reached", pa.int8()),
        ("status", pa.string()),
        ("classification", pa.string()),
        ("classification_failure", pa.string()),
        ("error_locations", pa.list_(pa.string())),
        ("locations_source", pa.string()),
        ("locations_failure", pa.string()),
    ]
)


@dataclass(frozen=True)
class Step:
    """One line of the funnel: how many candidates are left after it (None: not run)."""

    stage: int
    name: str
    count: int | None
    dropped_examples: tuple[dict[str, Any], ...] = ()
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"stage": self.stage, "name": self.name, "count": self.count}
        if self.dropped_examples:
            out["dropped_examples"] = list(self.dropped_examples)
        if self.note:
            out["note"] = self.note
        return out


def narrow(
    steps: list[Step],
    stage: int,
    name: str,
    live: list[Candidate],
    keep: Callable[[Candidate], bool],
    status: str,
) -> list[Candidate]:
    """The candidates `keep` accepts; the others stop with `status`. Adds the funnel step."""
    kept, dropped = [], []
    for cand in live:
        cand.stage_reached = stage
        if keep(cand):
            kept.append(cand)
        else:
            cand.status = status
            dropped.append(cand)
    steps.append(Step(stage, name, len(kept), tuple(c.example() for c in dropped[:EXAMPLES])))
    return kept


# --- stages 1 to 3 ---------------------------------------------------------------------------


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
    from mathjudge.arxiv.classify import classify

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
    from mathjudge.arxiv.llm_locations import extract_locations

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


def model_stages(
    live: list[Candidate], model: ModelOptions, patterns: Patterns, steps: list[Step]
) -> tuple[list[Candidate], dict[str, Any], dict[str, Any]]:
    """Stages 2 and 3 (the steps of MODEL_STEPS): the split's candidates, and what the funnel
    records of each stage."""
    live, stage2 = classify_stage(live, model, steps)
    live = narrow(
        steps, 3, "earlier_version", live, lambda c: c.record.version > 1, "no_earlier_version"
    )
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
    return kept, stage2, {"run": True, "locations_model": located}


# --- outputs -----------------------------------------------------------------------------------


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
        "license_raw": r.license or "",
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


def write_candidates(candidates: list[Candidate], path: Path) -> list[dict[str, Any]]:
    rows = [c.row() for c in candidates]
    with atomic_path(path) as tmp:
        pq.write_table(pa.Table.from_pylist(rows, schema=CANDIDATE_SCHEMA), tmp, **PARQUET_OPTIONS)
    return rows


def _inputs(sources: Sequence[InputFile], origins: dict[Path, str]) -> list[dict[str, Any]]:
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


# --- the run -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class HarvestOptions:
    """A live harvest from the arXiv API over the run's window (see `readers.harvest`)."""

    base_url: str = readers.API_URL
    query: str = readers.MATH_QUERY
    page_size: int = 100
    delay_s: float = readers.DEFAULT_DELAY_S
    user_agent: str = readers.USER_AGENT


@dataclass(frozen=True)
class FilterReport:
    out_dir: Path
    funnel: dict[str, Any]  # what funnel.json holds
    candidates: list[dict[str, Any]]  # the rows of candidates.parquet
    dataset: Path | None  # the built split; None when stage 3 did not run
    usage_lines: tuple[str, ...] = ()  # model usage, one line per model step


def _harvest(
    harvest: HarvestOptions, since: dt.date | None, until: dt.date | None, out_dir: Path
) -> tuple[Path, int]:
    """Harvest the window into `out_dir/harvest.jsonl` (kept: it is an input of the run)."""
    if since is None or until is None:
        raise MathJudgeError("a harvest needs both --since and --until")
    path = out_dir / HARVEST_FILE
    records = readers.harvest(
        since,
        until,
        base_url=harvest.base_url,
        query=harvest.query,
        page_size=harvest.page_size,
        delay_s=harvest.delay_s,
        user_agent=harvest.user_agent,
    )
    return path, readers.write_records(records, path)


def _remove_stale_split(out_dir: Path) -> None:
    """A split left by an earlier run with a model would contradict this run's funnel."""
    manifest = out_dir / BENCHMARK / "manifest.json"
    if (
        manifest.is_file()
        and json.loads(manifest.read_text(encoding="utf-8")).get("benchmark") == BENCHMARK
    ):
        shutil.rmtree(out_dir / BENCHMARK)


def run_filter(
    inputs: Sequence[Path],
    *,
    since: dt.date | None,
    until: dt.date | None,
    out_dir: Path,
    classify_model: str | None = None,
    patterns: Patterns = DEFAULT_PATTERNS,
    cache_dir: Path | None = None,
    concurrency: int = 8,
    api_base: str | None = None,
    harvest: HarvestOptions | None = None,
    input_format: str | None = None,
    quiet: bool = True,
) -> FilterReport:
    """Run the pipeline over `inputs` (files in any mix of formats, detected unless
    `input_format` is given) and, with `harvest`, a live harvest of the window, into
    `out_dir`: candidates.parquet, funnel.json and, when a model is given, the split at
    `out_dir/arxivmathgradingbench-mined/`. Without a model the run stops after stage 1."""
    sources = [readers.open_input(path, input_format) for path in inputs]
    origins: dict[Path, str] = {}
    harvested = 0
    if harvest is not None:
        path, harvested = _harvest(harvest, since, until, out_dir)
        if harvested:
            sources.append(readers.open_input(path, readers.Format.RECORDS))
            origins[path] = f"harvest:{harvest.base_url}"
    if not sources:
        raise MathJudgeError("no inputs: give metadata files, --harvest, or both")
    stage1 = run_stage1(sources, since=since, until=until, patterns=patterns)
    candidates = [Candidate(r, license_id(r.license)) for r in stage1.survivors]
    steps = [Step(1, "read", stage1.read)]
    steps += [Step(1, s.name, s.kept, s.dropped_examples) for s in stage1.steps]
    live = distinct_corrections(candidates, steps)
    if classify_model is None:
        note = "not run: no classification model given, the run stopped after stage 1"
        steps += [Step(stage, name, None, note=note) for stage, name in MODEL_STEPS]
        stage2: dict[str, Any] = {"run": False, "model": None, "prompt_sha256": None}
        stage3: dict[str, Any] = {"run": False}
        final = None
    else:
        model = ModelOptions(
            classify_model, cache_dir or default_cache_dir() / "llm", concurrency, api_base, quiet
        )
        live, stage2, stage3 = model_stages(live, model, patterns, steps)
        final = len(live)
    funnel = {
        "pipeline": {"name": "mathjudge arxiv filter", "version": VERSION},
        "inputs": _inputs(sources, origins),
        "harvest": None if harvest is None else {**vars(harvest), "records": harvested},
        "window": {"since": str(since) if since else None, "until": str(until) if until else None},
        "patterns": patterns.as_dict(),
        "steps": [s.to_json() for s in steps],
        "stage2": stage2,
        "stage3": stage3,
        "final": final,
    }
    dataset = None
    if classify_model is None:
        _remove_stale_split(out_dir)
    else:
        dataset = write_dataset(split_build(funnel, [split_row(c) for c in live]), out_dir)
    rows = write_candidates(candidates, out_dir / CANDIDATES_FILE)
    with atomic_path(out_dir / FUNNEL_FILE) as tmp:
        tmp.write_text(json.dumps(funnel, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    usage = (stage2.get("usage_line"), stage3.get("locations_model", {}).get("usage_line"))
    return FilterReport(out_dir, funnel, rows, dataset, tuple(u for u in usage if u))
