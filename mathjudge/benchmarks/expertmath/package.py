"""Reading and strictly validating an ExpertMath-style problem package (docs/expertmath-package.md).

A package is written by hand, so every mistake an author can make is reported at once, each with
the file, the line and the field, and nothing is built from a package that has any: a ranking
benchmark silently missing a label or a variant answer would score judges on the wrong thing.

Layout:
    <package>/package.yaml                    name, version, license, title, description
    <package>/<original_id>/problem.yaml      statement, answer, solution, variants (list)
    <package>/<original_id>/candidates/*.md   YAML front matter (problem, source, correct,
                                              notes) + the candidate solution as the body
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mathjudge.base import safeyaml, sidefiles
from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
HUMAN = "human"
PACKAGE_FILE = "package.yaml"
PROBLEM_FILE = "problem.yaml"
CANDIDATES_DIR = "candidates"
PACKAGE_KEYS = {
    "name": True,
    "version": True,
    "license": True,
    "title": False,
    "description": False,
}
PROBLEM_KEYS = {
    "statement": True,
    "answer": True,
    "solution": True,
    "title": False,
    "notes": False,
    "variants": False,
}
VARIANT_KEYS = {"id": True, "statement": True, "answer": True, "solution": True, "notes": False}
CANDIDATE_KEYS = {"source": True, "correct": True, "problem": False, "notes": False}


@dataclass(frozen=True)
class Candidate:
    candidate_id: str
    problem_id: str
    source: str
    correct: bool
    solution: str
    notes: str | None
    path: Path

    @property
    def is_human(self) -> bool:
        return self.source == HUMAN


@dataclass(frozen=True)
class PackageProblem:
    """An original problem or one of its neighbourhood variants."""

    problem_id: str
    original_id: str
    is_variant: bool
    title: str | None
    statement: str
    answer: str
    solution: str
    notes: str | None
    candidates: tuple[Candidate, ...]  # in file-name order: the order ties are broken by


@dataclass(frozen=True)
class Package:
    folder: Path
    name: str
    version: str
    license: str
    title: str | None
    description: str | None
    problems: tuple[PackageProblem, ...]  # each original followed by its variants
    files: tuple[Path, ...]  # every file read, for the manifest's digests

    def variants_of(self, original_id: str) -> list[PackageProblem]:
        return [p for p in self.problems if p.is_variant and p.original_id == original_id]


class _Located(dict):
    """A YAML mapping that remembers the line it starts on."""

    line: int = 0


class _LineLoader(safeyaml.Loader):
    """The untrusted-YAML loader (`safeyaml`), with mappings that are `_Located`."""


def _located_mapping(loader: _LineLoader, node: yaml.MappingNode) -> _Located:
    mapping = _Located(loader.construct_mapping(node, deep=True))
    mapping.line = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _located_mapping)


INVALID = object()  # what `_load_yaml` returns for text that is not YAML (already reported)


def _read_text(path: Path, problems: list[Problem]) -> str | None:
    """A package file's text (a regular file of at most 1 MiB, UTF-8), or None after
    reporting why not."""
    try:
        return sidefiles.read_text(path, sidefiles.META_MAX_BYTES, "package file")
    except MathJudgeError as exc:
        problems.append(Problem(str(path), None, None, str(exc).removeprefix(f"{path}: ")))
        return None


def _load_yaml(text: str | None, path: Path, problems: list[Problem], line_offset: int = 0) -> Any:
    """The parsed document (an empty one is an empty mapping), or INVALID after reporting."""
    if text is None:
        return INVALID
    try:
        loaded = safeyaml.parse(text, _LineLoader)
    except safeyaml.YamlProblem as exc:
        line = exc.line + line_offset if exc.line is not None else None
        problems.append(Problem(str(path), line, None, f"not valid YAML ({exc.message})"))
        return INVALID
    return _Located() if loaded is None else loaded


def _line(mapping: Any, offset: int = 0) -> int | None:
    return mapping.line + offset if isinstance(mapping, _Located) else None


def _fields(
    mapping: Any,
    keys: dict[str, bool],
    path: Path,
    what: str,
    problems: list[Problem],
    offset: int = 0,
) -> dict[str, Any] | None:
    """The mapping's known keys, after checking that required ones hold non-empty text (or a
    list/bool where the caller expects it) and that no unknown key is present (a typo such as
    `anwser` must not pass as a missing optional field)."""
    if mapping is INVALID:
        return None
    if not isinstance(mapping, dict):
        problems.append(Problem(str(path), None, None, f"{what} must be a YAML mapping"))
        return None
    line = _line(mapping, offset)
    for key in sorted(set(mapping) - set(keys), key=str):
        problems.append(Problem(str(path), line, str(key), f"{what}: unknown field"))
    ok = True
    for key, required in keys.items():
        value = mapping.get(key)
        if value is None:
            if required:
                problems.append(Problem(str(path), line, key, f"{what}: missing"))
                ok = False
            continue
        if key in ("variants", "correct"):
            continue  # checked by the caller, which knows the type
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = mapping[key] = str(value)  # `answer: 12` is the text "12"
        if not isinstance(value, str) or not value.strip():
            problems.append(Problem(str(path), line, key, f"{what}: must be non-empty text"))
            ok = False
    return dict(mapping) if ok else None


def _check_id(value: str, path: Path, line: int | None, field: str, problems: list[Problem]):
    if not ID_PATTERN.fullmatch(value):
        problems.append(
            Problem(
                str(path),
                line,
                field,
                f"id {value!r} must start with a letter or digit and use only letters, digits, "
                "'.', '_' and '-'",
            )
        )


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _read_candidate(
    path: Path, problems: list[Problem]
) -> tuple[dict[str, Any], str, int | None] | None:
    """Front matter fields, body and the front matter's first line of one candidate file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(str(path), None, None, f"cannot read ({exc})"))
        return None
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        problems.append(Problem(str(path), 1, None, "must start with a '---' front matter line"))
        return None
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        problems.append(Problem(str(path), 1, None, "front matter is not closed by '---'"))
        return None
    front = _load_yaml("\n".join(lines[1:end]), path, problems, line_offset=1)
    fields = _fields(front, CANDIDATE_KEYS, path, "front matter", problems, offset=1)
    if fields is None:
        return None
    if not isinstance(fields["correct"], bool):
        problems.append(
            Problem(str(path), _line(front, 1), "correct", "front matter: must be true or false")
        )
        return None
    body = "\n".join(lines[end + 1 :]).strip()
    if not body:
        problems.append(Problem(str(path), end + 2, None, "the candidate solution is empty"))
        return None
    return fields, body, _line(front, 1)


