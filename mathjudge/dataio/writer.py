"""The one writer every builder uses: deterministic Parquet, a data card and a manifest,
published atomically as `<out>/<benchmark>/`.

Determinism: rows are written in the order the builder gives, with fixed writer options and no
timestamps, so the same inputs give byte-identical files. `content_hash` is computed from the
rows and features themselves (canonical JSON), not from Parquet bytes, so it names the data and
survives a change of Parquet writer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from datasets.info import DatasetInfosDict
from huggingface_hub import DatasetCardData

from mathjudge import __version__
from mathjudge.base.atomic import atomic_dir
from mathjudge.dataio.cards import (
    arxiv_ids,
    citation,
    citation_section,
    label_note,
    usage_section,
    with_usage,
)
from mathjudge.dataio.sources import ResolvedFile, Source, sha256_file

PARQUET_OPTIONS: dict[str, Any] = {
    "compression": "zstd",
    "compression_level": 9,
    "use_dictionary": True,
    "write_statistics": True,
    "row_group_size": 50_000,
}


@dataclass(frozen=True)
class Table:
    """One (config, split) of a built dataset."""

    config: str
    split: str
    features: datasets.Features
    rows: list[dict[str, Any]]

    @property
    def path(self) -> str:
        return f"data/{self.config}/{self.split}-00000-of-00001.parquet"

    def to_arrow(self) -> pa.Table:
        # Casting through the Features' own schema embeds them in the Parquet metadata, which is
        # how `datasets` restores ClassLabel names on load.
        return pa.Table.from_pylist(self.rows, schema=self.features.arrow_schema)


@dataclass(frozen=True)
class CardInfo:
    """What the data card's YAML front matter declares beyond configs and features, in the Hub's
    vocabulary (checked by `dataio.cardcheck`). The papers' `arxiv:` tags come from the
    benchmark's citation.bib."""

    pretty_name: str
    license: str
    language: tuple[str, ...]
    task_categories: tuple[str, ...]
    tags: tuple[str, ...] = ("math", "llm-as-a-judge", "evaluation")
    size_category: str = "1K<n<10K"
    task_ids: tuple[str, ...] = ()
    annotations_creators: tuple[str, ...] = ("expert-generated",)
    # Problems collected from competitions, courses or papers; solutions written by models.
    language_creators: tuple[str, ...] = ("found", "machine-generated")
    multilinguality: str = "monolingual"
    # "original": the upstream authors' own release (from their repository); a Hub dataset id
    # where the build reads a dataset on the Hub.
    source_datasets: tuple[str, ...] = ("original",)


@dataclass(frozen=True)
class Build:
    """Everything a builder produces; `write_dataset` turns it into files."""

    benchmark: str
    version: str
    tables: tuple[Table, ...]
    card_info: CardInfo
    card_body: str
    sources: tuple[tuple[Source, dict[str, ResolvedFile]], ...]
    checks: dict[str, Any] = field(default_factory=dict)
    # Built from the small example a benchmark ships (not the real data): recorded in the
    # manifest so the leaderboard labels such results and never ranks them.
    example: bool = False
    # What this build leaves out or cannot say (e.g. texts that only the Hub copy carries):
    # the manifest's "limitations", shown on the benchmark's page.
    limitations: tuple[str, ...] = ()


def canonical_row(row: dict[str, Any]) -> str:
    return json.dumps(
        row, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )


def content_hash(tables: tuple[Table, ...]) -> str:
    digest = hashlib.sha256()
    for table in sorted(tables, key=lambda t: (t.config, t.split)):
        digest.update(f"{table.config}/{table.split}\n".encode())
        digest.update(canonical_row(table.features.to_dict()).encode() + b"\n")
        for row in table.rows:
            digest.update(canonical_row(row).encode() + b"\n")
    return "sha256:" + digest.hexdigest()


def card_front_matter(build: Build) -> dict[str, Any]:
    configs: dict[str, list[Table]] = {}
    for table in build.tables:
        configs.setdefault(table.config, []).append(table)
    infos = DatasetInfosDict(
        {
            name: datasets.DatasetInfo(
                features=tables[0].features,
                config_name=name,
                splits=datasets.SplitDict(
                    {
                        t.split: datasets.SplitInfo(
                            name=t.split, num_examples=len(t.rows), num_bytes=t.to_arrow().nbytes
                        )
                        for t in tables
                    }
                ),
            )
            for name, tables in configs.items()
        }
    )
    info = build.card_info
    papers = [f"arxiv:{i}" for i in arxiv_ids(citation(build.benchmark))]
    card = DatasetCardData(
        pretty_name=info.pretty_name,
        license=info.license,
        language=list(info.language),
        annotations_creators=list(info.annotations_creators),
        language_creators=list(info.language_creators),
        multilinguality=[info.multilinguality],
        source_datasets=list(info.source_datasets),
        task_categories=list(info.task_categories),
        task_ids=list(info.task_ids) or None,
        tags=[*info.tags, *papers],
        size_categories=[info.size_category],
        configs=[
            {
                "config_name": name,
                "data_files": [{"split": t.split, "path": t.path} for t in tables],
                **({"default": True} if i == 0 else {}),
            }
            for i, (name, tables) in enumerate(configs.items())
        ],
    )
    infos.to_dataset_card_data(card)
    return card.to_dict()


def render_card(build: Build) -> str:
    """Front matter, then the card's introduction, the shared usage section, the card's own
    sections and the citation."""
    front = yaml.safe_dump(card_front_matter(build), sort_keys=False, allow_unicode=True)
    files = [(t.config, t.path) for t in build.tables]
    names = [f for t in build.tables for f in t.features if f.endswith(("_name", "_names"))]
    usage = usage_section(build.benchmark, build.version, files) + label_note(
        list(dict.fromkeys(names))
    )
    body = with_usage(build.card_body.strip(), usage)
    cited = citation_section(citation(build.benchmark))
    return f"---\n{front}---\n\n{body.strip()}\n" + (f"\n{cited}" if cited else "")


def manifest(build: Build, files: list[dict[str, Any]], digest: str) -> dict[str, Any]:
    return {
        "benchmark": build.benchmark,
        "version": build.version,
        "builder": {"name": "mathjudge", "version": __version__},
        "sources": [
            {
                **source.pin(),
                "inputs": [
                    {"path": name, "sha256": f.sha256, "origin_kind": f.origin.split(":", 1)[0]}
                    for name, f in sorted(resolved.items())
                ],
            }
            for source, resolved in build.sources
        ],
        "checks": build.checks,
        "files": files,
        "content_hash": digest,
        **({"example": True} if build.example else {}),
        **({"limitations": list(build.limitations)} if build.limitations else {}),
    }


def write_dataset(build: Build, out_dir: Path) -> Path:
    """Write `build` to `out_dir/<benchmark>` and return that path.

    Everything is written to a temporary sibling folder first and renamed into place, so a
    failure at any point leaves the previous dataset (or nothing) and never a half-written one.
    """
    final = out_dir / build.benchmark
    with atomic_dir(final) as tmp:
        files = []
        for table in build.tables:
            target = tmp / table.path
            target.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(table.to_arrow(), target, **PARQUET_OPTIONS)
            files.append(
                {
                    "path": table.path,
                    "config": table.config,
                    "split": table.split,
                    "rows": len(table.rows),
                    "sha256": sha256_file(target),
                }
            )
        digest = content_hash(build.tables)
        (tmp / "manifest.json").write_text(
            json.dumps(manifest(build, files, digest), indent=2, ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
        (tmp / "README.md").write_text(render_card(build), encoding="utf-8")
    return final
