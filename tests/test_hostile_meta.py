"""Meta is data, validated once, the same way on every path (`submit`, `check`, `sync`,
`evaluate --meta`, expertmath packages): YAML that PyYAML turns into exceptions, duplicate
keys, non-finite or huge numbers, deep nesting and text where a boolean belongs are each a
message naming the file and the line or field, never a traceback; and whatever `check`
accepts, `sync` stores and `site build` renders.

The hostile metas are in tests/fixtures/hostile/meta/ (each a whole meta with one bad part).
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from conftest import write_jsonl
from mathjudge.api import publish_site
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.expertmath import build as expertmath
from mathjudge.cli import main
from mathjudge.repo.folder import read_meta
from mathjudge.repo.submit import submit
from mathjudge.repo.sync import sync

METAS = Path(__file__).parent / "fixtures" / "hostile" / "meta"
# fixture -> the message it must give (after "<file>"), located by line or field
LOCATED = {
    "date_feb30.yaml": ":5: not valid YAML ('2024-02-30' is not a valid date or time (day is "
    "out of range for month))",
    "date_month13.yaml": ":5: not valid YAML ('2024-13-01' is not a valid date or time (month "
    "must be in 1..12))",
    "date_offset_25h.yaml": ":5: not valid YAML ('2024-02-01 10:00:00 +25:00' is not a valid "
    "date or time",
    "int_abc.yaml": ":6: not valid YAML ('abc' is not an integer)",
    "float_abc.yaml": ":6: not valid YAML ('abc' is not a number)",
    "config_inf_nan.yaml": ":6: not valid YAML ('.inf' is not a finite number",
    "config_overflow.yaml": ":6: not valid YAML ('1.0e+999' is not a finite number",
    "int_5000_digits.yaml": ":6: not valid YAML ('9999999999999999999999999999999999999999…' "
    "is beyond ±2^53",
    "hex_4000_digits.yaml": ":6: not valid YAML ('0xffffffffffffffffffffffffffffffffffffff…' "
    "is beyond ±2^53",
    "judge_twice.yaml": ":10: not valid YAML (key 'judge' given twice (first on line 1))",
    "nested_1000.yaml": ":10: not valid YAML (nested deeper than 32 levels)",
    # located by the line of the key, with a valid value to copy
    "open_weights_text.yaml": ":7 [open_weights]: Input should be a valid boolean (got "
    "'false'); e.g. open_weights: true",
    "date_seconds.yaml": ":5 [date]: a date is written YYYY-MM-DD (got 1700000000); e.g. "
    "date: '2025-06-01'",
}
B = 5


def test_every_fixture_is_listed() -> None:
    assert sorted(p.name for p in METAS.iterdir()) == sorted(LOCATED)


def clean_exit_1(result: Result) -> str:
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.fixture(scope="module")
def predictions(stepmath_rows: list[dict], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("preds") / "p.jsonl"
    return write_jsonl(path, [{"item_id": r["uid"], "score": 5} for r in stepmath_rows[:100]])


@pytest.mark.parametrize("name", sorted(LOCATED))
def test_submit_and_check_locate_each_hostile_meta(
    name: str, predictions: Path, datasets_dir: Path, tmp_path: Path
) -> None:
    meta = METAS / name
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    args = ["submit", "stepmathbench", str(predictions), "--meta", str(meta), "--to", str(repo),
            "--allow-partial", "--datasets", str(datasets_dir)]  # fmt: skip
    assert f"{meta}{LOCATED[name]}" in clean_exit_1(CliRunner().invoke(main, args))
    assert list((repo / "submissions").iterdir()) == []
    # The same meta in a folder of a pull request (its checksum recorded, as an attacker can).
    good = tmp_path / "good.yaml"
    good.write_text(_honest(), encoding="utf-8")
    submit("stepmathbench", predictions, good, repo, datasets_dir=datasets_dir,
           allow_partial=True)  # fmt: skip
    (folder,) = (repo / "submissions" / "stepmathbench").iterdir()
    shutil.copy(meta, folder / "meta.yaml")
    record = json.loads((folder / "submission.json").read_text())
    record["files"]["meta.yaml"] = hashlib.sha256(meta.read_bytes()).hexdigest()
    (folder / "submission.json").write_text(json.dumps(record))
    check = CliRunner().invoke(main, ["repo", "check", str(repo), "--datasets",
                                      str(datasets_dir), "--bootstrap", str(B)])  # fmt: skip
    assert f"{folder / 'meta.yaml'}{LOCATED[name]}" in clean_exit_1(check)


def _honest() -> str:
    """A valid meta with the same judge as a hostile fixture."""
    return (
        "judge: Hostile\nmodel: none\norganization: Test Lab\nlink: https://example.org/judge\n"
        "date: 2025-06-01\nconfig: {rule: r}\nopen_weights: null\nlicense: CC0-1.0\n"
        "contact: lab@example.org\n"
    )


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{"notes": NaN}', "the value at notes is not a finite number (NaN or infinite)"),
        ('{"notes": 1e999}', "the value at notes is not a finite number (NaN or infinite)"),
        ('{"n": ' + "9" * 5000 + "}", "the value at n is not a finite number"),
        ('{"n": 9007199254740993}', "the value at n is beyond ±2^53 (9007199254740992)"),
    ],
)
def test_evaluate_meta_with_numbers_no_store_can_hold(
    text: str, found: str, predictions: Path, datasets_dir: Path, tmp_path: Path
) -> None:
    """Stored, `{"notes": NaN}` failed every later `site build` of that store."""
    meta = tmp_path / "meta.json"
    meta.write_text(text)
    store = tmp_path / "results.duckdb"
    result = CliRunner().invoke(main, [
        "evaluate", "stepmathbench", str(predictions), "--judge", "j", "--meta", str(meta),
        "--allow-partial", "--store", str(store), "--bootstrap", str(B), "--quiet",
        "--datasets", str(datasets_dir),
    ])  # fmt: skip
    assert f"{meta}: meta: {found}" in clean_exit_1(result)
    assert not store.exists()


# --- submission.json: a typed record -----------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "found"),
    [
        ({"version": None}, "[version]: missing (a required field)"),
        ({"version": "1\n::error::x"}, "[version]: Input should be a valid integer"),
        (
            {"options": {"allow_partial": "false"}},
            "[options.allow_partial]: Input should be a valid boolean",
        ),
        ({"history": [{"version": 1}]}, "[history.0.submitted]: missing (a required field)"),
    ],
)
def test_a_submission_record_is_typed_and_strict(
    change: dict, found: str, stepmath_rows: list[dict], datasets_dir: Path, tmp_path: Path
) -> None:
    """A record without `version` gave `KeyError: 'version'`; `"allow_partial": "false"` (a
    text) let half the items pass as a partial submission."""
    full = write_jsonl(tmp_path / "p.jsonl", [{"item_id": r["uid"], "score": 5}
                                              for r in stepmath_rows])  # fmt: skip
    (tmp_path / "m.yaml").write_text(_honest(), encoding="utf-8")
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    submit("stepmathbench", full, tmp_path / "m.yaml", repo, datasets_dir=datasets_dir)
    folder = repo / "submissions" / "stepmathbench" / "hostile"
    half = folder / "predictions.jsonl"
    half.write_text("".join(half.read_text().splitlines(keepends=True)[:500]))
    record = json.loads((folder / "submission.json").read_text())
    record["files"]["predictions.jsonl"] = hashlib.sha256(half.read_bytes()).hexdigest()
    for key, value in change.items():
        if value is None:
            record.pop(key)
        else:
            record[key] = value
    (folder / "submission.json").write_text(json.dumps(record))
    result = CliRunner().invoke(main, ["repo", "check", str(repo), "--datasets",
                                       str(datasets_dir), "--bootstrap", str(B)])  # fmt: skip
    assert f"{folder / 'submission.json'} {found}" in clean_exit_1(result)


# --- expertmath packages -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "text", "found"),
    [
        (
            "package.yaml",
            "name: p\nversion: 2024-02-30\nlicense: cc0-1.0\n",
            ":2: not valid YAML ('2024-02-30' is not a valid date or time",
        ),
        (
            "package.yaml",
            "name: p\nname: q\nversion: '1'\nlicense: cc0-1.0\n",
            ":2: not valid YAML (key 'name' given twice (first on line 1))",
        ),
        (
            "bose-integral/problem.yaml",
            "statement: !!int abc\n",
            ":1: not valid YAML ('abc' is not an integer)",
        ),
        (
            "bose-integral/problem.yaml",
            "statement: " + "[" * 1000 + "]" * 1000 + "\n",
            ":1: not valid YAML (nested deeper than 32 levels)",
        ),
    ],
)
def test_an_expertmath_package_with_hostile_yaml_is_a_located_error(
    file: str, text: str, found: str, tmp_path: Path
) -> None:
    package = tmp_path / "package"
    shutil.copytree(expertmath.EXAMPLE_PACKAGE, package)
    (package / file).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["build", "expertmath", "--source-dir", str(package),
                                       "--out", str(tmp_path / "out")])  # fmt: skip
    assert f"{package / file}{found}" in clean_exit_1(result)


# --- whatever check accepts, sync stores and the site renders ------------------------------------

EDGES: list[dict] = [
    {
        "config": {
            "top": 2**53,
            "bottom": -(2**53),
            "tiny": 5e-324,
            "huge": 1.7e308,
            "minus_zero": -0.0,
            "flag": False,
            "empty": "",
        }
    },
    {"prompt": "Grade the proof.\n\tStep 1: read it.\n" + "x" * 9_000},
    {"judge": "Ｊudge ü 数学 عربي ✓ " + "j" * 150, "config": {"temperature": 0.0}},
    {"date": "0001-01-01", "open_weights": True, "model_version": "v" * 5_000},
    {"date": "9999-12-31", "link": "https://example.org/" + "a" * 5_000},
    {"config": {f"k{i}": i for i in range(200)}},
    {"kind": "process_reward_model", "converted_from": "https://example.org/repo@abc, out/"},
    {"judge": "<script>alert(1)</script>", "organization": '"><img src=x onerror=alert(2)>'},
    {"config": {"notes": "$x^{x^{x^{x}}}$ \\(\\frac{1}{2}\\)"}},
]


def _metas(tmp_path: Path) -> list[tuple[str, bytes]]:
    """Every fixture meta, and metas at the edges of what the schema allows, as files."""
    base = yaml.safe_load(_honest())
    out = [(p.name, p.read_bytes()) for p in sorted(METAS.iterdir())]
    for i, edge in enumerate(EDGES):
        meta = {**base, "judge": f"Edge {i}", **edge}
        out.append((f"edge-{i}.yaml", yaml.safe_dump(meta, allow_unicode=True).encode()))
    return out


@pytest.mark.slow
def test_every_accepted_meta_syncs_and_renders(
    predictions: Path, datasets_dir: Path, tmp_path: Path
) -> None:
    """`config: {samples: .inf, t2: .nan}` passed check and was stored by sync, after which
    every `site build` of that store failed; a 4,000-digit hex integer failed sync."""
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    accepted = []
    for number, (name, data) in enumerate(_metas(tmp_path)):
        path = tmp_path / f"meta-{number}-{name}"
        path.write_bytes(data)
        try:
            meta = read_meta(path)
        except MathJudgeError:
            continue
        submit("stepmathbench", predictions, path, repo, datasets_dir=datasets_dir,
               slug=f"m{number}", allow_partial=True)  # fmt: skip
        accepted.append(meta.judge)
    assert len(accepted) == len(EDGES)  # every fixture refused, every edge accepted
    store = tmp_path / "results.duckdb"
    report = sync(repo, store, datasets_dir, n_boot=B)
    assert len(report.evaluated) == len(accepted)
    skipped: list[str] = []
    index = publish_site(store, tmp_path / "site", on_skip=skipped.append)
    assert skipped == []
    document = json.loads((index.parent / "data" / "leaderboard.json").read_text())
    (bench,) = [b for b in document["benchmarks"] if b["name"] == "stepmathbench"]
    assert sorted(s["judge"] for s in bench["submissions"]) == sorted(accepted)
    for sub in bench["submissions"]:
        meta = json.loads((index.parent / "data" / sub["meta_file"]).read_text())
        numbers = [v for v in (meta.get("config") or {}).values() if isinstance(v, float)]
        assert all(math.isfinite(v) for v in numbers)


META = """judge: Constant (full marks)
model: none
organization: mathjudge (a deterministic baseline)
link: https://arxiv.org/abs/2503.10105
date: '2026-11-28'
config:
  baseline: constant
  rule: {rule}
  note: {rule}
