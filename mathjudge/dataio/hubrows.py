"""Rows of a Hugging Face dataset snapshot (a mirror folder or a download), read with
`datasets.load_dataset` as a user's own `load_dataset` would, with its Arrow cache in a
temporary folder (an edited snapshot is never answered from a stale cache) and its progress
bars silenced (builders report through their caller)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from mathjudge.base.errors import MathJudgeError


def load_rows(
    folder: Path, repo: str, columns: tuple[str, ...], *, split: str | None = None
) -> list[dict[str, Any]]:
    """The rows of `split` of the snapshot in `folder` (its only split when None), reduced to
    `columns`; a located error when it cannot be loaded or lacks a column."""
    import datasets
    from datasets.exceptions import DatasetsError

    already = datasets.are_progress_bars_disabled()
    datasets.disable_progress_bars()
    try:
        with tempfile.TemporaryDirectory(prefix="mathjudge-hub-") as cache:
            try:
                loaded = datasets.load_dataset(str(folder), cache_dir=cache)
            except (DatasetsError, FileNotFoundError, ValueError, TypeError) as exc:
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                raise MathJudgeError(f"{folder}: cannot load {repo} ({reason})") from exc
            if split is None:
                if len(loaded) != 1:
                    raise MathJudgeError(
                        f"{folder}: {repo} has the splits {', '.join(loaded)}; expected one"
                    )
                split = next(iter(loaded))
            if split not in loaded:
                raise MathJudgeError(f"{folder}: {repo} has no split {split!r}")
            table = loaded[split]
            missing = [c for c in columns if c not in table.column_names]
            if missing:
                raise MathJudgeError(
                    f"{folder}: the {split} split of {repo} lacks column(s) {', '.join(missing)}"
                )
            return table.select_columns(list(columns)).to_list()
    finally:
        if not already:
            datasets.enable_progress_bars()
