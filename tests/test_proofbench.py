"""ProofBench: the builder on a fixture snapshot in the upstream schema, the grading metrics
against hand-computed values and scipy, run ensembles, exact best-of-n, and the offline error."""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import datasets
import numpy as np
import pytest
from click.testing import CliRunner
from huggingface_hub import constants
from standins import NetworkGuard, closed_port_url

from conftest import write_jsonl
from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.proofbench import build as proofbench
from mathjudge.cli import main
from mathjudge.dataio.sources import sha256_file
from mathjudge.dataio.writer import write_dataset
from mathjudge.scoring.evaluator import evaluate_file

FIXTURES = Path(__file__).parent / "fixtures"
G = ("o3", "gemini-2.5-pro", "DeepSeek-R1-0528")
# Expert ratings in the fixture, per problem, in generator order G.
EXPERT = {
    "USAMO-2025-2": (7, 5, 2),
    "IMO-2024-1": (6, 6, 1),  # a tie
    "PUTNAM-2023-A2": (0, 0, 0),  # all equal: tau-b undefined
    "EGMO-2022-3": (3, 7, 3),  # a tie
    "APMO-2024-4": (2, 4, 1),
    "USATST-2025-1": (5, 1, 0),
}
CONTEST = {
    "USAMO-2025-2": "USAMO",
    "IMO-2024-1": "IMO",
    "PUTNAM-2023-A2": "PUTNAM",
    "EGMO-2022-3": "EGMO",
    "APMO-2024-4": "APMO",
    "USATST-2025-1": "USA TST",
}
# Best-of-n: expert ratings of samples 0..3 (all by o3).
BON_EXPERT = {
    "USAMO-2025-1": (7, 2, 5, 0),
    "IMO-2025-3": (1, 1, 4, 6),
    "USAMO-2025-5": (3, 3, 3, 3),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The datasets folder holding the fixture build."""
    out = tmp_path_factory.mktemp("datasets")
    write_dataset(proofbench.build(FIXTURES), out)
    return out


def grading_rows(preds: dict[str, tuple[float, ...]]) -> list[dict]:
    return [
        {"item_id": f"{p}::{g}", "score": s}
        for p, scores in preds.items()
        for g, s in zip(G, scores, strict=True)
    ]


def evaluate(datasets_dir: Path, tmp_path: Path, bench: str, rows: list[dict], **options):
    path = write_jsonl(tmp_path / f"{bench}.jsonl", rows)
    return evaluate_file(bench, path, "j", datasets_dir=datasets_dir, n_boot=50, **options)


def values(result) -> dict[tuple[str, str, str], float | None]:
    return {(s.scope, s.subset, s.metric): s.value for s in result.scores}


# --- builder ---------------------------------------------------------------------------------


def test_build_configs_rows_ids_and_manifest(built: Path) -> None:
    root = built / "proofbench"
    manifest = json.loads((root / "manifest.json").read_text())
    assert {f["config"]: f["rows"] for f in manifest["files"]} == {
        "grading": 18,
        "problems": 6,
        "best_of_n": 12,
    }
    (source,) = manifest["sources"]
    assert (source["kind"], source["repo"], source["revision"]) == (
        "huggingface",
        "wenjiema02/ProofBench",
        "mirror",
    )
    snapshot = FIXTURES / "proofbench"
    assert {i["path"]: i["sha256"] for i in source["inputs"]} == {
        p.relative_to(snapshot).as_posix(): sha256_file(p)
        for p in snapshot.rglob("*")
        if p.is_file()
    }

    grading = datasets.load_dataset(str(root), "grading", split="test")
    assert grading["item_id"] == [f"{p}::{g}" for p in EXPERT for g in G]
    assert grading["expert_score"] == [s for scores in EXPERT.values() for s in scores]
    first = grading[0]
    assert (first["problem_id"], first["contest"], first["year"], first["generator"]) == (
        "USAMO-2025-2",
        "USAMO",
        2025,
        "o3",
    )
    assert first["proof"].startswith("Factor n^3 - n") and "marking_scheme" in first
    problems = datasets.load_dataset(str(root), "problems", split="test")
    assert problems["problem_id"] == list(EXPERT)
    assert problems["contest"] == list(CONTEST.values())
    best = datasets.load_dataset(str(root), "best_of_n", split="test")
    assert best["item_id"] == [f"{p}::o3::{i}" for p in BON_EXPERT for i in range(4)]
    assert best["sample_index"] == [0, 1, 2, 3] * 3

    card = (root / "README.md").read_text()
    assert "config_name: grading" in card and "Not known here" in card


def test_builds_are_byte_identical_and_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    guard = NetworkGuard(monkeypatch)
    first = write_dataset(proofbench.build(FIXTURES), tmp_path / "a")
    second = write_dataset(proofbench.build(FIXTURES), tmp_path / "b")
    assert guard.attempts == [], "a mirror build must not touch the network"
    for path in sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file()):
        assert (first / path).read_bytes() == (second / path).read_bytes(), path


def tampered(tmp_path: Path, name: str, edit: Callable[[list[dict]], None]) -> Path:
    """A copy of the fixture snapshot with `edit` applied to the rows of data/<name>.jsonl."""
    folder = Path(shutil.copytree(FIXTURES / "proofbench", tmp_path / "proofbench"))
    path = folder / "data" / f"{name}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    edit(rows)
    write_jsonl(path, rows)
    return tmp_path


def _set(index: int, key: str, value: object) -> Callable[[list[dict]], None]:
    return lambda rows: rows[index].__setitem__(key, value)


@pytest.mark.parametrize(
    ("name", "edit", "messages"),
    [
        pytest.param(
            "proofbench",
            _set(1, "generator", "o3"),
            [
                "grading USAMO-2025-2: no proof by gemini-2.5-pro",
                "grading USAMO-2025-2::o3: duplicate, 2 proofs (rows 0, 1)",
            ],
            id="duplicate-generator",
        ),
        pytest.param(
            "proofbench",
            _set(4, "expert_rating", 8),
            ["grading row 4 (IMO-2024-1::gemini-2.5-pro): expert_rating 8 is not 0-7 whole"],
            id="rating-8",
        ),
        pytest.param(
            "proofbench",
            _set(9, "expert_rating", 3.5),
            ["grading row 9 (EGMO-2022-3::o3): expert_rating 3.5 is not 0-7 whole"],
            id="rating-3.5",
        ),
        pytest.param(
            "proofbench",
            lambda rows: rows.pop(17),
            ["grading USATST-2025-1: no proof by DeepSeek-R1-0528"],
            id="missing-generator",
        ),
        pytest.param(
            "proofbench",
            _set(2, "problem", "Another statement."),
            ["grading row 2 (USAMO-2025-2): problem differs from the problem's first row"],
            id="problem-text-differs",
        ),
        pytest.param(
            "best_of_n",
            _set(3, "sample_index", 2),
            ["best_of_n USAMO-2025-1: sample_index values [0, 1, 2, 2] (rows 0, 1, 2, 3)"],
            id="duplicate-sample",
        ),
    ],
)
def test_inconsistent_source_fails_naming_the_rows(
    tmp_path: Path, name: str, edit: Callable[[list[dict]], None], messages: list[str]
) -> None:
    with pytest.raises(MathJudgeError) as info:
        proofbench.build(tampered(tmp_path, name, edit))
    text = str(info.value)
    assert text.startswith(f"wenjiema02/ProofBench is inconsistent ({len(messages)} problem(s))")
    for message in messages:
        assert message in text


def test_every_bad_row_is_reported_at_once(tmp_path: Path) -> None:
    def edit(rows: list[dict]) -> None:
        rows[0]["expert_rating"] = -1
        rows[5]["expert_rating"] = True
        rows[6]["metadata"] = {"contest": "PUTNAM"}

    with pytest.raises(MathJudgeError) as info:
        proofbench.build(tampered(tmp_path, "proofbench", edit))
    text = str(info.value)
    assert "row 0 (USAMO-2025-2::o3): expert_rating -1" in text
    assert "row 5 (IMO-2024-1::DeepSeek-R1-0528): expert_rating True" in text
    assert "row 6 (PUTNAM-2023-A2::o3): metadata needs contest" in text


def test_unparseable_data_file_names_folder_and_config(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(FIXTURES / "proofbench", tmp_path / "proofbench"))
    with (folder / "data" / "proofbench.jsonl").open("a") as handle:
        handle.write('{"problem_id": broken\n')
    with pytest.raises(MathJudgeError, match=f"{re.escape(str(folder))}: cannot load config"):
        proofbench.build(tmp_path)


def test_best_of_n_config_is_optional(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(FIXTURES / "proofbench", tmp_path / "proofbench"))
    (folder / "data" / "best_of_n.jsonl").unlink()
    card = (folder / "README.md").read_text()
    start = card.index("- config_name: best_of_n")
    (folder / "README.md").write_text(card[:start] + card[card.index("---", start) :])
    build = proofbench.build(tmp_path)
    assert [t.config for t in build.tables] == ["grading", "problems"]


# --- grading metrics -------------------------------------------------------------------------

# A judge with ties, one constant problem, and a negative bias overall. Per problem (generator
# order o3, gemini, R1), errors d = pred - expert and tau-b from concordant C / discordant D
# pairs, with P = 3 pairs and T_pred / T_exp tied pairs:
JUDGE = {
    # expert 7 5 2, d = -1 +1 0: MAE 2/3, MSE 2/3, bias 0, WTA 1.
    # pairs: (o3,gem) tied in pred; (o3,R1) C; (gem,R1) C -> 2 / sqrt((3-1)(3-0)) = 2/sqrt(6)
    "USAMO-2025-2": (6, 6, 2),
    # expert 6 6 1, d = -1 +1 +2: MAE 4/3, MSE 2, bias 2/3, WTA 2/3.
    # (o3,gem) tied in expert; the others C -> 2 / sqrt(3 * 2) = 2/sqrt(6)
    "IMO-2024-1": (5, 7, 3),
    # expert 0 0 0, d = 1 0 2: MAE 1, MSE 5/3, bias 1, WTA 2/3; tau-b undefined (expert constant)
    "PUTNAM-2023-A2": (1, 0, 2),
    # expert 3 7 3, d = 1 -3 1: MAE 5/3, MSE 11/3, bias -1/3, WTA 2/3; undefined (pred constant)
    "EGMO-2022-3": (4, 4, 4),
    # expert 2 4 1, d = -1 -1 +1: MAE 1, MSE 1, bias -1/3, WTA 1.
    # (o3,gem) C; (o3,R1) pred -1 vs expert +1 -> D; (gem,R1) C -> (2 - 1) / 3 = 1/3
    "APMO-2024-4": (1, 3, 2),
    # expert 5 1 0, d = -3 -1 0: MAE 4/3, MSE 10/3, bias -4/3, WTA 2/3.
    # (o3,gem) C; (o3,R1) C; (gem,R1) tied in pred -> 2/sqrt(6)
    "USATST-2025-1": (2, 0, 0),
}
MSE = (2 / 3, 2, 5 / 3, 11 / 3, 1, 10 / 3)
TAU = {
    "USAMO": 2 / math.sqrt(6),
    "IMO": 2 / math.sqrt(6),
    "PUTNAM": None,
    "EGMO": None,
    "APMO": 1 / 3,
    "USA TST": 2 / math.sqrt(6),
}


def test_hand_computed_macro_averages(built: Path, tmp_path: Path) -> None:
    got = values(evaluate(built, tmp_path, "proofbench", grading_rows(JUDGE)))
    overall = {
        m: got[("overall", "all", m)]
        for m in registry.scorer("proofbench").metric_names(("score",))
    }
    assert overall == pytest.approx(
        {
            "mae": (2 / 3 + 4 / 3 + 1 + 5 / 3 + 1 + 4 / 3) / 6,  # = 7/6
            "rmse": sum(math.sqrt(m) for m in MSE) / 6,
            "wta1": (1 + 2 / 3 + 2 / 3 + 2 / 3 + 1 + 2 / 3) / 6,  # = 7/9
            # the two undefined problems are left out, not counted as 0
            "kendall_tau_b": (3 * 2 / math.sqrt(6) + 1 / 3) / 4,
            "bias": (0 + 2 / 3 + 1 - 1 / 3 - 1 / 3 - 4 / 3) / 6,  # = -1/18: under-scoring
            "kendall_tau_b_problems": 4,
            "kendall_tau_b_omitted": 2,
        },
        abs=1e-12,
    )
    assert overall["bias"] < 0
    # Macro RMSE is the mean of per-problem RMSEs, not the RMSE of all 18 errors (37 / 18).
    assert overall["rmse"] != pytest.approx(math.sqrt(sum(MSE) * 3 / 18))
    # One proof per problem in a generator subset: every error counts, tau-b is never defined.
    # o3 errors -1 -1 +1 +1 -1 -3.
    assert got[("generator", "o3", "mae")] == pytest.approx(8 / 6)
    assert got[("generator", "o3", "bias")] == pytest.approx(-4 / 6)
    assert got[("generator", "o3", "kendall_tau_b")] is None
    assert got[("generator", "o3", "kendall_tau_b_omitted")] == 6
    # 2025: USAMO-2025-2 and USATST-2025-1.
    assert got[("year", "2025", "mae")] == pytest.approx((2 / 3 + 4 / 3) / 2)
    assert got[("year", "2025", "kendall_tau_b")] == pytest.approx(2 / math.sqrt(6))
    for contest, tau in TAU.items():
        assert got[("contest", contest, "kendall_tau_b")] == (
            None if tau is None else pytest.approx(tau, abs=1e-12)
        ), contest


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_tau_b_matches_scipy_per_problem(built: Path, tmp_path: Path, seed: int | None) -> None:
    """Every contest holds one problem in the fixture, so a contest's tau-b is that problem's."""
    from scipy import stats  # here: a second of import, for this test only

    if seed is None:
        preds = JUDGE
    else:
        rng = np.random.default_rng(seed)
        preds = {p: tuple(rng.integers(0, 3, size=3).tolist()) for p in EXPERT}  # many ties
    got = values(evaluate(built, tmp_path, "proofbench", grading_rows(preds)))
    taus = []
    for problem, contest in CONTEST.items():
        tau = stats.kendalltau(preds[problem], EXPERT[problem], variant="b").statistic
        expected = None if np.isnan(tau) else pytest.approx(tau, abs=1e-12)
        assert got[("contest", contest, "kendall_tau_b")] == expected, problem
        taus += [] if np.isnan(tau) else [tau]
    assert got[("overall", "all", "kendall_tau_b_problems")] == len(taus)
    mean = got[("overall", "all", "kendall_tau_b")]
    assert mean == (pytest.approx(np.mean(taus)) if taus else None)


def test_perfect_judge(built: Path, tmp_path: Path) -> None:
    got = values(evaluate(built, tmp_path, "proofbench", grading_rows(EXPERT)))
    assert [got[("overall", "all", m)] for m in ("mae", "rmse", "wta1", "bias")] == [0, 0, 1, 0]
    assert got[("overall", "all", "kendall_tau_b")] == 1.0
    assert got[("overall", "all", "kendall_tau_b_omitted")] == 1  # PUTNAM: all ratings equal


def test_macro_average_is_not_micro(built: Path, tmp_path: Path) -> None:
    """Problems weigh equally whatever their number of scored proofs: USAMO-2025-2 with one
    proof (error 1) and IMO-2024-1 with three (errors 1, 1, 2)."""
    rows = [{"item_id": "USAMO-2025-2::o3", "score": 6}, *grading_rows({"IMO-2024-1": (5, 7, 3)})]
    result = evaluate(built, tmp_path, "proofbench", rows, allow_partial=True)
    got = values(result)
    assert result.partial and got[("overall", "all", "mae")] == pytest.approx((1 + 4 / 3) / 2)
    assert got[("overall", "all", "mae")] != pytest.approx((1 + 1 + 1 + 2) / 4)  # micro 5/4
    # One proof cannot be ranked: USAMO-2025-2 is omitted, IMO-2024-1 is 2/sqrt(6).
    assert got[("overall", "all", "kendall_tau_b")] == pytest.approx(2 / math.sqrt(6))
    assert got[("overall", "all", "kendall_tau_b_problems")] == 1
    assert got[("overall", "all", "kendall_tau_b_omitted")] == 1


def test_confusion_matrix_rounds_half_to_even(built: Path, tmp_path: Path) -> None:
    preds = dict(EXPERT) | {"APMO-2024-4": (2.5, 4, 1), "EGMO-2022-3": (3.5, 7, 3)}
    result = evaluate(built, tmp_path, "proofbench", grading_rows(preds))
    cells = {(c["expert"], c["predicted"]): c["count"] for c in result.extras["confusion_matrix"]}
    assert len(cells) == 64 and sum(cells.values()) == 18
    assert cells[(2, 2)] == 2  # APMO o3 2.5 -> 2, and USAMO-2025-2 R1
    assert cells[(3, 4)] == 1 and cells[(3, 3)] == 1  # EGMO o3 3.5 -> 4; EGMO R1 exact
    assert cells[(0, 0)] == 4 and sum(v for (e, p), v in cells.items() if e != p) == 1


# --- runs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("how", "ensembled"),
    [("mean", 5.4), ("median", 5.0), ("majority", 4.0)],  # majority: 7 and 4 tie -> lower
)
def test_runs_are_ensembled(built: Path, tmp_path: Path, how: str, ensembled: float) -> None:
    """USAMO-2025-2::o3 (expert 7) has five runs 7, 4, 4, 5, 7; every other proof is exact."""
    rows = [
        {"item_id": "USAMO-2025-2::o3", "score": s, "run": r} for r, s in enumerate([7, 4, 4, 5, 7])
    ]
    rows += [r | {"run": 0} for r in grading_rows(EXPERT)[1:]]
    got = values(evaluate(built, tmp_path, "proofbench", rows, runs_agg=how))
    assert got[("contest", "USAMO", "mae")] == pytest.approx((7 - ensembled) / 3)
    assert got[("overall", "all", "mae")] == pytest.approx((7 - ensembled) / 3 / 6)


def test_single_runs_and_their_spread(built: Path, tmp_path: Path) -> None:
    """Run 0 is the experts' score, run 1 one point more (capped at 7), as in Table 4.
    Run 1 errors per problem: 0 1 1 | 1 1 1 | 1 1 1 | 1 0 1 | 1 1 1 | 1 1 1 -> macro MAE
    (2/3 + 1 + 1 + 2/3 + 1 + 1) / 6 = 8/9, and the ranking is unchanged (tau-b 1)."""
    plus_one = {p: tuple(min(s + 1, 7) for s in v) for p, v in EXPERT.items()}
    rows = [r | {"run": 0} for r in grading_rows(EXPERT)]
    rows += [r | {"run": 1} for r in grading_rows(plus_one)]
    got = values(evaluate(built, tmp_path, "proofbench", rows))
    assert got[("run", "run=0", "mae")] == 0
    assert got[("run", "run=1", "mae")] == pytest.approx(8 / 9)
    assert got[("run_spread", "mean", "mae")] == pytest.approx(4 / 9)
    assert got[("run_spread", "std", "mae")] == pytest.approx(math.sqrt(2) * 4 / 9)
    assert got[("run_spread", "mean", "kendall_tau_b")] == 1.0
    assert got[("run_spread", "std", "kendall_tau_b")] == 0.0
    assert got[("overall", "all", "mae")] == pytest.approx(4 / 9)  # the mean of the runs


# --- best-of-n -------------------------------------------------------------------------------

# Judge scores of samples 0..3.
BON_JUDGE = {
    # Ranked by (score desc, index asc): s1 (6), s0 (5), s2 (5, tie to the lower index), s3.
    # Expert scores in rank order 2, 7, 5, 0; P(rank r picked) = C(4 - r, n - 1) / C(4, n):
    # n=1: (2 + 7 + 5 + 0) / 4 = 14/4
    # n=2: (3*2 + 2*7 + 1*5) / 6 = 25/6; the six pairs pick s1 s0 s0 s1 s1 s2 -> 2+7+7+2+2+5
    # n=3: (3*2 + 1*7) / 4 = 13/4; the four triples pick s1 s1 s0 s1 -> 2+2+7+2
    # n=4: s1 -> 2
    "USAMO-2025-1": (5, 6, 5, 1),
    # All tied but s3: rank order s0, s1, s2, s3 -> experts 1, 1, 4, 6:
    # n=1: 12/4 = 3; n=2: (3*1 + 2*1 + 1*4) / 6 = 9/6; n=3: (3*1 + 1*1) / 4 = 1; n=4: 1
    "IMO-2025-3": (3, 3, 3, 2),
    # Every sample is worth 3, so any selection is worth 3.
    "USAMO-2025-5": (0, 7, 2, 2),
}
BON_HAND = {
    "USAMO-2025-1": {
        "bon_score": [14 / 4, 25 / 6, 13 / 4, 2],
        # experts ranked 7, 5, 2, 0: (3*7 + 2*5 + 1*2) / 6 = 33/6; (3*7 + 5) / 4 = 26/4
        "bon_oracle": [14 / 4, 33 / 6, 26 / 4, 7],
        # samples 0..n-1: 7 | 7 2 | 7 2 5 | 7 2 5 0
        "bon_first_n_mean": [7, 9 / 2, 14 / 3, 14 / 4],
    },
    "IMO-2025-3": {
        "bon_score": [3, 9 / 6, 1, 1],
        # experts ranked 6, 4, 1, 1: (18 + 8 + 1) / 6 = 27/6; (18 + 4) / 4 = 22/4
        "bon_oracle": [3, 27 / 6, 22 / 4, 6],
        "bon_first_n_mean": [1, 1, 2, 3],
    },
    "USAMO-2025-5": {m: [3, 3, 3, 3] for m in ("bon_score", "bon_oracle", "bon_first_n_mean")},
}


def bon_rows(preds: dict[str, tuple[float, ...]]) -> list[dict]:
    return [
        {"item_id": f"{p}::o3::{i}", "score": s}
        for p, scores in preds.items()
        for i, s in enumerate(scores)
    ]


def enumerated(scores: tuple[float, ...], experts: tuple[int, ...], n: int) -> float:
    """The judge's pick averaged over every n-subset, by brute force."""
    picks = [
        experts[max(subset, key=lambda i: (scores[i], -i))]
        for subset in itertools.combinations(range(len(scores)), n)
    ]
    return sum(picks) / len(picks)


@pytest.mark.parametrize("problem", list(BON_EXPERT))
def test_best_of_n_exact_per_problem(built: Path, tmp_path: Path, problem: str) -> None:
    """Only this problem is submitted, so the averages over problems are its own values."""
    judge, experts = BON_JUDGE[problem], BON_EXPERT[problem]
    rows = bon_rows({problem: judge})
    got = values(evaluate(built, tmp_path, "proofbench_bon", rows, allow_partial=True))
    for metric, expected in BON_HAND[problem].items():
        assert [got[("bon", f"n={n}", metric)] for n in (1, 2, 3, 4)] == pytest.approx(
            expected, abs=1e-12
        ), metric
    for n in (1, 2, 3, 4):
        assert got[("bon", f"n={n}", "bon_score")] == pytest.approx(enumerated(judge, experts, n))
        assert got[("bon", f"n={n}", "bon_oracle")] == pytest.approx(
            enumerated(tuple(map(float, experts)), experts, n)
        )


def test_best_of_n_over_problems(built: Path, tmp_path: Path) -> None:
    got = values(evaluate(built, tmp_path, "proofbench_bon", bon_rows(BON_JUDGE)))
    for metric in ("bon_score", "bon_oracle", "bon_first_n_mean"):
        for n in (1, 2, 3, 4):
            mean = np.mean([BON_HAND[p][metric][n - 1] for p in BON_EXPERT])
            assert got[("bon", f"n={n}", metric)] == pytest.approx(mean, abs=1e-12)
    # n = N: the judge's top pick (s1, s0, s0 -> experts 2, 1, 3); also the overall scope.
    assert got[("bon", "n=4", "bon_score")] == pytest.approx((2 + 1 + 3) / 3)
    assert got[("overall", "all", "bon_score")] == got[("bon", "n=4", "bon_score")]
    # n = 1: a uniformly random sample, i.e. the mean expert score.
    mean_expert = np.mean([np.mean(v) for v in BON_EXPERT.values()])
    assert got[("bon", "n=1", "bon_score")] == pytest.approx(mean_expert)
    assert got[("bon", "n=1", "bon_oracle")] == pytest.approx(mean_expert)
    assert ("bon", "n=5", "bon_score") not in got


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_oracle_bounds_any_judge(built: Path, tmp_path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    preds = {p: tuple(rng.integers(0, 8, size=4).tolist()) for p in BON_EXPERT}
    got = values(evaluate(built, tmp_path, "proofbench_bon", bon_rows(preds)))
    for n in (1, 2, 3, 4):
        assert got[("bon", f"n={n}", "bon_oracle")] >= got[("bon", f"n={n}", "bon_score")] - 1e-12
        exact = np.mean([enumerated(preds[p], BON_EXPERT[p], n) for p in BON_EXPERT])
        assert got[("bon", f"n={n}", "bon_score")] == pytest.approx(exact)


def test_best_of_n_runs_have_a_spread(built: Path, tmp_path: Path) -> None:
    experts = {p: tuple(map(float, v)) for p, v in BON_EXPERT.items()}
    rows = [r | {"run": 0} for r in bon_rows(BON_JUDGE)]
    rows += [r | {"run": 1} for r in bon_rows(experts)]
    got = values(evaluate(built, tmp_path, "proofbench_bon", rows, runs_agg="median"))
    # Run 0 picks experts 2, 1, 3 at n=4; run 1 (the experts themselves) picks 7, 6, 3.
    assert got[("run", "run=0", "bon_score")] == pytest.approx(2)
    assert got[("run", "run=1", "bon_score")] == pytest.approx(16 / 3)
    assert got[("run_spread", "mean", "bon_score")] == pytest.approx((2 + 16 / 3) / 2)


# --- no mirror, no network -------------------------------------------------------------------


@pytest.mark.parametrize("offline", [False, True], ids=["hub-unreachable", "hf-hub-offline"])
def test_unreachable_source_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: bool
) -> None:
    (tmp_path / "empty-mirror").mkdir()
    monkeypatch.setenv("MATHJUDGE_MIRROR", str(tmp_path / "empty-mirror"))
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    # huggingface_hub reads its settings into `constants` at import, so those are patched.
    monkeypatch.setattr(constants, "ENDPOINT", closed_port_url())
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", offline)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    guard = NetworkGuard(monkeypatch)

    with pytest.raises(MathJudgeError) as info:
        proofbench.build()
    message = str(info.value)
    assert "\n" not in message
    assert re.search(r"wenjiema02/ProofBench.*--source-dir or MATHJUDGE_MIRROR", message)

    result = CliRunner().invoke(main, ["build", "proofbench", "--out", str(tmp_path / "ds")])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: {message}"]
    assert not (tmp_path / "ds" / "proofbench").exists()
    assert guard.attempts == [], f"tried to reach {guard.attempts}"
