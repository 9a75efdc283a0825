"""The versioning rule (docs/versioning.md): what a change is, which version it needs, and the
build command refusing a changed build that keeps its version."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner
from datasets import Value

from mathjudge import registry
from mathjudge.base.config import doc_url
from mathjudge.base.errors import MathJudgeError
from mathjudge.cli import main
from mathjudge.dataio import releases
from mathjudge.dataio.releases import bumped, classify, verdict, with_release
from mathjudge.dataio.writer import Build, CardInfo, Table

FEATURES = datasets.Features(
    {"item_id": Value("string"), "question": Value("string"), "label": Value("bool")}
)
ROWS = [
    {"item_id": "a", "question": "1+1?", "label": True},
    {"item_id": "b", "question": "2+2?", "label": False},
    {"item_id": "c", "question": "3+3?", "label": True},
]
PINS = Path("x/source.yaml")
WHERE = Path("x/releases.json")


def build(rows=ROWS, features=FEATURES, body="A card.", version="1.0.0") -> Build:
    return Build(
        benchmark="toy",
        version=version,
        tables=(Table("items", "test", features, [dict(r) for r in rows]),),
        card_info=CardInfo("Toy", "mit", ("en",), ("text-classification",)),
        card_body=body,
        sources=(),
    )


HISTORY = with_release(None, build())


def change(new: Build) -> releases.Change:
    return classify(HISTORY, new)


def test_the_same_build_is_no_change() -> None:
    assert change(build()) == releases.Change("none", ())
    assert verdict(build(), HISTORY, PINS, WHERE) == "version 1.0.0, as released"


def test_a_card_only_change_is_a_patch() -> None:
    assert change(build(body="A better card.")).reasons == (("patch", "data card changed"),)


def test_added_rows_and_fields_are_minor() -> None:
    more = [*ROWS, {"item_id": "d", "question": "4+4?", "label": True}]
    assert change(build(rows=more)).reasons == (("minor", "items/test: 1 row(s) added (d)"),)
    named = datasets.Features({**FEATURES, "label_name": Value("string")})
    rows = [{**r, "label_name": "correct" if r["label"] else "incorrect"} for r in ROWS]
    got = change(build(rows=rows, features=named))
    # The row hashes were taken over the released fields, so the old rows still match.
    assert got.reasons == (("minor", "items/test: field(s) label_name added"),)


def test_changed_labels_and_removed_rows_are_major() -> None:
    flipped = [ROWS[0], {**ROWS[1], "label": True}, ROWS[2]]
    assert change(build(rows=flipped)).reasons == (
        ("major", "items/test: values of 1 row(s) changed in field(s) label (b)"),
    )
    assert change(build(rows=ROWS[:2])).reasons == (("major", "items/test: 1 row(s) removed (c)"),)
    fewer = datasets.Features({k: v for k, v in FEATURES.items() if k != "question"})
    rows = [{k: v for k, v in r.items() if k != "question"} for r in ROWS]
    assert change(build(rows=rows, features=fewer)).level == "major"


def test_reordered_rows_are_minor_and_several_changes_take_the_largest_level() -> None:
    assert change(build(rows=ROWS[::-1])).reasons == (("minor", "items/test: row order changed"),)
    both = [{**ROWS[0], "question": "one plus one?"}, ROWS[1], ROWS[2]]
    both.append({"item_id": "e", "question": "5+5?", "label": False})
    got = change(build(rows=both, body="Another card."))
    assert got.level == "major"
    # The card follows any data change (it states row counts), so it is no reason of its own.
    assert [level for level, _ in got.reasons] == ["major", "minor"]


def test_rows_without_a_key_compare_as_a_multiset() -> None:
    keyless = datasets.Features({"question": Value("string"), "label": Value("bool")})
    rows = [{"question": r["question"], "label": r["label"]} for r in ROWS]
    history = with_release(None, build(rows=rows, features=keyless))
    edited = [rows[0], {**rows[1], "label": True}, rows[2]]
    got = classify(history, build(rows=edited, features=keyless))
    assert got.reasons == (
        ("major", "items/test: 1 row(s) removed or changed"),
        ("minor", "items/test: 1 row(s) added"),
    )


def test_next_versions() -> None:
    assert [bumped("1.4.2", lvl) for lvl in ("patch", "minor", "major")] == [
        "1.4.3",
        "1.5.0",
        "2.0.0",
    ]


def test_a_changed_build_keeping_its_version_fails_naming_the_version_to_choose() -> None:
    flipped = [ROWS[0], {**ROWS[1], "label": True}, ROWS[2]]
    with pytest.raises(MathJudgeError) as info:
        verdict(build(rows=flipped), HISTORY, PINS, WHERE)
    assert str(info.value) == (
        "toy: this build differs from release 1.0.0 (recorded in x/releases.json) but is "
        "labelled version 1.0.0:\n"
        "  - major: items/test: values of 1 row(s) changed in field(s) label (b)\n"
        f"This is a major change (the rule: {doc_url('versioning.md')}): set version: "
        '"2.0.0" in x/source.yaml'
    )


@pytest.mark.parametrize(
    ("version", "ok"),
    [("1.0.1", False), ("1.1.0", True), ("2.0.0", True), ("1.2.0", False), ("0.9.0", False)],
)
def test_a_new_version_must_be_a_next_one_large_enough(version: str, ok: bool) -> None:
    more = [*ROWS, {"item_id": "d", "question": "4+4?", "label": True}]  # a minor change
    new = build(rows=more, version=version)
    if ok:
        assert verdict(new, HISTORY, PINS, WHERE).startswith(f"version {version}, new after")
    else:
        with pytest.raises(MathJudgeError, match=r"1\.1\.0|not after"):
            verdict(new, HISTORY, PINS, WHERE)


def test_a_new_version_with_nothing_changed_is_refused() -> None:
    with pytest.raises(MathJudgeError, match=r"nothing changed since release 1\.0\.0"):
        verdict(build(version="1.0.1"), HISTORY, PINS, WHERE)


def test_recording_keeps_every_release_and_the_latest_detail_only() -> None:
    more = [*ROWS, {"item_id": "d", "question": "4+4?", "label": True}]
    history = with_release(HISTORY, build(rows=more, version="1.1.0"))
    assert [r["version"] for r in history["releases"]] == ["1.0.0", "1.1.0"]
    assert history["latest"]["version"] == "1.1.0"
    assert list(history["latest"]["tables"]["items/test"]["rows"]) == ["a", "b", "c", "d"]
    assert verdict(build(rows=more, version="1.1.0"), history, PINS, WHERE).endswith("released")
    with pytest.raises(MathJudgeError, match=r"only a version after the latest release 1\.1\.0"):
        with_release(history, build(version="1.0.5"))


# ---- the real datasets -------------------------------------------------------------------------

# Every dataset with recorded releases (its folder's releases.json), from the registry.
RECORDED = [n for n in registry.dataset_names() if releases.load_history(n) is not None]


def test_the_recorded_datasets_are_found() -> None:
    assert {"stepmathbench", "opc", "arxivmathgradingbench", "mrmath", "judgebench"} <= set(
        RECORDED
    )


@pytest.mark.parametrize("name", RECORDED)
def test_every_recorded_dataset_rebuilds_as_its_latest_release(name: str, all_builds) -> None:
    history = releases.load_history(name)
    assert history is not None
    built = all_builds[name]
    assert built.version == history["latest"]["version"]
    assert releases.check(built) == f"version {built.version}, as released"


def test_build_refuses_a_changed_source_that_keeps_its_version(
    mirror: Path, tmp_path: Path
) -> None:
    """A relabelled step (correct-but-meaningless -> incorrect keeps the gold score) from a
    new upstream revision: the build fails before writing, with the version to choose."""
    source = tmp_path / "upstream"
    shutil.copytree(mirror / "stepmathbench", source)
    lines = (source / "stepmath.jsonl").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        row = json.loads(line)
        if "1(0)" in row["gold_step_score"]:
            row["gold_step_score"][row["gold_step_score"].index("1(0)")] = "0"
            lines[i] = json.dumps(row, ensure_ascii=False)
            uid = row["uid"]
            break
    (source / "stepmath.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "datasets"
    args = ["build", "stepmathbench", "--source-dir", str(source), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--revision", "f" * 40])
    assert result.exit_code == 1, result.output
    assert f"stepmathbench at {'f' * 40}: to pin it, set in" in result.output
    assert f"revision: {'f' * 40}" in result.output
    assert "major: solutions/test: values of 1 row(s) changed in field(s) step_labels" in (
        result.output
    )
    assert f"({uid})" in result.output
    rule = doc_url("versioning.md")
    assert f'This is a major change (the rule: {rule}): set version: "2.0.0"' in result.output
    assert not out.exists()
    # Without --revision the edited file does not even match the pinned sha256.
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "does not match the pinned" in result.output


def test_revision_applies_to_upstream_sources_only_and_is_never_pushed(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["build", "expertmath", "--revision", "abc"])
    assert result.exit_code == 1 and "--revision does not apply" in result.output
    result = CliRunner().invoke(
        main, ["build", "opc", "--revision", "abc", "--push-to-hub", "me/opc"]
    )
    assert result.exit_code == 2 and "never pushed" in result.output
