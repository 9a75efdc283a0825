"""ArxivMathGradingBench error-location metrics against hand-computed values, the strict matcher,
the many-rows-per-run submission contract, and scorer options."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks.arxivmathgradingbench import build as builder
from mathjudge.benchmarks.arxivmathgradingbench import metrics as scorer
from mathjudge.benchmarks.arxivmathgradingbench.locations import Location, parse_location
from mathjudge.benchmarks.arxivmathgradingbench.matching import (
    MatchPair,
    PaperContext,
    PredictedLocation,
    StrictMatcher,
)
from mathjudge.benchmarks.arxivmathgradingbench.metrics import make_matcher
from mathjudge.dataio.writer import Build, CardInfo, Table, write_dataset
from mathjudge.scoring.evaluator import evaluate_file, validate_file
from mathjudge.validate import columnar

BENCH = "arxivmathgradingbench"

# Five papers and their ground-truth locations (P4 lists one result twice, so one prediction
# matches two locations; P5 never gets a prediction).
PAPERS = {
    "2501.00001v1": ["Theorem 19"],
    "2501.00002v1": ["Theorem 1.5", "Lemma 2.1"],
    "2501.00003v2": ["Lemma 4.3", "main theorem"],
    "2501.00004v1": ["Theorem 5", "proof of Theorem 5"],
    "2501.00005v1": ["Proposition 4.1(b)"],
}
P1, P2, P3, P4, P5 = PAPERS


def write_papers(out: Path, papers: dict[str, list[str]]) -> Path:
    """A built ArxivMathGradingBench dataset of these papers (item id -> error locations)."""
    rows = [
        {
            "item_id": item,
            "arxiv_id": item[:-2],
            "version": item[-2:],
            "url": f"https://arxiv.org/abs/{item[:-2]}",
            "category": "math.AG",
            "category_name": "Algebraic Geometry",
            "title": f"Paper {item}",
            "comment": "corrects an error",
            "license": "unknown",
            "license_raw": "",
            "error_locations": locations,
            "locations": [
                {"kind": p.kind, "label": p.label, "text": p.text}
                for p in map(parse_location, locations)
            ],
            "v1_date": "2025-01-01T00:00:00",
        }
        for item, locations in papers.items()
    ]
    build = Build(
        benchmark=BENCH,
        version="test",
        tables=(Table("papers", "test", builder.FEATURES, rows),),
        card_info=CardInfo("tiny", "unknown", ("en",), ()),
        card_body="tiny",
        sources=(),
    )
    write_dataset(build, out)
    return out


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_papers(tmp_path_factory.mktemp("tiny-arxiv"), PAPERS)


def rows_of(runs: dict[int, dict[str, list[str]]]) -> list[dict]:
    return [
        {"item_id": item, "run": run, "location": location}
        for run, per_paper in runs.items()
        for item, locations in per_paper.items()
        for location in locations
    ]


def evaluate(path: Path, datasets_dir: Path, **kwargs):
    return evaluate_file(BENCH, path, "j", datasets_dir=datasets_dir, n_boot=50, **kwargs)


def values(result) -> dict[tuple[str, str, str], float | None]:
    return {(s.scope, s.subset, s.metric): s.value for s in result.scores}


# Three runs; P5 is never answered, so the file is partial.
RUNS = {
    0: {
        P1: ["proof of Theorem 19", "Theorem 18"],  # match; "Theorem 18" is never Theorem 19
        P2: ["Thm. 1.5"],
        P3: ["Main  Theorem"],  # unlabelled: same words up to case and spacing
    },
    1: {
        P1: ["Theorem 19, eq. (4.2)", "Theorem 18"],  # both repeat run 0's locations
        P2: ["Lemma 2.1", "Lemma 2.2"],
        P3: ["the main theorem", "Lemma 4.3"],  # other words: a false error
        P4: ["Theorem 5"],  # matches both of P4's locations
    },
    2: {
        P1: ["Lemma 19"],  # kinds must agree
        P2: ["Lemma 2.1"],
    },
}
# Per paper (tp, fn, fp) for k = 1, 2, 3:
#   k=1 (run 0): P1 (1,0,1) P2 (1,1,0) P3 (1,1,0) P4 (0,2,0) P5 (0,1,0) -> tp 3, fn 5, fp 1
#   k=2 (+run 1): P1 (1,0,1) P2 (2,0,1) P3 (2,0,1) P4 (2,0,0) P5 (0,1,0) -> tp 7, fn 1, fp 3
#   k=3 (+run 2): P1 (1,0,2), others as k=2                               -> tp 7, fn 1, fp 4
# fully found: k=1 P1 only; k>=2 P1-P4.
EXPECTED = {
    "k=1": {
        "precision": 3 / 4,
        "recall": 3 / 8,
        "f1": 6 / (6 + 1 + 5),
        "coverage": 1 / 5,
        "false_errors_per_paper": 1 / 5,
    },
    "k=2": {
        "precision": 7 / 10,
        "recall": 7 / 8,
        "f1": 14 / (14 + 3 + 1),
        "coverage": 4 / 5,
        "false_errors_per_paper": 3 / 5,
    },
    "k=3": {
        "precision": 7 / 11,
        "recall": 7 / 8,
        "f1": 14 / (14 + 4 + 1),
        "coverage": 4 / 5,
        "false_errors_per_paper": 4 / 5,
    },
}


def test_unions_over_k_hand_computed(tiny: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", rows_of(RUNS))
    with pytest.raises(ValidationFailed, match=r"1 item\(s\) have no prediction: 2501\.00005v1"):
        evaluate(path, tiny)
    result = evaluate(path, tiny, allow_partial=True)
    got = values(result)
    for subset, metrics in EXPECTED.items():
        for metric, value in metrics.items():
            assert got[("k", subset, metric)] == pytest.approx(value, abs=1e-12), (subset, metric)
    for metric, value in EXPECTED["k=3"].items():  # overall is the largest k
        assert got[("overall", "all", metric)] == pytest.approx(value, abs=1e-12)
    # f1 is the harmonic mean of precision and recall
    p, r = EXPECTED["k=2"]["precision"], EXPECTED["k=2"]["recall"]
    assert EXPECTED["k=2"]["f1"] == pytest.approx(2 * p * r / (p + r))
    assert (result.partial, result.n_items, result.coverage) == (True, 4, 0.8)
    assert result.runs == 3 and result.runs_agg == "union"
    assert result.fields == ("location",)
    assert result.bootstrap["options"] == {"matcher": "strict", "match_model": ""}
    assert result.bootstrap["unit"] == "item_id"
    overall = [s for s in result.scores if s.scope == "overall"]
    assert [s.metric for s in overall] == [
        "f1",
        "precision",
        "recall",
        "coverage",
        "false_errors_per_paper",
    ]
    assert all(s.n == 5 for s in overall)  # every paper is scored, P5 as all missed
    assert all(s.ci_low <= s.value <= s.ci_high for s in overall)
    # What is stored per paper: the counts at k = n.
    stored = {r["item_id"]: (r["tp"], r["fn"], r["fp"]) for r in result.predictions.to_pylist()}
    assert stored == {P1: (1, 0, 2), P2: (2, 0, 1), P3: (2, 0, 1), P4: (2, 0, 0), P5: (0, 1, 0)}


def test_single_runs_are_scored_alone(tiny: Path, tmp_path: Path) -> None:
    result = evaluate(write_jsonl(tmp_path / "p.jsonl", rows_of(RUNS)), tiny, allow_partial=True)
    got = values(result)
    # run 2 alone: P1 (0,1,1) P2 (1,1,0) P3 (0,2,0) P4 (0,2,0) P5 (0,1,0) -> tp 1, fn 7, fp 1
    assert got[("run", "run=2", "precision")] == pytest.approx(1 / 2)
    assert got[("run", "run=2", "recall")] == pytest.approx(1 / 8)
    # run 1 alone: P1 (1,0,1) P2 (1,1,1) P3 (1,1,1) P4 (2,0,0) P5 (0,1,0) -> tp 5, fn 3, fp 3
    assert got[("run", "run=1", "recall")] == pytest.approx(5 / 8)
    assert got[("run_spread", "mean", "recall")] == pytest.approx((3 / 8 + 5 / 8 + 1 / 8) / 3)
    assert ("k", "k=1", "recall") in got  # the k scope is not disturbed by the single runs
    assert got[("k", "k=1", "recall")] == pytest.approx(3 / 8)


def test_first_k_runs_by_run_index_and_file_order_is_irrelevant(tiny: Path, tmp_path: Path) -> None:
    everyone = {item: ["Lemma 99"] for item in PAPERS}
    rows = rows_of({7: {**everyone, P1: ["Theorem 19"]}, 3: everyone})
    result = evaluate(write_jsonl(tmp_path / "p.jsonl", rows), tiny)
    got = values(result)
    # k=1 is run 3 (the lower index, though it comes second): 5 false errors, nothing found.
    assert got[("k", "k=1", "recall")] == 0.0
    assert got[("k", "k=1", "precision")] == 0.0
    assert got[("k", "k=1", "f1")] == 0.0
    assert got[("k", "k=1", "false_errors_per_paper")] == 1.0
    # k=2 adds run 7: Theorem 19 found (1 of 8); "Lemma 99" repeats are not counted again.
    assert got[("k", "k=2", "recall")] == pytest.approx(1 / 8)
    assert got[("k", "k=2", "precision")] == pytest.approx(1 / 6)
    assert got[("k", "k=2", "coverage")] == pytest.approx(1 / 5)
    assert {s.subset for s in result.scores if s.scope == "k"} == {"k=1", "k=2"}


def test_without_runs_and_with_repeated_rows(tiny: Path, tmp_path: Path) -> None:
    rows = [
        {"item_id": item, "location": loc, "description": "d" if i % 2 else None}
        for item, locations in PAPERS.items()
        for i, loc in enumerate([*locations, *locations])  # each location twice
    ]
    result = evaluate(write_jsonl(tmp_path / "p.jsonl", rows), tiny)
    got = values(result)
    for metric in ("precision", "recall", "f1", "coverage"):
        assert got[("overall", "all", metric)] == 1.0
    assert got[("overall", "all", "false_errors_per_paper")] == 0.0
    assert result.runs == 1 and result.fields == ("location", "description")
    assert {s.subset for s in result.scores if s.scope == "k"} == {"k=1"}
    assert not any(s.scope == "run" for s in result.scores)


def test_precision_without_predictions_is_undefined() -> None:
    sums = {
        "tp": np.array([0.0, 2.0]),
        "fn": np.array([3.0, 0.0]),
        "fp": np.array([0.0, 0.0]),
        "papers": np.array([2.0, 1.0]),
        "fully_found": np.array([0.0, 1.0]),
    }
    out = scorer.finalize(sums, ("location",))
    assert math.isnan(out["precision"][0]) and out["precision"][1] == 1.0
    assert out["recall"][0] == 0.0 and out["f1"][0] == 0.0  # nothing found: F1 is 0
    assert out["coverage"].tolist() == [0.0, 1.0]
    assert out["false_errors_per_paper"].tolist() == [0.0, 0.0]
    empty = {k: np.array([0.0]) for k in sums}
    assert all(math.isnan(v[0]) for v in scorer.finalize(empty, ("location",)).values())


def pair(predicted: str, truth: str) -> MatchPair:
    context = PaperContext("2501.00001v1", "2501.00001", "v1", "t")
    return (PredictedLocation(parse_location(predicted)), parse_location(truth), context)


@pytest.mark.parametrize(
    ("predicted", "truth", "match"),
    [
        ("proof of Theorem 19", "Theorem 19", True),
        ("Theorem 19, eq. (4.2)", "Theorem 19", True),
        ("Thm 19", "Theorem 19", True),
        ("Theorem 18", "Theorem 19", False),
        ("Lemma 19", "Theorem 19", False),
        ("Proposition 4.1", "Proposition 4.1(b)", True),
        ("Proposition 4.1(a)", "Proposition 4.1(b)", True),  # sub-parts are dropped
        ("Main   THEOREM", "main theorem", True),
        ("the main theorem", "main theorem", False),
        ("Theorem 1", "main theorem", False),  # labelled vs unlabelled never match
        ("main theorem", "Theorem 1", False),
        ("Section 3", "Theorem 3", False),
    ],
)
def test_strict_matcher(predicted: str, truth: str, match: bool) -> None:
    assert StrictMatcher().match_many([pair(predicted, truth)]) == [match]


def test_make_matcher() -> None:
    assert isinstance(make_matcher("strict"), StrictMatcher)
    with pytest.raises(ValueError, match="unknown matcher"):
        make_matcher("fuzzy")


class Inclusive:
    """A stand-in for an inclusive (LLM) matcher: a section contains every result numbered in
    it; records what it was asked."""

    def __init__(self, undecided: str | None = None) -> None:
        self.asked: list[MatchPair] = []
        self.undecided = undecided

    def match_many(self, pairs: list[MatchPair]) -> list[bool | None]:
        self.asked += pairs
        out: list[bool | None] = []
        for predicted, truth, _ in pairs:
            p = predicted.location
            if p.text == self.undecided:
                out.append(None)
            elif p.kind == "section" and truth.label and p.label:
                out.append(truth.label.startswith(p.label + "."))
            else:
                out.append(p.key == truth.key)
        return out


def test_matcher_option_and_what_the_matcher_is_asked(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = Inclusive()
    monkeypatch.setattr(
        scorer, "make_matcher", lambda name, **_: fake if name == "llm" else StrictMatcher()
    )
    rows = [
        {"item_id": P2, "run": 0, "location": "Section 1", "description": "first"},
        {"item_id": P2, "run": 0, "location": "§1", "description": "same key, later row"},
        {"item_id": P2, "run": 1, "location": "Section 2"},
        *({"item_id": item, "run": 0, "location": "Lemma 2.1"} for item in (P1, P3, P4, P5)),
    ]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    result = evaluate(path, tiny, options={"matcher": "llm"})
    got = values(result)
    # P2: "Section 1" matches Theorem 1.5 only, "Section 2" matches Lemma 2.1 only (k=2);
    # the other papers: one false error each (no "Lemma 2.1" there).
    # k=1: tp 1, fn 1+1+2+2+1 = 7, fp 4; k=2: tp 2, fn 6, fp 4
    assert got[("k", "k=1", "recall")] == pytest.approx(1 / 8)
    assert got[("k", "k=1", "precision")] == pytest.approx(1 / 5)
    assert got[("k", "k=2", "recall")] == pytest.approx(2 / 8)
    assert got[("k", "k=2", "coverage")] == pytest.approx(1 / 5)
    assert result.bootstrap["options"] == {"matcher": "llm", "match_model": ""}
    # Each unique (paper, normalized location, ground-truth location) is asked once, with the
    # first row's text and description and the paper's context.
    asked = [(c.item_id, p.location.text, p.description, t.text) for p, t, c in fake.asked]
    assert {a for a in asked if a[0] == P2 and a[1] != "Section 2"} == {
        (P2, "Section 1", "first", "Theorem 1.5"),
        (P2, "Section 1", "first", "Lemma 2.1"),
    }
    assert len({(a[0], a[1], a[3]) for a in asked}) == len(asked) // 2  # twice: union, run spread
    context = next(c for _, _, c in fake.asked if c.item_id == P2)
    assert context == PaperContext(P2, "2501.00002", "v1", f"Paper {P2}")

    strict = evaluate(path, tiny)
    assert strict.bootstrap["options"] == {"matcher": "strict", "match_model": ""}
    assert strict.id != result.id  # the matcher is part of the identity


def test_undecided_pairs_stop_the_evaluation(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scorer, "make_matcher", lambda name, **_: Inclusive(undecided="Lemma 7"))
    rows = [{"item_id": item, "location": "Lemma 7"} for item in PAPERS]
    with pytest.raises(MathJudgeError, match="could not decide 8 of 8 location pairs"):
        evaluate(write_jsonl(tmp_path / "p.jsonl", rows), tiny, options={"matcher": "llm"})


def test_scoring_options_are_checked(tiny: Path, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"item_id": i, "location": "x"} for i in PAPERS])
    with pytest.raises(MathJudgeError, match="matcher must be one of strict, llm"):
        evaluate(path, tiny, options={"matcher": "fuzzy"})
    with pytest.raises(MathJudgeError, match="unknown scoring option 'k'"):
        evaluate(path, tiny, options={"k": "2"})


def test_unlabelled_locations_match_only_the_same_words(tiny: Path, tmp_path: Path) -> None:
    rows = [
        {"item_id": P3, "location": "MAIN theorem"},
        {"item_id": P3, "location": "main theorem."},  # punctuation is not spacing
        *({"item_id": item, "location": "main theorem"} for item in (P1, P2, P4, P5)),
    ]
    got = values(evaluate(write_jsonl(tmp_path / "p.jsonl", rows), tiny))
    # found: P3's main theorem only (1 of 8); false: P3's second row and the 4 others
    assert got[("overall", "all", "recall")] == pytest.approx(1 / 8)
    assert got[("overall", "all", "false_errors_per_paper")] == pytest.approx(5 / 5)
    assert got[("overall", "all", "precision")] == pytest.approx(1 / 6)


def test_submission_contract(tiny: Path, tmp_path: Path) -> None:
    def problems(rows: list[dict]) -> list[str]:
        with pytest.raises(ValidationFailed) as info:
            validate_file(BENCH, write_jsonl(tmp_path / "p.jsonl", rows), tiny, allow_partial=True)
        return [str(p) for p in info.value.problems]

    assert (
        "[location]: String should have at least 1 character"
        in problems([{"item_id": P1, "location": "   "}])[0]
    )
    assert (
        ":1 [description]: Value error, a description needs a location"
        in problems([{"item_id": P1, "description": "d"}])[0]
    )
    assert (
        "[location]: Input should be a valid string"
        in problems([{"item_id": P1, "location": 19}])[0]
    )
    assert "unknown item_id 'nope'" in problems([{"item_id": "nope", "location": "Lemma 1"}])[0]
    assert (
        "missing: other rows give a run"
        in problems([{"item_id": P1, "location": "a", "run": 0}, {"item_id": P1, "location": "b"}])[
            0
        ]
    )
    # Many rows per (item, run), identical ones included; a description on some rows only.
    rows = [
        {"item_id": P1, "run": 0, "location": " Theorem 19 ", "description": "wrong bound"},
        {"item_id": P1, "run": 0, "location": " Theorem 19 "},
        {"item_id": P1, "run": 0, "location": "Lemma 2"},
    ]
    sub = validate_file(BENCH, write_jsonl(tmp_path / "ok.jsonl", rows), tiny, allow_partial=True)
    assert sub.table.num_rows == 3 and sub.fields == ("location", "description")
    assert sub.table.column("location").to_pylist() == ["Theorem 19", "Theorem 19", "Lemma 2"]
    assert sub.table.column("description").to_pylist() == ["wrong bound", None, None]
    csv = tmp_path / "p.csv"
    csv.write_text(f"item_id,run,location,description\n{P1},0,Theorem 19,\n{P1},0,Lemma 2,x\n")
    sub = validate_file(BENCH, csv, tiny, allow_partial=True)
    assert sub.table.column("description").to_pylist() == [None, "x"]


def test_ground_truth_as_predictions_scores_perfectly_on_the_real_dataset(
    mirror: Path, tmp_path: Path
) -> None:
    out = tmp_path / "datasets"
    write_dataset(builder.build(mirror), out)
    papers = pq.read_table(next((out / BENCH / "data" / "papers").glob("*.parquet"))).to_pylist()
    rows = [
        {"item_id": p["item_id"], "location": loc} for p in papers for loc in p["error_locations"]
    ]
    assert (len(papers), len(rows)) == (35, 40)
    result = evaluate(write_jsonl(tmp_path / "p.jsonl", rows), out)
    got = values(result)
    for metric in ("precision", "recall", "f1", "coverage"):
        assert got[("overall", "all", metric)] == 1.0
    assert got[("overall", "all", "false_errors_per_paper")] == 0.0
    # Off by one everywhere ("Theorem 19" -> "Theorem 20"): nothing found, 40 false errors,
    # except where a paper lists a neighbour ("Theorem 2.3, Theorem 2.4": 2.3 -> 2.4 is found).
    shifted = [{**r, "location": _next_label(r["location"])} for r in rows]
    got = values(evaluate(write_jsonl(tmp_path / "s.jsonl", shifted), out))
    assert got[("overall", "all", "recall")] == pytest.approx(1 / 40)
    assert got[("overall", "all", "precision")] == pytest.approx(1 / 40)
    assert got[("overall", "all", "false_errors_per_paper")] == pytest.approx(39 / 35)


def _next_label(text: str) -> str:
    """The next label: Theorem 19 -> Theorem 20, Lemma 4.3 -> Lemma 4.4, Theorem B -> Theorem Z;
    unlabelled text gets " 2" appended."""
    location: Location = parse_location(text)
    if location.label is None or not location.label[-1].isdigit():
        return f"{text} 2" if location.label is None else text.replace(location.label, "Z")
    head, _, last = location.label.rpartition(".")
    bumped = f"{head}.{int(last) + 1}" if head else str(int(last) + 1)
    return text.replace(location.label, bumped, 1)


def test_llm_matcher_end_to_end_through_a_local_model(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--matcher llm` asks the model once per (prediction, ground truth) pair, caches the
    answers, records the model, and stops on an answer it cannot read."""
    from standins import NetworkGuard, OpenAIStub

    NetworkGuard(monkeypatch)
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("MATHJUDGE_LLM_API_KEY", "local")
    # A vague prediction for P2 only: the strict matcher finds nothing, the model says yes
    # for "Lemma 2.1" and no for "Theorem 1.5".
    rows = [{"item_id": P2, "location": "the key estimate in Section 3"}]
    path = write_jsonl(tmp_path / "p.jsonl", rows)

    def answer(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        return "MATCH: yes" if "Lemma 2.1" in prompt else "MATCH: no"

    options = {"matcher": "llm", "match_model": "openai/stub-judge"}
    with OpenAIStub(script=answer) as stub:
        monkeypatch.setenv("MATHJUDGE_LLM_API_BASE", stub.api_base)
        result = evaluate(path, tiny, allow_partial=True, options=options)
        assert stub.count == 2  # one question per ground-truth location of P2
        again = evaluate(path, tiny, allow_partial=True, options=options)
        assert stub.count == 2  # served from the cache
    got = values(result)
    # tp 1 (Lemma 2.1), fn 1 + 1 + 2 + 2 + 1 = 7 over all five papers, fp 0
    assert got[("overall", "all", "recall")] == pytest.approx(1 / 8)
    assert got[("overall", "all", "precision")] == 1.0
    assert values(again) == got
    assert result.bootstrap["options"] == options

    with OpenAIStub(script=lambda body: "I am not sure.") as stub:
        monkeypatch.setenv("MATHJUDGE_LLM_API_BASE", stub.api_base)
        monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache2"))
        with pytest.raises(MathJudgeError, match="could not decide 2 of 2 location pairs"):
            evaluate(path, tiny, allow_partial=True, options=options)


# "No error found" rows: run 2 has nothing else, so it still counts as a run for k.
NOTHING = [
    {"item_id": P1, "run": 0, "location": "Theorem 19"},
    {"item_id": P2, "run": 0, "location": None},
    {"item_id": P3, "run": 0},  # absent is the same as null
    {"item_id": P4, "run": 0, "location": "Lemma 9", "description": "a false alarm"},
    {"item_id": P5, "run": 0, "location": None},
    {"item_id": P1, "run": 1, "location": None},
    {"item_id": P2, "run": 1, "location": "Lemma 2.1"},
    *({"item_id": item, "run": 1, "location": None} for item in (P3, P4, P5)),
    *({"item_id": item, "run": 2, "location": None} for item in PAPERS),
]
# Per paper (tp, fn, fp):
#   k=1 (run 0): P1 (1,0,0) P2 (0,2,0) P3 (0,2,0) P4 (0,2,1) P5 (0,1,0) -> tp 1, fn 7, fp 1
#   k=2 (+run 1): P2 (1,1,0), the rest as k=1                         -> tp 2, fn 6, fp 1
#   k=3 (+run 2, nothing found anywhere): as k=2
NOTHING_EXPECTED = {
    "k=1": {
        "precision": 1 / 2,
        "recall": 1 / 8,
        "f1": 2 / (2 + 1 + 7),
        "coverage": 1 / 5,
        "false_errors_per_paper": 1 / 5,
    },
    "k=2": {
        "precision": 2 / 3,
        "recall": 2 / 8,
        "f1": 4 / (4 + 1 + 6),
        "coverage": 1 / 5,
        "false_errors_per_paper": 1 / 5,
    },
}
NOTHING_EXPECTED["k=3"] = NOTHING_EXPECTED["k=2"]


def write_csv(path: Path, rows: list[dict]) -> Path:
    lines = ["item_id,run,location,description"] + [
        f"{r['item_id']},{r['run']},{r.get('location') or ''},{r.get('description') or ''}"
        for r in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_parquet(path: Path, rows: list[dict]) -> Path:
    full = [{"description": None, "location": None, **r} for r in rows]
    pq.write_table(pa.Table.from_pylist(full), path)
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_no_error_rows_hand_computed(tiny: Path, tmp_path: Path, fmt: str) -> None:
    writer = {"jsonl": write_jsonl, "csv": write_csv, "parquet": write_parquet}[fmt]
    path = writer(tmp_path / f"p.{fmt}", NOTHING)
    # Every paper has a row, so the file is complete: no --allow-partial needed.
    result = evaluate(path, tiny)
    assert (result.partial, result.n_items, result.runs) == (False, 5, 3)
    got = values(result)
    for subset, metrics in NOTHING_EXPECTED.items():
        for metric, value in metrics.items():
            assert got[("k", subset, metric)] == pytest.approx(value, abs=1e-12), (subset, metric)
            if subset == "k=3":
                assert got[("overall", "all", metric)] == pytest.approx(value, abs=1e-12)
    # Run 2 alone found nothing: recall 0, precision undefined, no false errors.
    assert got[("run", "run=2", "recall")] == 0.0
    assert got[("run", "run=2", "precision")] is None
    assert got[("run", "run=2", "false_errors_per_paper")] == 0.0
    stored = {
        r["item_id"]: (r["tp"], r["fn"], r["fp"], r["judged"])
        for r in result.predictions.to_pylist()
    }
    assert stored == {
        P1: (1, 0, 0, True),
        P2: (1, 1, 0, True),
        P3: (0, 2, 0, True),
        P4: (0, 2, 1, True),
        P5: (0, 1, 0, True),
    }


def test_a_no_error_row_is_coverage_and_only_coverage(tiny: Path, tmp_path: Path) -> None:
    # Without P5's rows the file is partial; with them it is complete and scores the same.
    without = [r for r in NOTHING if r["item_id"] != P5]
    path = write_jsonl(tmp_path / "partial.jsonl", without)
    with pytest.raises(ValidationFailed, match=r"1 item\(s\) have no prediction: 2501\.00005v1"):
        evaluate(path, tiny)
    partial = evaluate(path, tiny, allow_partial=True)
    assert values(partial) == values(evaluate(write_jsonl(tmp_path / "p.jsonl", NOTHING), tiny))
    judged = {r["item_id"]: r["judged"] for r in partial.predictions.to_pylist()}
    assert judged == {P1: True, P2: True, P3: True, P4: True, P5: False}
    # A file that finds nothing anywhere: nothing found, no false errors, precision undefined.
    path = write_jsonl(tmp_path / "none.jsonl", [{"item_id": item} for item in PAPERS])
    sub = validate_file(BENCH, path, tiny)
    assert (sub.fields, sub.n_items, sub.runs, sub.table.num_rows) == ((), 5, 1, 5)
    got = values(evaluate(path, tiny))
    assert got[("overall", "all", "recall")] == 0.0
    assert got[("overall", "all", "coverage")] == 0.0
    assert got[("overall", "all", "false_errors_per_paper")] == 0.0
    assert got[("overall", "all", "precision")] is None


def test_no_error_rows_that_contradict_their_run(tiny: Path, tmp_path: Path) -> None:
    rows = [
        {"item_id": P1, "run": 0, "location": "Theorem 19"},
        {"item_id": P1, "run": 0, "location": None},  # mixes with line 1
        {"item_id": P2, "run": 0, "location": None},
        {"item_id": P2, "run": 0, "location": "Lemma 2.1"},  # mixes with line 3
        {"item_id": P3, "run": 0},
        {"item_id": P3, "run": 0, "location": None},  # a second no-error row
        {"item_id": P3, "run": 1, "location": None},  # another run: fine
        {"item_id": P4, "run": 0, "location": None, "description": "nothing"},
    ]
    for fmt, writer in (("jsonl", write_jsonl), ("csv", write_csv)):
        path = writer(tmp_path / f"bad.{fmt}", rows)
        with pytest.raises(ValidationFailed) as info:
            validate_file(BENCH, path, tiny, allow_partial=True)
        first = 1 if fmt == "jsonl" else 2  # the CSV header is line 1
        got = [(p.line - first + 1, p.field, p.message) for p in info.value.problems]
        assert [g[:2] for g in got] == [
            (2, "location"),
            (4, "location"),
            (6, "location"),
            (8, "description"),
        ], got
        assert (
            "no-error row for '2501.00001v1' run 0, which gives a prediction on line " in got[0][2]
        )
        assert "reports as having no error" in got[1][2]
        assert (
            f"duplicate no-error row for '2501.00003v2' run 0 (first on line {first + 4})"
            in (got[2][2])
        )
        assert str(path) in str(info.value)


def test_columnar_path_and_no_error_rows(tiny: Path, tmp_path: Path) -> None:
    """The fast path accepts a file of no-error rows (no string column to check) and leaves
    duplicates and mixed runs to the row validator."""
    known = pa.array(list(PAPERS), pa.string())
    rows = [{"item_id": item, "run": run, "location": None} for run in (0, 1) for item in PAPERS]
    path = write_jsonl(tmp_path / "none.jsonl", rows)
    fast = columnar.accept(
        path.read_bytes(), "jsonl", scorer.Prediction, known, allow_partial=False
    )
    assert fast is not None and fast.fields == () and fast.table.num_rows == 10
    for bad in (
        [*rows, rows[0]],
        [*rows, {"item_id": P1, "run": 0, "location": "Theorem 19"}],
    ):
        path = write_jsonl(tmp_path / "bad.jsonl", bad)
        assert (
            columnar.accept(
                path.read_bytes(), "jsonl", scorer.Prediction, known, allow_partial=False
            )
            is None
        )
        with pytest.raises(ValidationFailed, match=r"bad\.jsonl:11 \[location\]"):
            validate_file(BENCH, path, tiny)
