"""The Consequence-Based Utility judge and `direct` on ExpertMath, end to end on the example
package against the local stub: every utility, every call count and the resulting metrics are
worked out by hand in the comments below."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from standins import OpenAIStub, StubReply

from mathjudge.benchmarks.expertmath import build as builder
from mathjudge.benchmarks.expertmath.judge_rows import judge_rows
from mathjudge.cli import main
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.judges.cbu import Cbu
from mathjudge.judges.runner import run_judge
from mathjudge.llm.client import LlmClient
from mathjudge.llm.retry import RetryPolicy
from mathjudge.scoring.evaluator import evaluate_file

BENCH = "expertmath"
FAST = RetryPolicy(attempts=2, initial_wait=0.01, max_wait=1.0, jitter=0.0)
UNPARSEABLE = None
# Solver answers per (candidate, question): the first and the second time that prompt is seen
# (two rollouts send the same messages; only the cache key's salt differs). Each verdict is
# noted: mv = math-verify decides, llm = math-verify cannot, the model check is asked.
PLAN: dict[tuple[str, str], list[str | None]] = {
    # bose-integral: variants first (pi^2/6) and log (-pi^2/6)
    ("bose-integral-alpha", "bose-integral-first"): [r"\frac{\pi^2}{6}"] * 2,  # llm same x2
    ("bose-integral-alpha", "bose-integral-log"): ["-pi^2/6", "-pi^2/6"],  # mv right x2
    ("bose-integral-beta", "bose-integral-first"): [r"\frac{\pi^2}{36}", "pi^2/6"],  # llm diff
    ("bose-integral-beta", "bose-integral-log"): ["-pi^2/36", "-pi^2/36"],  # mv wrong x2
    ("bose-integral-delta", "bose-integral-first"): [r"\frac{\pi^2}{6}", "pi^2/6"],  # llm, mv
    ("bose-integral-delta", "bose-integral-log"): ["-pi^2/6", "pi^2/6"],  # mv right, mv wrong
    ("bose-integral-gamma", "bose-integral-first"): ["pi^2/3", "pi^2/3"],
    ("bose-integral-gamma", "bose-integral-log"): ["-pi^2/3", UNPARSEABLE],
    ("bose-integral-human", "bose-integral-first"): ["pi^2/6", "pi^2/6"],
    ("bose-integral-human", "bose-integral-log"): [r"-\frac{\pi^2}{6}", "-pi^2/6"],  # llm, mv
    # spanning-trees-bipartite: its one variant k2n (n * 2^(n-1))
    ("spanning-trees-alpha", "spanning-trees-k2n"): ["n 2^{n-1}", "n 2^{n-1}"],
    ("spanning-trees-beta", "spanning-trees-k2n"): ["2^n", "n 2^{n-1}"],
    ("spanning-trees-delta", "spanning-trees-k2n"): ["n 2^{n-1}", "2^{n-1}"],
    ("spanning-trees-epsilon", "spanning-trees-k2n"): ["n^{n-2}", "n^{n-2}"],
    ("spanning-trees-gamma", "spanning-trees-k2n"): ["n 2^{n-1}", "n 2^{n-1}"],
    ("spanning-trees-human", "spanning-trees-k2n"): ["n times 2 to the n-1", r"n \cdot 2^{n-1}"],
    # candidates of k2n, the only variant: their own question
    ("spanning-trees-k2n-alpha", "spanning-trees-k2n"): ["n 2^{n-1}", "n 2^{n-1}"],
    ("spanning-trees-k2n-beta", "spanning-trees-k2n"): ["n 2^{n-1}", "2^n"],
    ("spanning-trees-k2n-human", "spanning-trees-k2n"): ["n 2^{n-1}", "2^{n-1} n"],
    # subspace-count: variants rank2 (p + 3) and planes (q^4 + q^3 + 2q^2 + q + 1)
    ("subspace-count-alpha", "subspace-count-rank2"): ["p+3", "p+3"],
    ("subspace-count-alpha", "subspace-count-planes"): ["(q^2+1)(q^2+q+1)", "q^4+q^3+q^2+q+1"],
    ("subspace-count-beta", "subspace-count-rank2"): ["p+2", "p+2"],
    ("subspace-count-beta", "subspace-count-planes"): ["q^4+q^3+q^2+q+1"] * 2,
    ("subspace-count-delta", "subspace-count-rank2"): ["p+3", "p+3"],
    ("subspace-count-delta", "subspace-count-planes"): ["q^4+q^3+q^2+q+1", "(q^2+1)(q^2+q+1)"],
    ("subspace-count-gamma", "subspace-count-rank2"): ["p+3", "p+3"],
    ("subspace-count-gamma", "subspace-count-planes"): ["(q^2+1)(q^2+q+1)"] * 2,
    ("subspace-count-human", "subspace-count-rank2"): ["p + 3", "3 + p"],
    ("subspace-count-human", "subspace-count-planes"): ["(q^2+1)(q^2+q+1)", "q^4+q^3+2q^2+q+1"],
    # candidates of rank2: the other variant, planes
    ("subspace-count-rank2-alpha", "subspace-count-planes"): [
        "q^4+q^3+q^2+q+1",
        "(q^2+1)(q^2+q+1)",
    ],
    ("subspace-count-rank2-beta", "subspace-count-planes"): ["q^2+q+1", "q^2+q+1"],
    ("subspace-count-rank2-human", "subspace-count-planes"): ["(q^2+1)(q^2+q+1)"] * 2,
}
# What the model check says about the answers math-verify cannot decide.
SAME = {r"\frac{\pi^2}{6}", r"-\frac{\pi^2}{6}", "n times 2 to the n-1"}
# Right answers / rollouts per candidate, read off PLAN.
UTILITY = {
    "bose-integral-alpha": 1.0,
    "bose-integral-beta": 0.25,
    "bose-integral-delta": 0.75,
    "bose-integral-gamma": 0.0,
    "bose-integral-human": 1.0,
    "spanning-trees-alpha": 1.0,
    "spanning-trees-beta": 0.5,
    "spanning-trees-delta": 0.5,
    "spanning-trees-epsilon": 0.0,
    "spanning-trees-gamma": 1.0,
    "spanning-trees-human": 1.0,
    "spanning-trees-k2n-alpha": 1.0,
    "spanning-trees-k2n-beta": 0.5,
    "spanning-trees-k2n-human": 1.0,
    "subspace-count-alpha": 0.75,
    "subspace-count-beta": 0.0,
    "subspace-count-delta": 0.75,
    "subspace-count-gamma": 1.0,
    "subspace-count-human": 1.0,
    "subspace-count-rank2-alpha": 0.5,
    "subspace-count-rank2-beta": 0.0,
    "subspace-count-rank2-human": 1.0,
}
# Calls: 32 (candidate, question) pairs x 2 rollouts = 64 solver calls, 2 repair attempts for
# the unparseable answer, 4 distinct answers for the model check (\frac{\pi^2}{6} is asked
# once for its three occurrences).
CALLS = 64 + 2 + 4
# acc_at_1 per problem (ties go to the earlier file): bose 1 (alpha); spanning 1 (alpha), k2n 1
# (alpha); subspace 0 (gamma, 1.0, before human), rank2 1 (human). Per original: 1, 1, 1/2.
ACC_AT_1 = (1 + 1 + 0.5) / 3
# auc per problem: bose 6/6; spanning 6.5/9 (alpha: 1+1+.5, delta: .5+1+0, human: 1+1+.5),
# k2n 2/2; subspace 3.5/6 (alpha 1+0, delta 1+0, human 1+.5), rank2 2/2.
AUC = (1 + (13 / 18 + 1) / 2 + (7 / 12 + 1) / 2) / 3  # = 191/216


pytestmark = pytest.mark.usefixtures("no_network", "math_verify_unhurried")


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("datasets")
    write_dataset(builder.build(builder.EXAMPLE_PACKAGE), out)
    return out


@pytest.fixture(scope="module")
def candidates(datasets: Path) -> list[dict[str, Any]]:
    path = open_dataset(BENCH, datasets).parquet("candidates")
    return pq.read_table(path).to_pylist()


def section(text: str, title: str) -> str:
    """The body of the prompt section `## title`."""
    return text.split(f"## {title}\n\n", 1)[1].split("\n\n## ", 1)[0]


class Solver:
    """The stub's script: answers each prompt as PLAN says, counting what it was asked."""

    def __init__(self, candidates: list[dict[str, Any]], datasets: Path) -> None:
        self.by_solution = {c["solution"].strip(): c["item_id"] for c in candidates}
        problems = pq.read_table(open_dataset(BENCH, datasets).parquet("problems")).to_pylist()
        self.by_statement = {p["statement"].strip(): p["problem_id"] for p in problems}
        self.seen: Counter[tuple[str, str]] = Counter()
        self.checks: list[str] = []

    def __call__(self, body: dict[str, Any]) -> StubReply:
        text = body["messages"][0]["content"]
        if "## Known correct answer" in text:
            proposed = section(text, "Proposed answer")
            self.checks.append(proposed)
            return StubReply(content=f"VERDICT: {'same' if proposed in SAME else 'different'}")
        candidate = self.by_solution[section(text, "Proposed solution").strip()]
        question = self.by_statement[section(text, "Related question").strip()]
        if len(body["messages"]) > 1:  # a repair request: only the planned unparseable one
            return StubReply(content="Still no clear answer.")
        nth = self.seen[(candidate, question)]
        self.seen[(candidate, question)] += 1
        answer = PLAN[(candidate, question)][nth]
        if answer is None:
            return StubReply(content="The related question does not settle.")
        return StubReply(content=f"Using the same method.\nANSWER: {answer}")


