"""ProofBench (arXiv:2510.13888): competition problems, one proof each from three models, every
proof rated 0-7 by experts; plus a best-of-n set of 16 o3 proofs for each of 29 problems.

The source is the Hugging Face dataset repo, read with `datasets.load_dataset` from a mirror
folder or a downloaded snapshot (the same code path). Every metric compares a judge with
`expert_rating` within a problem, so the builder fails on anything that would make those
comparisons wrong: non-integer or out-of-range ratings, a problem missing a generator or holding
one twice, duplicate ids, and problem texts that differ between a problem's rows.
"""

from __future__ import annotations

import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import datasets
from datasets import Value

from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import Snapshot, Source, resolve_snapshot
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "proofbench"
PINS = load_pins(NAME)  # source.yaml: the version and the Hub repo
VERSION = PINS.version
SOURCE = PINS.source
# Upstream config names. The grading set is the repo's default config; the best-of-n set is
# assumed to be a second config, `best_of_n`, with the same schema plus `sample_index` (no copy
# of the repo was reachable to confirm it). Each config is read from its one split.
GRADING_CONFIG = "default"
BEST_OF_N_CONFIG = "best_of_n"
GENERATORS = ("o3", "gemini-2.5-pro", "DeepSeek-R1-0528")
MAX_RATING = 7

_PROBLEM_FIELDS = {
    "problem_id": Value("string"),
    "contest": Value("string"),
    "year": Value("int16"),
    "problem": Value("string"),
    "reference_solution": Value("string"),
    "marking_scheme": Value("string"),
}
PROBLEM_FEATURES = datasets.Features(_PROBLEM_FIELDS)
GRADING_FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        **_PROBLEM_FIELDS,
        "generator": Value("string"),
        "proof": Value("string"),
        "expert_score": Value("int8"),
    }
)
BEST_OF_N_FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        **_PROBLEM_FIELDS,
        "generator": Value("string"),
        "sample_index": Value("int16"),
        "proof": Value("string"),
        "expert_score": Value("int8"),
    }
)


@contextmanager
def _quiet_datasets() -> Iterator[None]:
    """`datasets` progress bars off while loading (they would clutter `mathjudge build`)."""
    was_disabled = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if not was_disabled:
            datasets.enable_progress_bars()


def load_config(snapshot: Snapshot, config: str) -> list[dict[str, Any]]:
    """The rows of `config`, loaded from the snapshot folder exactly as from the hub.

    A throwaway cache folder keeps `datasets` from reusing Arrow files of an earlier, different
    copy of the same path.
    """
    with tempfile.TemporaryDirectory(prefix="mathjudge-proofbench-") as cache, _quiet_datasets():
        try:
            loaded = datasets.load_dataset(str(snapshot.folder), config, cache_dir=cache)
        except (datasets.exceptions.DatasetGenerationError, ValueError, OSError) as exc:
            reason = exc.__cause__ or exc  # a generation error wraps the parser's message
            raise MathJudgeError(
                f"{snapshot.folder}: cannot load config {config!r} ({reason})"
            ) from exc
        if len(loaded) != 1:
            raise MathJudgeError(
                f"{snapshot.folder}: config {config!r} has splits {sorted(loaded)}; expected one"
            )
        return next(iter(loaded.values())).to_list()


