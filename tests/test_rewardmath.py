"""RewardMATH and its pairwise protocol: the build from the authors' commit (ids, the quirks of
the source) and from the Hub schema (texts), the authors' rules on hand-computed cases, the
published judges imported and checked against the accuracies a later paper quotes."""

from __future__ import annotations

import csv
import json
import math
import re
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import numpy as np
import pytest
from huggingface_hub import constants
from standins import HubSnapshotStandIn, LocalServer, NetworkGuard, Reply, Seen, closed_port_url

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks import reward_scoring
from mathjudge.benchmarks.published import write_all
from mathjudge.benchmarks.rewardmath import build as rewardmath
from mathjudge.benchmarks.rewardmath import outputs
from mathjudge.dataio.writer import Build, CardInfo, Table, content_hash, write_dataset
from mathjudge.scoring.evaluator import evaluate_file

FIXTURE = Path(__file__).parent / "fixtures" / "rewardmath"


@pytest.fixture(scope="module")
def offline(mirror: Path) -> Build:
    return rewardmath.build(mirror)


@pytest.fixture(scope="module")
def real_datasets(offline: Build, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("rewardmath")
    write_dataset(offline, out)
    return out


def test_offline_build_has_every_item_and_says_what_it_lacks(offline: Build) -> None:
    solutions, games = offline.tables
    assert (len(solutions.rows), len(games.rows)) == (4830, 4347)
    ids = [r["item_id"] for r in solutions.rows]
    assert len(set(ids)) == len(ids)
    # One correct solution per problem, first in the authors' order.
    assert Counter(r["problem_index"] for r in solutions.rows if r["is_correct"]) == Counter(
        range(483)
    )
    assert all(r["position"] == 0 for r in solutions.rows if r["is_correct"])
    # References repeated within a problem get #2, #3; the empty one is written (empty).
    repeated = {r["problem_index"] for r in solutions.rows if r["occurrence"] > 1}
    assert len(repeated) == offline.checks["problems_with_repeated_references"] == 77
    assert max(r["occurrence"] for r in solutions.rows) == 3
    assert any(re.fullmatch(r"\d+::google/gemma-7b-it#3", i) for i in ids)
    assert offline.checks["empty_references"] == ["414::(empty)"]
    empty = next(r for r in solutions.rows if r["item_id"] == "414::(empty)")
    assert (empty["solution_reference"], empty["position"]) == ("", 7)
    # No texts offline, and the build says so where a reader looks.
    assert all(r["steps"] is None and r["answer"] is None for r in solutions.rows)
    assert offline.limitations == (rewardmath.NO_TEXTS,)
    assert "texts: on the Hub; this build carries ids, labels and the problem" in offline.card_body
    assert offline.card_info.license == "mit"
    # Games: the correct solution's position, as in every pairwise file.
    assert Counter(g["chosen_position"] for g in games.rows) == {"A": 2177, "B": 2170}
    assert {g["item_id"] for g in games.rows} == {r["item_id"] for r in solutions.rows} - {
        r["item_id"] for r in solutions.rows if r["is_correct"]
    }


def test_offline_build_counts_each_solutions_steps(offline: Build, mirror: Path) -> None:
    """The number of steps, which the length shortcuts rank by: in a build without texts, the
    length of the step-score lists of the three process reward models that agree; it is the
    number of steps of the texts the repository keeps for two problems."""
    solutions, games = offline.tables
    counts = {r["item_id"]: r["n_steps"] for r in solutions.rows}
    assert all(isinstance(n, int) and n >= 1 for n in counts.values())
    sample = json.loads(
        (mirror / "rewardmath/dataset/benchmark/RewardMATH_direct.json").read_text()
    )
    assert len(sample) == 20
    for row in sample:
        pid, place = row["problem_id"], row["id"] - 10 * row["problem_id"]
        solution = next(
            r for r in solutions.rows if (r["problem_index"], r["position"]) == (pid, place)
        )
        assert solution["n_steps"] == len(row["eval_solution"])
    # Games carry the two step counts as shown: A is the correct solution where it is shown first.
    for game in games.rows[:50]:
        correct, wrong = counts[game["correct_item_id"]], counts[game["item_id"]]
        shown = (correct, wrong) if game["correct_is_a"] else (wrong, correct)
        assert (game["n_steps_a"], game["n_steps_b"]) == shown
    # The three files must agree: one count changed is refused, naming the problem.
    items = rewardmath.read_json_array(mirror / "rewardmath" / rewardmath.ITEMS_FILE)
    files = [rewardmath.read_json_array(mirror / "rewardmath" / f) for f in rewardmath.STEP_FILES]
    files[1][5]["score"][2] = files[1][5]["score"][2][:-1]
    with pytest.raises(
        MathJudgeError, match=r"ArmoRM_reward\.json row 5: the step-score files disagree"
    ):
        rewardmath.step_counts(items, files)


def test_manifest_carries_the_limitation(real_datasets: Path) -> None:
    manifest = json.loads((real_datasets / "rewardmath" / "manifest.json").read_text())
    assert manifest["limitations"] == [rewardmath.NO_TEXTS]
    assert manifest["sources"][0]["repo"] == "kimsh0507/RewardMATH_official"


def test_hub_schema_build_carries_the_texts() -> None:
    built = rewardmath.build(FIXTURE)
    solutions, games = built.tables
    assert built.limitations == ()
    assert built.card_info.license == "unknown"
    assert [s.repo for s, _ in built.sources] == [
        "RewardMATH/RewardMATH",
        "RewardMATH/RewardMATH_pairwise",
    ]
    first = solutions.rows[0]
    assert first["item_id"] == "0::human_to_GPT-4" and first["steps"][-1].endswith("is 5.")
    assert (first["answer"], first["subject"], first["level"]) == ("5", "Prealgebra", 1)
    # The same id rules as offline: repeats and the empty reference.
    ids = [r["item_id"] for r in solutions.rows[:10]]
    assert ids[3:5] == ["0::google/gemma-7b-it", "0::google/gemma-7b-it#2"]
    assert ids[7:9] == ["0::(empty)", "0::google/gemma-7b-it#3"]
    assert built.checks["games_showing_the_direct_texts"] == len(games.rows) == 18
    game = games.rows[1]  # problem 0, game 1: the correct solution shown as B
    assert game["chosen_position"] == "B" and game["solution_b"] == first["steps"]
    # From the Hub the step counts are those of the texts.
    assert all(r["n_steps"] == len(r["steps"]) for r in solutions.rows)
    assert (game["n_steps_a"], game["n_steps_b"]) == (len(game["solution_a"]), len(first["steps"]))


def _hub_rows(name: str) -> list[dict]:
    path = FIXTURE / name / "data" / "test-00000-of-00001.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_hub_rows_are_checked(tmp_path: Path) -> None:
    rows = _hub_rows("RewardMATH")
    rows[0]["solution_reference"] = "gpt-3.5-turbo-0125"  # no correct solution first
    with pytest.raises(MathJudgeError, match=r"problem_id 0 \[solution_reference\]: the correct"):
        rewardmath.from_hub(rows, _hub_rows("RewardMATH_pairwise"))
    rows = _hub_rows("RewardMATH")
    rows[3]["solution_type"] = "chosen"
    with pytest.raises(MathJudgeError, match="solution_type does not follow"):
        rewardmath.from_hub(rows, _hub_rows("RewardMATH_pairwise"))


class TwoRepos(LocalServer):
    """The Hub's snapshot API for the two RewardMATH repos at once."""

    def __init__(self) -> None:
        super().__init__()
        self.repos = {
            f"RewardMATH/{name}": HubSnapshotStandIn(f"RewardMATH/{name}", FIXTURE / name)
            for name in ("RewardMATH_pairwise", "RewardMATH")
        }

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)  # type: ignore[arg-type]
        for standin in self.repos.values():
            standin._httpd.server_close()  # never started: only its socket to close

    def respond(self, seen: Seen) -> Reply:
        for repo_id, standin in self.repos.items():
            if f"/{repo_id}/" in seen.path:
                return standin.respond(seen)
        return 404, {}, b"no such repo"


