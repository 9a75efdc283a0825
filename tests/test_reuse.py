"""A demo baseline's predictions are reused only while the data, the baseline, the code and the
written files are the ones they were computed from (mathjudge/judges/reuse.py); the demo's own
rerun is tests/test_cli.py::test_demo_from_a_clean_folder."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from mathjudge import registry
from mathjudge.dataio.reader import BuiltDataset, open_dataset
from mathjudge.judges import reuse
from mathjudge.spec.benchmark import Baseline


@pytest.fixture
def stepmath(all_written: Path) -> tuple[Baseline, BuiltDataset]:
    spec = next(s for s in registry.specs() if s.name == "stepmathbench")
    baseline = next(b for b in spec.baselines if b.key == "rule-em")
    return baseline, open_dataset(spec.dataset, all_written)


@pytest.fixture
def written(tmp_path: Path) -> tuple[Path, Path]:
    predictions = tmp_path / "rule-em.jsonl"
    predictions.write_text('{"item_id": "a", "score": 1}\n', encoding="utf-8")
    return predictions, tmp_path / "rule-em.details.jsonl"


@pytest.fixture
def stamped(stepmath: tuple[Baseline, BuiltDataset], written: tuple[Path, Path]) -> str:
    """The key of `stepmath`'s baseline, with the `written` files recorded for it."""
    key = reuse.inputs_key("stepmathbench", *stepmath)
    reuse.record(*written, key)
    return key


def test_files_written_for_the_same_inputs_are_kept(
    stepmath: tuple[Baseline, BuiltDataset], written: tuple[Path, Path]
) -> None:
    baseline, dataset = stepmath
    predictions, details = written
    key = reuse.inputs_key("stepmathbench", baseline, dataset)
    assert reuse.inputs_key("stepmathbench", baseline, dataset) == key  # no clock, no path
    assert not reuse.kept(predictions, details, key)  # never stamped
    reuse.record(predictions, details, key)
    assert reuse.kept(predictions, details, key)


def test_another_dataset_baseline_or_code_is_computed_again(
    stepmath: tuple[Baseline, BuiltDataset],
    written: tuple[Path, Path],
    stamped: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    baseline, dataset = stepmath
    predictions, details = written
    rebuilt = dataclasses.replace(
        dataset, manifest={**dataset.manifest, "content_hash": "sha256:" + "0" * 64}
    )
    sources = [{**s, "revision": "f" * 40} for s in dataset.manifest["sources"]]
    moved = dataclasses.replace(dataset, manifest={**dataset.manifest, "sources": sources})
    other = dataclasses.replace(baseline, description=baseline.description + " (changed)")
    keys = {
        reuse.inputs_key("stepmathbench", baseline, rebuilt),
        reuse.inputs_key("stepmathbench", baseline, moved),
        reuse.inputs_key("stepmathbench", other, dataset),
        reuse.inputs_key("processbench", baseline, dataset),
    }
    monkeypatch.setattr(reuse, "code_fingerprint", lambda: "another mathjudge")
    keys.add(reuse.inputs_key("stepmathbench", baseline, dataset))
    assert len(keys) == 5 and stamped not in keys
    assert not any(reuse.kept(predictions, details, k) for k in keys)


def test_edited_or_missing_files_and_bad_stamps_are_computed_again(
    written: tuple[Path, Path], stamped: str
) -> None:
    predictions, details = written
    key = stamped
    assert reuse.kept(predictions, details, key)
    details.write_text('{"item_id": "a"}\n', encoding="utf-8")  # a details file appeared
    assert not reuse.kept(predictions, details, key)
    reuse.record(predictions, details, key)
    assert reuse.kept(predictions, details, key)
    original = predictions.read_bytes()
    predictions.write_bytes(original.replace(b"1", b"0"))  # edited by hand
    assert not reuse.kept(predictions, details, key)
    predictions.write_bytes(original)
    assert reuse.kept(predictions, details, key)
    stamp = reuse.stamp_path(predictions)
    for text in ("", "not json", "[1, 2]", '{"key": 3}'):
        stamp.write_text(text, encoding="utf-8")
        assert not reuse.kept(predictions, details, key)
    predictions.unlink()
    assert not reuse.kept(predictions, details, key)


def test_the_code_fingerprint_changes_with_any_file_of_the_package(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n", encoding="utf-8")
    (package / "sub" / "table.yaml").write_text("x: 1\n", encoding="utf-8")
    (package / "sub" / "__pycache__" / "a.pyc").write_bytes(b"\0")
    first = reuse.fingerprint(package)
    assert len(first) == 64 and reuse.fingerprint(package) == first
    (package / "sub" / "__pycache__" / "a.pyc").write_bytes(b"\1")  # bytecode: not the code
    assert reuse.fingerprint(package) == first
    seen = {first}
    (package / "sub" / "table.yaml").write_text("x: 2\n", encoding="utf-8")  # a data file
    seen.add(reuse.fingerprint(package))
    (package / "sub" / "table.yaml").rename(package / "table.yaml")  # the same bytes, moved
    seen.add(reuse.fingerprint(package))
    (package / "b.py").write_text("", encoding="utf-8")  # a new, empty module
    seen.add(reuse.fingerprint(package))
    assert len(seen) == 4
    assert reuse.code_fingerprint() == reuse.fingerprint(Path(reuse.__file__).parents[1])
