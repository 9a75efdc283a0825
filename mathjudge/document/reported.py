"""Judge results transcribed from the source papers, imported into the results store.

Each benchmark whose spec names a `reported` module turns its paper's tables (the shared
`reported/` folder; its SOURCE.md says how each was transcribed) into results, with the
helpers of `dataio.reported`, which also says how such a result is marked. Here they are
merged (a table reprinting an earlier row is the same evaluation; one judge name is one
submission) and imported.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.reported import SOURCE, printed_cells, where
from mathjudge.spec.results import Evaluation, Score
from mathjudge.store import delete, read, save_many


def load_reported(folder: Path) -> list[Evaluation]:
    """Every imported row of `folder` (the shared `reported/`): one result per judge."""
    results: list[Evaluation] = []
    for spec in registry.specs():
        if spec.reported is not None:
            results += registry.resolve(spec.name, f"{spec.reported}:load")(folder)
    return _combine_judges(_merge_reprints(results))


def _merge_reprints(results: list[Evaluation]) -> list[Evaluation]:
    """A later table that reprints an earlier row (ProofBench Tables 2, 5 and 10 repeat Table
    1's Ref+MS rows; StepMathAgent Table 4 repeats Table 3's StepMathAgent) shows the same
    evaluation, not another judge: keep the first appearance under its name."""
    first: dict[tuple[str, frozenset[tuple[str, str, str, float | None]]], int] = {}
    out: list[Evaluation] = []
    for result in results:
        key = (result.benchmark, frozenset((*where(s), s.value) for s in result.scores))
        if key in first:
            out[first[key]] = _join(out[first[key]], result, out[first[key]].scores)
        else:
            first[key] = len(out)
            out.append(result)
    return out


def _combine_judges(results: list[Evaluation]) -> list[Evaluation]:
    """The site shows one submission per (benchmark, judge), so results sharing a judge name
    must be one: a table adding other scores of the same evaluator (Table 3's per-generator
    MAEs of Table 1's Ref+MS evaluators) joins it; two values for one score are an error."""
    index: dict[tuple[str, str], int] = {}
    out: list[Evaluation] = []
    for result in results:
        key = (result.benchmark, result.judge)
        if key not in index:
            index[key] = len(out)
            out.append(result)
            continue
        kept = out[index[key]]
        if {where(s) for s in kept.scores} & {where(s) for s in result.scores}:
            a, b = kept.meta["transcribed_from"][0], result.meta["transcribed_from"][0]
            raise MathJudgeError(f"{a} and {b}: two results under the judge name {result.judge!r}")
        out[index[key]] = _join(kept, result, kept.scores + result.scores)
    return out


def _join(kept: Evaluation, other: Evaluation, scores: tuple[Score, ...]) -> Evaluation:
    """`kept` with `scores`, citing both tables; `other`'s setting details (e.g. instruction
    "Norm" from Table 2) are added to meta where `kept` says nothing."""
    tables = sorted(
        kept.meta["tables"] + other.meta["tables"],
        key=lambda t: [int(w) if w.isdigit() else w for w in t.split()],  # Table 3 < Table 10
    )
    meta = {
        **other.meta,
        **kept.meta,
        "tables": tables,
        "transcribed_from": kept.meta["transcribed_from"] + other.meta["transcribed_from"],
        "printed": printed_cells(scores),
    }
    paper = registry.get(kept.benchmark).paper
    citation = paper.cite(tables) if paper else kept.citation
    return replace(kept, scores=scores, meta=meta, citation=citation)


def import_reported(folder: Path, store: Path) -> int:
    """Load and check every file first, then save each result; returns how many were saved.
    Submissions of an earlier import that no longer exist (a corrected CSV hashes differently)
    are removed, so the store holds exactly the current transcription."""
    results = load_reported(folder)
    current = set(save_many(store, results))
    with read.reading(store) as con:
        stale = [sid for sid in read.transcribed_ids(con, SOURCE) if sid not in current]
    if stale:
        delete(store, stale)
    return len(results)
