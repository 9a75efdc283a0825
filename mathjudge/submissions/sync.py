"""`mathjudge leaderboard sync` and `check`: a leaderboard repository into the results store.

Sync scores only the submission folders that are new or changed (keyed by the checksums of their
files, their options and the content hash of the dataset they are scored on), removes the
results of folders that are gone, and keeps every built dataset's facts, so the store (and the
site rendered from it) is a function of the repository and the datasets alone: a result's time
is the folder's submission time, not the time it was scored. A second sync with nothing changed
scores nothing. Every changed folder is scored before anything is written, so a broken one
leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from mathjudge import registry, store
from mathjudge.dataio.reader import open_dataset
from mathjudge.errors import MathJudgeError
from mathjudge.publish.reported import import_reported
from mathjudge.scoring.evaluator import dataset_snapshot, evaluate_file
from mathjudge.spec.results import EvaluationResult
from mathjudge.store import read
from mathjudge.submissions.details import read_details
from mathjudge.submissions.folder import Folder, find_folders


@dataclass
class SyncReport:
    evaluated: list[str] = field(default_factory=list)  # folder names (<benchmark>/<slug>)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    datasets: list[str] = field(default_factory=list)
    reported: int = 0


@dataclass(frozen=True)
class Scored:
    folder: Folder
    key: str
    result: EvaluationResult
    details: list[dict[str, Any]]


def _dataset_hashes(folders: list[Folder], datasets_dir: Path) -> dict[str, str]:
    out = {}
    for name in sorted({f.benchmark for f in folders}):
        spec = registry.get(name)
        out[name] = open_dataset(spec.dataset, datasets_dir).content_hash
    return out


def score_folder(
    folder: Folder, datasets_dir: Path, *, n_boot: int, on_progress: Callable[[int], None] | None
) -> tuple[EvaluationResult, list[dict[str, Any]]]:
    """The folder scored as `mathjudge evaluate` would, dated by its submission time."""
    options = folder.record.get("options", {})
    result = evaluate_file(
        folder.benchmark,
        folder.predictions,
        folder.meta.judge,
        datasets_dir=datasets_dir,
        allow_partial=bool(options.get("allow_partial", False)),
        runs_agg=options.get("runs_agg", "mean"),
        n_boot=n_boot,
        meta=folder.meta.stored(),
        on_progress=on_progress,
    )
    details = []
    if folder.details is not None:
        assert result.predictions is not None
        ids = set(result.predictions.column("item_id").to_pylist())
        details = read_details(folder.details, ids)
    return replace(result, created=folder.submitted), details


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
    folders = find_folders(repo)
    hashes = _dataset_hashes(folders, datasets_dir)
    known: dict[str, tuple[str, str]] = {}
    stored: set[str] = set()
    if results.is_file():
        with read.reading(results) as con:
            known = read.synced(con)
            stored = read.submission_ids(con)
    report = SyncReport()
    todo = []
    for folder in folders:
        key = folder.key(hashes[folder.benchmark])
        before = known.get(folder.name)
        if before is not None and before[0] == key and before[1] in stored:
            report.unchanged.append(folder.name)
        else:
            todo.append((folder, key))
    scored = []
    for folder, key in todo:
        say(f"scoring {folder.name} ({folder.meta.judge})")
        if progress is not None:
            with progress(f"bootstrap {folder.name}", n_boot) as advance:
                result, details = score_folder(
                    folder, datasets_dir, n_boot=n_boot, on_progress=advance
                )
        else:
            result, details = score_folder(folder, datasets_dir, n_boot=n_boot, on_progress=None)
        scored.append(Scored(folder, key, result, details))
    names = {f.name for f in folders}
    report.removed = sorted(p for p in known if p not in names)
    ids = store.save_many(results, [s.result for s in scored]) if scored else []
    for s, sid in zip(scored, ids, strict=True):
        if s.details:
            store.save_details(results, sid, s.details)
    store.record_synced(
        results,
        {s.folder.name: (s.key, sid) for s, sid in zip(scored, ids, strict=True)},
        report.removed,
    )
    report.evaluated = [s.folder.name for s in scored]
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
) -> list[tuple[Folder, EvaluationResult]]:
    """Validate the whole repository, then score the folders named in `only` (paths of files
    or folders inside `submissions/`, as a pull request lists them; None: every folder).
    Nothing is written."""
    folders = find_folders(repo)
    if only is not None:  # a folder the pull request removes has nothing to score
        picked = {_folder_name(p) for p in only}
        folders = [f for f in folders if f.name in picked]
    return [(f, score_folder(f, datasets_dir, n_boot=n_boot, on_progress=None)[0]) for f in folders]


def needed_datasets(repo: Path, only: list[str] | None = None) -> list[str]:
    """The built datasets the repository's submissions (or those `only` names) are scored on,
    for `mathjudge build`. Reads the folder names only, so it works before anything is built."""
    root = repo / "submissions"
    names = set()
    if only is not None:
        names = {n.split("/")[0] for n in (_folder_name(p) for p in only) if n}
    elif root.is_dir():
        names = {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")}
    unknown = sorted(names - set(registry.names()))
    if unknown:
        raise MathJudgeError(f"{root}: not benchmarks: {', '.join(unknown)}")
    return sorted({registry.get(n).dataset for n in names})


def _folder_name(path: str) -> str | None:
    """`submissions/<benchmark>/<slug>[/file]` -> `<benchmark>/<slug>` (None: not inside)."""
    parts = Path(path).parts
    if len(parts) >= 3 and parts[0] == "submissions":
        return f"{parts[1]}/{parts[2]}"
    return None
