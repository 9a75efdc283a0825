"""Publish time: turn the results store into the leaderboard document and store it.

Ranks, rank intervals and tie groups are statistics, so they are computed here (see
`evaluate.ranks`), with the B and seed the judges were scored with; each benchmark's
presentation facts come from its spec. The site (`mathjudge.leaderboard`) renders the stored
document and nothing else, so what it shows is a pure function of the store.
"""

from __future__ import annotations

import re
from pathlib import Path

from mathjudge import __version__, registry, store
from mathjudge.display import summary
from mathjudge.errors import MathJudgeError
from mathjudge.evaluate.ranks import rank_benchmark
from mathjudge.spec.document import (
    DOCUMENT,
    BenchmarkDocument,
    DatasetDocument,
    GeneratedFrom,
    LeaderboardDocument,
    Ranks,
    Submission,
)
from mathjudge.spec.presentation import generic_presentation
from mathjudge.store import read


def assemble(path: Path) -> LeaderboardDocument:
    """The document for the store at `path`: latest submission per (benchmark, judge)."""
    with read.reading(path, snapshot=True) as con:  # the store's lock held only to copy it
        submissions = read.latest_submissions(con)
        by_benchmark: dict[str, list[dict]] = {}
        for sub in submissions:
            by_benchmark.setdefault(sub.pop("benchmark"), []).append(sub)
        benchmarks = []
        for name, subs in sorted(by_benchmark.items()):
            if name in registry.names():
                spec = registry.get(name)
                presentation = spec.presentation()
                ranks = rank_benchmark(spec, subs, con)
            else:
                presentation = generic_presentation(name)
                ranks = {"status": "not ranked: not a benchmark of this installation"}
            benchmarks.append(
                BenchmarkDocument(
                    name=name,
                    presentation=presentation,
                    submissions=[_submission(s) for s in subs],
                    ranks=Ranks.model_validate(ranks),
                )
            )
        datasets = [DatasetDocument.model_validate(d) for d in read.datasets(con)]
        total = read.submission_count(con)
    created = [s["created"] for s in submissions]
    return LeaderboardDocument(
        generated_from=GeneratedFrom(
            store=path.name,
            submissions_in_store=total,
            latest_submission=max(created) if created else None,
            mathjudge_version=__version__,
        ),
        benchmarks=benchmarks,
        datasets=datasets,
        methodology=[spec.presentation() for spec in registry.specs()],
    )


SUBMISSION_ID = re.compile(r"[0-9a-f]{16}")


def _submission(stored: dict) -> Submission:
    """A stored submission as the document shows it: meta as a bounded summary, the whole
    meta linked as its own file (ids are hex digests; nothing else becomes a file name)."""
    meta = stored["meta"]
    linked = meta and SUBMISSION_ID.fullmatch(stored["id"])
    return Submission.model_validate(
        {
            **stored,
            "meta": summary(meta),
            "meta_file": f"meta/{stored['id']}.json" if linked else None,
        }
    )


def publish(path: Path) -> LeaderboardDocument:
    """Assemble the document and store it in the results store (replacing the last one)."""
    if not path.is_file():
        raise MathJudgeError(f"{path}: no results store; run `mathjudge evaluate` first")
    document = assemble(path)
    store.write_document(path, DOCUMENT, document.model_dump_json())
    return document
