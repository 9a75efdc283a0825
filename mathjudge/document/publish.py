"""Publish time: turn the results store into the leaderboard document and store it.

Ranks, rank intervals and tie groups are statistics, so they are computed here (see
`document.ranks`), with the B and seed the judges were scored with; each benchmark's
presentation facts come from its spec. The site (`mathjudge.site`) renders the stored
document and nothing else, so what it shows is a pure function of the store.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
from pydantic import TypeAdapter, ValidationError

import mathjudge
from mathjudge import __version__, registry, store
from mathjudge.base.display import meta_problem, summary
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import printable
from mathjudge.base.names import canonical, identity
from mathjudge.dataio.reported import SOURCE as REPORTED
from mathjudge.document.aliases import AliasTable, compare_pair
from mathjudge.document.aliases import table as alias_table
from mathjudge.document.ranks import rank_benchmark
from mathjudge.spec.document import (
    DOCUMENT,
    BenchmarkDocument,
    BoardSubmission,
    Comparison,
    DatasetDocument,
    GeneratedFrom,
    LeaderboardDocument,
    ModelDocument,
    ModelRef,
    ModelResult,
    Provenance,
    Ranks,
)
from mathjudge.spec.presentation import generic_presentation
from mathjudge.spec.results import Submission
from mathjudge.store import read


def assemble(path: Path, on_skip: Callable[[str], None] = lambda _: None) -> LeaderboardDocument:
    """The document for the store at `path`: latest submission per (benchmark, judge). A
    stored submission that cannot be rendered (a meta no page or JSON file can hold, written
    before the checks that now keep such metas out) is left out and told to `on_skip`, with
    how to remove it; the rest of the site is built."""
    aliases = alias_table()
    with read.reading(path, snapshot=True) as con:  # the store's lock held only to copy it
        submissions = read.latest_submissions(con)
        datasets = read.datasets(con)
        examples = frozenset(d.content_hash for d in datasets if d.manifest.get("example"))
        by_benchmark: dict[str, list[Submission]] = {}
        shown: dict[str, list[BoardSubmission]] = {}
        for sub in submissions:
            try:
                document = _submission(sub.benchmark, sub, aliases, examples)
            except (ValidationError, ValueError, TypeError, MathJudgeError) as exc:
                on_skip(
                    f"{sub.benchmark}: {sub.judge!r} (submission {sub.id}) cannot be rendered "
                    f"({str(exc).splitlines()[0][:200]}); remove it with `mathjudge results "
                    f"remove {sub.id}`"
                )
                continue
            by_benchmark.setdefault(sub.benchmark, []).append(sub)
            shown.setdefault(sub.benchmark, []).append(document)
        for name, board in shown.items():
            one_row_per_judge(name, board, aliases)
        ranked = _ranks(con, by_benchmark, examples)
        benchmarks = []
        for name, subs in sorted(by_benchmark.items()):
            known = name in registry.names()
            if known:
                presentation = registry.get(name).presentation()
                ranks = ranked[name]
            else:
                presentation = generic_presentation(name)
                ranks = Ranks(status="not ranked: not a benchmark of this installation")
            benchmarks.append(
                BenchmarkDocument(
                    name=name,
                    presentation=presentation,
                    submissions=shown[name],
                    ranks=ranks,
                    comparisons=_comparisons(name, subs, aliases),
                    notes=_notes(name, subs, datasets) if known else [],
                )
            )
        total = read.submission_count(con)
    created = [s.created for s in submissions]
    return LeaderboardDocument(
        generated_from=GeneratedFrom(
            store=path.name,
            submissions_in_store=total,
            latest_submission=max(created) if created else None,
            mathjudge_version=__version__,
        ),
        benchmarks=benchmarks,
        datasets=datasets,
        models=_models(benchmarks),
        methodology=[spec.presentation() for spec in registry.specs()],
    )


def _ranks(
    con: duckdb.DuckDBPyConnection,
    by_benchmark: dict[str, list[Submission]],
    examples: frozenset[str],
) -> dict[str, Ranks]:
    """Each known benchmark's ranks, two benchmarks at a time (the work is in DuckDB and
    numpy); every benchmark's bootstrap has its own seed, so the order does not matter."""

    def rank(cursor: duckdb.DuckDBPyConnection, name: str) -> Ranks:
        return rank_benchmark(registry.get(name), by_benchmark[name], cursor, examples)

    names = [name for name in sorted(by_benchmark) if name in registry.names()]
    return dict(zip(names, read.in_threads(con, rank, names), strict=True))


SUBMISSION_ID = re.compile(r"[0-9a-f]{16}")


_BOARD = TypeAdapter(BoardSubmission)


