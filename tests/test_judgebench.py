"""JudgeBench: the builder on the real pairs, the authors' two-game rule on small cases worked
out by hand (a swapped game, a tie, a null decision, equal reward-model scores), the importer of
the seven published judges, and agreement with an independent re-implementation of the
authors' scoring on the raw output files."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge.base.errors import ValidationFailed
from mathjudge.benchmarks.judgebench import build, metrics, outputs
from mathjudge.benchmarks.published import write_all
from mathjudge.cli import main
from mathjudge.dataio.writer import Build, CardInfo, Table, write_dataset
from mathjudge.scoring.evaluator import evaluate_file, validate_file

RAW = "https://raw.githubusercontent.com/ScalerLab/JudgeBench/e2c52c284e735e139b3daa61c206ee208f36c461"


@pytest.fixture(scope="module")
def built(mirror: Path) -> Build:
    return build.build(mirror)


@pytest.fixture(scope="module")
def real_datasets(built: Build, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("judgebench")
    write_dataset(built, out)
    return out


def overall(result) -> dict[str, float | None]:
    return {s.metric: s.value for s in result.scores if s.scope == "overall"}


def test_source_is_pinned() -> None:
    urls = [f.url for f in outputs.SOURCE.files]
    assert urls[0] == f"{RAW}/data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
    assert len(urls) == 2 + 7
    assert urls[2] == (
        f"{RAW}/outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,"
        "judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl"
    )


def test_real_build_counts(built: Build) -> None:
    tables = {t.config: t.rows for t in built.tables}
    assert {c: len(rows) for c, rows in tables.items()} == {"gpt4o": 350, "claude": 270}
    counts = {c: Counter(r["category"] for r in rows) for c, rows in tables.items()}
    assert counts["gpt4o"] == {"knowledge": 154, "reasoning": 98, "math": 56, "coding": 42}
    assert counts["claude"] == {"knowledge": 154, "reasoning": 51, "math": 34, "coding": 31}
    labels = {c: Counter(r["label"] for r in rows) for c, rows in tables.items()}
    assert labels == {"gpt4o": {"A>B": 193, "B>A": 157}, "claude": {"A>B": 143, "B>A": 127}}
    gpt = tables["gpt4o"]
    assert all(r["item_id"] == r["pair_id"] for r in gpt)
    # mmlu-pro-math is knowledge; only livebench-math is math
    assert {r["category"] for r in gpt if r["source"] == "mmlu-pro-math"} == {"knowledge"}
    assert {r["source"] for r in gpt if r["category"] == "math"} == {"livebench-math"}
    assert all(r["original_id"] is None for r in gpt if r["category"] != "knowledge")
    assert all(r["a_better"] == (r["label"] == "A>B") for r in gpt)


def test_build_is_local_only(built: Build, mirror: Path, tmp_path: Path) -> None:
    assert "None stated upstream" in built.card_body and "MIT" in built.card_body
    assert "knowledge 154, reasoning 98, math 56, coding 42" in built.card_body
    result = CliRunner().invoke(
        main,
        [
            "build",
            "judgebench",
            "--source-dir",
            str(mirror),
            "--out",
            str(tmp_path),
            "--push-to-hub",
            "x/y",
        ],
    )
    assert result.exit_code == 1 and "--push-to-hub refuses it" in result.output
    assert not (tmp_path / "judgebench").exists()


def test_builder_rejects_bad_rows(tmp_path: Path) -> None:
    def pair(pid: str, source: str, label: str, model: str = "gpt-4o-2024-05-13") -> dict:
        return {
            "pair_id": pid,
            "original_id": None,
            "source": source,
            "question": "q",
            "response_model": model,
            "response_A": "a",
            "response_B": "b",
            "label": label,
        }

    gpt = write_jsonl(
        tmp_path / "g.jsonl",
        [
            pair("p1", "livebench-math", "A=B"),
            pair("p2", "gsm8k", "A>B"),
            pair("p3", "livecodebench", "B>A"),
        ],
    )
    claude = write_jsonl(
        tmp_path / "c.jsonl", [pair("p3", "livecodebench", "A>B", "claude-3-5-sonnet-20240620")]
    )
    files = {
        build.data_path(m): p for m, p in zip(build.CONFIGS.values(), (gpt, claude), strict=True)
    }
    with pytest.raises(ValidationFailed) as err:
        build.pairs(files)
    text = str(err.value)
    assert "g.jsonl:1 [label]: 'A=B' is not 'A>B' or 'B>A'" in text
    assert "g.jsonl:2 [source]: 'gsm8k' belongs to no JudgeBench category" in text
    assert "[pair_id]: p3 appears 2 times" in text


# ---- the rules by hand ------------------------------------------------------------------------

# Six pairs: (category, label)
SMALL = [
    ("p1", "math", "A>B"),
    ("p2", "math", "B>A"),
    ("p3", "math", "A>B"),
    ("p4", "knowledge", "B>A"),
    ("p5", "coding", "A>B"),
    ("p6", "reasoning", "B>A"),
]
SOURCE_OF = {
    "math": "livebench-math",
    "knowledge": "mmlu-pro-law",
    "coding": "livecodebench",
    "reasoning": "livebench-reasoning",
}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = [
        {
            "item_id": pid,
            "pair_id": pid,
            "original_id": None,
            "source": SOURCE_OF[cat],
            "category": cat,
            "question": "q",
            "response_model": "gpt-4o-2024-05-13",
            "response_a": "a",
            "response_b": "b",
            "label": label,
            "a_better": label == "A>B",
        }
        for pid, cat, label in SMALL
    ]
    folder = tmp_path_factory.mktemp("small-judgebench")
    write_dataset(
        Build(
            benchmark="judgebench",
            version="test",
            tables=(
                Table("gpt4o", "test", build.FEATURES, rows),
                Table("claude", "test", build.FEATURES, rows[:1]),
            ),
            card_info=CardInfo("JudgeBench test", "unknown", ("en",), ("text-classification",)),
            card_body="test",
            sources=(),
        ),
        folder,
    )
    return folder


def test_games_ties_and_nulls_by_hand(small: Path, tmp_path: Path) -> None:
    rows = [
        # right in both games: +2, correct
        {"item_id": "p1", "decisions": ["A>B", "A>B"]},
        # right once, tie once: +1, correct
        {"item_id": "p2", "decisions": ["B>A", "A=B"]},
        # position-biased judge: as shown it said "A>B" twice, so mapped back the second
        # game says "B>A": +1 - 1 = 0, not correct
        {"item_id": "p3", "decisions": ["A>B", "B>A"], "raw_decisions": ["A>B", "A>B"]},
        # right once, no decision once: +1, correct
        {"item_id": "p4", "decisions": ["B>A", None]},
        # both null: 0, not correct but in the denominator
        {"item_id": "p5", "decisions": [None, None]},
        # a one-game judge, wrong: -1
        {"item_id": "p6", "decisions": ["A>B"]},
    ]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    got = overall(evaluate_file("judgebench", path, "j", datasets_dir=small, n_boot=50))
    assert got == pytest.approx(
        {
            "math_accuracy": 2 / 3,  # p1, p2 of p1-p3
            "accuracy": 3 / 6,
            "knowledge_accuracy": 1.0,
            "reasoning_accuracy": 0.0,
            "coding_accuracy": 0.0,
        }
    )
    assert next(iter(got)) == "math_accuracy"


def test_scores_follow_the_published_reward_model_rule(small: Path, tmp_path: Path) -> None:
    assert metrics.score_decisions(2.0, 1.0) == ["A>B", "A>B"]
    assert metrics.score_decisions(1.0, 2.0) == ["B>A", "B>A"]
    # equal scores: "B>A" as shown in both games -> one vote each way after mapping back
    assert metrics.score_decisions(19.5, 19.5) == ["B>A", "A>B"]
    rows = [
        {"item_id": "p1", "score_a": 3.0, "score_b": 1.0},  # correct
        {"item_id": "p2", "score_a": 0.5, "score_b": 0.5},  # tie: 0, not correct (label B>A)
        {"item_id": "p3", "score_a": -1, "score_b": -1},  # tie: 0, not correct (label A>B)
        {"item_id": "p4", "score_a": 0.1, "score_b": 0.2},  # correct
        {"item_id": "p5", "score_a": 0.3, "score_b": 0.2},  # correct
        {"item_id": "p6", "score_a": 9.0, "score_b": 8.0},  # wrong
    ]
    path = write_jsonl(tmp_path / "rm.jsonl", rows)
    sub = validate_file("judgebench", path, small)
    assert sub.fields == ("decisions", "score_a", "score_b")
    got = overall(evaluate_file("judgebench", path, "rm", datasets_dir=small, n_boot=50))
    assert got["math_accuracy"] == pytest.approx(1 / 3)
    assert got["accuracy"] == pytest.approx(3 / 6)


def test_runs_combine_by_mean_preference(small: Path, tmp_path: Path) -> None:
    rows = [
        {"item_id": pid, "run": run, "decisions": [d]}
        for pid, ds in {
            "p1": ["A>B", "B>A", "A>B"],  # +1: correct
            "p2": ["B>A", "A>B", "A=B"],  # 0: not correct
            "p3": ["B>A", "B>A", "A>B"],  # -1: wrong
            "p4": ["B>A", "B>A", "B>A"],
            "p5": ["A>B", "A>B", "A>B"],
            "p6": ["B>A", None, None],
        }.items()
        for run, d in enumerate(ds)
    ]
    path = write_jsonl(tmp_path / "runs.jsonl", rows)
    got = overall(evaluate_file("judgebench", path, "j", datasets_dir=small, n_boot=20))
    assert got["math_accuracy"] == pytest.approx(1 / 3)
    assert got["accuracy"] == pytest.approx(4 / 6)


def test_validation_problems_name_the_line(small: Path, tmp_path: Path) -> None:
    rows = [
        {"item_id": "p1", "decisions": ["A>B"], "score_a": 1.0, "score_b": 0.0},
        {"item_id": "p2", "score_a": 1.0},
        {"item_id": "p3", "decisions": ["A>>B", "A>B"]},
        {"item_id": "p4"},
        {"item_id": "p5", "decisions": []},
        {"item_id": "p6", "decisions": ["A>B"]},
    ]
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(ValidationFailed) as err:
        validate_file("judgebench", path, small)
    text = str(err.value)
    assert "bad.jsonl:1" in text and "not both" in text
    assert "bad.jsonl:2" in text and "give both score_a and score_b" in text
    assert "bad.jsonl:3 [decisions.0]" in text
    assert "bad.jsonl:4" in text and "give decisions, or score_a and score_b" in text
    assert "bad.jsonl:5 [decisions]" in text
    assert "bad.jsonl:6" not in text


def test_importer_maps_the_swapped_game_back() -> None:
    row = outputs.arena_hard_row(
        "p", [{"decision": "A>B"}, {"decision": "A>B"}]
    )  # as shown: A twice
    assert row == {"item_id": "p", "decisions": ["A>B", "B>A"], "raw_decisions": ["A>B", "A>B"]}
    # a tie stays a tie, a null decision and a failed (null) judgment decide nothing
    row = outputs.arena_hard_row("p", [{"decision": "A=B"}, None])
    assert row["decisions"] == ["A=B", None]
    row = outputs.arena_hard_row("p", [{"decision": None}, {"decision": "B>A"}])
    assert row["decisions"] == [None, "A>B"]
    with pytest.raises(ValueError, match="decision"):
        outputs.arena_hard_row("p", [{"decision": "A>>B"}, None])


def test_importer_checks_reward_model_games() -> None:
    def game(scores: list[float], decision: str) -> dict:
        return {"judgment": {"scores": scores}, "decision": decision}

    row = outputs.reward_model_row("p", [game([2.0, 2.0], "B>A"), game([2.0, 2.0], "B>A")])
    assert (row["score_a"], row["score_b"], row["raw_decisions"]) == (2.0, 2.0, ["B>A", "B>A"])
    with pytest.raises(ValueError, match="reversed"):
        outputs.reward_model_row("p", [game([1.0, 2.0], "B>A"), game([1.0, 2.0], "A>B")])
    with pytest.raises(ValueError, match="do not follow"):
        outputs.reward_model_row("p", [game([1.0, 2.0], "A>B"), game([2.0, 1.0], "A>B")])


# ---- the published judges on the real data ----------------------------------------------------


def _authors_accuracy(path: Path) -> dict[str, float]:
    """The authors' rule, re-implemented on the raw output file: flip the second game's
    decision, +1 / -1 per game against the label, correct when the sum is above 0."""
    flip = {"A>B": "B>A", "B>A": "A>B"}
    correct: Counter[str] = Counter()
    total: Counter[str] = Counter()
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            pair = json.loads(line)
            first, second = (g["decision"] if g else None for g in pair["judgments"])
            counter = 0
            for d in (first, flip.get(second, second)):
                counter += (d == pair["label"]) - (d == flip[pair["label"]])
            source = pair["source"]
            cat = (
                "knowledge"
                if source.startswith("mmlu-pro")
                else {
                    "livebench-reasoning": "reasoning",
                    "livebench-math": "math",
                    "livecodebench": "coding",
                }[source]
            )
            for key in (cat, "all"):
                total[key] += 1
                correct[key] += counter > 0
    out = {f"{c}_accuracy": correct[c] / total[c] for c in metrics.CATEGORIES}
    return out | {"accuracy": correct["all"] / total["all"]}


def test_all_seven_judges_agree_with_the_authors_rule(
    mirror: Path, real_datasets: Path, tmp_path: Path
) -> None:
    for benchmark, n in (("judgebench", 6), ("judgebench_claude", 1)):
        done = write_all(outputs.import_outputs(benchmark, mirror), tmp_path / benchmark)
        assert len(done) == n
        for d in done:
            judge = next(j for j in outputs.JUDGES if j.slug == d.slug)
            got = overall(
                evaluate_file(
                    benchmark, d.predictions, d.judge, datasets_dir=real_datasets, n_boot=1
                )
            )
            expected = _authors_accuracy(mirror / "judgebench" / judge.path)
            assert got == pytest.approx(expected, abs=1e-12), d.slug


def test_reported_figures_from_the_files(mirror: Path, real_datasets: Path, tmp_path: Path) -> None:
    """Counts from SOURCE.md: every reward model but GRM-Gemma-2B is right on exactly 21 of 42
    coding pairs; Skywork-Reward-Gemma-2-27B has 3 tied pairs, all labelled A>B, which the
    two-game rule counts as not correct."""
    done = {d.slug: d for d in write_all(outputs.import_outputs("judgebench", mirror), tmp_path)}
    for slug in (
        "skywork-reward-gemma-2-27b",
        "skywork-reward-llama-3.1-8b",
        "internlm2-20b-reward",
    ):
        got = overall(
            evaluate_file(
                "judgebench", done[slug].predictions, slug, datasets_dir=real_datasets, n_boot=1
            )
        )
        assert got["coding_accuracy"] == pytest.approx(21 / 42)
    rows = [
        json.loads(x)
        for x in done["skywork-reward-gemma-2-27b"].predictions.read_text().splitlines()
    ]
    ties = [r for r in rows if r["score_a"] == r["score_b"]]
    assert len(ties) == 3 and all(r["raw_decisions"] == ["B>A", "B>A"] for r in ties)


def test_cli_import_and_validate(mirror: Path, real_datasets: Path, tmp_path: Path) -> None:
    out = tmp_path / "subs"
    for benchmark, n in (("judgebench", 6), ("judgebench_claude", 1)):
        result = CliRunner().invoke(
            main,
            [
                "import-outputs",
                benchmark,
                str(mirror / "judgebench"),
                "--out",
                str(out / benchmark),
            ],
        )
        assert result.exit_code == 0, result.output
        predictions = [p for p in (out / benchmark).glob("*.jsonl") if ".details." not in p.name]
        assert len(predictions) == n
    # The LLM judges' own text of each game (their reasoning) is kept as details; the reward
    # models have none.
    upstream = [
        json.loads(line)
        for line in (
            mirror
            / "judgebench"
            / "outputs"
            / "dataset=judgebench,response_model=gpt-4o-2024-05-13,"
            "judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl"
        )
        .read_text()
        .splitlines()
    ]
    details = [
        json.loads(x)
        for x in (out / "judgebench" / "o1-mini-arena-hard.details.jsonl").read_text().splitlines()
    ]
    assert [d["item_id"] for d in details] == [u["pair_id"] for u in upstream]
    assert (
        details[0]["game 1, A shown first"]
        == upstream[0]["judgments"][0]["judgment"]["response"].strip()
    )
    assert (
        details[0]["game 2, B shown first"]
        == upstream[0]["judgments"][1]["judgment"]["response"].strip()
    )
    assert not (out / "judgebench" / "grm-gemma-2b.details.jsonl").exists()
    meta = json.loads(
        (out / "judgebench_claude" / "claude-3-haiku-arena-hard.meta.json").read_text()
    )
    assert meta["benchmark"] == "judgebench_claude" and meta["model"] == "claude-3-haiku-20240307"
    assert meta["source"]["files"][0]["sha256"] == (
        "3d30281286053c875dd09cc2ee17de8c0900a99a001b2f03d571aade669414f4"
    )
    sub = validate_file(
        "judgebench_claude",
        out / "judgebench_claude" / "claude-3-haiku-arena-hard.jsonl",
        real_datasets,
    )
    assert (sub.n_items, sub.fields) == (270, ("decisions", "raw_decisions"))
    sub = validate_file("judgebench", out / "judgebench" / "grm-gemma-2b.jsonl", real_datasets)
    assert (sub.n_items, sub.fields) == (350, ("decisions", "score_a", "score_b", "raw_decisions"))
    # a judge of the GPT-4o pairs is not a submission to the Claude pairs
    with pytest.raises(ValidationFailed, match="unknown item_id"):
        validate_file("judgebench_claude", out / "judgebench" / "grm-gemma-2b.jsonl", real_datasets)


def test_n_counts_the_pairs_each_accuracy_is_over(
    built: Build, real_datasets: Path, small: Path, tmp_path: Path
) -> None:
    """A score's n is the number of items its metric is computed on: the math accuracy is over
    the 56 math pairs, not the 350 of the build (counted here from the built rows); per run too."""
    rows = next(t.rows for t in built.tables if t.config == "gpt4o")
    by_category = Counter(r["category"] for r in rows)
    assert by_category["math"] == 56
    preds = [{"item_id": r["item_id"], "decisions": ["A>B", "A>B"]} for r in rows]
    result = evaluate_file(
        "judgebench", write_jsonl(tmp_path / "a.jsonl", preds), "a", datasets_dir=real_datasets,
        n_boot=20,
    )  # fmt: skip
    n = {s.metric: s.n for s in result.scores if s.scope == "overall"}
    assert n == {
        "accuracy": 350,
        **{f"{c}_accuracy": by_category[c] for c in ("math", "knowledge", "reasoning", "coding")},
    }
    # Two runs of the small build (3 math pairs of 6): each run's rows and the run spread.
    runs = [
        {"item_id": pid, "run": run, "decisions": ["A>B"]} for pid, _, _ in SMALL for run in (0, 1)
    ]
    spread = evaluate_file(
        "judgebench", write_jsonl(tmp_path / "r.jsonl", runs), "r", datasets_dir=small, n_boot=20
    )
    per_run = {(s.subset, s.metric): s.n for s in spread.scores if s.scope == "run"}
    assert per_run[("run=0", "math_accuracy")] == per_run[("run=1", "math_accuracy")] == 3
    assert per_run[("run=0", "accuracy")] == 6
