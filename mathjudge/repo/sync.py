"""`mathjudge repo sync` and `check`: a leaderboard repository into the results store.

Sync scores only the submission folders that are new or changed (keyed by the checksums of their
files, their options and the content hash of the dataset they are scored on), removes the
results of folders that are gone, and keeps every built dataset's facts, so the store (and the
site rendered from it) is a function of the repository and the datasets alone: a result's time
is the folder's submission time, not the time it was scored. A second sync with nothing changed
scores nothing. The whole repository is checked before anything is scored, and each folder's
result is committed (with its details and the folder's key) as soon as it is scored, so a sync
that is killed or fails at one folder keeps the others and the next one resumes there.

What is scored is what was hashed: each file is read once into memory (see `Folder.read`),
checked against the sha256 its record states, and parsed from those bytes. The gold labels
never come from the repository: a datasets folder inside `submissions/` is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mathjudge import registry, store
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import listed
from mathjudge.base.names import printed
from mathjudge.dataio.reader import open_dataset
from mathjudge.document.reported import import_reported
from mathjudge.repo.confined import shown
from mathjudge.repo.details import parse_details
from mathjudge.repo.folder import (
    DETAILS,
    SUBMISSIONS,
    Folder,
    find_folders,
    subfolders,
)
from mathjudge.repo.pathlist import named_folders
from mathjudge.scoring.evaluator import dataset_snapshot, evaluate_file
from mathjudge.spec.results import Evaluation
from mathjudge.store import read


@dataclass
class SyncReport:
    evaluated: list[str] = field(default_factory=list)  # folder names (<benchmark>/<slug>)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    reported: int = 0


def _dataset_hashes(folders: list[Folder], datasets_dir: Path) -> dict[str, str]:
    out = {}
    for name in sorted({f.benchmark for f in folders}):
        spec = registry.get(name)
        out[name] = open_dataset(spec.dataset, datasets_dir).content_hash
    return out


def score_folder(
    folder: Folder, datasets_dir: Path, *, n_boot: int, on_progress: Callable[[int], None] | None
) -> tuple[Evaluation, list[dict[str, Any]]]:
    """The folder scored as `mathjudge evaluate` would, from the bytes its record hashes,
    dated by its submission time."""
    options = folder.record.options
    result = evaluate_file(
        folder.benchmark,
        folder.predictions,
        folder.meta.judge,
        datasets_dir=datasets_dir,
        allow_partial=options.allow_partial,
        runs_agg=options.runs_agg,
        n_boot=n_boot,
        meta=folder.meta.stored(),
        on_progress=on_progress,
        content=folder.read(folder.predictions_name),
    )
    details = []
    if folder.details is not None:
        assert result.predictions is not None
        ids = set(result.predictions.column("item_id").to_pylist())
        details = parse_details(folder.read(DETAILS), shown(folder.details), ids)
    return replace(result, created=folder.submitted), details


def gold_outside(repo: Path, datasets_dir: Path) -> None:
    """Refuse a datasets folder inside the repository's `submissions/`: the gold labels a
    submission is scored against must never be what a pull request supplies."""
    if datasets_dir.resolve().is_relative_to((repo / SUBMISSIONS).resolve()):
        raise MathJudgeError(
            f"--datasets {shown(datasets_dir)}: lies inside {shown(repo / SUBMISSIONS)}, which a "
            "pull request writes; the datasets submissions are scored on must be built outside "
            "it (`mathjudge build BENCH --out DIR`)"
        )


def sync(
    repo: Path,
    results: Path,
    datasets_dir: Path,
    *,
    n_boot: int = 1000,
    reported: Path | None = None,
    say: Callable[[str], None] = lambda _: None,
    progress: Callable[[str, int], Any] | None = None,
) -> SyncReport:
    """Bring the store at `results` in line with the repository at `repo` (see the module
    note); `reported` also imports the papers' tables (`mathjudge reported import`)."""
    gold_outside(repo, datasets_dir)
    folders = find_folders(repo)
    hashes = _dataset_hashes(folders, datasets_dir)
    known: dict[str, tuple[str, str]] = {}
    stored: set[str] = set()
    if results.is_file():
        with read.reading(results) as con:
            known = read.synced(con)
            stored = read.submission_ids(con)
    report = SyncReport()
    names = {f.name for f in folders}
    report.removed = sorted(p for p in known if p not in names)
    if report.removed:
        store.record_synced(results, {}, report.removed)
    for folder in folders:
        key = folder.key(hashes[folder.benchmark])
        before = known.get(folder.name)
        if before is not None and before[0] == key and before[1] in stored:
            report.unchanged.append(folder.name)
            continue
        say(f"scoring {folder.name} ({printed(folder.meta.judge)})")
        if progress is not None:
            with progress(f"bootstrap {folder.name}", n_boot) as advance:
                result, details = score_folder(
                    folder, datasets_dir, n_boot=n_boot, on_progress=advance
                )
        else:
            result, details = score_folder(folder, datasets_dir, n_boot=n_boot, on_progress=None)
        store.save_synced(results, folder.name, key, result, details)
        report.evaluated.append(folder.name)
    report.datasets = _keep_datasets(results, datasets_dir)
    if reported is not None:
        report.reported = import_reported(reported, results)
    return report


def _keep_datasets(results: Path, datasets_dir: Path) -> list[str]:
    """Every registered dataset built in `datasets_dir` gets its page on the site, scored or
    not (as in the demo)."""
    built = []
    for name in registry.dataset_names():
        try:
            built.append(dataset_snapshot(name, datasets_dir))
        except MathJudgeError:
            continue
    if built:
        store.save_datasets(results, built)
    return [d.name for d in built]


def check(
    repo: Path, datasets_dir: Path, only: list[str] | None = None, *, n_boot: int = 1000
) -> list[tuple[Folder, Evaluation]]:
    """Validate the whole repository, then score the folders named in `only` (paths under
    `submissions/`, as a pull request lists the files it changes; None: every folder; a
    path of a folder the pull request removes names nothing to score). Nothing is written."""
    gold_outside(repo, datasets_dir)
    picked = set(named_folders(only)) if only is not None else None
    folders = find_folders(repo)
    if picked is not None:
        folders = [f for f in folders if (f.benchmark, f.slug) in picked
                   or (f.benchmark, None) in picked]  # fmt: skip
    return [(f, score_folder(f, datasets_dir, n_boot=n_boot, on_progress=None)[0]) for f in folders]


def needed_datasets(repo: Path, only: list[str] | None = None) -> list[str]:
    """The built datasets the repository's submissions (or those `only` names) are scored on,
    for `mathjudge build`. Reads the folder names only, so it works before anything is built."""
    if only is not None:
        names = {bench for bench, _ in named_folders(only)}
    elif (repo / SUBMISSIONS).exists() or (repo / SUBMISSIONS).is_symlink():
        names = set(subfolders(repo, SUBMISSIONS))
        unknown = sorted(names - set(registry.names()))
        if unknown:
            raise MathJudgeError(f"{shown(repo / SUBMISSIONS)}: not benchmarks: {listed(unknown)}")
    else:
        names = set()
    return sorted({registry.get(n).dataset for n in names})
