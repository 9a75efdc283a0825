"""Scale benchmark: stage 1 of `mathjudge arxiv filter` over a synthetic Kaggle-format snapshot.

Writes (once; reused while size and seed match) a synthetic `arxiv-metadata-oai-snapshot.json`
of `--records` lines (default 2,700,000, about the real snapshot's count) with the real
schema and realistic field sizes (about 1.3 KB a line: abstract with hard line breaks, authors,
authors_parsed, version history, compact JSON with \\u escapes as Kaggle writes it). Then, in
the same run and over the same file:

1. mathjudge: `run_stage1` (DuckDB over the file), timed end to end, the median of `--repeats`;
2. baseline: a straightforward loop, `json.loads` per line and the same tests with `re`;
3. checks that both keep the same (arxiv_id, version, comment) survivors and give the same
   funnel counts.

Targets: at least 10x faster than the baseline and the full snapshot within 60 s. Exit status 1
when the survivors or counts differ; a missed time target prints MISSED but does not fail.

    python bench/arxiv_filter_scale.py                     # full size (about 3.5 GB of data)
    python bench/arxiv_filter_scale.py --records 100000    # quick check
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import os
import random
import re
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from mathjudge.benchmarks.arxivmathgradingbench.mining.readers import open_input
from mathjudge.benchmarks.arxivmathgradingbench.mining.stage1 import (
    DEFAULT_PATTERNS,
    FILTERS,
    Patterns,
    Stage1Result,
    run_stage1,
)

TARGET_SPEEDUP = 10.0
TARGET_SECONDS = 60.0
SINCE, UNTIL = dt.date(2018, 1, 1), dt.date(2025, 12, 31)
KAGGLE_DATE = "%a, %d %b %Y %H:%M:%S GMT"
DATA_VERSION = 2  # part of the data file's name: bump it when the generator changes

Survivor = tuple[str, int, str]

# --- synthetic snapshot ----------------------------------------------------------------------

_MATH = (
    "AG AP CO NT PR DG FA GT OC RT GR NA DS CA LO ST AT RA MG CV QA OA SP KT AC GM HO CT "
    "GN SG MP IT"
)
MATH = _MATH.split()
_OTHER = (
    "cs.LG cs.CV cs.CL cs.AI cs.IT cs.DS cs.CR cs.DM hep-th hep-ph hep-ex hep-lat gr-qc "
    "astro-ph.GA astro-ph.CO astro-ph.SR astro-ph.HE cond-mat.mes-hall cond-mat.str-el "
    "cond-mat.stat-mech cond-mat.mtrl-sci quant-ph physics.optics physics.flu-dyn nucl-th "
    "stat.ML stat.ME eess.SP q-bio.NC econ.EM math-ph nlin.CD"
)
OTHER = _OTHER.split()
OLD_ARCHIVES = ("math", "hep-th", "hep-ph", "astro-ph", "cond-mat", "gr-qc", "quant-ph", "alg-geom")
_WORDS = (
    "we prove show that the of a an for in on with and is are this paper result results "
    "bound bounds group groups space spaces operator operators manifold manifolds curve "
    "curves field fields prime primes graph graphs random model models estimate estimates "
    "equation equations solution solutions theorem lemma conjecture error errors "
    "correction problem method methods new sharp optimal finite infinite algebra algebras "
    "category functor scheme measure measures energy quantum classical network networks "
    "learning data neural training galaxy galaxies star stars mass spectrum spectra "
    "lattice phase transition symmetry invariant invariants cohomology homology "
    "representation representations Étale Poincaré Schrödinger Erdős Hölder $L^p$ "
    "$\\mathbb{Z}$ $n\\geq 3$ $\\alpha$ $O(n\\log n)$"
)
WORDS = _WORDS.split()
_NAMES = (
    "Smith Nguyen García Müller Rossi Kowalski Tanaka Ivanov Dubois Larsen Øbro Balázs "
    "Chen Kim Singh Cohen Novak Silva Haddad Okafor Jensen Petrov Moreau Schmidt Wang Li "
    "Zhang"
)
NAMES = _NAMES.split()
JOURNALS = (
    "Ann. of Math.",
    "Invent. Math.",
    "Duke Math. J.",
    "Phys. Rev. D",
    "J. Algebra",
    "Compos. Math.",
    "Forum Math. Sigma",
    "Adv. Math.",
)
LICENSES = (
    (0.45, None),
    (0.40, "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"),
    (0.08, "http://creativecommons.org/licenses/by/4.0/"),
    (0.03, "http://creativecommons.org/licenses/by-nc-nd/4.0/"),
    (0.02, "http://creativecommons.org/licenses/by-sa/4.0/"),
    (0.01, "http://creativecommons.org/publicdomain/zero/1.0/"),
    (0.01, "http://creativecommons.org/licenses/by-nc-sa/4.0/"),
)
# (weight, template): {p} pages, {f} figures, {n} a result number, {j} a journal, {v} version.
COMMENTS = (
    (0.22, None),
    (0.20, "{p} pages"),
    (0.18, "{p} pages, {f} figures"),
    (0.08, "{p} pages, {f} figures; accepted for publication in {j}"),
    (0.05, "To appear in {j}"),
    (0.03, "final version"),
    (0.05, "v{v}: minor revisions, references added"),
    (0.04, "{p} pages; v{v}: typos corrected"),
    (0.04, "{p} pages, {f} figures (figures at reduced resolution,\n  originals on request)"),
    (0.03, "{p} pages; signs and coefficients adjusted, section {n} changed\n  accordingly"),
    (0.02, "Comments welcome! Added Theorem {n} and a new section"),
    (0.02, "Lemma {n} simplified; {p} pages"),
    (0.02, "Corrected typos; error in the references fixed"),
    (0.01, "This paper has been withdrawn by the author due to a bug in the code"),
    (0.01, "Corrected typos in the proof of Theorem {n}. {p} pages"),
    (0.004, "An error in the proof of Lemma {n} has been corrected"),
    (0.003, "Theorem {n} in the previous\n  version was WRONG; the statement is fixed"),
    (0.002, "Erratum: the statement of Proposition {n} is amended"),
    (0.002, "{p} pages. We fix a gap in the proof of Théorème {n} (Schrödinger case)"),
    (0.002, "Fixed a mistake in LEMMA {n}; {p} pages, {f} figures"),
    (
        0.002,
        "version {v}: a flaw in the argument of Proposition {n} was pointed out by\n  a referee",
    ),
)


def weighted(rng: random.Random, table: tuple[tuple[float, object], ...]) -> object:
    return rng.choices([v for _, v in table], weights=[w for w, _ in table])[0]


def kaggle_date(when: dt.datetime) -> str:
    return f"{when:%a}, {when.day} {when:%b %Y %H:%M:%S} GMT"


def text(rng: random.Random, n_words: int, wrap: int) -> str:
    """Words with Kaggle's hard line breaks ("\\n  " in titles, "\\n" in abstracts)."""
    words = rng.choices(WORDS, k=n_words)
    lines, line = [], ""
    for word in words:
        if len(line) + len(word) > wrap:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return "\n".join([*lines, line])