def _read_original(
    folder: Path, problems: list[Problem]
) -> tuple[list[PackageProblem], list[Path]] | None:
    """The original in `folder` and its variants, with their candidates attached."""
    path = folder / PROBLEM_FILE
    original_id = folder.name
    _check_id(original_id, folder, None, "folder name", problems)
    if not path.is_file():
        problems.append(
            Problem(str(folder), None, None, f"no {PROBLEM_FILE} in this problem folder")
        )
        return None
    raw = _load_yaml(_read_text(path, problems), path, problems)
    fields = _fields(raw, PROBLEM_KEYS, path, "problem", problems)
    variants_raw = raw.get("variants") if isinstance(raw, dict) else None
    if variants_raw is not None and not isinstance(variants_raw, list):
        problems.append(Problem(str(path), _line(raw), "variants", "must be a list of mappings"))
        variants_raw = None
    variant_fields: list[dict[str, Any]] = []
    for index, entry in enumerate(variants_raw or []):
        checked = _fields(entry, VARIANT_KEYS, path, f"variants[{index}]", problems)
        if checked is not None:
            _check_id(checked["id"], path, _line(entry), f"variants[{index}].id", problems)
            variant_fields.append(checked)
    if fields is None:
        return None

    by_problem: dict[str, list[Candidate]] = {original_id: []}
    by_problem |= {v["id"]: [] for v in variant_fields}
    files = [path]
    for cand_path in sorted((folder / CANDIDATES_DIR).glob("*.md")):
        files.append(cand_path)
        read = _read_candidate(cand_path, problems)
        if read is None:
            continue
        front, body, line = read
        target = str(front.get("problem") or original_id)
        if target not in by_problem:
            problems.append(
                Problem(
                    str(cand_path),
                    line,
                    "problem",
                    f"{target!r} is neither this original ({original_id}) nor one of its "
                    f"variants ({', '.join(v['id'] for v in variant_fields) or 'none'})",
                )
            )
            continue
        _check_id(cand_path.stem, cand_path, None, "file name", problems)
        by_problem[target].append(
            Candidate(
                candidate_id=cand_path.stem,
                problem_id=target,
                source=front["source"].strip(),
                correct=front["correct"],
                solution=body,
                notes=_text(front.get("notes")),
                path=cand_path,
            )
        )
    made = [
        PackageProblem(
            problem_id=original_id,
            original_id=original_id,
            is_variant=False,
            title=_text(fields.get("title")),
            statement=fields["statement"].strip(),
            answer=fields["answer"].strip(),
            solution=fields["solution"].strip(),
            notes=_text(fields.get("notes")),
            candidates=tuple(by_problem[original_id]),
        ),
        *(
            PackageProblem(
                problem_id=v["id"],
                original_id=original_id,
                is_variant=True,
                title=None,
                statement=v["statement"].strip(),
                answer=v["answer"].strip(),
                solution=v["solution"].strip(),
                notes=_text(v.get("notes")),
                candidates=tuple(by_problem[v["id"]]),
            )
            for v in variant_fields
        ),
    ]
    return made, files