def _submission(
    benchmark: str, stored: Submission, aliases: AliasTable, examples: frozenset[str]
) -> BoardSubmission:
    """A stored submission as the document shows it: meta as a bounded summary, the whole
    meta linked as its own file (ids are hex digests; nothing else becomes a file name), the
    model behind the judge (alias table), and whether it was scored on a shipped example."""
    meta = stored.meta
    problem = meta_problem(meta) if isinstance(meta, dict) else ("meta", "is not a JSON object")
    if problem:
        raise ValueError(f"its meta: {problem[0]} {problem[1]}")
    json.dumps(meta, allow_nan=False)  # its own JSON file on the site: finite numbers only
    linked = meta and SUBMISSION_ID.fullmatch(stored.id)
    found = aliases.model_of(benchmark, stored.source, stored.judge, meta)
    model = None
    if found is not None:
        model = ModelRef(
            id=found[0].id,
            name=found[0].name,
            variant=found[1],
            pipeline=found[2],
            type=found[0].type,
        )
    kind = meta.get("kind")
    # A paper's row declared the pair of our reproduction is that judge.
    paired = aliases.reproduction_of(benchmark, stored.judge) if stored.source == REPORTED else None
    document = BoardSubmission(
        **{**stored.record(), "meta": summary(meta)},
        identity=canonical(paired or stored.judge),
        meta_file=f"meta/{stored.id}.json" if linked else None,
        example=stored.content_hash in examples,
        model=model,
        kind=kind if isinstance(kind, str) else None,
        provenance=provenance(stored.source, meta),
        reference_note=_reference_note(benchmark, stored) if kind == "baseline" else None,
    )
    json.dumps(_BOARD.dump_python(document, mode="json"), allow_nan=False)  # what pages embed
    return document


def one_row_per_judge(benchmark: str, board: list[BoardSubmission], aliases: AliasTable) -> None:
    """Refuse a board on which two rows would carry names that differ only in case, spacing
    or punctuation. Results of one identity are one row, which holds one result of ours and,
    beside it, a paper's row declared its pair; any other two results of one identity, or two
    rows whose names are one identity, are two judges a reader could not tell apart (or one
    judge shown twice)."""
    by_identity: dict[str, list[BoardSubmission]] = {}
    for sub in board:
        by_identity.setdefault(sub.identity, []).append(sub)
    rows: dict[str, list[BoardSubmission]] = {}
    for subs in by_identity.values():
        papers = [s for s in subs if s.provenance == "paper"]
        ours = [s for s in subs if s.provenance != "paper"]
        paired = bool(papers) and aliases.reproduction_of(benchmark, papers[0].judge) is not None
        if len(papers) > 1 or len(ours) > 1 or (papers and ours and not paired):
            _indistinct(benchmark, subs)
        shown = (ours or papers)[0]
        rows.setdefault(identity(shown.judge), []).append(shown)
    for same in rows.values():
        if len(same) > 1:
            _indistinct(benchmark, same)


def _indistinct(benchmark: str, subs: list[BoardSubmission]) -> None:
    names = ", ".join(
        f"{printable(repr(s.judge))} ({'paper' if s.provenance == 'paper' else s.source}, "
        f"submission {s.id})"
        for s in sorted(subs, key=lambda s: (s.judge, s.id))
    )
    raise MathJudgeError(
        f"{benchmark}: {names} differ only in case, spacing, punctuation or look-alike "
        "characters, so a reader could not tell them apart. If a paper's row and ours are one "
        "judge configuration, declare "
        f"them a pair in mathjudge/benchmarks/{benchmark}/aliases.yaml (`pairs:`); otherwise "
        "rename one (evaluate it again under the new name) or remove it with "
        "`mathjudge results remove ID`"
    )


def _reference_note(benchmark: str, stored: Submission) -> str | None:
    """What the spec says of the baseline this submission is (its rule, and what its value
    tells), found by its judge name; None for a baseline the spec does not declare."""
    if benchmark not in registry.names():
        return None
    wanted = canonical(stored.judge)
    for baseline in registry.get(benchmark).baselines:
        if canonical(baseline.judge_name) == wanted:
            return f"{baseline.description} {baseline.tells}".strip()
    return None


def provenance(source: str, meta: dict[str, Any]) -> Provenance:
    """Where a stored submission's predictions come from (see `BoardSubmission`)."""
    if source == REPORTED:
        return "paper"
    return "published_outputs" if meta.get("converted_from") else "submitted"


