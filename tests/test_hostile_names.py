"""Judge names that look like another's (issue 29, 3): a second folder whose judge name differs
from "MyGrader (GPT-4o)" only by a look-alike letter, an invisible mark or a blank-looking
character passed `submit` and `check`; after `sync` the board had two identical-looking rows,
the check log printed both alike, and `results remove "MyGrader (GPT-4o)"` removed the genuine
judge. Names are now compared by their confusable skeleton (Unicode TS #39), invisible and
blank-looking characters are refused, misleading characters print as escapes, and `results
remove` picks exactly or not at all.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from test_hostile_repository import FOLDER, META, check, cli, refused, rehash
from test_hostile_repository import repo as repo  # the fixture

from conftest import write_jsonl

GENUINE = "MyGrader (GPT-4o)"
LOOK_ALIKES = {
    "cyrillic o": "MyGrader (GPT-4\u043e)",
    "greek omicron": "MyGrader (GPT-4\u03bf)",
    "hyphen U+2010": "MyGrader (GPT\u20104o)",
}
INVISIBLE = {
    "combining grapheme joiner": "MyGr\u034fader (GPT-4o)",
    "variation selector 16": "MyGrader (GPT-4o\ufe0f)",
    "khmer inherent aq": "MyGrader\u17b4 (GPT-4o)",
    "mongolian fvs1": "MyGrader (GPT-4o\u180b)",
    "hangul filler for the space": "MyGrader\u3164(GPT-4o)",
    "braille blank appended": "MyGrader (GPT-4o) \u2800",
    "no-break space": "MyGrader\u00a0(GPT-4o)",
}


def escaped(name: str) -> str:
    """A name as messages print it: quoted, its non-ASCII characters as escapes (all of
    these names' non-ASCII characters can pass for something else)."""
    return "'" + "".join(c if c.isascii() else f"\\u{ord(c):04x}" for c in name) + "'"


def test_the_skeleton_takes_every_look_alike_for_the_name() -> None:
    from mathjudge.base.names import look_alikes, shown, skeleton

    for name in [*LOOK_ALIKES.values(), *INVISIBLE.values(), "mygrader  (gpt-4o)"]:
        assert skeleton(name) == skeleton(GENUINE), name
    for other in ("MyGrader (GPT-4)", "MyGrader (GPT-4o mini)", "YourGrader (GPT-4o)"):
        assert skeleton(other) != skeleton(GENUINE), other
    assert look_alikes(GENUINE, [GENUINE, LOOK_ALIKES["cyrillic o"], "Other"]) == [
        LOOK_ALIKES["cyrillic o"]
    ]
    # Printed for a maintainer, the two never look alike; a plain name stays as it is.
    for name in (GENUINE, *LOOK_ALIKES.values()):
        assert shown(name) == escaped(name)


def _second_folder(repo: Path, judge: str, rows: list[dict]) -> Path:
    """Another organisation's folder whose meta claims `judge`, hashed as `submit` would."""
    other = repo / "submissions" / "stepmathbench" / "other"
    shutil.copytree(repo / FOLDER, other)
    (other / "meta.yaml").write_text(
        META.replace("judge: Plus one", f'judge: "{judge}"').replace("Test Lab", "Other Inc"),
        encoding="utf-8",
    )
    write_jsonl(other / "predictions.jsonl", [{"item_id": r["uid"], "score": 5} for r in rows])
    rehash(other, submitted="9999-12-31T00:00:00+00:00")
    return other


def _genuine(repo: Path) -> None:
    meta = repo / FOLDER / "meta.yaml"
    meta.write_text(META.replace("judge: Plus one", f'judge: "{GENUINE}"'), encoding="utf-8")
    rehash(repo / FOLDER)


@pytest.mark.parametrize("kind", sorted(LOOK_ALIKES))
def test_check_refuses_a_look_alike_name_naming_both_folders(
    repo: Path, datasets_dir: Path, stepmath_rows: list[dict], kind: str
) -> None:
    _genuine(repo)
    _second_folder(repo, LOOK_ALIKES[kind].replace("\\", "\\\\"), stepmath_rows)
    out = refused(
        check(repo, datasets_dir),
        "stepmathbench/other and stepmathbench/plus-one both claim the judge",
        "reads as the same name on a page",
    )
    # Both names are printed, and never alike.
    assert escaped(GENUINE) in out and escaped(LOOK_ALIKES[kind]) in out


@pytest.mark.parametrize("kind", sorted(INVISIBLE))
def test_check_refuses_an_invisible_or_blank_looking_character(
    repo: Path, datasets_dir: Path, stepmath_rows: list[dict], kind: str
) -> None:
    _genuine(repo)
    name = INVISIBLE[kind]
    other = _second_folder(repo, name.encode("unicode_escape").decode("ascii"), stepmath_rows)
    found = next(ch for ch in name if ch not in GENUINE)
    refused(
        check(repo, datasets_dir),
        f"{other / 'meta.yaml'}",
        "[judge]",
        f"contains U+{ord(found):04X}",
        "shows as nothing or as a blank",
    )


def test_submit_refuses_a_look_alike_of_a_judge_in_the_repository(
    repo: Path, datasets_dir: Path, tmp_path: Path, stepmath_rows: list[dict]
) -> None:
    _genuine(repo)
    meta = tmp_path / "impostor.yaml"
    meta.write_text(
        META.replace("judge: Plus one", f'judge: "{LOOK_ALIKES["greek omicron"]}"'),
        encoding="utf-8",
    )
    preds = write_jsonl(
        tmp_path / "p.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )
    refused(
        cli("submit", "stepmathbench", str(preds), "--meta", str(meta), "--to", str(repo),
            "--datasets", str(datasets_dir)),
        "holds the judge 'MyGrader (GPT-4o)' already",
        "'MyGrader (GPT-4\\u03bf)' reads as the same name on a page",
    )  # fmt: skip
    assert sorted(p.name for p in (repo / "submissions" / "stepmathbench").iterdir()) == [
        "plus-one"
    ]


def test_check_prints_a_misleading_name_with_escapes(repo: Path, datasets_dir: Path) -> None:
    """One folder alone may have a Cyrillic letter in its name; the log shows which."""
    meta = repo / FOLDER / "meta.yaml"
    meta.write_text(
        META.replace("judge: Plus one", f'judge: "{LOOK_ALIKES["cyrillic o"]}"'), encoding="utf-8"
    )
    rehash(repo / FOLDER)
    done = check(repo, datasets_dir)
    assert done.exit_code == 0, done.output
    assert "stepmathbench/plus-one: 'MyGrader (GPT-4\\u043e)' (version 1)" in done.output


@pytest.fixture
def two_alike(tmp_path: Path, datasets_dir: Path, stepmath_rows: list[dict]) -> Path:
    """A store holding the genuine judge and a look-alike (stored before these checks, or
    evaluated directly: a Cyrillic letter is a letter)."""
    store = tmp_path / "r.duckdb"
    for judge, score in ((GENUINE, 7), (LOOK_ALIKES["cyrillic o"], 5)):
        preds = write_jsonl(
            tmp_path / f"{score}.jsonl",
            [{"item_id": r["uid"], "score": score} for r in stepmath_rows],
        )
        done = cli("evaluate", "stepmathbench", str(preds), "--judge", judge, "--bootstrap",
                   "5", "--datasets", str(datasets_dir), "--store", str(store))  # fmt: skip
        assert done.exit_code == 0, done.output
    return store


def _judges(store: Path) -> list[tuple[str, str]]:
    with duckdb.connect(str(store), read_only=True) as con:
        return con.execute("SELECT judge, id FROM submissions ORDER BY judge").fetchall()


def test_results_remove_never_guesses_between_look_alikes(two_alike: Path) -> None:
    before = _judges(two_alike)
    out = refused(
        cli("results", "remove", GENUINE, "--store", str(two_alike), "--yes"),
        "'MyGrader (GPT-4o)': other stored judges look like this name",
        "nothing was removed",
        "Name the one to remove by its id",
    )
    for judge, sid in before:  # both listed, by id, each name as it really is
        assert f"{sid}  stepmathbench  reproduced  {escaped(judge)}" in out
    assert _judges(two_alike) == before
    genuine_id = dict(before)[GENUINE]
    done = cli("results", "remove", genuine_id, "--store", str(two_alike), "--yes")
    assert done.exit_code == 0, done.output
    assert _judges(two_alike) == [
        (LOOK_ALIKES["cyrillic o"], dict(before)[LOOK_ALIKES["cyrillic o"]])
    ]


def test_results_remove_lists_near_matches_for_a_name_that_matches_nothing(
    two_alike: Path,
) -> None:
    out = refused(
        cli("results", "remove", "MyGrader (GPT-4)", "--store", str(two_alike), "--yes"),
        "'MyGrader (GPT-4)': no stored submission has exactly this judge name or id",
        "nothing was removed; the nearest:",
        "'MyGrader (GPT-4\\u043e)'",
        "name one exactly, or by its id",
    )
    assert "'MyGrader (GPT-4o)'" in out
    assert len(_judges(two_alike)) == 2
