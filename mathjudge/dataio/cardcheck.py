"""Offline checks of a built data card against what the Hugging Face Hub accepts and shows.

The Hub validates a card's YAML only when it is pushed (`RepoCard.validate` needs the network),
so the checks are run here, before: the card must parse as a `huggingface_hub.DatasetCard` and
round-trip through `DatasetCardData`; its `configs` and `dataset_info` must be what `datasets`
reads back and match the manifest's files and row counts; every value must come from the Hub's
vocabulary (licenses and task categories and ids from `hub_vocabulary.json`, whose sources it
names; languages, creators, multilinguality and size categories from the lists `datasets`
ships); the papers of the citation must be tagged `arxiv:<id>` and linked; the body must carry
the dataset's version in its title, a limitations section, a BibTeX citation and no
placeholder.
"""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any

from huggingface_hub import DatasetCard, DatasetCardData

from mathjudge.dataio.cards import USAGE_END, USAGE_START, arxiv_ids

REQUIRED_SECTIONS = ("## Bias, Risks and Limitations", "## Citation")
PLACEHOLDERS = ("<path or repo>", '"<path>"', "TODO", "[More Information Needed]")
SIZE_BOUNDS = {
    "n<1K": (0, 1_000),
    "1K<n<10K": (1_000, 10_000),
    "10K<n<100K": (10_000, 100_000),
    "100K<n<1M": (100_000, 1_000_000),
}
_SOURCE_DATASET = re.compile(r"original|extended|extended\|[\w.-]+(/[\w.-]+)?|[\w.-]+/[\w.-]+")


@functools.cache
def vocabulary() -> dict[str, Any]:
    """The Hub's allowed values: our vendored list plus the `datasets` library's own lists."""
    vendored = resources.files("mathjudge.dataio").joinpath("hub_vocabulary.json")
    ours = json.loads(vendored.read_text("utf-8"))
    shipped = resources.files("datasets.utils.resources")
    creators = json.loads(shipped.joinpath("creators.json").read_text())
    return {
        "licenses": set(ours["licenses"]),
        "task_categories": {k: set(v) for k, v in ours["task_categories"].items()},
        "languages": set(json.loads(shipped.joinpath("languages.json").read_text())),
        "language_creators": set(creators["language"]),
        "annotations_creators": set(creators["annotations"]),
        "multilinguality": set(json.loads(shipped.joinpath("multilingualities.json").read_text())),
        "size_categories": set(json.loads(shipped.joinpath("size_categories.json").read_text())),
    }


def check_card(text: str, manifest: dict[str, Any], bibtex: str) -> list[str]:
    """Every problem found in the card `text` of the build `manifest` (empty: it passes).
    `bibtex` is the benchmark's citation.bib, whose papers the card must tag and cite."""
    try:
        card = DatasetCard(text)
    except ValueError as exc:
        return [f"not a dataset card: {exc}"]
    data = card.data
    assert isinstance(data, DatasetCardData)  # what DatasetCard reads
    front = data.to_dict()
    problems = _round_trip(front) + _vocabulary(front) + _data(data, manifest)
    problems += _papers(front, card.text, bibtex) + _body(card.text, manifest)
    return problems


def _round_trip(front: dict[str, Any]) -> list[str]:
    try:
        again = DatasetCardData(**front, ignore_metadata_errors=False).to_dict()
    except (ValueError, TypeError) as exc:
        return [f"front matter rejected by DatasetCardData: {exc}"]
    return [] if again == front else ["front matter changes when read back by DatasetCardData"]


def _listed(front: dict[str, Any], key: str) -> list[str]:
    value = front.get(key)
    return [value] if isinstance(value, str) else list(value or [])