def run_cli(args: list[str], stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("MATHJUDGE_LLM_API_BASE", stub.api_base)
    monkeypatch.setenv("MATHJUDGE_LLM_API_KEY", "k")
    result = CliRunner().invoke(main, [*args, "--quiet"])
    assert result.exit_code == 0, result.output
    return result


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def metric(result: Any, name: str) -> float:
    return next(s.value for s in result.scores if (s.scope, s.metric) == ("overall", name))


@pytest.mark.slow  # seconds of work: the full suite runs it
def test_cbu_on_the_example_package(
    datasets: Path,
    candidates: list[dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out, cache = tmp_path / "cbu.jsonl", tmp_path / "cache"
    args = ["judge", "run", "cbu", BENCH, "--model", "openai/stub", "--rollouts", "2"]
    args += ["--datasets", str(datasets), "--cache", str(cache), "--out", str(out)]
    solver = Solver(candidates, datasets)
    with OpenAIStub(script=solver) as stub:
        first = run_cli(args, stub, monkeypatch)
        assert stub.count == CALLS
    assert sorted(solver.checks) == sorted(
        [r"\frac{\pi^2}{36}", r"\frac{\pi^2}{6}", r"-\frac{\pi^2}{6}", "n times 2 to the n-1"]
    )
    predictions = read_jsonl(out)
    assert {p["item_id"]: p["score"] for p in predictions} == UTILITY
    meta = json.loads(out.with_name("cbu.meta.json").read_text())
    report = {
        "answers": 64,
        "correct": 42,
        "unparseable": 1,
        "by_math_verify": 57,
        "by_llm": 6,
        "llm_unparseable": 0,
    }
    assert meta["judge_report"] == report
    assert meta["judge_params"]["rollouts"] == 2
    assert set(meta["prompts"]) == {"judge_cbu_solve.md", "judge_cbu_equivalence.md"}
    assert "unparseable 1" in first.output and "by_llm 6" in first.output
    details = {d["item_id"]: d for d in read_jsonl(out.with_name("cbu.details.jsonl"))}
    assert details["spanning-trees-k2n-beta"]["questions"] == ["spanning-trees-k2n"]  # own
    assert details["subspace-count-rank2-beta"]["questions"] == ["subspace-count-planes"]
    assert details["bose-integral-gamma"]["unparseable"] == 1

    # A re-run replays every rollout, repair and check from the cache.
    with OpenAIStub(script=lambda body: StubReply(status=500)) as stub:
        again = run_cli(args, stub, monkeypatch)
        assert stub.count == 0
    assert read_jsonl(out) == predictions
    assert f"0 new call(s), {CALLS} from cache" in again.output

    result = evaluate_file(BENCH, out, "cbu (stub)", datasets_dir=datasets, n_boot=20)
    assert metric(result, "acc_at_1") == pytest.approx(ACC_AT_1)
    assert metric(result, "auc") == pytest.approx(AUC)


def expertmath_rows(datasets: Path, item_ids: list[str]) -> list[dict[str, Any]]:
    dataset = open_dataset(BENCH, datasets)
    rows = pq.read_table(dataset.parquet("candidates")).to_pylist()
    return judge_rows(dataset, [r for r in rows if r["item_id"] in item_ids])


def client(stub: OpenAIStub, cache: Path | None = None) -> LlmClient:
    return LlmClient(
        "openai/stub", cache_dir=cache, api_base=stub.api_base, api_key="k", retry=FAST
    )


@pytest.mark.parametrize(
    ("answer", "verdict", "calls", "score", "counts"),
    [
        # math-verify settles it: the solver's call only.
        ("(q^2+1)(q^2+q+1)", None, 1, 1.0, {"by_math_verify": 1, "by_llm": 0}),
        ("q^4+q^3+q^2+q+1", None, 1, 0.0, {"by_math_verify": 1, "by_llm": 0}),
        # prose math-verify cannot read: the model check decides, after the solver.
        ("q to the fourth plus q cubed plus 2q^2 plus q plus 1", "same", 2, 1.0, {"by_llm": 1}),
        ("one more than q^4", "different", 2, 0.0, {"by_llm": 1}),
        # a check that never gives a verdict: three attempts, then counted wrong.
        ("one more than q^4", "perhaps", 4, 0.0, {"by_llm": 1, "llm_unparseable": 1}),
    ],
)
def test_math_verify_first_then_the_model_check(
    datasets: Path,
    answer: str,
    verdict: str | None,
    calls: int,
    score: float,
    counts: dict[str, int],
) -> None:
    rows = expertmath_rows(datasets, ["subspace-count-rank2-human"])  # question: planes

    def script(body: dict[str, Any]) -> StubReply:
        text = body["messages"][0]["content"]
        if "## Known correct answer" in text:
            assert section(text, "Known correct answer") == "q^4 + q^3 + 2q^2 + q + 1"
            assert section(text, "Proposed answer") == answer
            return StubReply(content=f"Compared.\nVERDICT: {verdict}")
        return StubReply(content=f"ANSWER: {answer}")

    with OpenAIStub(script=script) as stub:
        run = run_judge(Cbu(rollouts=1), BENCH, rows, client=client(stub))
        kinds = [
            "check" if "Known correct" in b["messages"][0]["content"] else "solve"
            for b in stub.bodies
        ]
    assert kinds == ["solve"] + ["check"] * (calls - 1)
    assert run.predictions == [{"item_id": "subspace-count-rank2-human", "score": score}]
    assert {k: run.details[0][k] for k in counts} == counts


def test_rollouts_are_distinct_cached_calls_and_provider_errors_fail_the_candidate(
    datasets: Path, tmp_path: Path
) -> None:
    rows = expertmath_rows(datasets, ["bose-integral-human", "spanning-trees-k2n-human"])
    answers = {"ln x": "-pi^2/6", "frac{x}{e^x": "pi^2/6", "K_{2,n}": "n 2^{n-1}"}

    def right(body: dict[str, Any]) -> StubReply:
        question = section(body["messages"][0]["content"], "Related question")
        return StubReply(content=next(f"ANSWER: {a}" for k, a in answers.items() if k in question))

    for expected_calls in ((2 + 1) * 3 * 2, 0):  # (2 + 1 questions) x 3 rollouts x 2 runs
        with OpenAIStub(script=right) as stub:
            run = run_judge(Cbu(rollouts=3), BENCH, rows, client=client(stub, tmp_path), runs=2)
            assert stub.count == expected_calls
        assert len(list(tmp_path.glob("*/*.json"))) == (2 + 1) * 3 * 2
        assert [(p["item_id"], p["run"], p["score"]) for p in run.predictions] == [
            ("bose-integral-human", 0, 1.0),
            ("bose-integral-human", 1, 1.0),
            ("spanning-trees-k2n-human", 0, 1.0),
            ("spanning-trees-k2n-human", 1, 1.0),
        ]
    with OpenAIStub(script=lambda body: StubReply(status=500)) as stub:
        failed = run_judge(Cbu(rollouts=1), BENCH, rows, client=client(stub))
    assert failed.predictions == [] and len(failed.failures) == 2
    # The reason names the question whose rollout failed first (which one depends on timing).
    assert re.match(
        r"bose-integral-(first|log)#0: item bose-integral-human: .*500",
        failed.failures[0]["reason"],
    )
    assert failed.partial


def test_direct_rates_1_to_10_and_compares_with_cbu(
    datasets: Path,
    candidates: list[dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    humans = {c["solution"].strip() for c in candidates if c["is_human"]}
    seen: Counter[str] = Counter()

    def rater(body: dict[str, Any]) -> StubReply:
        text = body["messages"][0]["content"]
        assert "SCORE: <an integer from 1 to 10>" in text and "Reference" not in text
        solution = section(text, "Proposed solution").strip()
        seen[solution] += 1
        # humans 9 in both runs; every other candidate 5 then 7 (mean 6)
        rating = 9 if solution in humans else (5 if seen[solution] == 1 else 7)
        return StubReply(content=f"Checked the argument.\nSCORE: {rating}")

    out = tmp_path / "direct.jsonl"
    args = ["judge", "run", "direct", BENCH, "--model", "openai/stub", "--runs", "2"]
    args += ["--datasets", str(datasets), "--cache", str(tmp_path / "c"), "--out", str(out)]
    with OpenAIStub(script=rater) as stub:
        run_cli(args, stub, monkeypatch)
        assert stub.count == 2 * len(candidates)
    rows = read_jsonl(out)
    assert {r["run"] for r in rows} == {0, 1} and len(rows) == 2 * len(candidates)
    means: dict[str, list[float]] = {}
    for r in rows:
        means.setdefault(r["item_id"], []).append(r["score"])
    human_ids = {c["item_id"] for c in candidates if c["is_human"]}
    assert {k: sum(v) / 2 for k, v in means.items()} == {
        c["item_id"]: 9.0 if c["item_id"] in human_ids else 6.0 for c in candidates
    }
    # Humans (all correct) rank first everywhere: acc_at_1 1. auc: a human beats every wrong
    # candidate, other correct ones tie them. bose 4/6; spanning 6/9, k2n 1.5/2; subspace 4/6,
    # rank2 2/2. Per original 2/3, 17/24, 5/6: mean 53/72.
    direct = evaluate_file(BENCH, out, "direct (stub)", datasets_dir=datasets, n_boot=20)
    assert metric(direct, "acc_at_1") == 1.0
    assert metric(direct, "auc") == pytest.approx(53 / 72)

    cbu = tmp_path / "cbu.jsonl"
    cbu.write_text(
        "".join(json.dumps({"item_id": k, "score": v}) + "\n" for k, v in UTILITY.items())
    )
    result = CliRunner().invoke(
        main,
        [
            "compare",
            BENCH,
            str(cbu),
            str(out),
            "--datasets",
            str(datasets),
            "--store",
            str(tmp_path / "none.duckdb"),
            "--bootstrap",
            "50",
            "--json",
            str(tmp_path / "c.json"),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    diffs = {
        (r["scope"], r["metric"]): r for r in json.loads((tmp_path / "c.json").read_text())["rows"]
    }
    assert diffs[("overall", "acc_at_1")]["diff"] == pytest.approx(ACC_AT_1 - 1.0)
    assert diffs[("overall", "auc")]["diff"] == pytest.approx(AUC - 53 / 72)  # 4/27
    assert diffs[("overall", "auc")]["b_value"] == pytest.approx(53 / 72)


def test_rollouts_option_is_cbu_only(datasets: Path) -> None:
    base = ["judge", "run", "--datasets", str(datasets), "--model", "openai/stub"]
    for judge, extra, code, message in (
        ("direct", ["--rollouts", "2"], 1, "takes no --rollouts"),
        ("cbu", ["--rollouts", "0"], 2, "--rollouts"),
    ):
        result = CliRunner().invoke(
            main, [*base[:2], judge, BENCH, *base[2:], *extra], env={"OPENAI_API_KEY": "k"}
        )
        assert result.exit_code == code and message in result.output, result.output