def _check_pools(made: list[PackageProblem], folder: Path, problems: list[Problem]) -> None:
    """Ranking needs both classes: the original must have correct and wrong candidates, and so
    must a variant that has any candidates at all (a variant may have none: it then serves only
    as a neighbourhood question)."""
    for problem in made:
        if not problem.candidates and problem.is_variant:
            continue
        labels = {c.correct for c in problem.candidates}
        for label, word in ((True, "correct"), (False, "wrong")):
            if label not in labels:
                problems.append(
                    Problem(
                        str(folder / CANDIDATES_DIR),
                        None,
                        None,
                        f"problem {problem.problem_id} has no {word} candidate; each needs at "
                        "least one correct and one wrong",
                    )
                )


def _check_unique(found: list[tuple[str, Path]], what: str, problems: list[Problem]) -> None:
    seen: dict[str, Path] = {}
    for ident, path in found:
        if ident in seen:
            problems.append(
                Problem(
                    str(path), None, None, f"duplicate {what} id {ident!r} (also in {seen[ident]})"
                )
            )
        else:
            seen[ident] = path


def read_package(folder: Path) -> Package:
    """The package in `folder`; raises ValidationFailed listing every problem found."""
    problems: list[Problem] = []
    meta_path = folder / PACKAGE_FILE
    if not meta_path.is_file():
        raise ValidationFailed(
            [Problem(str(folder), None, None, f"not a problem package: no {PACKAGE_FILE}")]
        )
    meta = _fields(
        _load_yaml(_read_text(meta_path, problems), meta_path, problems),
        PACKAGE_KEYS,
        meta_path,
        "package",
        problems,
    )
    originals = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not originals:
        problems.append(Problem(str(folder), None, None, "the package holds no problem folder"))
    made: list[PackageProblem] = []
    files = [meta_path]
    for original in originals:
        read = _read_original(original, problems)
        if read is None:
            continue
        group, group_files = read
        _check_pools(group, original, problems)
        made += group
        files += group_files
    _check_unique(
        [(p.problem_id, folder / p.original_id / PROBLEM_FILE) for p in made],
        "problem",
        problems,
    )
    _check_unique(
        [(c.candidate_id, c.path) for p in made for c in p.candidates], "candidate", problems
    )
    if problems or meta is None:
        raise ValidationFailed(problems)
    return Package(
        folder=folder,
        name=meta["name"].strip(),
        version=meta["version"].strip(),
        license=meta["license"].strip(),
        title=_text(meta.get("title")),
        description=_text(meta.get("description")),
        problems=tuple(made),
        files=tuple(files),
    )