def pools(rng: random.Random, size: int = 20_000) -> tuple[list[str], list[str]]:
    """Titles and abstracts to draw from: generating text per record would dominate the time."""
    titles = [text(rng, rng.randint(6, 14), 70).replace("\n", "\n  ") for _ in range(size)]
    abstracts = ["  " + text(rng, rng.randint(60, 130), 78) + "\n" for _ in range(size)]
    return titles, abstracts


def record(
    rng: random.Random,
    i: int,
    n: int,
    titles: list[str],
    abstracts: list[str],
    old_ids: Iterator[int],
) -> dict[str, object]:
    """Line `i` of `n`: new-style ids in month order, 12% old-style ones (numbered by
    `old_ids`, so every id is unique) spread over 1992-2006."""
    months = (2025 - 2007) * 12 + 9  # 2007-04 .. 2025-12
    month = i * months // n
    year, mon = 2007 + (month + 3) // 12, (month + 3) % 12 + 1
    if rng.random() < 0.12:
        k = next(old_ids)
        slot, number = divmod(k // len(OLD_ARCHIVES), 180)
        year, mon = 1992 + number // 12, number % 12 + 1
        archive = OLD_ARCHIVES[k % len(OLD_ARCHIVES)]
        arxiv_id = f"{archive}/{year % 100:02d}{mon:02d}{slot:03d}"
    else:
        arxiv_id = f"{year % 100:02d}{mon:02d}.{i % 100_000:05d}"
    created = dt.datetime(year, mon, rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59))
    n_versions = rng.choices((1, 2, 3, 4, 5), weights=(60, 25, 9, 4, 2))[0]
    stamps = [created]
    for _ in range(n_versions - 1):
        stamps.append(
            stamps[-1] + dt.timedelta(days=rng.randint(3, 500), seconds=rng.randint(0, 86_399))
        )
    if rng.random() < 0.22:
        cats = [
            f"math.{rng.choice(MATH)}",
            *rng.sample(OTHER + [f"math.{m}" for m in MATH], rng.randint(0, 2)),
        ]
    else:
        cats = [rng.choice(OTHER), *rng.sample(OTHER, rng.randint(0, 1))]
        if rng.random() < 0.08:
            cats.append(f"math.{rng.choice(MATH)}")
    template = weighted(rng, COMMENTS)
    comment = None
    if isinstance(template, str):
        comment = template.format(
            p=rng.randint(5, 80),
            f=rng.randint(1, 12),
            n=f"{rng.randint(1, 9)}.{rng.randint(1, 20)}",
            j=rng.choice(JOURNALS),
            v=rng.randint(2, max(2, n_versions)),
        )
    authors = [
        (rng.choice(NAMES), f"{rng.choice('ABCDEFGHJKLMNPRSTW')}.")
        for _ in range(rng.randint(1, 5))
    ]
    return {
        "id": arxiv_id,
        "submitter": f"{authors[0][1]} {authors[0][0]}",
        "authors": ", ".join(f"{first} {last}" for last, first in authors),
        "title": rng.choice(titles),
        "comments": comment,
        "journal-ref": f"{rng.choice(JOURNALS)} {rng.randint(1, 300)} ({year + 1})"
        if rng.random() < 0.35
        else None,
        "doi": f"10.{rng.randint(1000, 9999)}/{rng.randint(10**6, 10**7)}"
        if rng.random() < 0.4
        else None,
        "report-no": f"PREPRINT-{year}-{rng.randint(1, 99)}" if rng.random() < 0.05 else None,
        "categories": " ".join(dict.fromkeys(cats)),
        "license": weighted(rng, LICENSES),
        "abstract": rng.choice(abstracts),
        "versions": [
            {"version": f"v{k + 1}", "created": kaggle_date(s)} for k, s in enumerate(stamps)
        ],
        "update_date": f"{stamps[-1]:%Y-%m-%d}",
        "authors_parsed": [[last, first, ""] for last, first in authors],
    }