def _point_hub_at(monkeypatch: pytest.MonkeyPatch, endpoint: str) -> None:
    """huggingface_hub reads its endpoint into `constants` at import, URL template included."""
    monkeypatch.setattr(constants, "ENDPOINT", endpoint)
    template = endpoint + "/{repo_id}/resolve/{revision}/{filename}"
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)


def test_download_from_the_hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_DISABLE_TELEMETRY", True)
    monkeypatch.setattr(constants, "HF_TOKEN_PATH", str(tmp_path / "token"))
    monkeypatch.delenv("HF_TOKEN", raising=False)
    guard = NetworkGuard(monkeypatch)
    with TwoRepos() as hub:
        _point_hub_at(monkeypatch, hub.url)
        downloaded = rewardmath.build(None)
    assert guard.attempts == []
    assert content_hash(downloaded.tables) == content_hash(rewardmath.build(FIXTURE).tables)
    revisions = {s.repo: s.revision for s, _ in downloaded.sources}
    assert revisions == {r: s.commit for r, s in hub.repos.items()}
    # Unreachable Hub, no mirror, nothing cached: one clear line.
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "empty-cache"))
    _point_hub_at(monkeypatch, closed_port_url())
    with pytest.raises(MathJudgeError, match="could not download the Hugging Face dataset"):
        rewardmath.build(None)


