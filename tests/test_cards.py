"""Data cards: every dataset the suite builds passes the offline Hub checks, and the checks catch
what the Hub would reject or show wrongly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from mathjudge import registry
from mathjudge.dataio.cardcheck import check_card, vocabulary
from mathjudge.dataio.cards import arxiv_ids, citation, for_repo


@pytest.fixture(scope="module")
def written(all_written: Path) -> Path:
    return all_written


def card_of(folder: Path) -> tuple[str, dict]:
    return (folder / "README.md").read_text("utf-8"), json.loads(
        (folder / "manifest.json").read_text()
    )


@pytest.mark.slow  # seconds of work: the full suite runs it
@pytest.mark.parametrize("name", registry.dataset_names())
def test_every_built_card_passes_the_hub_checks(written: Path, name: str) -> None:
    text, manifest = card_of(written / name)
    assert check_card(text, manifest, citation(name)) == []
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["multilinguality"] == ["monolingual"]
    assert {"annotations_creators", "language_creators", "source_datasets"} <= set(front)
    title = next(line for line in text.splitlines() if line.startswith("# "))
    assert f"(dataset version {manifest['version']}" in title


def test_the_card_declares_the_papers_the_benchmarks_cite() -> None:
    """The BibTeX is kept once, in the dataset's folder; every spec's paper is in it."""
    for spec in registry.specs():
        if spec.paper is not None and spec.dataset in registry.dataset_names():
            assert spec.paper.arxiv in arxiv_ids(citation(spec.dataset)), spec.name


def test_stepmathbench_front_matter_by_hand(written: Path) -> None:
    text, _ = card_of(written / "stepmathbench")
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["task_categories"] == ["text-classification"]
    assert front["task_ids"] == ["text-scoring"]
    assert front["language"] == ["zh"] and front["license"] == "unknown"
    assert "arxiv:2503.10105" in front["tags"]
    assert front["size_categories"] == ["1K<n<10K"]  # 1,000 solutions + 200 problems
    assert "[arXiv:2503.10105](https://arxiv.org/abs/2503.10105)" in text
    assert "eprint        = {2503.10105}" in text
    assert "<path or repo>" not in text


def mutate(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("license: unknown", "license: apache", "license: 'apache' is not one the Hub knows"),
        ("- zh\n", "- chinese\n", "language: 'chinese' is not one the Hub knows"),
        (
            "- text-scoring",
            "- topic-scoring",
            "task_ids: 'topic-scoring' is no subtask of the card's task categories",
        ),
        ("- monolingual", "- bilingual", "multilinguality: 'bilingual' is not one the Hub knows"),
        ("- arxiv:2503.10105\n", "", "tags: no arxiv:2503.10105 for the cited paper"),
        ("- 1K<n<10K", "- n<1K", "size_categories: n<1K but 1200 rows"),
        ("num_examples: 1000", "num_examples: 999", "dataset_info: solutions/test has 999"),
        ("## Bias, Risks and Limitations", "## Caveats", "body: no '## Bias, Risks"),
        ("(dataset version 1.1.0)", "(mathjudge build 0.1.0)", "does not give the dataset version"),
        ('"datasets/stepmathbench", "solutions"', '"<path or repo>", "solutions"', "placeholder"),
        ("- original", "- the internet", "source_datasets: 'the internet' is neither"),
    ],
    ids=[
        "license",
        "language",
        "task-id",
        "multilinguality",
        "arxiv-tag",
        "size",
        "rows",
        "limitations",
        "title",
        "placeholder",
        "source",
    ],
)
def test_the_checks_catch_a_bad_card(written: Path, old: str, new: str, problem: str) -> None:
    text, manifest = card_of(written / "stepmathbench")
    problems = check_card(mutate(text, old, new), manifest, citation("stepmathbench"))
    assert any(problem in p for p in problems), problems


def test_the_vocabulary_has_the_hub_lists() -> None:
    vocab = vocabulary()
    assert {"mit", "cc-by-4.0", "unknown", "apache-2.0"} <= vocab["licenses"]
    assert "text-scoring" in vocab["task_categories"]["text-classification"]
    assert {"en", "zh"} <= vocab["languages"]
    assert vocab["multilinguality"] == {"monolingual", "multilingual", "translation", "other"}


def test_the_pushed_card_names_the_repo_and_pins_the_release(written: Path) -> None:
    text, manifest = card_of(written / "stepmathbench")
    files = [(f["config"], f["path"]) for f in manifest["files"]]
    pushed = for_repo(text, "stepmathbench", "1.1.0", files, "org/step")
    assert 'load_dataset("org/step", "solutions", split="test", revision="1.1.0")' in pushed
    assert "hf://datasets/org/step@1.1.0/data/solutions/test-00000-of-00001.parquet" in pushed
    assert "datasets/stepmathbench" not in pushed
    assert check_card(pushed, manifest, citation("stepmathbench")) == []
    # Everything outside the usage section is untouched.
    assert pushed.split("<!-- /usage -->")[1] == text.split("<!-- /usage -->")[1]
