"""Read access to a built dataset: its manifest (version, content hash) and Parquet paths."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from mathjudge.base import sidefiles
from mathjudge.base.errors import MathJudgeError


@dataclass(frozen=True)
class BuiltDataset:
    benchmark: str
    root: Path
    manifest: dict[str, Any]

    @property
    def version(self) -> str:
        return self.manifest["version"]

    @property
    def content_hash(self) -> str:
        return self.manifest["content_hash"]

    def parquet(self, config: str, split: str = "test") -> Path:
        for entry in self.manifest["files"]:
            if entry["config"] == config and entry["split"] == split:
                return self.root / entry["path"]
        raise MathJudgeError(f"{self.root}: no {config}/{split} in manifest.json")

    def card(self) -> str:
        """The data card (README.md) text, "" when the folder has none."""
        path = self.root / "README.md"
        return path.read_text(encoding="utf-8") if path.is_file() else ""

    def item_ids(self, config: str) -> list[str]:
        path = str(self.parquet(config))
        rows = duckdb.execute("SELECT item_id FROM read_parquet(?)", [path]).fetchall()
        return [r[0] for r in rows]


def open_dataset(benchmark: str, datasets_dir: Path) -> BuiltDataset:
    root = datasets_dir / benchmark
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        raise MathJudgeError(
            f"{root}: no built dataset here; run `mathjudge build {benchmark} --out {datasets_dir}`"
            " or pass --datasets DIR"
        )
    manifest = sidefiles.read_json(manifest_path, sidefiles.MANIFEST_MAX_BYTES, "manifest")
    if not isinstance(manifest, dict) or manifest.get("benchmark") != benchmark:
        built_for = manifest.get("benchmark") if isinstance(manifest, dict) else None
        raise MathJudgeError(f"{manifest_path}: built for {built_for!r}")
    return BuiltDataset(benchmark, root, manifest)