def _rating(value: object) -> int | None:
    """The rating as an int if it is a whole number 0-7 (3.0 is accepted, 3.5 and True not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not float(value).is_integer() or not 0 <= value <= MAX_RATING:
        return None
    return int(value)


def _convert(
    raw: list[dict[str, Any]], config: str, keys: tuple[str, ...], errors: list[str]
) -> list[dict[str, Any]]:
    """Upstream rows -> our rows, keyed by `keys` joined with "::"; collects every bad rating
    and metadata instead of stopping at the first."""
    rows = []
    for index, row in enumerate(raw):
        item_id = "::".join(str(row.get(k)) for k in keys)
        where = f"{config} row {index} ({item_id})"
        rating = _rating(row.get("expert_rating"))
        if rating is None:
            errors.append(f"{where}: expert_rating {row.get('expert_rating')!r} is not 0-7 whole")
        meta = row.get("metadata") or {}
        if not isinstance(meta.get("contest"), str) or not isinstance(
            meta.get("contest_year"), int
        ):
            errors.append(f"{where}: metadata needs contest (text) and contest_year (integer)")
        rows.append(
            {
                "item_id": item_id,
                "problem_id": row.get("problem_id"),
                "contest": meta.get("contest"),
                "year": meta.get("contest_year"),
                "problem": row.get("problem"),
                "reference_solution": row.get("reference_solution"),
                "marking_scheme": row.get("marking_scheme"),
                "generator": row.get("generator"),
                "sample_index": row.get("sample_index"),
                "proof": row.get("model_solution"),
                "expert_score": rating,
                "_row": index,
            }
        )
    return rows


def _problems(rows: list[dict[str, Any]], config: str, errors: list[str]) -> list[dict]:
    """One row per problem (first-appearance order); its texts must agree across its rows."""
    problems: dict[str, dict[str, Any]] = {}
    for row in rows:
        fields = {k: row[k] for k in _PROBLEM_FIELDS}
        first = problems.setdefault(row["problem_id"], fields)
        differ = [k for k in _PROBLEM_FIELDS if fields[k] != first[k]]
        if differ:
            errors.append(
                f"{config} row {row['_row']} ({row['problem_id']}): {', '.join(differ)} "
                "differs from the problem's first row"
            )
    return list(problems.values())


def _row_list(rows: list[dict[str, Any]]) -> str:
    return ", ".join(str(r["_row"]) for r in rows)


def _check_grading(rows: list[dict[str, Any]], errors: list[str]) -> None:
    """Every problem has exactly one proof by every generator."""
    by_problem: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row["generator"] not in GENERATORS:
            errors.append(
                f"grading row {row['_row']} ({row['problem_id']}): unknown generator "
                f"{row['generator']!r}; expected one of {', '.join(GENERATORS)}"
            )
        by_problem[row["problem_id"]][row["generator"]].append(row)
    for problem_id, by_generator in by_problem.items():
        for generator in GENERATORS:
            found = by_generator.get(generator, [])
            if not found:
                errors.append(f"grading {problem_id}: no proof by {generator}")
            elif len(found) > 1:
                errors.append(
                    f"grading {problem_id}::{generator}: duplicate, {len(found)} proofs "
                    f"(rows {_row_list(found)}); expected one"
                )


def _check_best_of_n(rows: list[dict[str, Any]], errors: list[str]) -> int:
    """Every problem has samples 0..N-1 exactly once, with the same N everywhere; returns N."""
    by_problem: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_problem[row["problem_id"]].append(row)
    sizes = Counter(len(samples) for samples in by_problem.values())
    n = sizes.most_common(1)[0][0] if sizes else 0
    for problem_id, samples in by_problem.items():
        indices = Counter(r["sample_index"] for r in samples)
        if len(samples) != n or set(indices) != set(range(n)):
            listed = sorted(indices.elements(), key=str)
            errors.append(
                f"best_of_n {problem_id}: sample_index values {listed} "
                f"(rows {_row_list(samples)}); expected 0..{n - 1} once each"
            )
        elif len({r["generator"] for r in samples}) != 1:
            errors.append(f"best_of_n {problem_id}: samples come from several generators")
    return n


def _finish(rows: list[dict[str, Any]], features: datasets.Features) -> list[dict[str, Any]]:
    return [{k: row[k] for k in features} for row in rows]


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    snapshot = resolve_snapshot(source, source_dir)
    configs = datasets.get_dataset_config_names(str(snapshot.folder))
    errors: list[str] = []
    raw = load_config(snapshot, GRADING_CONFIG)
    grading = _convert(raw, "grading", ("problem_id", "generator"), errors)
    _check_grading(grading, errors)
    problems = _problems(grading, "grading", errors)

    best_of_n: list[dict[str, Any]] = []
    n_samples = 0
    if BEST_OF_N_CONFIG in configs:
        raw = load_config(snapshot, BEST_OF_N_CONFIG)
        best_of_n = _convert(raw, "best_of_n", ("problem_id", "generator", "sample_index"), errors)
        n_samples = _check_best_of_n(best_of_n, errors)
        _problems(best_of_n, "best_of_n", errors)
    if errors:
        raise MathJudgeError(
            f"{source.repo} is inconsistent ({len(errors)} problem(s)):\n  " + "\n  ".join(errors)
        )

    pinned = replace(source, revision=snapshot.revision)
    tables = [
        Table("grading", "test", GRADING_FEATURES, _finish(grading, GRADING_FEATURES)),
        Table("problems", "test", PROBLEM_FEATURES, problems),
    ]
    if best_of_n:
        tables.append(
            Table("best_of_n", "test", BEST_OF_N_FEATURES, _finish(best_of_n, BEST_OF_N_FEATURES))
        )
    ratings = Counter(r["expert_score"] for r in grading)
    n_bon_problems = len({r["problem_id"] for r in best_of_n})
    facts = {
        "version": VERSION,
        "source": pinned,
        "input_files": sorted(snapshot.files),
        "n_problems": len(problems),
        "n_proofs": len(grading),
        "generators": GENERATORS,
        "contests": Counter(p["contest"] for p in problems),
        "years": sorted({p["year"] for p in problems}),
        "ratings": [ratings[s] for s in range(MAX_RATING + 1)],
        "n_bon_problems": n_bon_problems,
        "n_samples": n_samples,
    }
    total_rows = sum(len(t.rows) for t in tables)
    checks = {
        "grading": f"{len(problems)} problems x {len(GENERATORS)} generators, one proof each",
        "expert_score_counts": {str(s): ratings[s] for s in range(MAX_RATING + 1)},
    }
    if best_of_n:
        checks["best_of_n"] = f"{n_bon_problems} problems x {n_samples} samples (0..N-1)"
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=tuple(tables),
        card_info=CardInfo(
            pretty_name="ProofBench",
            license="unknown",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("text-scoring",),  # a 0-7 grade per proof
            source_datasets=(SOURCE.repo,),
            size_category="n<1K" if total_rows < 1000 else "1K<n<10K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((pinned, snapshot.files),),
        checks=checks,
    )
