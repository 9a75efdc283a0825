"""Dataset versions that mean something: the releases of a benchmark's dataset are recorded in
`releases.json` beside its pins, and a build is checked against the last one
(docs/versioning.md has the rule).

The record is data, kept compact: every release's version, content hash, card digest and
source revision, and for the latest release alone what is needed to classify a change: each
table's features, a short hash of every row (keyed by its `item_id` or `problem_id`, computed
over the features of that release, so a field added later leaves it unchanged) and a hash of
every column. A build whose content or card differs from the release of its version fails with
the version to choose and why.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base import sidefiles
from mathjudge.base.atomic import atomic_path
from mathjudge.base.config import doc_url
from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.pins import SEMVER, load_pins
from mathjudge.dataio.writer import Build, Table, canonical_row, content_hash, render_card

RELEASES_FILE = "releases.json"
RULE = "docs/versioning.md"
LEVELS = ("none", "patch", "minor", "major")
KEYS = ("item_id", "problem_id")  # a table's row key: the first of these it has, if unique
ROW_HASH_HEX = 16  # 64 bits per row: a clash among a few thousand rows is out of reach
EXAMPLES = 3  # row keys named per reason


@dataclass(frozen=True)
class Change:
    """How a build differs from a release: the largest level of its reasons."""

    level: str
    reasons: tuple[tuple[str, str], ...]  # (level, what changed)

    def lines(self) -> str:
        return "\n".join(f"  - {level}: {what}" for level, what in self.reasons)


def parse_version(version: str) -> tuple[int, int, int]:
    match = SEMVER.fullmatch(version)
    if match is None:
        raise MathJudgeError(f"version {version!r} is not MAJOR.MINOR.PATCH")
    major, minor, patch = (int(g) for g in match.groups())
    return major, minor, patch


def bumped(version: str, level: str) -> str:
    """The next version after `version` for a change of `level` (patch, minor or major)."""
    major, minor, patch = parse_version(version)
    if level == "major":
        return f"{major + 1}.0.0"
    if level == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch + 1}"


def card_digest(build: Build) -> str:
    return hashlib.sha256(render_card(build).encode("utf-8")).hexdigest()


def _key(table: Table) -> str | None:
    for key in KEYS:
        if key in table.features:
            values = [row[key] for row in table.rows]
            if len(set(values)) == len(values):
                return key
    return None


def _row_hash(row: dict[str, Any], fields: list[str]) -> str:
    text = canonical_row({f: row.get(f) for f in fields})
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:ROW_HASH_HEX]


def _keys(table: Table, key: str | None) -> list[str]:
    if key is None:
        return [str(i) for i in range(len(table.rows))]
    return [str(row[key]) for row in table.rows]


def _column_hash(table: Table, field: str, key: str | None, keys: list[str]) -> str:
    """A digest of one column over the rows named by `keys`, in that order."""
    by_key = dict(zip(_keys(table, key), table.rows, strict=True))
    digest = hashlib.sha256()
    for k in keys:
        digest.update(f"{k}\t{canonical_row({'v': by_key[k].get(field)})}\n".encode())
    return digest.hexdigest()


def table_record(table: Table) -> dict[str, Any]:
    fields = list(table.features)
    key = _key(table)
    keys = _keys(table, key)
    return {
        "key": key,
        "features": table.features.to_dict(),
        "columns": {f: _column_hash(table, f, key, sorted(keys)) for f in fields},
        "rows": {k: _row_hash(row, fields) for k, row in zip(keys, table.rows, strict=True)},
    }


def release_entry(build: Build) -> dict[str, Any]:
    sources = [{"kind": s.kind, "repo": s.repo, "revision": s.revision} for s, _ in build.sources]
    return {
        "version": build.version,
        "content_hash": content_hash(build.tables),
        "card_sha256": card_digest(build),
        "sources": sources,
    }


def _names(keys: list[str]) -> str:
    shown = ", ".join(keys[:EXAMPLES])
    return shown + (f", ... ({len(keys) - EXAMPLES} more)" if len(keys) > EXAMPLES else "")


def _table_change(name: str, old: dict[str, Any], table: Table) -> list[tuple[str, str]]:
    reasons: list[tuple[str, str]] = []
    old_features, new_features = old["features"], table.features.to_dict()
    removed = [f for f in old_features if f not in new_features]
    retyped = [f for f in old_features if f in new_features and old_features[f] != new_features[f]]
    added = [f for f in new_features if f not in old_features]
    if removed:
        reasons.append(("major", f"{name}: field(s) {', '.join(removed)} removed"))
    if retyped:
        reasons.append(("major", f"{name}: type of field(s) {', '.join(retyped)} changed"))
    if added:
        reasons.append(("minor", f"{name}: field(s) {', '.join(added)} added"))
    if removed or retyped:
        return reasons  # rows were hashed over fields this build no longer has as they were
    fields = list(old_features)
    key = old["key"] if old["key"] in table.features else None
    keys = _keys(table, key)
    if key is None or len(set(keys)) != len(keys):
        return reasons + _multiset_change(name, old["rows"], table, fields)
    new_rows = {k: _row_hash(row, fields) for k, row in zip(keys, table.rows, strict=True)}
    gone = [k for k in old["rows"] if k not in new_rows]
    new = [k for k in new_rows if k not in old["rows"]]
    changed = [k for k in old["rows"] if k in new_rows and old["rows"][k] != new_rows[k]]
    if gone:
        reasons.append(("major", f"{name}: {len(gone)} row(s) removed ({_names(gone)})"))
    if changed:
        where = ""
        if not gone:
            fields_changed = [
                f
                for f in fields
                if _column_hash(table, f, key, sorted(old["rows"])) != old["columns"].get(f)
            ]
            where = f" in field(s) {', '.join(fields_changed)}" if fields_changed else ""
        reasons.append(
            ("major", f"{name}: values of {len(changed)} row(s) changed{where} ({_names(changed)})")
        )
    if new:
        reasons.append(("minor", f"{name}: {len(new)} row(s) added ({_names(new)})"))
    kept = [k for k in new_rows if k in old["rows"]]
    if not (gone or changed) and kept != [k for k in old["rows"] if k in new_rows]:
        reasons.append(("minor", f"{name}: row order changed"))
    return reasons


def _multiset_change(
    name: str, old_rows: dict[str, str], table: Table, fields: list[str]
) -> list[tuple[str, str]]:
    """Tables without a unique key: rows are compared as a multiset of their hashes."""
    old = sorted(old_rows.values())
    new = sorted(_row_hash(row, fields) for row in table.rows)
    missing, extra = _difference(old, new), _difference(new, old)
    reasons = []
    if missing:
        reasons.append(("major", f"{name}: {missing} row(s) removed or changed"))
    if extra:
        reasons.append(("minor", f"{name}: {extra} row(s) added"))
    if not (missing or extra) and [_row_hash(r, fields) for r in table.rows] != list(
        old_rows.values()
    ):
        reasons.append(("minor", f"{name}: row order changed"))
    return reasons


def _difference(a: list[str], b: list[str]) -> int:
    """How many items of multiset `a` are not in `b`."""
    remaining: dict[str, int] = {}
    for h in b:
        remaining[h] = remaining.get(h, 0) + 1
    missing = 0
    for h in a:
        if remaining.get(h, 0):
            remaining[h] -= 1
        else:
            missing += 1
    return missing


def classify(history: dict[str, Any], build: Build) -> Change:
    """How `build` differs from the latest recorded release."""
    latest = history["latest"]
    release = next(r for r in history["releases"] if r["version"] == latest["version"])
    reasons: list[tuple[str, str]] = []
    if content_hash(build.tables) != release["content_hash"]:
        tables = {f"{t.config}/{t.split}": t for t in build.tables}
        for name, old in latest["tables"].items():
            if name not in tables:
                reasons.append(("major", f"{name}: config/split removed"))
            else:
                reasons += _table_change(name, old, tables[name])
        reasons += [
            ("minor", f"{name}: config/split added")
            for name in tables
            if name not in latest["tables"]
        ]
        if not reasons:  # e.g. features metadata only
            reasons.append(("minor", "content hash changed with no row or field change"))
    elif card_digest(build) != release["card_sha256"]:
        # The card states row counts and sizes, so it follows any data change; only a change
        # of the card alone is a reason of its own.
        reasons.append(("patch", "data card changed"))
    level = max((lvl for lvl, _ in reasons), key=LEVELS.index, default="none")
    return Change(level, tuple(sorted(reasons, key=lambda r: -LEVELS.index(r[0]))))


def releases_path(benchmark: str) -> Path:
    return load_pins(benchmark).path.with_name(RELEASES_FILE)


def load_history(benchmark: str) -> dict[str, Any] | None:
    path = releases_path(benchmark)
    if not path.is_file():
        return None
    history = sidefiles.read_json(path, sidefiles.MANIFEST_MAX_BYTES, "release record")
    if not isinstance(history, dict) or history.get("benchmark") != benchmark:
        raise MathJudgeError(f"{path}: not the release record of {benchmark}")
    return history


def check(build: Build) -> str:
    """Refuse a build that breaks the versioning rule; return a one-line note on what it is."""
    pins = load_pins(build.benchmark)
    if not pins.releases:
        return f"version {build.version} (no releases are recorded for user-supplied content)"
    return verdict(build, load_history(build.benchmark), pins.path, releases_path(build.benchmark))


def verdict(build: Build, history: dict[str, Any] | None, pins: Path, where: Path) -> str:
    """The rule, given the record: a recorded version must rebuild exactly (content and card);
    a new version must be the next one after the latest release for the change it makes
    (patch, minor or major; a larger step is allowed, a gap is not)."""
    if history is None:
        return f"version {build.version} (no release recorded yet)"
    latest = history["latest"]["version"]
    recorded = {r["version"]: r for r in history["releases"]}
    entry = release_entry(build)
    if build.version in recorded:
        release = recorded[build.version]
        if (release["content_hash"], release["card_sha256"]) == (
            entry["content_hash"],
            entry["card_sha256"],
        ):
            return f"version {build.version}, as released"
        if build.version != latest:
            raise MathJudgeError(
                f"{build.benchmark}: this build differs from release {build.version} (recorded "
                f"in {where}), and {latest} is the latest release; the pins in {pins} should "
                f"say {latest} or a version after it"
            )
        change = classify(history, build)
        raise MathJudgeError(_bump_message(build, change, latest, pins, where))
    if parse_version(build.version) <= parse_version(latest):
        raise MathJudgeError(
            f"{build.benchmark}: version {build.version} is not recorded in {where} and is not "
            f"after the latest release {latest}"
        )
    change = classify(history, build)
    if change.level == "none":
        raise MathJudgeError(
            f"{build.benchmark}: nothing changed since release {latest} (same content and "
            f"card), so keep version {latest} in {pins} instead of {build.version}"
        )
    allowed = [bumped(latest, level) for level in LEVELS[LEVELS.index(change.level) :]]
    if build.version not in allowed:
        raise MathJudgeError(_bump_message(build, change, latest, pins, where))
    return (
        f"version {build.version}, new after release {latest} ({change.level} change); "
        "record it with --record-version when it is published"
    )


def _bump_message(build: Build, change: Change, latest: str, pins: Path, where: Path) -> str:
    choose = bumped(latest, change.level)
    return (
        f"{build.benchmark}: this build differs from release {latest} (recorded in {where}) "
        f"but is labelled version {build.version}:\n{change.lines()}\n"
        f"This is a {change.level} change (the rule: {doc_url('versioning.md')}): set version: "
        f'"{choose}" in {pins}'
    )


def with_release(history: dict[str, Any] | None, build: Build) -> dict[str, Any]:
    """The record with `build` as its latest release (replacing an entry of the same version);
    only the latest release keeps its per-table detail."""
    previous = history["releases"] if history else []
    releases = [r for r in previous if r["version"] != build.version]
    releases.append(release_entry(build))
    releases.sort(key=lambda r: parse_version(r["version"]))
    if releases[-1]["version"] != build.version:
        raise MathJudgeError(
            f"{build.benchmark}: only a version after the latest release "
            f"{releases[-1]['version']} can be recorded, not {build.version}"
        )
    return {
        "benchmark": build.benchmark,
        "rule": RULE,
        "releases": releases,
        "latest": {
            "version": build.version,
            "tables": {f"{t.config}/{t.split}": table_record(t) for t in build.tables},
        },
    }


def record(build: Build) -> Path:
    """Add `build` (which passed `check`) as the latest release; returns the record's path."""
    if not load_pins(build.benchmark).releases:
        raise MathJudgeError(
            f"{build.benchmark}: its content is the user's own, so no release is recorded"
        )
    history = with_release(load_history(build.benchmark), build)
    path = releases_path(build.benchmark)
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(history, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
