"""A demo baseline's predictions are reused only while the data, the baseline, the code and the
written files are the ones they were computed from (mathjudge/judges/reuse.py); the demo's own
rerun is tests/test_cli.py::test_demo_from_a_clean_folder."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import pytest

from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
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
    stepmath: tuple[Baseline, BuiltDataset], written: tuple[Path, Path], tmp_path: Path
) -> None:
    baseline, dataset = stepmath
    predictions, details = written
    key = reuse.inputs_key("stepmathbench", baseline, dataset)
    # The same dataset built in another folder (the manifest names no local path) is the same.
    elsewhere = dataclasses.replace(dataset, root=tmp_path / "elsewhere" / "stepmathbench")
    assert reuse.inputs_key("stepmathbench", baseline, elsewhere) == key
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
    (first, *rest) = dataset.manifest["sources"]
    inputs = [{**first["inputs"][0], "sha256": "0" * 64}, *first["inputs"][1:]]
    changed = [{**first, "inputs": inputs}, *rest]  # a source file with other bytes
    edited = dataclasses.replace(dataset, manifest={**dataset.manifest, "sources": changed})
    other = dataclasses.replace(baseline, description=baseline.description + " (changed)")
    keys = {
        reuse.inputs_key("stepmathbench", baseline, rebuilt),
        reuse.inputs_key("stepmathbench", baseline, moved),
        reuse.inputs_key("stepmathbench", baseline, edited),
        reuse.inputs_key("stepmathbench", other, dataset),
        reuse.inputs_key("processbench", baseline, dataset),
    }
    monkeypatch.setattr(reuse, "code_fingerprint", lambda: "another mathjudge")
    keys.add(reuse.inputs_key("stepmathbench", baseline, dataset))
    assert len(keys) == 6 and stamped not in keys
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


def test_stamps_links_folders_and_fifos_it_did_not_write_mean_compute_again(
    written: tuple[Path, Path], stamped: str, tmp_path: Path
) -> None:
    """Whatever sits where the stamp or the files should be, `kept` answers no without a
    traceback or a hang, and `record` names a stamp it cannot write."""
    predictions, details = written
    stamp = reuse.stamp_path(predictions)
    good = stamp.read_bytes()
    hostile = {
        "nested": b"[" * 4000,  # within the size limit, deeper than json can recurse
        "large": good + b" " * reuse.STAMP_MAX_BYTES,
        "not utf-8": b"\xff\xfe{}",
    }
    for data in hostile.values():
        stamp.write_bytes(data)
        assert not reuse.kept(predictions, details, stamped)
    stamp.unlink()
    (tmp_path / "real.json").write_bytes(good)
    stamp.symlink_to(tmp_path / "real.json")  # a link: not a stamp this module wrote
    assert not reuse.kept(predictions, details, stamped)
    stamp.unlink()
    stamp.mkdir()
    assert not reuse.kept(predictions, details, stamped)
    with pytest.raises(MathJudgeError, match=r"rule-em\.inputs\.json: cannot write the stamp"):
        reuse.record(predictions, details, stamped)
    stamp.rmdir()
    stamp.write_bytes(good)
    assert reuse.kept(predictions, details, stamped)
    details.mkdir()  # recorded as absent; a folder is not absent
    assert not reuse.kept(predictions, details, stamped)
    details.rmdir()
    original = predictions.read_bytes()
    predictions.unlink()
    os.mkfifo(predictions)  # opening it would block until a writer came
    assert not reuse.kept(predictions, details, stamped)
    predictions.unlink()
    predictions.write_bytes(original)
    assert reuse.kept(predictions, details, stamped)


def test_every_registered_baseline_has_a_key() -> None:
    """Each baseline's declaration is JSON as it is (no argument turned into a key by its
    `str`), and no two baselines share a key."""
    dataset = BuiltDataset("x", Path("x"), {"content_hash": "sha256:" + "1" * 64, "sources": []})
    keys = {
        reuse.inputs_key(spec.name, baseline, dataset)
        for spec in registry.specs()
        for baseline in spec.baselines
    }
    assert len(keys) == sum(len(spec.baselines) for spec in registry.specs()) >= 40


def test_a_distribution_in_the_working_folder_is_not_installed_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python -m mathjudge demo` puts the working folder on the path: a `*.dist-info` there
    (even one with unreadable metadata) neither changes the fingerprint nor breaks it."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "a.py").write_text("A = 1\n", encoding="utf-8")
    first = reuse.fingerprint(package)
    work = tmp_path / "work"
    (work / "stray-1.0.dist-info").mkdir(parents=True)
    (work / "stray-1.0.dist-info" / "METADATA").write_bytes(b"Name: \xff\xfe\n")
    monkeypatch.chdir(work)
    monkeypatch.setattr(sys, "path", ["", str(work), *sys.path])
    assert reuse.fingerprint(package) == first