def _notes(benchmark: str, subs: list[Submission], datasets: list[DatasetDocument]) -> list[str]:
    """The spec's notes, then the limitations declared by the manifests of the datasets this
    benchmark's submissions were scored on (each once, in order)."""
    spec = registry.get(benchmark)
    scored = {s.content_hash for s in subs}
    notes = list(spec.notes)
    for dataset in datasets:
        if dataset.name == spec.dataset and dataset.content_hash in scored:
            limitations = dataset.manifest.get("limitations") or []
            notes += [n for n in limitations if isinstance(n, str) and n not in notes]
    return notes


def _comparisons(benchmark: str, subs: list[Submission], aliases: AliasTable) -> list[Comparison]:
    """The declared reported/reproduced pairs present on this benchmark, score by score (names
    compared as identities)."""
    by_name = {(s.source, canonical(s.judge)): s for s in subs}
    headline = registry.get(benchmark).headline if benchmark in registry.names() else None
    out = []
    for pair in aliases.pairs:
        reported = by_name.get(("reported", canonical(pair.reported)))
        reproduced = by_name.get(("reproduced", canonical(pair.reproduced)))
        if pair.benchmark == benchmark and reported and reproduced:
            out.append(compare_pair(reported, reproduced, headline))
    return out


def _models(benchmarks: list[BenchmarkDocument]) -> list[ModelDocument]:
    """Each model with a result here, and all its results (by benchmark, then judge)."""
    found: dict[str, dict[str, list[ModelResult]]] = {}
    names = {m.id: m for m in alias_table().models}
    for bench in benchmarks:
        for sub in bench.submissions:
            if sub.model is None:
                continue
            entry = found.setdefault(sub.model.id, {"results": []})
            entry["results"].append(
                ModelResult(
                    benchmark=bench.name,
                    submission=sub.id,
                    judge=sub.judge,
                    source=sub.source,
                    variant=sub.model.variant,
                    pipeline=sub.model.pipeline,
                )
            )
    return [
        ModelDocument(
            id=mid,
            name=names[mid].name,
            organization=names[mid].organization,
            facts=names[mid].facts(),
            results=entry["results"],
        )
        for mid, entry in sorted(found.items())
    ]


def publish(path: Path, on_skip: Callable[[str], None] = lambda _: None) -> LeaderboardDocument:
    """Assemble the document and store it in the results store (replacing the last one);
    `on_skip` hears of each stored submission left out (see `assemble`).

    The document is a function of the store's rows and of mathjudge's code alone, so when
    neither changed since the stored document was assembled (its fingerprint) that one is
    kept: ranking every judge again is most of a site build's time and would give the same
    ranks."""
    if not path.is_file():
        raise MathJudgeError(f"{path}: no results store; run `mathjudge evaluate` first")
    with read.reading(path) as con:
        mark = fingerprint(con)
        stored = read.document(con, DOCUMENT)
    kept = _current(stored, mark)
    if kept is not None:
        for message in kept.generated_from.skipped:
            on_skip(message)
        return kept
    skipped: list[str] = []

    def skip(message: str) -> None:
        skipped.append(message)
        on_skip(message)

    document = assemble(path, skip)
    document.generated_from.fingerprint = mark
    document.generated_from.skipped = skipped
    store.write_document(path, DOCUMENT, document.model_dump_json())
    return document


def fingerprint(con: duckdb.DuckDBPyConnection) -> str:
    """What the document is a function of: the store's rows (`read.content_digest`), this
    mathjudge's code and data (`code_digest`) and DuckDB's version."""
    raw = f"{read.content_digest(con)}|{code_digest()}|{duckdb.__version__}"
    return hashlib.sha256(raw.encode()).hexdigest()


@functools.cache
def code_digest() -> str:
    """A digest of mathjudge's code and data files (the site's excepted: they never change the
    document), so a changed rule, spec or alias table assembles the document anew."""
    root = Path(mathjudge.__file__).resolve().parent
    digest = hashlib.sha256(mathjudge.__version__.encode())
    for file in sorted(root.rglob("*")):
        rel = file.relative_to(root)
        if (
            file.suffix in CODE_FILES
            and rel.parts[0] != "site"
            and "__pycache__" not in rel.parts
            and file.is_file()
        ):
            digest.update(rel.as_posix().encode() + b"\0" + file.read_bytes())
    return digest.hexdigest()


CODE_FILES = (".py", ".yaml", ".yml", ".json")


def _current(stored: str | None, mark: str) -> LeaderboardDocument | None:
    """The stored document when it was assembled from exactly this store and code."""
    if stored is None:
        return None
    try:
        document = LeaderboardDocument.model_validate_json(stored)
    except ValidationError:  # a document of another schema: assemble anew
        return None
    return document if document.generated_from.fingerprint == mark else None
