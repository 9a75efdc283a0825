"""Shortcut baselines (`benchmarks.shortcuts`): computed from the built items, scored by each
benchmark's own scorer like any judge, and checked here against counts made independently
from the items (which solution is longer, where the correct one is shown, how many steps)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from conftest import write_jsonl
from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks import shortcuts
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.judges.baselines import run_baseline
from mathjudge.scoring.evaluator import evaluate_file

B = 50
BUILT = ("rewardbench_math", "rewardmath", "judgebench", "processbench", "mrmath")


@pytest.fixture(scope="module")
def datasets(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real datasets of the boards whose shortcuts are checked, built from the mirror."""
    out = tmp_path_factory.mktemp("shortcut-datasets")
    for name in BUILT:
        write_dataset(registry.builder(name).build(mirror), out)
    return out


def _items(benchmark: str, datasets: Path) -> list[dict]:
    spec = registry.get(benchmark)
    return pq.read_table(
        open_dataset(spec.dataset, datasets).parquet(spec.items_config)
    ).to_pylist()


def _score(benchmark: str, key: str, datasets: Path, tmp_path: Path) -> dict:
    """The shortcut `key` of `benchmark` run on the built items and scored: overall values."""
    spec = registry.get(benchmark)
    baseline = next(b for b in spec.baselines if b.key == key)
    rows, _ = run_baseline(spec, baseline, iter(_items(benchmark, datasets)), None)
    path = write_jsonl(tmp_path / f"{benchmark}-{key}.jsonl", rows)
    result = evaluate_file(benchmark, path, baseline.judge_name, datasets_dir=datasets, n_boot=B)
    return {s.metric: s for s in result.scores if (s.scope, s.subset) == ("overall", "all")}


def test_every_board_of_the_issue_declares_its_shortcuts() -> None:
    """Each says what it does and, in a sentence, what it tells; all are baselines."""
    wanted = {
        "rewardbench_math": {"longer-solution", "shorter-solution"},
        "rewardmath": {"longer-solution", "shorter-solution"},
        "rewardmath_pairwise": {"always-a", "always-b", "longer-solution", "shorter-solution"},
        "judgebench": {"longer-response", "shorter-response", "first-shown", "second-shown"},
        "processbench": {"no-error", "first-paragraph"},
        "mathcheck_gsm": {"always-correct", "always-incorrect"},
        "mathcheck_gsm_process": {"no-error", "first-step"},
        "opc": {"always-correct", "always-incorrect"},
    }
    for name, keys in wanted.items():
        found = {b.key: b for b in registry.get(name).baselines}
        assert keys <= set(found), name
        for key in keys:
            assert found[key].kind == "baseline" and found[key].tells.endswith("."), (name, key)


def test_the_shorter_solution_wins_rewardbench_math_as_often_as_it_is_the_correct_one(
    datasets: Path, tmp_path: Path
) -> None:
    """Counted from the items: the problems whose correct (chosen) solution has fewer
    characters than the rejected one, and those with more."""
    lengths: dict[int, dict[bool, int]] = {}
    for r in _items("rewardbench_math", datasets):
        lengths.setdefault(r["problem_id"], {})[r["is_chosen"]] = sum(map(len, r["steps"]))
    shorter = sum(p[True] < p[False] for p in lengths.values())
    longer = sum(p[True] > p[False] for p in lengths.values())
    assert len(lengths) == 447 and shorter > 400  # the wrong GPT-4 solutions run longer
    short = _score("rewardbench_math", "shorter-solution", datasets, tmp_path)["accuracy"]
    long = _score("rewardbench_math", "longer-solution", datasets, tmp_path)["accuracy"]
    assert (short.value, long.value) == (shorter / 447, longer / 447)
    assert short.ci_low is not None and short.ci_low < short.value < short.ci_high  # type: ignore[operator]


def test_the_longer_solution_on_rewardmath_ranks_by_step_count(
    datasets: Path, tmp_path: Path
) -> None:
    """A problem counts when its correct solution has strictly more steps than all nine
    others (a tie fails, as for every judge)."""
    steps: dict[int, list[tuple[bool, int]]] = {}
    for r in _items("rewardmath", datasets):
        steps.setdefault(r["problem_index"], []).append((r["is_correct"], r["n_steps"]))
    wins = sum(next(n for c, n in p if c) > max(n for c, n in p if not c) for p in steps.values())
    scores = _score("rewardmath", "longer-solution", datasets, tmp_path)
    assert scores["accuracy"].value == wins / 483
    # Pairwise: "always A" wins exactly the games where the correct solution is shown first.
    games = _items("rewardmath_pairwise", datasets)
    always_a = _score("rewardmath_pairwise", "always-a", datasets, tmp_path)
    assert always_a["game_accuracy"].value == sum(g["correct_is_a"] for g in games) / len(games)
    longer = _score("rewardmath_pairwise", "longer-solution", datasets, tmp_path)
    won = sum(
        (g["n_steps_a"] > g["n_steps_b"])
        if g["correct_is_a"]
        else (g["n_steps_b"] > g["n_steps_a"])
        for g in games
    )
    assert longer["game_accuracy"].value == won / len(games)
    ties = sum(g["n_steps_a"] == g["n_steps_b"] for g in games)
    assert longer["no_verdict_rate"].value == ties / len(games) > 0


def test_position_alone_wins_no_judgebench_pair_and_length_some(
    datasets: Path, tmp_path: Path
) -> None:
    """The second game swaps the responses, so a fixed position ties every pair (wrong); the
    longer response wins the math pairs whose correct response is the longer one."""
    for key in ("first-shown", "second-shown"):
        scores = _score("judgebench", key, datasets, tmp_path)
        assert scores["accuracy"].value == scores["math_accuracy"].value == 0.0
    math = [r for r in _items("judgebench", datasets) if r["category"] == "math"]
    longer_right = sum(
        (len(r["response_a"]) > len(r["response_b"])) == (r["label"] == "A>B")
        and len(r["response_a"]) != len(r["response_b"])
        for r in math
    )
    scores = _score("judgebench", "longer-response", datasets, tmp_path)
    assert scores["math_accuracy"].value == longer_right / len(math)


def test_step_shortcuts_label_every_step_of_each_solution(datasets: Path) -> None:
    spec = registry.get("mrmath")
    items = _items("mrmath", datasets)
    first = next(b for b in spec.baselines if b.key == "first-step")
    rows, _ = run_baseline(spec, first, iter(items), None)
    for item, row in zip(items, rows, strict=True):
        assert row["step_preds"] == [False] + [True] * (item["n_steps"] - 1)
        assert row["solution_pred"] is False
    processbench = registry.get("processbench")
    none = next(b for b in processbench.baselines if b.key == "no-error")
    rows, _ = run_baseline(processbench, none, iter(_items("processbench", datasets)), None)
    assert {r["error_step"] for r in rows} == {-1}


def test_a_build_without_the_measured_column_is_refused_by_name() -> None:
    rule = shortcuts.by_length("x", "X", longer=True, text="steps", description="d", tells="t.")
    rows = [{"item_id": "0::chosen", "steps": None}]
    with pytest.raises(MathJudgeError, match=r"item '0::chosen': no 'steps' in this build"):
        shortcuts.length_score(rows, None, **rule.args)