open_weights: null
license: CC0-1.0
contact: the mathjudge maintainers
kind: baseline
"""


def test_a_meta_parsed_again_is_a_copy_and_large_metas_are_not_remembered() -> None:
    """parse_meta remembers metas it parsed (the demo submits 134 folders, each checked against
    its benchmark's others), but never hands out one object twice, nor keeps a large meta."""
    from mathjudge.repo.folder import _parsed_meta, parse_meta

    _parsed_meta.cache_clear()
    data = META.format(rule="Gives every solution 10/10.").encode()
    first, again = parse_meta(data, "a/meta.yaml"), parse_meta(data, "a/meta.yaml")
    assert (_parsed_meta.cache_info().misses, _parsed_meta.cache_info().hits) == (1, 1)
    assert first == again and first is not again and first.config is not again.config
    assert first.config is not None and first.config["rule"] == "Gives every solution 10/10."
    first.config["rule"] = "changed by a caller"
    assert parse_meta(data, "a/meta.yaml").config == {
        "baseline": "constant",
        "rule": "Gives every solution 10/10.",
        "note": "Gives every solution 10/10.",
    }
    large = META.format(rule="x" * 9_000).encode()  # each value within the 10,000 allowed
    assert len(large) > 16 * 1024
    before = _parsed_meta.cache_info().currsize
    assert parse_meta(large, "b/meta.yaml").config == {
        "baseline": "constant",
        "rule": "x" * 9_000,
        "note": "x" * 9_000,
    }
    assert _parsed_meta.cache_info().currsize == before == 1
    with pytest.raises(MathJudgeError, match=r"^c/meta.yaml:2: not valid YAML"):
        parse_meta(b"judge: [unclosed\n", "c/meta.yaml")  # a refusal is never remembered
    assert _parsed_meta.cache_info().currsize == 1