def _vocabulary(front: dict[str, Any]) -> list[str]:
    vocab = vocabulary()
    problems = []
    for key, allowed in (
        ("language", vocab["languages"]),
        ("annotations_creators", vocab["annotations_creators"]),
        ("language_creators", vocab["language_creators"]),
        ("multilinguality", vocab["multilinguality"]),
        ("size_categories", vocab["size_categories"]),
        ("license", vocab["licenses"]),
        ("task_categories", set(vocab["task_categories"])),
    ):
        values = _listed(front, key)
        if not values:
            problems.append(f"{key}: missing")
        problems += [f"{key}: {v!r} is not one the Hub knows" for v in values if v not in allowed]
    subtasks = set().union(
        *(vocab["task_categories"].get(c, set()) for c in _listed(front, "task_categories"))
    )
    problems += [
        f"task_ids: {t!r} is no subtask of the card's task categories"
        for t in _listed(front, "task_ids")
        if t not in subtasks
    ]
    sources = _listed(front, "source_datasets")
    if not sources:
        problems.append("source_datasets: missing")
    problems += [
        f"source_datasets: {s!r} is neither original, extended|<id> nor a dataset id"
        for s in sources
        if not _SOURCE_DATASET.fullmatch(s)
    ]
    if not front.get("pretty_name"):
        problems.append("pretty_name: missing")
    return problems


def _data(data: DatasetCardData, manifest: dict[str, Any]) -> list[str]:
    """`configs` and `dataset_info` as `datasets` reads them, against the manifest."""
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs

    problems = []
    files = {(f["config"], f["split"]): f for f in manifest["files"]}
    configs = MetadataConfigs.from_dataset_card_data(data)
    declared = {
        (name, entry["split"]): entry["path"]
        for name, config in configs.items()
        for entry in config.get("data_files", [])
    }
    if declared != {key: f["path"] for key, f in files.items()}:
        problems.append("configs: data_files differ from the manifest's files")
    infos = DatasetInfosDict.from_dataset_card_data(data)
    for (config, split), entry in files.items():
        info = infos.get(config)
        splits = info.splits if info is not None else None
        if not splits or split not in splits:
            problems.append(f"dataset_info: no {config}/{split}")
        elif splits[split].num_examples != entry["rows"]:
            problems.append(
                f"dataset_info: {config}/{split} has {splits[split].num_examples} examples, "
                f"the manifest {entry['rows']} rows"
            )
    total = sum(f["rows"] for f in manifest["files"])
    for size in _listed(data.to_dict(), "size_categories"):
        low, high = SIZE_BOUNDS.get(size, (0, float("inf")))
        if not low <= total < high:
            problems.append(f"size_categories: {size} but {total} rows")
    return problems


def _papers(front: dict[str, Any], body: str, bibtex: str) -> list[str]:
    problems = []
    tags = set(_listed(front, "tags"))
    for paper in arxiv_ids(bibtex):
        if f"arxiv:{paper}" not in tags:
            problems.append(f"tags: no arxiv:{paper} for the cited paper")
        if f"https://arxiv.org/abs/{paper}" not in body:
            problems.append(f"body: no link to https://arxiv.org/abs/{paper}")
    if not bibtex:
        problems.append("no citation.bib for this dataset")
    elif bibtex.strip() not in body:
        problems.append("body: the Citation section does not hold the citation.bib entries")
    return problems


def _body(body: str, manifest: dict[str, Any]) -> list[str]:
    problems = []
    title = next((line for line in body.splitlines() if line.startswith("# ")), "")
    if f"dataset version {manifest['version']}" not in title:
        problems.append(f"title {title!r} does not give the dataset version {manifest['version']}")
    if "mathjudge build" in title:
        problems.append("title names a mathjudge build instead of the dataset version")
    problems += [f"body: no {s!r} section" for s in REQUIRED_SECTIONS if s not in body]
    if "```bibtex" not in body:
        problems.append("body: no BibTeX block")
    problems += [f"body: placeholder {p!r}" for p in PLACEHOLDERS if p in body]
    if body.count(USAGE_START) != 1 or body.count(USAGE_END) != 1:
        problems.append("body: the usage section is missing or repeated")
    return problems
