"""Published judge outputs as ordinary submissions: the file layout every benchmark folder's
`outputs.py` writes (`<slug>.jsonl` predictions + `<slug>.meta.json`, and
`<slug>.details.jsonl` where the outputs carry the judge's own text, e.g. its reasoning), so a
paper's raw per-item judgments are validated, scored and shown like any submitted judge's."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.atomic import atomic_path
from mathjudge.dataio.pins import Pins
from mathjudge.spec.benchmark import JudgeKind


@dataclass(frozen=True)
class Converted:
    """One published judge, converted in memory (nothing written yet)."""

    slug: str  # file stem
    judge: str  # leaderboard name
    rows: list[dict[str, Any]]
    meta: dict[str, Any]
    kind: JudgeKind  # the submission meta's `kind`
    converted_from: str  # the submission meta's `converted_from`: where the raw outputs are
    # Per-item details (`<slug>.details.jsonl`, which submit picks up beside the predictions):
    # e.g. the raw reply a prediction was parsed from and the rule that read it.
    details: tuple[dict[str, Any], ...] = ()
    # True where the paper published calls on part of the items only (ReaLMistake's
    # self-consistency runs): submitted with --allow-partial, shown with its coverage, unranked.
    partial: bool = False


def shown(text: str, limit: int = 10_000) -> str:
    """Raw published text as a details field may carry it: control, format and unassigned
    characters (a byte-order mark, a bidirectional override) replaced by U+FFFD, newlines and
    tabs kept, cut at `limit` characters. Predictions are parsed from the original text."""
    cleaned = "".join(
        "\ufffd" if unicodedata.category(ch).startswith("C") and ch not in "\n\t" else ch
        for ch in text
    )
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def github_files(repo: str, commit: str, paths: Iterable[str]) -> str:
    """`converted_from` for files of a GitHub repository at a commit."""
    return f"https://github.com/{repo}/tree/{commit}: {', '.join(paths)}"


def from_pinned_file(
    pins: Pins,
    path: str,
    rows: list[dict[str, Any]],
    *,
    slug: str,
    judge: str,
    model: str | None,
    judging: str,
    benchmark: str,
    kind: JudgeKind,
) -> Converted:
    """One judge's outputs published as one file of the pinned GitHub commit: the meta names
    the file with its sha256, and `converted_from` links it at that commit."""
    meta = {
        "judge": judge,
        "model": model,
        "judging": judging,
        "benchmark": benchmark,
        "source": {
            "repository": f"https://github.com/{pins.repo}",
            "commit": pins.revision,
            "files": [{"path": path, "sha256": pins.file(path).sha256}],
        },
        "imported_with": f"mathjudge import-outputs {benchmark}",
    }
    converted_from = github_files(pins.repo, pins.revision, [path])
    return Converted(slug, judge, rows, meta, kind=kind, converted_from=converted_from)


@dataclass(frozen=True)
class Imported:
    slug: str
    judge: str
    predictions: Path
    meta: Path
    n_rows: int
    partial: bool


def write_all(converted: Iterable[Converted], out_dir: Path) -> list[Imported]:
    """Write every converted judge (each file atomically). Conversion happens before any write,
    so a source that fails to convert leaves no files behind."""
    done = []
    for c in list(converted):
        predictions = out_dir / f"{c.slug}.jsonl"
        meta = out_dir / f"{c.slug}.meta.json"
        with atomic_path(predictions) as tmp, tmp.open("w", encoding="utf-8") as handle:
            for row in c.rows:
                handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
        record = {**c.meta, "kind": c.kind, "converted_from": c.converted_from}
        with atomic_path(meta) as tmp:
            tmp.write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", "utf-8")
        details = out_dir / f"{c.slug}.details.jsonl"
        if c.details:
            with atomic_path(details) as tmp, tmp.open("w", encoding="utf-8") as handle:
                for row in c.details:
                    handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
        else:
            details.unlink(missing_ok=True)
        done.append(Imported(c.slug, c.judge, predictions, meta, len(c.rows), c.partial))
    return done