def generate(path: Path, n: int, seed: int) -> None:
    rng = random.Random(seed)
    titles, abstracts = pools(rng)
    old_ids = itertools.count()
    tmp = path.with_suffix(".part")
    with tmp.open("w", encoding="utf-8") as out:
        for i in range(n):
            line = record(rng, i, n, titles, abstracts, old_ids)
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
    tmp.replace(path)


# --- baseline ---------------------------------------------------------------------------------


def baseline(path: Path, patterns: Patterns) -> tuple[list[int], list[Survivor]]:
    """json.loads + re, line by line: the funnel counts (read, then after each filter) and the
    survivors. The regexes use re.ASCII, and whitespace is RE2's \\s, as DuckDB's RE2 has them."""
    flags = re.IGNORECASE | re.ASCII
    revision = re.compile(patterns.revision, flags)
    correction = re.compile(patterns.correction, flags)
    formal = re.compile(patterns.formal_result, flags)
    space = re.compile(r"[\t\n\f\r ]+")
    counts = [0] * (len(FILTERS) + 1)
    survivors = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            paper = json.loads(line)
            counts[0] += 1
            if not any(c.startswith(patterns.category_prefix) for c in paper["categories"].split()):
                continue
            counts[1] += 1
            latest = paper["versions"][-1]
            date = dt.datetime.strptime(latest["created"], KAGGLE_DATE).date()
            if not SINCE <= date <= UNTIL:
                continue
            counts[2] += 1
            version = int(latest["version"][1:])
            comment = space.sub(" ", paper["comments"] or "").strip(" ")
            if not (version > 1 or revision.search(comment)):
                continue
            counts[3] += 1
            if not correction.search(comment):
                continue
            counts[4] += 1
            if not formal.search(comment):
                continue
            counts[5] += 1
            survivors.append((paper["id"], version, comment))
    return counts, sorted(survivors)


