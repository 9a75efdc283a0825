"""source.yaml: every builder's version and upstream pins come from data in its folder."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.pins import load_pins, parse_pins


def test_every_dataset_has_pins_and_its_builder_reads_them() -> None:
    for name in registry.dataset_names():
        pins = load_pins(name)
        assert pins.path.name == "source.yaml" and pins.path.parent.name == name
        assert spec_version(name) == pins.version


def spec_version(name: str) -> str:
    return registry.builder(name).VERSION


def test_a_github_pin_names_each_file_by_commit_and_digest() -> None:
    pins = load_pins("stepmathbench")
    source = pins.source
    assert (source.kind, source.repo, source.mirror_name) == (
        "github",
        "SHU-XUN/StepMathAgent",
        "stepmathbench",
    )
    assert source.revision == "2e197deac78a49e04270c0b0651702b2ac12f856"
    first = source.files[0]
    assert first.path == "stepmath.jsonl"
    assert first.url == (
        "https://raw.githubusercontent.com/SHU-XUN/StepMathAgent/"
        "2e197deac78a49e04270c0b0651702b2ac12f856/data/stepmath.jsonl"
    )
    assert first.sha256 == "70c01d40fabbb1cbb74fc856363f776b468b9ffc4f4ce4aa1b05941a788c593a"


def test_published_outputs_are_pinned_beside_the_data_but_not_built_from() -> None:
    pins = load_pins("judgebench")
    assert len(pins.source.files) == 2
    assert len(pins.outputs_source.files) == 9
    from mathjudge.benchmarks.judgebench import outputs

    assert outputs.JUDGES[0].sha256 == (
        "5fddc275bebd4d006228e8f86616ae6058118ab68ad03e57fd957c1878f2d4e6"
    )


def test_user_supplied_content_records_no_releases() -> None:
    assert not load_pins("expertmath").releases
    assert not load_pins("hard2verify").releases
    assert load_pins("opc").releases


GOOD = {
    "version": "1.2.3",
    "source": {
        "kind": "github",
        "repo": "o/r",
        "revision": "abc",
        "mirror": "m",
        "files": [{"path": "a.jsonl", "sha256": "0" * 64}],
    },
}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update(version=1.2), r"\[version\]: 1.2 is not a MAJOR.MINOR.PATCH"),
        (lambda d: d.update(version="1.2"), r"\[version\]: '1.2' is not"),
        (lambda d: d["source"].update(kind="svn"), r"\[source.kind\]: 'svn' is not one of"),
        (lambda d: d["source"].pop("revision"), r"\[source.revision\]: must be non-empty"),
        (
            lambda d: d["source"]["files"][0].update(sha256="ABC"),
            r"\[source.files\[0\].sha256\]: 'ABC' is not 64",
        ),
        (
            lambda d: d["source"].update(outputs=[{"path": "a.jsonl", "sha256": "1" * 64}]),
            r"\[source\]: a file path is listed twice",
        ),
        (lambda d: d.update(releases="no"), r"\[releases\]: must be true or false"),
        (lambda d: d.update(hub={"repo": "o/r"}), r"\[hub\]: expected a list"),
        (
            lambda d: d.update(hub=[{"repo": "o/r", "revision": "main"}]),
            r"\[hub\[0\].mirror\]: must be non-empty text",
        ),
    ],
    ids=[
        "float",
        "two-parts",
        "kind",
        "revision",
        "digest",
        "twice",
        "releases",
        "hub",
        "hub-mirror",
    ],
)
def test_bad_pins_are_located_errors(edit, message: str) -> None:
    data = yaml.safe_load(yaml.safe_dump(GOOD))
    edit(data)
    with pytest.raises(MathJudgeError, match=r"^x/source.yaml " + message):
        parse_pins("x", data, Path("x/source.yaml"))
    parsed = parse_pins("x", GOOD, Path("x/source.yaml"))
    assert parsed.files[0].upstream == "a.jsonl"  # defaults to the mirror path


def test_hub_datasets_are_pinned_beside_the_mirrored_commit(tmp_path: Path, monkeypatch) -> None:
    """ProcessBench lives on the Hub and is mirrored as the authors' commit: the builder reads
    the commit's files where a mirror folder holds all of them, else the Hub snapshot."""
    from mathjudge.dataio.sources import commit_mirror

    pins = load_pins("processbench")
    assert (pins.source.kind, pins.source.mirror_name) == ("github", "processbench")
    ((hub),) = pins.hub
    assert (hub.kind, hub.repo, hub.revision) == ("huggingface", "Qwen/ProcessBench", "main")
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    assert commit_mirror(pins.source, tmp_path) is None  # nothing there: the Hub path
    folder = tmp_path / "processbench"
    for f in pins.source.files:
        (folder / f.path).parent.mkdir(parents=True, exist_ok=True)
        (folder / f.path).write_text("[]")
    assert commit_mirror(pins.source, tmp_path) == folder
    assert commit_mirror(pins.source, folder) == folder
    monkeypatch.setenv("MATHJUDGE_MIRROR", str(tmp_path))
    assert commit_mirror(pins.source, None) == folder
