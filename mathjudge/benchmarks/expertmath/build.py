"""ExpertMath-style splits (the Consequence-Based Utility paper's setting) built from a problem
package: research-level originals, each with neighbourhood variants and a pool of candidate
solutions labelled correct or wrong, which a judge has to rank.

ExpertMath itself is embargoed, so the source is a package a research group writes by hand (the
format is in docs/expertmath-package.md and validated by `benchmarks.expertmath.package`). The
package is found like a mirror: `--source-dir` is the package folder or a folder holding
`expertmath/`, else `$MATHJUDGE_MIRROR/expertmath`. A small example package ships in
`mathjudge/benchmarks/expertmath/example/`.
"""

from __future__ import annotations

from pathlib import Path

import datasets
from datasets import Value

from mathjudge.base.config import doc_url, mirror_root
from mathjudge.base.errors import SourceUnavailable
from mathjudge.benchmarks.expertmath.package import PACKAGE_FILE, Package, read_package
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import ResolvedFile, Source, sha256_file
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "expertmath"
VERSION = load_pins(NAME).version  # source.yaml: the layout version
EXAMPLE_PACKAGE = Path(__file__).resolve().parent / "example"

PROBLEM_FEATURES = datasets.Features(
    {
        "problem_id": Value("string"),
        "original_id": Value("string"),
        "is_variant": Value("bool"),
        "title": Value("string"),
        "statement": Value("string"),
        "answer": Value("string"),
        "solution": Value("string"),
        "notes": Value("string"),
        "n_candidates": Value("int16"),
    }
)
CANDIDATE_FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_id": Value("string"),
        "original_id": Value("string"),
        "is_variant": Value("bool"),
        "position": Value("int16"),
        "source": Value("string"),
        "is_human": Value("bool"),
        "solution": Value("string"),
        "correct": Value("bool"),
        "correct_name": Value("string"),  # "correct" / "wrong": `correct` as a name
        "notes": Value("string"),
    }
)
NEIGHBOURHOOD_FEATURES = datasets.Features(
    {
        "original_id": Value("string"),
        "variant_id": Value("string"),
        "position": Value("int16"),
    }
)


def find_package(source_dir: Path | None) -> Path:
    """The package folder: `source_dir` itself or its `expertmath/`, else the mirror's."""
    candidates = [source_dir, source_dir / NAME] if source_dir is not None else []
    root = mirror_root()
    if source_dir is None and root is not None:
        candidates.append(root / NAME)
    for folder in candidates:
        if (folder / PACKAGE_FILE).is_file():
            return folder
    where = (
        f"{source_dir} (or {source_dir / NAME})"
        if source_dir is not None
        else (
            f"$MATHJUDGE_MIRROR/{NAME} ({root / NAME})" if root is not None else "no folder given"
        )
    )
    raise SourceUnavailable(
        f"expertmath: no problem package ({PACKAGE_FILE}) in {where}; pass --source-dir with a "
        f"package folder (format: {doc_url('expertmath-package.md')}; example: {EXAMPLE_PACKAGE})"
    )


def tables(package: Package) -> tuple[Table, ...]:
    problems, candidates, neighbourhoods = [], [], []
    for problem in package.problems:
        problems.append(
            {
                "problem_id": problem.problem_id,
                "original_id": problem.original_id,
                "is_variant": problem.is_variant,
                "title": problem.title,
                "statement": problem.statement,
                "answer": problem.answer,
                "solution": problem.solution,
                "notes": problem.notes,
                "n_candidates": len(problem.candidates),
            }
        )
        for position, cand in enumerate(problem.candidates):
            candidates.append(
                {
                    "item_id": cand.candidate_id,
                    "problem_id": problem.problem_id,
                    "original_id": problem.original_id,
                    "is_variant": problem.is_variant,
                    "position": position,
                    "source": cand.source,
                    "is_human": cand.is_human,
                    "solution": cand.solution,
                    "correct": cand.correct,
                    "correct_name": "correct" if cand.correct else "wrong",
                    "notes": cand.notes,
                }
            )
    for original in (p for p in package.problems if not p.is_variant):
        for position, variant in enumerate(package.variants_of(original.problem_id)):
            neighbourhoods.append(
                {
                    "original_id": original.problem_id,
                    "variant_id": variant.problem_id,
                    "position": position,
                }
            )
    return (
        Table("candidates", "test", CANDIDATE_FEATURES, candidates),
        Table("problems", "test", PROBLEM_FEATURES, problems),
        Table("neighbourhoods", "test", NEIGHBOURHOOD_FEATURES, neighbourhoods),
    )


def build(source_dir: Path | None = None) -> Build:
    package = read_package(find_package(source_dir))
    built = tables(package)
    candidates = built[0].rows
    source = Source(
        kind="package", repo=package.name, revision=package.version, mirror_name=NAME, files=()
    )
    resolved = {
        path.relative_to(package.folder).as_posix(): ResolvedFile(
            path, sha256_file(path), f"package:{package.folder}"
        )
        for path in package.files
    }
    originals = [p for p in package.problems if not p.is_variant]
    facts = {
        "version": VERSION,
        "package": package,
        "n_originals": len(originals),
        "n_variants": len(package.problems) - len(originals),
        "n_problems": len(package.problems),
        "n_candidates": len(candidates),
        "n_correct": sum(c["correct"] for c in candidates),
        "n_human": sum(c["is_human"] for c in candidates),
        "sources": sorted({c["source"] for c in candidates}),
    }
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=built,
        card_info=CardInfo(
            pretty_name=package.title or f"ExpertMath-style: {package.name}",
            license=package.license,
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-class-classification",),  # candidates labelled correct or wrong
            language_creators=("expert-generated", "machine-generated"),
            size_category="n<1K" if len(candidates) < 1000 else "1K<n<10K",
        ),
        card_body=render_card_body(NAME, **facts),
        sources=((source, resolved),),
        example=package.folder.resolve() == EXAMPLE_PACKAGE,
        checks={
            "package": f"{package.name} {package.version}: {len(package.files)} files valid",
            "pools": "every original, and every variant with candidates, has correct and wrong",
        },
    )