# --- run ----------------------------------------------------------------------------------------


def warm(path: Path) -> None:
    """Read the file once, so neither contender pays for the first read from disk."""
    with path.open("rb") as f:
        while f.read(1 << 24):
            pass


def cpu_s() -> float:
    """CPU seconds of this process, all threads (DuckDB's included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def mathjudge_counts(result: Stage1Result) -> list[int]:
    return [result.read, *(step.kept for step in result.steps if step.name in FILTERS)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=2_700_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3, help="mathjudge runs (median shown)")
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "mathjudge-arxiv-filter-scale"
    )
    parser.add_argument("--quick", action="store_true", help="CI: 2,000 records, one run")
    args = parser.parse_args()
    if args.quick:
        args.records, args.repeats = 2000, 1

    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}, cpus: {os.cpu_count()}")
    args.workdir.mkdir(parents=True, exist_ok=True)
    path = args.workdir / f"snapshot-v{DATA_VERSION}-{args.records}-seed{args.seed}.json"
    if path.is_file():
        print(f"data: reusing {path}")
    else:
        start = time.perf_counter()
        generate(path, args.records, args.seed)
        print(f"data: wrote {path} in {time.perf_counter() - start:.1f} s")
    size = path.stat().st_size
    print(
        f"data: {args.records:,} records, {size / 1e9:.2f} GB, {size / args.records:,.0f} B/record"
    )
    print(f"window: {SINCE} .. {UNTIL}; patterns: {DEFAULT_PATTERNS.as_dict()}")
    start = time.perf_counter()
    warm(path)
    print(f"data: read once in {time.perf_counter() - start:.1f} s so both runs start warm")

    timings = []  # (wall, cpu) per repeat: one run of a few seconds is at the mercy of noise
    for _ in range(args.repeats):
        start, cpu = time.perf_counter(), cpu_s()
        result = run_stage1([open_input(path)], since=SINCE, until=UNTIL)
        timings.append((time.perf_counter() - start, cpu_s() - cpu))
    ours, ours_cpu = sorted(timings)[len(timings) // 2]
    print(
        f"mathjudge stage 1 (DuckDB): median of {args.repeats}: {ours:.2f} s, "
        f"{args.records / ours:,.0f} records/s (cpu {ours_cpu:.1f} s); "
        f"all: {', '.join(f'{w:.2f}' for w, _ in timings)} s"
    )

    start, cpu = time.perf_counter(), cpu_s()
    base_counts, base_survivors = baseline(path, DEFAULT_PATTERNS)
    theirs, theirs_cpu = time.perf_counter() - start, cpu_s() - cpu
    print(
        f"baseline (json.loads + re): {theirs:.2f} s, {args.records / theirs:,.0f} records/s "
        f"(cpu {theirs_cpu:.1f} s)"
    )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")

    our_counts = mathjudge_counts(result)
    our_survivors = sorted((r.arxiv_id, r.version, r.comment or "") for r in result.survivors)
    names = ["read", *FILTERS]
    print("funnel:      " + ", ".join(f"{n} {c:,}" for n, c in zip(names, our_counts, strict=True)))
    print(
        "baseline:    " + ", ".join(f"{n} {c:,}" for n, c in zip(names, base_counts, strict=True))
    )
    same = our_counts == base_counts and our_survivors == base_survivors
    speedup = theirs / ours
    print(
        f"identical survivors and counts: {'yes' if same else 'NO'} ({len(our_survivors):,} survivors)"
    )
    print(
        f"speedup: {speedup:.1f}x (target >= {TARGET_SPEEDUP:.0f}x): "
        f"{'PASS' if speedup >= TARGET_SPEEDUP else 'MISSED'}"
    )
    print(
        f"full snapshot: {ours:.1f} s (target <= {TARGET_SECONDS:.0f} s): "
        f"{'PASS' if ours <= TARGET_SECONDS else 'MISSED'}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
