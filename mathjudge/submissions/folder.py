"""A submission folder, `submissions/<benchmark>/<slug>/`, and how it is read.

    predictions.(jsonl|csv|parquet)  the judge's predictions
    meta.yaml                        `SubmissionMeta`
    details.jsonl                    optional: the judge's own account of each item
    submission.json                  written by `mathjudge submit`: version, time, options, and
                                     the sha256 of every file (earlier versions' in `history`)

Everything is checked when read: unknown benchmarks, missing or extra files, files whose
checksum no longer matches `submission.json` (edited by hand), a meta that breaks its schema.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from mathjudge import registry, sidefiles
from mathjudge.errors import MathJudgeError
from mathjudge.spec.submission import SubmissionMeta

SUBMISSIONS = "submissions"
PREDICTIONS = ("predictions.jsonl", "predictions.csv", "predictions.parquet")
META = "meta.yaml"
DETAILS = "details.jsonl"
RECORD = "submission.json"
SLUG = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
RUNS_AGG = ("mean", "median", "majority")


def slug_of(judge: str) -> str:
    """A folder name from a judge name: lower-case letters, digits, '.', '_' and '-'."""
    slug = re.sub(r"[^a-z0-9._]+", "-", judge.casefold()).strip("-._")[:64].strip("-._")
    return slug or "judge"


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_meta(path: Path) -> SubmissionMeta:
    """`meta.yaml` (at most 1 MiB), every problem named by its field."""
    text = sidefiles.read_text(path, sidefiles.META_MAX_BYTES, "meta file")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise MathJudgeError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise MathJudgeError(f"{path}: the meta must be a mapping of fields (see the Submit page)")
    try:
        return SubmissionMeta.model_validate(data)
    except ValidationError as exc:
        problems = "\n".join(
            f"  {path} [{'.'.join(map(str, e['loc'])) or 'meta'}]: {_message(e)}"
            for e in exc.errors()
        )
        raise MathJudgeError(f"{path}: the meta breaks its schema:\n{problems}") from None
    except MathJudgeError as exc:
        raise MathJudgeError(f"{path}: {exc}") from None


def _message(error: ErrorDetails) -> str:
    if error["type"] == "missing":
        return "missing (a required field)"
    if error["type"] == "extra_forbidden":
        return "not a field of the meta (see the Submit page for the fields)"
    return str(error["msg"]).removeprefix("Value error, ")


def meta_yaml(meta: SubmissionMeta) -> str:
    """The canonical text of a meta: fields in schema order, absent ones left out."""
    return yaml.safe_dump(meta.stored(), sort_keys=False, allow_unicode=True)


@dataclass(frozen=True)
class Folder:
    """One submission folder of a repository, checked."""

    benchmark: str
    slug: str
    path: Path
    predictions: Path
    meta: SubmissionMeta
    details: Path | None
    record: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.benchmark}/{self.slug}"

    @property
    def submitted(self) -> str:
        return str(self.record["submitted"])

    def key(self, dataset_hash: str) -> str:
        """Names what would be scored: the files (by checksum), the options and the dataset."""
        basis = json.dumps(
            [self.record["files"], self.record.get("options", {}), dataset_hash], sort_keys=True
        )
        return hashlib.sha256(basis.encode()).hexdigest()


def read_folder(path: Path, benchmark: str) -> Folder:
    if benchmark not in registry.names():
        known = ", ".join(registry.names())
        raise MathJudgeError(f"{path.parent}: {benchmark!r} is not a benchmark (known: {known})")
    if not SLUG.fullmatch(path.name):
        raise MathJudgeError(
            f"{path}: a submission folder name uses lower-case letters, digits, '.', '_' and "
            "'-' (at most 64)"
        )
    record_path = path / RECORD
    if not record_path.is_file():
        raise MathJudgeError(
            f"{path}: no {RECORD}; write submission folders with `mathjudge submit`"
        )
    record = _record(record_path)
    files = record.get("files")
    if not isinstance(files, dict) or not files:
        raise MathJudgeError(f"{record_path}: no files listed")
    present = {p.name for p in path.iterdir()} - {RECORD}
    if present != set(files):
        extra, missing = sorted(present - set(files)), sorted(set(files) - present)
        raise MathJudgeError(
            f"{path}: the files differ from {RECORD}"
            + (f"; not listed: {', '.join(extra)}" if extra else "")
            + (f"; missing: {', '.join(missing)}" if missing else "")
        )
    for name, digest in files.items():
        if not (path / name).is_file() or sha256(path / name) != digest:
            raise MathJudgeError(
                f"{path / name}: its sha256 differs from {RECORD}; change a submission with "
                "`mathjudge submit` (which records a new version), not by hand"
            )
    predictions = [path / n for n in PREDICTIONS if n in files]
    if len(predictions) != 1 or META not in files or set(files) - {*PREDICTIONS, META, DETAILS}:
        raise MathJudgeError(
            f"{path}: a submission holds one predictions file ({', '.join(PREDICTIONS)}), "
            f"{META} and optionally {DETAILS}"
        )
    if record.get("benchmark") != benchmark or record.get("slug") != path.name:
        raise MathJudgeError(f"{record_path}: names another folder than the one it is in")
    return Folder(
        benchmark=benchmark,
        slug=path.name,
        path=path,
        predictions=predictions[0],
        meta=read_meta(path / META),
        details=path / DETAILS if DETAILS in files else None,
        record=record,
    )


def _record(path: Path) -> dict[str, Any]:
    data = sidefiles.read_json(path, sidefiles.META_MAX_BYTES, "submission record")
    if not isinstance(data, dict):
        raise MathJudgeError(f"{path}: not a submission record")
    try:
        dt.datetime.fromisoformat(str(data.get("submitted")))
    except ValueError:
        raise MathJudgeError(f"{path}: 'submitted' is not an ISO 8601 time") from None
    options = data.get("options", {})
    if not isinstance(options, dict) or options.get("runs_agg", "mean") not in RUNS_AGG:
        raise MathJudgeError(f"{path}: unusable options {options!r}")
    return data


def find_folders(repo: Path) -> list[Folder]:
    """Every submission folder of the repository at `repo`, in path order."""
    root = repo / SUBMISSIONS
    if not root.is_dir():
        raise MathJudgeError(f"{repo}: no {SUBMISSIONS}/ folder; is this a leaderboard repository?")
    out = []
    for bench in sorted(p for p in root.iterdir() if not p.name.startswith(".")):
        if not bench.is_dir():
            raise MathJudgeError(f"{bench}: {SUBMISSIONS}/ holds one folder per benchmark only")
        if bench.name not in registry.names():
            known = ", ".join(registry.names())
            raise MathJudgeError(f"{bench}: {bench.name!r} is not a benchmark (known: {known})")
        for folder in sorted(p for p in bench.iterdir() if not p.name.startswith(".")):
            if not folder.is_dir():
                raise MathJudgeError(f"{folder}: a benchmark folder holds submission folders only")
            out.append(read_folder(folder, bench.name))
    return out