# --- the authors' rules, by hand -------------------------------------------------------------

TINY_REFS = ["human_to_GPT-4", "gpt-3.5-turbo-0125", "google/gemma-7b-it"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three problems of three solutions each (the correct one first) and their games."""
    solutions, games = [], []
    for index in range(3):
        rows = rewardmath._solution_rows(index, f"problem {index}", TINY_REFS)
        solutions += rows
        games += rewardmath._game_rows(rows, ["A", "B"])
    built = Build(
        benchmark="rewardmath",
        version="test",
        tables=(
            Table("solutions", "test", rewardmath.SOLUTION_FEATURES, solutions),
            Table("games", "test", rewardmath.GAME_FEATURES, games),
        ),
        card_info=CardInfo("tiny", "mit", ("en",), ()),
        card_body="tiny",
        sources=(),
    )
    out = tmp_path_factory.mktemp("tiny")
    write_dataset(built, out)
    return out


def _scores(benchmark: str, rows: list[dict], datasets: Path, tmp_path: Path) -> dict:
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    result = evaluate_file(benchmark, path, "j", datasets_dir=datasets, n_boot=50)
    return {(s.scope, s.subset, s.metric): s.value for s in result.scores}


def _ids(index: int) -> list[str]:
    return [f"{index}::{r}" for r in TINY_REFS]


def test_accuracy_and_mrr_with_ties_by_hand(tiny: Path, tmp_path: Path) -> None:
    """P0: correct 0.9 over 0.5, 0.2 (right, rank 1). P1: correct 0.5 ties 0.5 (wrong; right
    with ties; ranked against it: rank 2). P2: correct 0.3 under 0.6 and tied with 0.3 (wrong
    either way; rank 3). Accuracy 1/3, with ties 2/3, MRR (1 + 1/2 + 1/3) / 3 = 11/18."""
    values = {0: [0.9, 0.5, 0.2], 1: [0.5, 0.5, 0.1], 2: [0.3, 0.6, 0.3]}
    rows = [
        {"item_id": i, "score": v}
        for p, vs in values.items()
        for i, v in zip(_ids(p), vs, strict=True)
    ]
    got = _scores("rewardmath", rows, tiny, tmp_path)
    assert got[("overall", "all", "accuracy")] == pytest.approx(1 / 3)
    assert got[("overall", "all", "accuracy_with_ties")] == pytest.approx(2 / 3)
    assert got[("overall", "all", "mrr")] == pytest.approx(11 / 18)
    assert ("overall", "all", "accuracy_prod") not in got  # no step scores, no aggregations


def test_step_score_aggregations_by_hand() -> None:
    """[0.5, 0.8]: product 0.4, geometric mean sqrt(0.4), min 0.5, max 0.8, mean 0.65,
    sigmoid of the mean logit sigmoid((0 + ln 4) / 2) = 2/3, mean odds (1 + 4) / 2 = 2.5, last
    0.8. A one-step PRM: every aggregation is the step's score, but the odds p / (1 - p)."""
    values = np.array([0.5, 0.8, 0.3])
    got = reward_scoring.aggregate(values, np.array([0, 2, 3]))
    two = {k: v[0] for k, v in got.items()}
    assert two == pytest.approx(
        {
            "prod": 0.4,
            "geometric_mean": math.sqrt(0.4),
            "min": 0.5,
            "max": 0.8,
            "mean": 0.65,
            "mean_logit": 2 / 3,
            "mean_odd": 2.5,
            "last": 0.8,
        }
    )
    one = {k: v[1] for k, v in got.items()}
    assert one == pytest.approx(
        {
            "prod": 0.3,
            "geometric_mean": 0.3,
            "min": 0.3,
            "max": 0.3,
            "mean": 0.3,
            "mean_logit": 0.3,
            "mean_odd": 0.3 / 0.7,
            "last": 0.3,
        }
    )


def test_process_reward_model_under_each_aggregation(tiny: Path, tmp_path: Path) -> None:
    """Each problem: correct [0.9, 0.9] (prod 0.81, min 0.9, last 0.9), wrong [0.95, 0.8]
    (prod 0.76, min 0.8, last 0.8) and the one-step wrong [0.85] (0.85 throughout).
    the correct loses to 0.85 (0.81 < 0.85): rank 2; by minimum and last it wins everywhere;
    by max it loses to 0.95 and 0.85... rank 3."""
    steps = [[0.9, 0.9], [0.95, 0.8], [0.85]]
    rows = [
        {"item_id": i, "step_scores": s}
        for p in range(3)
        for i, s in zip(_ids(p), steps, strict=True)
    ]
    got = _scores("rewardmath", rows, tiny, tmp_path)
    metric = lambda key: got[("overall", "all", key)]  # noqa: E731
    assert metric("accuracy") == metric("accuracy_prod") == 0  # the headline is the product
    assert metric("mrr_prod") == pytest.approx(1 / 2)
    assert metric("accuracy_min") == metric("accuracy_last") == 1
    assert metric("accuracy_max") == 0 and metric("mrr_max") == pytest.approx(1 / 2)
    assert metric("accuracy_geometric_mean") == 1


def test_prediction_rules(tiny: Path, tmp_path: Path) -> None:
    both = [{"item_id": i, "score": 1.0, "step_scores": [0.5]} for p in range(3) for i in _ids(p)]
    with pytest.raises(
        ValidationFailed, match=r"p\.jsonl:1: .*give score or step_scores, not both"
    ):
        _scores("rewardmath", both, tiny, tmp_path)
    out_of_range = [{"item_id": i, "step_scores": [1.5]} for p in range(3) for i in _ids(p)]
    with pytest.raises(ValidationFailed, match=r"p\.jsonl:1 \[step_scores\.0\]"):
        _scores("rewardmath", out_of_range, tiny, tmp_path)


def test_runs_average_the_scores(tiny: Path, tmp_path: Path) -> None:
    """Run 0 ranks every correct solution last, run 1 first by more: the mean ranks it first."""
    rows = []
    for p in range(3):
        for i, (a, b) in zip(_ids(p), [(0.0, 1.0), (0.3, 0.1), (0.2, 0.2)], strict=True):
            rows += [{"item_id": i, "run": 0, "score": a}, {"item_id": i, "run": 1, "score": b}]
    assert _scores("rewardmath", rows, tiny, tmp_path)[("overall", "all", "accuracy")] == 1


def test_pairwise_games_at_each_position_by_hand(tiny: Path, tmp_path: Path) -> None:
    """Games: the correct solution is A in game 0, B in game 1 of every problem. P0 prefers
    A, B: both won (accurate, MRR 1). P1 prefers A, A: won, lost (MRR 1/2). P2 prefers B and
    gives no verdict: lost, lost (MRR 1/3). Accuracy 1/3, MRR 11/18, games won 3/6, no verdict
    1/6."""
    verdicts = {0: ["A", "B"], 1: ["A", "A"], 2: ["B", None]}
    rows = [
        {"item_id": i, "preferred": v}
        for p, vs in verdicts.items()
        for i, v in zip(_ids(p)[1:], vs, strict=True)
    ]
    got = _scores("rewardmath_pairwise", rows, tiny, tmp_path)
    assert got[("overall", "all", "accuracy")] == pytest.approx(1 / 3)
    assert got[("overall", "all", "mrr")] == pytest.approx(11 / 18)
    assert got[("overall", "all", "game_accuracy")] == pytest.approx(1 / 2)
    assert got[("overall", "all", "no_verdict_rate")] == pytest.approx(1 / 6)
    bad = [{"item_id": _ids(0)[1], "preferred": "C"}]
    with pytest.raises(ValidationFailed, match=r"p\.jsonl:1 \[preferred\]"):
        _scores("rewardmath_pairwise", bad, tiny, tmp_path)


# --- the published judges ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def converted(mirror: Path) -> dict[str, object]:
    return {
        c.judge: c
        for c in outputs.import_outputs("rewardmath", mirror)
        + outputs.import_outputs("rewardmath_pairwise", mirror)
    }


def test_every_published_file_is_imported(converted: dict) -> None:
    assert len(converted) == 31 == len(outputs.JUDGES)
    kinds = Counter(c.kind for c in converted.values())
    assert kinds == {"reward_model": 9, "process_reward_model": 4, "llm_judge": 18}
    for c in converted.values():
        n = 4347 if c.meta["benchmark"] == "rewardmath_pairwise" else 4830
        assert len(c.rows) == n
        assert c.converted_from.startswith("https://github.com/kimsh0507/RewardMATH_official/tree/")


def test_duplicated_rows_count_once(mirror: Path, tmp_path: Path) -> None:
    """The chatgpt, gpt4 and gpt4o files end with copies of their last two problems: checked
    and dropped. A final row that copies nothing is refused, naming file and row."""
    rows = json.loads((mirror / "rewardmath" / "results/RewardMATH/gpt4_reward.json").read_text())
    assert len(rows) == 485 and rows[483:] == rows[481:483]
    assert (
        len(outputs.problem_rows(mirror / "rewardmath/results/RewardMATH/gpt4_reward.json", 483))
        == 483
    )
    rows[484] = rows[0]
    bad = tmp_path / "gpt4_reward.json"
    bad.write_text(json.dumps(rows))
    with pytest.raises(MathJudgeError, match=r"gpt4_reward\.json row 484: an extra row"):
        outputs.problem_rows(bad, 483)


def test_null_pairwise_verdicts_are_kept(converted: dict) -> None:
    nulls = {
        j: sum(r["preferred"] is None for r in c.rows)
        for j, c in converted.items()
        if "pairwise" in j
    }
    # SOURCE.md counts: gpt4 35, gpt4o 4, llama3_70B 5, llama3_8B 621, prometheus_7B 29.
    assert nulls["GPT-4 (pairwise)"] == 35 and nulls["Llama-3-8B-Instruct (pairwise)"] == 621
    assert sum(nulls.values()) == 35 + 4 + 5 + 621 + 29


def test_reproduces_the_quoted_accuracies(
    converted: dict, mirror: Path, real_datasets: Path, tmp_path: Path
) -> None:
    """The accuracies a later paper quotes from RewardMATH: 15 of 17 equal ours to the printed
    two decimals. ReasonEval-34B (prod), printed 15.95, is no k/483 at all (77/483 = 15.94, ours);
    Math-Shepherd (geometric mean), printed 15.74, is 76/483 = 15.7350 rounded to three decimals
    and then to two (ours, 15.73, rounded once)."""
    by_file = {j.path: j for j in outputs.JUDGES}
    folder = tmp_path / "preds"
    done = {d.judge: d for d in write_all(list(converted.values()), folder)}
    table = mirror / "reported" / "rewardmath_accuracy_quoted_in_arxiv2510.13501.csv"
    exact, differ = 0, []
    cache: dict[str, dict] = {}
    for row in csv.DictReader(table.open(encoding="utf-8")):
        judge = by_file[row["shared_file"]].judge
        if judge not in cache:
            result = evaluate_file("rewardmath", done[judge].predictions, judge,
                                   datasets_dir=real_datasets, n_boot=20)  # fmt: skip
            cache[judge] = {s.metric: s.value for s in result.scores if s.scope == "overall"}
        metric = "accuracy" + (f"_{row['aggregation']}" if row["aggregation"] else "")
        ours = f"{100 * cache[judge][metric]:.2f}"
        if ours == row["rewardmath_accuracy"]:
            exact += 1
        else:
            differ.append(
                (row["judge_as_printed"], row["aggregation"], row["rewardmath_accuracy"], ours)
            )
    assert exact == 15
    assert differ == [
        ("ReasonEval-34B", "prod", "15.95", "15.94"),
        ("Math-Shepherd-Mistral-7B", "geometric_mean", "15.74", "15.73"),
    ]
    printed_by_their_script = f"{100 * 76 / 483:.3f}"  # three decimals
    assert printed_by_their_script == "15.735"
    assert Decimal(printed_by_their_script).quantize(Decimal("0.01"), ROUND_HALF_UP) == Decimal(
        "15.74"
    )
    assert all(abs(100 * k / 483 - 15.95) >= 0.005 for k in range(484))


def test_import_refuses_a_file_of_another_problem(mirror: Path, tmp_path: Path) -> None:
    original = mirror / "rewardmath" / "results/RewardMATH/Eurus-RM_reward.json"
    target = tmp_path / "Eurus-RM_reward.json"
    rows = json.loads(original.read_text())
    rows[3]["problem"] = "something else"
    target.write_text(json.dumps(rows))
    judge = next(j for j in outputs.JUDGES if j.key == "Eurus-RM")
    solutions, _ = rewardmath.from_results(
        rewardmath.read_json_array(mirror / "rewardmath" / rewardmath.ITEMS_FILE),
        rewardmath.read_json_array(mirror / "rewardmath" / rewardmath.GAMES_FILE),
    )
    with pytest.raises(ValidationFailed, match=r"Eurus-RM_reward\.json row 3 \[problem\]"):
        outputs.convert_pointwise(judge, solutions, target)
