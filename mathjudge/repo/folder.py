"""A submission folder, `submissions/<benchmark>/<slug>/`, and how it is read.

    predictions.(jsonl|csv|parquet)  the judge's predictions
    meta.yaml                        `SubmissionMeta`
    details.jsonl                    optional: the judge's own account of each item
    submission.json                  `FolderRecord`, written by `mathjudge submit`: version,
                                     time, options, and the sha256 of every file (earlier
                                     versions' in `history`)

Everything in a folder comes from a stranger's pull request and is read as hostile (see
`confined`): no symbolic link anywhere, regular files only, each file's type and size checked
before a byte of it is read, its bytes read once and hashed, and what is parsed (or scored) is
those bytes. A folder is refused for an unknown benchmark, missing or extra files, a file whose
checksum no longer matches `submission.json` (edited by hand), or a meta or record that breaks
its schema. A judge belongs to one folder: two folders of a benchmark claiming one judge (or
one model variant of the alias table) are refused, naming both; names are compared by
`base.names.identity` (case, spacing, punctuation and look-alike characters set aside: a
Cyrillic о passes for an o), and a name that is a paper's row of the alias table, written
another way, is refused unless the table declares the folder's judge that row's reproduction.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from mathjudge import registry
from mathjudge.base import names, safejson, safeyaml, sidefiles
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.escaping import listed, printable
from mathjudge.repo import confined
from mathjudge.repo.confined import shown
from mathjudge.repo.details import MAX_BYTES as DETAILS_MAX_BYTES
from mathjudge.repo.schemamessages import guide, schema_problems
from mathjudge.spec.folder import FileName, FolderRecord, SubmissionMeta
from mathjudge.validate.predictions import max_bytes

SUBMISSIONS = "submissions"
PREDICTIONS = ("predictions.jsonl", "predictions.csv", "predictions.parquet")
META: FileName = "meta.yaml"
DETAILS: FileName = "details.jsonl"
RECORD = "submission.json"
SLUG = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
RUNS_AGG = ("mean", "median", "majority")
M = TypeVar("M", bound=BaseModel)
# What each file may weigh (read before anything else is), and what it is called in messages.
LIMITS: dict[str, tuple[Callable[[], int], str]] = {
    **{name: (max_bytes, "predictions file") for name in PREDICTIONS},
    META: (lambda: sidefiles.META_MAX_BYTES, "meta file"),
    DETAILS: (lambda: DETAILS_MAX_BYTES, "details file"),
    RECORD: (lambda: sidefiles.META_MAX_BYTES, "submission record"),
}


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


def _text(data: bytes, where: str, what: str) -> str:
    try:
        return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise MathJudgeError(
            f"{where}:{line}: the {what} is not UTF-8 text ({exc.reason})"
        ) from None


def parse_meta(data: bytes, where: str) -> SubmissionMeta:
    """A meta from the bytes of a `meta.yaml` (see `safeyaml`); every problem located by the
    line or the field. A copy of the meta parsed before from the same bytes: a process that
    submits many folders (the demo) reads each benchmark's metas again for every submission,
    and PyYAML's pure-Python loader takes milliseconds a file. Only metas of ordinary size are
    remembered (at most `_REMEMBERED` of `_REMEMBERED_BYTES` each), so a repository of large
    metas cannot fill the memory."""
    if len(data) > _REMEMBERED_BYTES:
        return _parsed_meta.__wrapped__(data, where)
    return _parsed_meta(data, where).model_copy(deep=True)


_REMEMBERED, _REMEMBERED_BYTES = 1024, 16 * 1024


@functools.lru_cache(maxsize=_REMEMBERED)
def _parsed_meta(data: bytes, where: str) -> SubmissionMeta:
    text = _text(data, where, "meta file")
    loaded = safeyaml.load(text, where)
    if not isinstance(loaded, dict):
        raise MathJudgeError(
            f"{where}: the meta must be a mapping of fields, as meta.example.yaml is (the "
            f"fields: {guide()})"
        )
    return _validated(SubmissionMeta, loaded, where, "the meta", text)


def _validated(
    model: type[M], data: dict[str, Any], where: str, what: str, text: str | None = None
) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise MathJudgeError(
            f"{where}: {what} breaks its schema (the fields: {guide()}):\n"
            f"{schema_problems(where, exc, model, what, text)}"
        ) from None
    except MathJudgeError as exc:
        raise MathJudgeError(f"{where}: {exc}") from None


def read_meta(path: Path) -> SubmissionMeta:
    """`meta.yaml` (at most 1 MiB), every problem named by its line or field."""
    data = sidefiles.read_bytes(path, sidefiles.META_MAX_BYTES, "meta file")
    return parse_meta(data, shown(path))


def parse_record(data: bytes, where: str) -> FolderRecord:
    try:
        loaded = safejson.loads(data.removeprefix(b"\xef\xbb\xbf"))
    except safejson.JsonProblem as exc:
        line = f":{exc.line}" if exc.line else ""
        field = f" [{printable(exc.field)}]" if exc.field else ""
        raise MathJudgeError(f"{where}{line}{field}: {exc.message}") from None
    if not isinstance(loaded, dict):
        raise MathJudgeError(f"{where}: not a submission record (a JSON object)")
    return _validated(FolderRecord, loaded, where, "the submission record")


def meta_yaml(meta: SubmissionMeta) -> str:
    """The canonical text of a meta: fields in schema order, absent ones left out."""
    import yaml

    return yaml.safe_dump(meta.stored(), sort_keys=False, allow_unicode=True)


@dataclass(frozen=True)
class Folder:
    """One submission folder of a repository, checked."""

    repo: Path
    benchmark: str
    slug: str
    record: FolderRecord
    meta: SubmissionMeta

    @property
    def name(self) -> str:
        return f"{self.benchmark}/{self.slug}"

    @property
    def path(self) -> Path:
        return self.repo / SUBMISSIONS / self.benchmark / self.slug

    @property
    def predictions_name(self) -> FileName:
        return next(n for n in self.record.files if n in PREDICTIONS)

    @property
    def predictions(self) -> Path:
        return self.path / self.predictions_name

    @property
    def details(self) -> Path | None:
        return self.path / DETAILS if DETAILS in self.record.files else None

    @property
    def submitted(self) -> str:
        return self.record.submitted

    def key(self, dataset_hash: str) -> str:
        """Names what would be scored: the files (by checksum), the options and the dataset."""
        basis = json.dumps(
            [self.record.files, self.record.options.model_dump(), dataset_hash], sort_keys=True
        )
        return hashlib.sha256(basis.encode()).hexdigest()

    def read(self, name: FileName) -> bytes:
        """The bytes of one of this folder's files, read once (confined, type and size checked
        first) and checked against the sha256 its record states: what the caller parses is
        exactly what was hashed, even if the file changes meanwhile."""
        with confined.folder(self.repo, SUBMISSIONS, self.benchmark, self.slug) as fd:
            return _checked_read(fd, self.path, name, self.record.files[name])


def _checked_read(fd: int, folder: Path, name: str, digest: str) -> bytes:
    limit, what = LIMITS[name]
    data = confined.read_file(fd, name, folder / name, limit(), what)
    if hashlib.sha256(data).hexdigest() != digest:
        raise MathJudgeError(
            f"{shown(folder / name)}: its sha256 differs from {RECORD}; change a submission "
            "with `mathjudge submit` (which records a new version), not by hand"
        )
    return data


def _benchmark(name: str, where: Path) -> None:
    if name not in registry.names():
        known = ", ".join(registry.names())
        raise MathJudgeError(
            f"{shown(where)}: {printable(repr(name))} is not a benchmark (known: {known})"
        )


def read_folder(repo: Path, benchmark: str, slug: str) -> Folder:
    """The folder `repo/submissions/<benchmark>/<slug>`, every file read and checked."""
    path = repo / SUBMISSIONS / benchmark / slug
    _benchmark(benchmark, path.parent)
    if not SLUG.fullmatch(slug):
        raise MathJudgeError(
            f"{shown(path)}: a submission folder name uses lower-case letters, digits, '.', '_' "
            "and '-' (at most 64)"
        )
    with confined.folder(repo, SUBMISSIONS, benchmark, slug) as fd:
        present = {}
        for name, kind in confined.entries(fd):
            if kind == "link":
                raise MathJudgeError(f"{shown(path / name)}: a symbolic link; {confined.NO_LINKS}")
            if kind != "file":
                raise MathJudgeError(
                    f"{shown(path / name)}: a submission folder holds regular files only"
                )
            present[name] = kind
        if RECORD not in present:
            raise MathJudgeError(
                f"{shown(path)}: no {RECORD}; write submission folders with `mathjudge submit`"
            )
        limit, what = LIMITS[RECORD]
        record_path = path / RECORD
        record = parse_record(
            confined.read_file(fd, RECORD, record_path, limit(), what), shown(record_path)
        )
        recorded = set(record.files)
        if set(present) - {RECORD} != recorded:
            extra = sorted(set(present) - {RECORD} - recorded)
            missing = sorted(recorded - set(present))
            raise MathJudgeError(
                f"{shown(path)}: the files differ from {RECORD}"
                + (f"; not listed: {listed(extra)}" if extra else "")
                + (f"; missing: {listed(missing)}" if missing else "")
            )
        if sum(n in recorded for n in PREDICTIONS) != 1 or META not in recorded:
            raise MathJudgeError(
                f"{shown(path)}: a submission holds one predictions file "
                f"({', '.join(PREDICTIONS)}), {META} and optionally {DETAILS}"
            )
        if record.benchmark != benchmark or record.slug != slug:
            raise MathJudgeError(
                f"{shown(record_path)}: names another folder than the one it is in"
            )
        meta = None
        for name in sorted(recorded):  # every file hashed; only the meta is kept, parsed
            data = _checked_read(fd, path, name, record.files[name])
            if name == META:
                meta = parse_meta(data, shown(path / META))
    assert meta is not None
    return Folder(repo=repo, benchmark=benchmark, slug=slug, record=record, meta=meta)


def subfolders(repo: Path, *names: str) -> list[str]:
    """The visible subfolder names of `repo/names...` (names starting with '.' are not part of
    the repository's submissions); a link or a file among them is refused."""
    out = []
    with confined.folder(repo, *names) as fd:
        for name, kind in confined.entries(fd):
            if name.startswith("."):
                continue
            where = repo.joinpath(*names, name)
            if kind == "link":
                raise MathJudgeError(f"{shown(where)}: a symbolic link; {confined.NO_LINKS}")
            if kind != "folder":
                inside = "submission folders" if len(names) > 1 else "one folder per benchmark"
                raise MathJudgeError(f"{shown(where)}: {'/'.join(names)}/ holds {inside} only")
            out.append(name)
    return out


def find_folders(repo: Path) -> list[Folder]:
    """Every submission folder of the repository at `repo`, in path order, each checked, and
    no judge claimed by two folders of one benchmark."""
    if not (repo / SUBMISSIONS).is_dir() and not (repo / SUBMISSIONS).is_symlink():
        raise MathJudgeError(
            f"{shown(repo)}: no {SUBMISSIONS}/ folder; is this a leaderboard repository?"
        )
    out = []
    for bench in subfolders(repo, SUBMISSIONS):
        _benchmark(bench, repo / SUBMISSIONS / bench)
        out += [read_folder(repo, bench, slug) for slug in subfolders(repo, SUBMISSIONS, bench)]
    one_folder_per_judge(out)
    for folder in out:
        not_a_papers_name(folder.benchmark, folder.meta.judge, folder.name)
    return out


def not_a_papers_name(benchmark: str, judge: str, where: str) -> None:
    """Refuse a judge named as a paper's row of the alias table (case, spacing or punctuation
    aside) that the table does not declare this judge's pair: the board would show the two as
    rows no reader can tell apart, and the site build refuses that."""
    from mathjudge.document.aliases import table

    paper = table().paper_row_named(benchmark, judge)
    if paper is not None:
        raise MathJudgeError(
            f"{where}: the judge {printable(repr(judge))} is the paper's {printable(repr(paper))} "
            f"on {benchmark}, written another way: a submission cannot take the name of a "
            "paper's result. Give it a name of its own (e.g. with its configuration); if it is "
            "that paper's judge configuration, the maintainers declare the pair in "
            f"mathjudge/benchmarks/{benchmark}/aliases.yaml"
        )


def identities(benchmark: str, meta: SubmissionMeta) -> dict[str, str]:
    """What makes two submissions of a benchmark the same judge on the leaderboard, each as a
    key and as said in a message: the judge name's `names.identity` and, where the alias table
    maps it, the model variant it is shown as."""
    from mathjudge.document.aliases import table

    out = {f"judge {names.identity(meta.judge)}": f"judge {_normalised(meta.judge)}"}
    found = table().model_of(benchmark, "reproduced", meta.judge, meta.stored())
    if found is not None:
        model, variant = found[0].id, found[1]
        key = f"model {model}, variant {names.identity(variant)}"
        out[key] = f"model {model}, variant {_normalised(variant)}"
    return out


def _normalised(text: str) -> str:
    return printable(" ".join(unicodedata.normalize("NFKC", text).casefold().split()))


def one_folder_per_judge(folders: list[Folder]) -> None:
    """Refuse two folders of one benchmark claiming the same judge: the later one would hide
    the other's result under its name. A new version goes through the judge's own folder."""
    owner: dict[tuple[str, str], Folder] = {}
    for folder in folders:
        for key, identity in sorted(identities(folder.benchmark, folder.meta).items()):
            first = owner.setdefault((folder.benchmark, key), folder)
            if first is not folder:
                raise MathJudgeError(
                    f"{first.name} and {folder.name} both claim the judge "
                    f"{names.shown(first.meta.judge)} "
                    f"({same_judge(first.meta.judge, folder.meta.judge, identity)}): a judge "
                    "belongs to one submission folder. A new version of a submission goes "
                    "through its own folder (`mathjudge submit ... --slug SLUG`); another judge "
                    "needs a name of its own, which does not look like one on the board"
                )


def same_judge(first: str, second: str, identity: str) -> str:
    """Why `second` is the judge `first` names, each name shown with its misleading characters
    escaped (`names.shown`), so the two never print alike."""
    if first == second:
        return identity
    if identity.startswith("judge "):
        return f"{names.shown(second)} reads as the same name on a page"
    return f"{names.shown(second)} is shown as the same: {identity}"


def claimed(repo: Path, benchmark: str) -> dict[str, tuple[str, str]]:
    """identity key -> (folder slug, judge name), for the folders of `benchmark` in `repo` whose
    meta can be read (what `mathjudge submit` checks a new folder against)."""
    out: dict[str, tuple[str, str]] = {}
    if not (repo / SUBMISSIONS / benchmark).is_dir():
        return out
    for slug in subfolders(repo, SUBMISSIONS, benchmark):
        try:
            with confined.folder(repo, SUBMISSIONS, benchmark, slug) as fd:
                limit, what = LIMITS[META]
                path = repo / SUBMISSIONS / benchmark / slug / META
                meta = parse_meta(confined.read_file(fd, META, path, limit(), what), shown(path))
        except MathJudgeError:
            continue
        for key in identities(benchmark, meta):
            out.setdefault(key, (slug, meta.judge))
    return out
