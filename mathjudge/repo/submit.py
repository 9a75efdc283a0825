"""`mathjudge submit`: validate a judge's predictions, meta and details completely, then write
its submission folder into a leaderboard repository (atomically, with checksums).

Submitting to an existing folder with other files, meta or options is a new version of that
submission: the version counts up and `submission.json` keeps the earlier versions' checksums
(the repository's history keeps their files). Identical files change nothing.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mathjudge import registry
from mathjudge.base import names, safeyaml
from mathjudge.base.atomic import atomic_dir
from mathjudge.base.errors import MathJudgeError
from mathjudge.repo.confined import shown
from mathjudge.repo.details import read_details
from mathjudge.repo.folder import (
    DETAILS,
    META,
    RECORD,
    RUNS_AGG,
    SLUG,
    SUBMISSIONS,
    claimed,
    identities,
    meta_yaml,
    not_a_papers_name,
    read_folder,
    read_meta,
    same_judge,
    sha256,
    slug_of,
)
from mathjudge.scoring.evaluator import validate_file
from mathjudge.spec.folder import FolderRecord, SubmissionMeta
from mathjudge.validate.predictions import FORMATS


@dataclass(frozen=True)
class Submitted:
    folder: Path
    status: str  # "new", "new version" or "unchanged"
    version: int
    n_items: int
    n_expected: int
    fields: tuple[str, ...]
    details: int  # rows of the details file (0: none)
    placeholders: tuple[str, ...] = ()  # fields of the meta still as meta.example.yaml has them


def placeholders(meta: SubmissionMeta) -> tuple[str, ...]:
    """The fields of `meta` that still hold meta.example.yaml's values (copied and not
    replaced), and a `kind` the example gives that cannot be this judge's (a language-model
    kind for a judge with model 'none')."""
    from mathjudge.repo.scaffold import template_text

    example = safeyaml.parse(template_text("meta.example.yaml"))
    given = meta.stored()
    same: list[str] = [
        name
        for name in ("judge", "model", "model_version", "organization", "link", "prompt",
                     "contact", "converted_from")
        if name in given and given[name] == example.get(name)
    ]  # fmt: skip
    if meta.kind is not None and meta.kind == example.get("kind") and meta.model == "none":
        same.append("kind")
    return tuple(same)


def details_beside(predictions: Path) -> Path | None:
    """`X.details.jsonl` beside `X.jsonl` (what `mathjudge judge run` writes), if present."""
    path = predictions.with_name(f"{predictions.stem}.details.jsonl")
    return path if path.is_file() else None


def submit(
    benchmark: str,
    file: Path,
    meta_path: Path,
    repo: Path,
    *,
    datasets_dir: Path,
    slug: str | None = None,
    details: Path | None = None,
    allow_partial: bool = False,
    runs_agg: str = "mean",
    now: str | None = None,
) -> Submitted:
    """Validate everything, then write `repo/submissions/<benchmark>/<slug>/`."""
    if benchmark not in registry.names():
        raise MathJudgeError(
            f"unknown benchmark {benchmark!r}; known: {', '.join(registry.names())}"
        )
    if not repo.is_dir():
        raise MathJudgeError(f"{repo}: no such folder (the leaderboard repository to write into)")
    if runs_agg not in RUNS_AGG:
        raise MathJudgeError(f"--runs-agg {runs_agg!r}: use one of {', '.join(RUNS_AGG)}")
    meta = read_meta(meta_path)
    slug = slug or slug_of(meta.judge)
    if not SLUG.fullmatch(slug):
        raise MathJudgeError(f"--slug {slug!r}: use lower-case letters, digits, '.', '_', '-'")
    not_a_papers_name(benchmark, meta.judge, str(meta_path))
    owners = claimed(repo, benchmark)
    for key, identity in sorted(identities(benchmark, meta).items()):
        owner, judge = owners.get(key, (slug, meta.judge))
        if owner != slug:
            raise MathJudgeError(
                f"{shown(repo / SUBMISSIONS / benchmark / owner)} holds the judge "
                f"{names.shown(judge)} already ({same_judge(judge, meta.judge, identity)}). "
                "A judge belongs to one "
                f"submission folder; submit a new version of it with --slug {owner}, or give "
                "this judge a name of its own, which does not look like one on the board"
            )
    checked = validate_file(benchmark, file, datasets_dir, allow_partial=allow_partial)
    details = details if details is not None else details_beside(file)
    rows = read_details(details, _item_ids(checked.table)) if details is not None else []
    meta_text = meta_yaml(meta)
    predictions = f"predictions{FORMATS_SUFFIX[FORMATS[file.suffix.lower()]]}"
    files = {predictions: checked.sha256, META: _text_sha(meta_text)}
    if details is not None:
        files[DETAILS] = sha256(details)
    options = {"allow_partial": allow_partial, "runs_agg": runs_agg}
    target = repo / SUBMISSIONS / benchmark / slug
    record: dict[str, Any] = {
        "benchmark": benchmark,
        "slug": slug,
        "version": 1,
        "submitted": now or datetime.now(UTC).isoformat(timespec="seconds"),
        "files": files,
        "options": options,
        "history": [],
    }
    status = "new"
    if target.exists():
        old = read_folder(repo, benchmark, slug).record
        if old.files == files and old.options.model_dump() == options:
            return _done(target, "unchanged", old.version, checked, len(rows), meta)
        earlier = old.model_dump(include={"version", "submitted", "files", "options"})
        record["version"] = old.version + 1
        record["history"] = [*(h.model_dump() for h in old.history), earlier]
        status = "new version"
    FolderRecord.model_validate(record)  # what check will read back; a bug if refused
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_dir(target) as tmp:  # the old version stays until the new one is complete
        for source, name in ((file, predictions), (details, DETAILS)):
            if source is not None:
                shutil.copyfile(source, tmp / name)
                if sha256(tmp / name) != files[name]:
                    raise MathJudgeError(f"{source}: changed while being submitted; try again")
        (tmp / META).write_text(meta_text, encoding="utf-8")
        text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
        (tmp / RECORD).write_text(text, encoding="utf-8")
    return _done(target, status, record["version"], checked, len(rows), meta)


# The file name extension each format is written under.
FORMATS_SUFFIX = {"jsonl": ".jsonl", "csv": ".csv", "parquet": ".parquet"}


def _item_ids(table: Any) -> set[str]:
    return set(table.column("item_id").to_pylist())


def _text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _done(
    target: Path, status: str, version: int, checked: Any, details: int, meta: SubmissionMeta
) -> Submitted:
    return Submitted(
        folder=target,
        status=status,
        version=int(version),
        n_items=checked.n_items,
        n_expected=checked.n_expected,
        fields=tuple(checked.fields),
        details=details,
        placeholders=placeholders(meta),
    )
