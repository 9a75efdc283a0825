"""RewardBench-math (the math-prm pairs as the RewardMATH authors publish them): the build, the
strict chosen-over-rejected rule on hand-computed cases, and the 13 published judges, each
scored against an independent count from its raw file."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks.published import write_all
from mathjudge.benchmarks.rewardbench_math import build as rewardbench
from mathjudge.benchmarks.rewardbench_math import outputs
from mathjudge.dataio.writer import Build, CardInfo, Table, write_dataset
from mathjudge.scoring.evaluator import evaluate_file

RESULTS = Path("rewardmath") / "results" / "Rewardbench"


@pytest.fixture(scope="module")
def built(mirror: Path) -> Build:
    return rewardbench.build(mirror)


@pytest.fixture(scope="module")
def real_datasets(built: Build, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rewardbench")
    write_dataset(built, out)
    return out


def test_real_build(built: Build) -> None:
    (table,) = built.tables
    assert len(table.rows) == 894
    assert Counter(r["solution_type"] for r in table.rows) == {"chosen": 447, "rejected": 447}
    assert table.rows[0]["item_id"] == "0::chosen" and table.rows[1]["item_id"] == "0::rejected"
    assert all(r["steps"] for r in table.rows)  # the texts, split into steps
    assert {r["level"] for r in table.rows} == {1, 2, 3, 4, 5}
    assert built.card_info.license == "odc-by"


def test_builder_refuses_a_problem_without_its_pair(mirror: Path, tmp_path: Path) -> None:
    rows = json.loads((mirror / RESULTS / "rewardbench_Math_Shepherd.json").read_text())
    with pytest.raises(MathJudgeError, match=r"no solution 0::rejected"):
        rewardbench.solutions(
            [rewardbench.Record(r, f"x row {i}") for i, r in enumerate(rows) if i != 1]
        )
    rows[5]["solution_type"] = "other"
    with pytest.raises(MathJudgeError, match=r"x row 5 \[solution_type\]"):
        rewardbench.solutions([rewardbench.Record(r, f"x row {i}") for i, r in enumerate(rows)])


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = [
        {
            "item_id": f"{p}::{kind}",
            "problem_id": p,
            "solution_type": kind,
            "is_chosen": kind == "chosen",
            "label_name": "correct" if kind == "chosen" else "incorrect",
            "problem": f"problem {p}",
            "subject": "Algebra" if p < 2 else "Geometry",
            "level": p + 1,
            "steps": ["one step"],
        }
        for p in range(4)
        for kind in ("chosen", "rejected")
    ]
    out = tmp_path_factory.mktemp("tiny")
    write_dataset(
        Build(
            benchmark="rewardbench_math",
            version="test",
            tables=(Table("solutions", "test", rewardbench.FEATURES, rows),),
            card_info=CardInfo("tiny", "mit", ("en",), ()),
            card_body="tiny",
            sources=(),
        ),
        out,
    )
    return out


def test_chosen_over_rejected_strictly_by_hand(tiny: Path, tmp_path: Path) -> None:
    """P0 2 > 1 right; P1 1 = 1 a tie, wrong; P2 0 < 3 wrong; P3 5 > -5 right: 2/4 overall,
    Algebra (P0, P1) 1/2, Geometry (P2, P3) 1/2, level 4 (P3) 1."""
    scores = {0: (2, 1), 1: (1, 1), 2: (0, 3), 3: (5, -5)}
    rows = [
        {"item_id": f"{p}::{kind}", "score": s}
        for p, pair in scores.items()
        for kind, s in zip(("chosen", "rejected"), pair, strict=True)
    ]
    result = evaluate_file(
        "rewardbench_math",
        write_jsonl(tmp_path / "p.jsonl", rows),
        "j",
        datasets_dir=tiny,
        n_boot=20,
    )
    got = {(s.scope, s.subset, s.metric): s.value for s in result.scores}
    assert got[("overall", "all", "accuracy")] == 0.5
    assert (
        got[("subject", "Algebra", "accuracy")] == got[("subject", "Geometry", "accuracy")] == 0.5
    )
    assert got[("level", "4", "accuracy")] == 1.0
    assert ("overall", "all", "mrr") not in got  # two solutions per problem: no MRR here


def test_a_one_step_prm_under_every_aggregation(tiny: Path, tmp_path: Path) -> None:
    """One step each: every aggregation but the odds keeps the step's score, and odds keep the
    order; so all eight accuracies agree (3 of 4: P1's 0.5 = 0.5 is a tie)."""
    steps = {0: (0.9, 0.2), 1: (0.5, 0.5), 2: (0.7, 0.6), 3: (0.4, 0.1)}
    rows = [
        {"item_id": f"{p}::{kind}", "step_scores": [s]}
        for p, pair in steps.items()
        for kind, s in zip(("chosen", "rejected"), pair, strict=True)
    ]
    result = evaluate_file(
        "rewardbench_math",
        write_jsonl(tmp_path / "p.jsonl", rows),
        "j",
        datasets_dir=tiny,
        n_boot=20,
    )
    overall = {s.metric: s.value for s in result.scores if s.scope == "overall"}
    accuracies = {k: v for k, v in overall.items() if k.startswith("accuracy")}
    assert len(accuracies) == 9 and set(accuracies.values()) == {0.75}


@pytest.fixture(scope="module")
def converted(mirror: Path) -> list:
    return outputs.import_outputs("rewardbench_math", mirror)


def _independent_accuracy(mirror: Path, key: str) -> float:
    """Chosen strictly above rejected, counted straight from the raw file (the product of step
    scores for a process reward model)."""
    rows = json.loads((mirror / RESULTS / f"rewardbench_{key}.json").read_text())
    if "output" in rows[0]:
        prod = {
            (r["problem_id"], r["solution_type"]): math.prod(r["output"]["step_scores"])
            for r in rows
        }
        wins = sum(prod[(p, "chosen")] > prod[(p, "rejected")] for p in range(447))
    else:
        wins = sum(r["score"][0] > r["score"][1] for r in rows)
    return wins / 447


def test_every_judge_scores_as_its_raw_file_says(
    converted: list, mirror: Path, real_datasets: Path, tmp_path: Path
) -> None:
    assert len(converted) == 13 == len({c.judge for c in converted})
    assert Counter(c.kind for c in converted) == {"reward_model": 9, "process_reward_model": 4}
    keys = {j.judge: j.key for j in outputs.JUDGES}
    for done, c in zip(write_all(converted, tmp_path), converted, strict=True):
        result = evaluate_file(
            "rewardbench_math", done.predictions, c.judge, datasets_dir=real_datasets, n_boot=20
        )
        ours = next(
            s.value for s in result.scores if (s.scope, s.metric) == ("overall", "accuracy")
        )
        assert ours == pytest.approx(_independent_accuracy(mirror, keys[c.judge])), c.judge


def test_classifier_files_join_by_problem_text(mirror: Path, tmp_path: Path) -> None:
    """Rows come in other orders in other files; a row whose problem is unknown is refused."""
    items = rewardbench.solutions(
        rewardbench.read_json_array(mirror / "rewardmath" / rewardbench.ITEMS_FILE)
    )
    rows = json.loads((mirror / RESULTS / "rewardbench_beaver.json").read_text())
    rows.reverse()
    shuffled = tmp_path / "x.json"
    shuffled.write_text(json.dumps(rows))
    beaver = next(j for j in outputs.JUDGES if j.key == "beaver")
    again = outputs.convert(beaver, items, shuffled)
    direct = outputs.convert(beaver, items, mirror / RESULTS / "rewardbench_beaver.json")
    assert again.rows == direct.rows
    rows[10]["problem"] = "not a problem of the set"
    shuffled.write_text(json.dumps(rows))
    with pytest.raises(ValidationFailed, match=r"x\.json row 10 \[problem\]"):
        outputs.convert(beaver, items, shuffled)
