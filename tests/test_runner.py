"""The judge runner end to end against a local OpenAI-compatible stub, through real litellm:
exact call counts on a first run, a re-run (all from the cache) and a resume after the process
is killed; 429 / 500 / timeout / malformed answers; failures written explicitly; the cost
summary; predictions that validate and evaluate into the store and show on the site with their
meta. Nothing reaches beyond 127.0.0.1."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from standins import OpenAIStub, StubReply

from mathjudge.api import publish_site
from mathjudge.base.names import canonical
from mathjudge.benchmarks.mumath import build as mumath
from mathjudge.benchmarks.opc import build as opc
from mathjudge.benchmarks.proofbench import build as proofbench
from mathjudge.cli import main
from mathjudge.dataio.writer import write_dataset
from mathjudge.judges.direct import DirectJudge
from mathjudge.judges.proof_grader import ProofGrader
from mathjudge.judges.runner import run_judge, sidecar, write_outputs
from mathjudge.llm.client import LlmClient
from mathjudge.llm.retry import RetryPolicy
from mathjudge.prompts import load_prompt
from mathjudge.scoring.evaluator import evaluate_file, read_meta, validate_file
from mathjudge.site.views import judge_page
from mathjudge.store import save

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parents[1]
FAST = RetryPolicy(attempts=3, initial_wait=0.01, max_wait=2.0, jitter=0.0)
PRICED = "openai/gpt-4o-mini"
# OpenAI's published gpt-4o-mini prices: $0.15 per 1M input tokens, $0.60 per 1M output tokens.
PRICE_IN, PRICE_OUT = 0.15e-6, 0.60e-6
N_PROOFS = 18  # the ProofBench fixture: 6 problems x 3 generators


pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(scope="module")
def datasets(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ProofBench and μ-MATH from their fixture snapshots, OPC from the shared data."""
    out = tmp_path_factory.mktemp("datasets")
    write_dataset(proofbench.build(FIXTURES), out)
    write_dataset(mumath.build(FIXTURES), out)
    write_dataset(opc.build(mirror), out)
    return out


def items(datasets: Path, name: str, config: str) -> list[dict[str, Any]]:
    return pq.read_table(next((datasets / name / "data" / config).glob("*.parquet"))).to_pylist()


def grade_of(text: str) -> int:
    """The stub's deterministic grade of a prompt: a function of the proof it contains."""
    marker = "## Proof to grade" if "## Proof to grade" in text else "## Solution to grade"
    proof = text.split(f"{marker}\n\n", 1)[1].split("\n\n## ", 1)[0]
    return sum(map(ord, proof)) % 8


def grader(body: dict[str, Any]) -> StubReply:
    text = body["messages"][-1]["content"]
    return StubReply(content=f"The proof is assessed.\nSCORE: {grade_of(text)}")


def client(stub: OpenAIStub, cache: Path | None, **kwargs: Any) -> LlmClient:
    options: dict[str, Any] = {"retry": FAST, "concurrency": 4, "model": "openai/stub", **kwargs}
    return LlmClient(
        options.pop("model"), cache_dir=cache, api_base=stub.api_base, api_key="k", **options
    )


def expected_grades(rows: list[dict[str, Any]]) -> dict[str, int]:
    """The stub's grade per item, computed from the dataset rows, not from the judge."""
    return {r["item_id"]: sum(map(ord, r["proof"])) % 8 for r in rows}


def test_first_run_rerun_cost_and_valid_output(datasets: Path, tmp_path: Path) -> None:
    rows = items(datasets, "proofbench", "grading")
    cache = tmp_path / "cache"
    with OpenAIStub(script=grader) as stub:
        first = run_judge(
            ProofGrader(), "proofbench", rows, client=client(stub, cache, model=PRICED), runs=2
        )
        assert stub.count == 2 * N_PROOFS  # one call per item and run
        again = run_judge(
            ProofGrader(), "proofbench", rows, client=client(stub, cache, model=PRICED), runs=2
        )
        assert stub.count == 2 * N_PROOFS  # the re-run made no call
    assert again.predictions == first.predictions
    grades = expected_grades(rows)
    assert [(p["item_id"], p["run"], p["score"]) for p in first.predictions] == [
        (r["item_id"], run, float(grades[r["item_id"]])) for r in rows for run in (0, 1)
    ]
    # Cost: 36 answers x (11 prompt + 7 completion tokens) at the published prices.
    cost = 2 * N_PROOFS * (11 * PRICE_IN + 7 * PRICE_OUT)
    usage = first.stats.summary()
    assert (usage["requests"], usage["cache_hits"], usage["tokens_in"], usage["tokens_out"]) == (
        36,
        0,
        36 * 11,
        36 * 7,
    )
    assert usage["cost_usd"] == pytest.approx(cost, rel=1e-9)
    rerun = again.stats.summary()
    assert (rerun["requests"], rerun["cache_hits"], rerun["cost_usd"]) == (0, 36, 0.0)
    assert rerun["cached_cost_usd"] == pytest.approx(cost, rel=1e-9)
    assert "36 new call(s), 0 from cache" in first.summary()
    assert "0 new call(s), 36 from cache" in again.summary()
    assert f"${cost:.6f}" in again.summary()  # the price of the answers used, replayed

    out = tmp_path / "preds.jsonl"
    paths = write_outputs(again, out, extra_meta={"note": "test"})
    sub = validate_file("proofbench", out, datasets)
    assert (sub.n_items, sub.runs, sub.coverage) == (N_PROOFS, 2, 1.0)
    meta = read_meta(paths.meta)
    assert meta["judge"] == "proof-grader" and meta["model"] == PRICED
    assert meta["prompts"] == {"judge_proof_grader.md": load_prompt("judge_proof_grader").sha256}
    assert meta["judge_params"] == {"context": "ref+ms", "threshold": 6}
    assert meta["counts"]["predictions"] == 36 and meta["counts"]["failures"] == 0
    assert meta["cost_usd"] == pytest.approx(cost, rel=1e-9)
    assert meta["mathjudge_version"] and meta["note"] == "test" and paths.failures is None


def test_unknown_model_cost_is_unknown(datasets: Path, tmp_path: Path) -> None:
    rows = items(datasets, "proofbench", "grading")[:2]
    with OpenAIStub(script=grader) as stub:
        run = run_judge(DirectJudge(), "proofbench", rows, client=client(stub, None))
    assert run.stats.summary()["cost_usd"] == "unknown"
    assert "cost unknown" in run.summary()


def test_429_500_timeout_and_malformed_answers(datasets: Path, tmp_path: Path) -> None:
    """Each item meets its own scripted replies, in order."""
    rows = items(datasets, "proofbench", "grading")[:4]
    script_of: dict[str, list[StubReply | str]] = {
        rows[0]["proof"]: [StubReply(status=429, headers={"Retry-After": "0.3"}), "SCORE: 6"],
        rows[1]["proof"]: [StubReply(status=500), "SCORE: 3"],
        rows[2]["proof"]: [StubReply(content="SCORE: 0", delay=4.0), "SCORE: 7"],  # timed out
        rows[3]["proof"]: [
            "I think it is fine.",  # no SCORE line
            "SCORE: 9",  # out of range
            "SCORE: seven",  # not a number: the third and last attempt
        ],
    }

    def script(body: dict[str, Any]) -> StubReply | str:
        text = body["messages"][0]["content"]
        return next(replies for proof, replies in script_of.items() if proof in text).pop(0)

    cache = tmp_path / "cache"
    with OpenAIStub(script=script) as stub:
        started = time.monotonic()
        run = run_judge(
            DirectJudge(),
            "proofbench",
            rows,
            # Well above litellm's first call in a process (0.6 s here), well below the stall.
            client=client(stub, cache, timeout=1.5),
            attempts=3,
        )
        elapsed = time.monotonic() - started
        assert stub.count == 9
        # Every attempt of item 4 was cached: the re-run replays the same failure, no call.
        rerun = run_judge(DirectJudge(), "proofbench", rows, client=client(stub, cache))
        assert stub.count == 9
    assert elapsed >= 0.3  # waited for Retry-After
    ids = [r["item_id"] for r in rows]
    assert run.predictions == [
        {"item_id": ids[0], "score": 6.0},
        {"item_id": ids[1], "score": 3.0},
        {"item_id": ids[2], "score": 7.0},
    ]
    assert [(f["item_id"], f["written"]) for f in run.failures] == [(ids[3], False)]
    reason = run.failures[0]["reason"]
    assert reason.startswith(f"score: item {ids[3]}: no parseable answer in 3 attempt(s)")
    assert "whole number" in reason
    stats = run.stats.summary()
    assert (stats["retries"], stats["invalid_answers"], stats["parse_failures"]) == (3, 3, 1)
    assert run.partial and rerun.failures == run.failures and rerun.predictions == run.predictions
    summary = run.summary()
    assert "1 failure(s), left out (evaluate with --allow-partial)" in summary
    assert ids[3] in summary
    # Repair prompts show the model its previous answer and the reason.
    repair = next(b["messages"] for b in stub.bodies if len(b["messages"]) == 3)
    assert repair[-2] == {"role": "assistant", "content": "I think it is fine."}
    assert "the last line is not of the form 'SCORE: ...'" in repair[-1]["content"]

    out = tmp_path / "partial.jsonl"
    paths = write_outputs(run, out)
    failures = [json.loads(line) for line in paths.failures.read_text().splitlines()]  # type: ignore[union-attr]
    assert [f["item_id"] for f in failures] == [ids[3]]
    assert read_meta(paths.meta)["partial"] is True
    sub = validate_file("proofbench", out, datasets, allow_partial=True)
    assert sub.n_items == 3


def test_persistent_server_errors_are_failures_naming_the_item(
    datasets: Path, tmp_path: Path
) -> None:
    rows = items(datasets, "opc", "judgments")[:3]
    bad = rows[1]["item_id"]

    def script(body: dict[str, Any]) -> StubReply:
        text = body["messages"][-1]["content"]
        if rows[1]["proof"] in text:
            return StubReply(status=503)
        return StubReply(content="SCORE: 7" if rows[0]["proof"] in text else "SCORE: 5")

    with OpenAIStub(script=script) as stub:
        run = run_judge(ProofGrader(), "opc", rows, client=client(stub, tmp_path))
        assert stub.count == 2 + FAST.attempts
    # OPC has an inconclusive verdict: the failed item is written as null, not dropped.
    assert run.predictions == [
        {"item_id": rows[0]["item_id"], "verdict": True},  # 7 >= threshold 6
        {"item_id": bad, "verdict": None},
        {"item_id": rows[2]["item_id"], "verdict": False},  # 5 < 6
    ]
    assert run.failures[0]["item_id"] == bad and run.failures[0]["written"] is True
    assert f"item {bad}" in run.failures[0]["reason"] and "503" in run.failures[0]["reason"]
    assert "written as inconclusive" in run.summary()
    assert [d["score"] for d in run.details] == [7, 5]


def test_proof_grader_context_variants(datasets: Path) -> None:
    row = items(datasets, "proofbench", "grading")[0]
    shown = {}
    with OpenAIStub(script=grader) as stub:
        for context in ("ref+ms", "ms", "ref", "none"):
            run_judge(ProofGrader(context), "proofbench", [row], client=client(stub, None))
            shown[context] = stub.bodies[-1]["messages"][0]["content"]
    for context, text in shown.items():
        assert (row["reference_solution"] in text) == (context in ("ref+ms", "ref")), context
        assert (row["marking_scheme"] in text) == (context in ("ref+ms", "ms")), context
        assert row["proof"] in text and row["problem"] in text
    assert "no reference solution or marking scheme" in shown["none"]


def test_cli_run_evaluate_and_site(
    datasets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`judge run` -> `evaluate --meta` -> store -> site, for μ-MATH with the two-call judge."""
    rows = items(datasets, "mumath", "judgments")
    verdict_of = {r["item_id"]: ("yes" if r["label"] else "no") for r in rows}
    verdict_of[rows[0]["item_id"]] = "inconclusive"

    def script(body: dict[str, Any]) -> StubReply:
        text = body["messages"][-1]["content"]
        if text.startswith("Below is an assessment"):
            item = text.split("ITEM ", 1)[1].split()[0]
            return StubReply(content=f"VERDICT: {verdict_of[item]}")
        row = next(r for r in rows if r["model_output"] in text)
        return StubReply(content=f"Step by step ... ITEM {row['item_id']} done.")

    out = tmp_path / "mumath-cot.jsonl"
    store = tmp_path / "results.duckdb"
    with OpenAIStub(script=script) as stub:
        monkeypatch.setenv("MATHJUDGE_LLM_API_BASE", stub.api_base)
        monkeypatch.setenv("MATHJUDGE_LLM_API_KEY", "k")
        args = ["judge", "run", "mumath-cot", "mumath", "--model", "openai/stub"]
        args += ["--datasets", str(datasets), "--cache", str(tmp_path / "c"), "--out", str(out)]
        result = CliRunner().invoke(main, [*args, "--quiet"])
        assert result.exit_code == 0, result.output
        assert stub.count == 2 * len(rows)  # judgment + extraction per item
    assert "32 new call(s), 0 from cache" in result.output
    predictions = [json.loads(line) for line in out.read_text().splitlines()]
    expected = {"yes": True, "no": False, "inconclusive": None}
    assert predictions == [
        {"item_id": r["item_id"], "verdict": expected[verdict_of[r["item_id"]]]} for r in rows
    ]
    meta_path = sidecar(out, "meta")
    evaluated = CliRunner().invoke(
        main,
        [
            "evaluate", "mumath", str(out), "--judge", "mumath-cot (stub)", "--meta",
            str(meta_path), "--store", str(store), "--datasets", str(datasets), "--quiet",
            "--bootstrap", "20",
        ],
    )  # fmt: skip
    assert evaluated.exit_code == 0, evaluated.output
    # 10 correct and 6 wrong solutions; the first (correct) one answered inconclusive.
    result = evaluate_file("mumath", out, "x", datasets_dir=datasets, n_boot=10)
    overall = {s.metric: s.value for s in result.scores if s.scope == "overall"}
    assert sum(r["label"] for r in rows) == 10 and rows[0]["label"]
    assert overall["tpr"] == pytest.approx(9 / 10) and overall["tnr"] == 1.0
    assert overall["inconclusive_rate"] == pytest.approx(1 / 16)
    site = publish_site(store, tmp_path / "site")
    board = (site.parent / "mumath.html").read_text(encoding="utf-8")
    assert "mumath-cot (stub)" in board
    # The judge's page holds its meta, the prompt file among it.
    page = (site.parent / judge_page(canonical("mumath-cot (stub)"))).read_text(encoding="utf-8")
    assert "judge_mumath_cot.md" in page


def test_cli_rejects_bad_usage(datasets: Path) -> None:
    runner = CliRunner()
    base = ["judge", "run", "--datasets", str(datasets)]
    cases = [
        (["direct", "proofbench"], "needs --model"),
        (["answer-equivalence", "mumath", "--model", "x"], "uses no model"),
        (["mumath-cot", "proofbench", "--model", "openai/x"], "does not support 'proofbench'"),
        (["direct", "proofbench", "--model", "openai/x", "--context", "ms"], "takes no --context"),
    ]
    for args, message in cases:
        result = runner.invoke(main, [*base[:2], *args, *base[2:]], env={"OPENAI_API_KEY": "k"})
        assert result.exit_code in (1, 2), (args, result.output)
        assert message in result.output, (args, result.output)


def test_killed_process_resumes_without_repeating_calls(datasets: Path, tmp_path: Path) -> None:
    """A real `mathjudge judge run` process is killed (SIGKILL) while some calls hang; the next
    run asks only for the answers that were not stored."""
    rows = items(datasets, "proofbench", "grading")
    hang = {r["proof"] for r in rows[-4:]}
    hanging = {"on": True}

    def script(body: dict[str, Any]) -> StubReply:
        text = body["messages"][-1]["content"]
        delay = 60.0 if hanging["on"] and any(p in text for p in hang) else 0.0
        return StubReply(content=f"SCORE: {grade_of(text)}", delay=delay)

    cache, out = tmp_path / "cache", tmp_path / "out.jsonl"
    with OpenAIStub(script=script) as stub:
        env = {
            **os.environ,
            "MATHJUDGE_LLM_API_BASE": stub.api_base,
            "MATHJUDGE_LLM_API_KEY": "k",
            "PYTHONPATH": str(REPO),
        }
        command = [sys.executable, "-m", "mathjudge", "judge", "run", "direct", "proofbench"]
        command += ["--model", "openai/stub", "--datasets", str(datasets), "--quiet"]
        command += ["--cache", str(cache), "--out", str(out), "--concurrency", "4"]
        process = subprocess.Popen(command, env=env, cwd=REPO, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (
            len(list(cache.rglob("*.json"))) == N_PROOFS - 4 and stub.count == N_PROOFS
        ):
            time.sleep(0.05)
        stored = len(list(cache.rglob("*.json")))
        assert stored == N_PROOFS - 4, process.stderr.read() if process.stderr else ""
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        asked = stub.count
        assert asked == N_PROOFS  # the four hanging calls were in flight
        assert not out.exists()  # nothing partial was written
        assert not [p for p in cache.rglob("*") if p.name.startswith(".")]

        hanging["on"] = False
        done = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert stub.count == asked + 4  # only the lost in-flight calls
    assert "4 new call(s), 14 from cache" in done.stdout
    grades = expected_grades(rows)
    predictions = [json.loads(line) for line in out.read_text().splitlines()]
    assert predictions == [
        {"item_id": r["item_id"], "score": float(grades[r["item_id"]])} for r in rows
    ]


def test_evaluated_ensemble_records_meta_in_store(datasets: Path, tmp_path: Path) -> None:
    rows = items(datasets, "proofbench", "grading")
    with OpenAIStub(script=grader) as stub:
        run = run_judge(ProofGrader("ms"), "proofbench", rows, client=client(stub, None), runs=3)
    out = tmp_path / "ens.jsonl"
    paths = write_outputs(run, out)
    result = evaluate_file(
        "proofbench",
        out,
        "proof-grader ms x3",
        datasets_dir=datasets,
        runs_agg="median",
        n_boot=10,
        meta=read_meta(paths.meta),
    )
    save(tmp_path / "store.duckdb", result)
    assert result.runs == 3 and result.meta["judge_params"]["context"] == "ms"
    grades = expected_grades(rows)
    # The stub grades each proof the same in every run, so the median is that grade.
    overall = {s.metric: s.value for s in result.scores if s.scope == "overall"}
    by_problem: dict[str, list[int]] = {}
    for r in rows:
        by_problem.setdefault(r["problem_id"], []).append(grades[r["item_id"]] - r["expert_score"])
    expected_bias = sum(sum(v) / len(v) for v in by_problem.values()) / len(by_problem)
    assert overall["bias"] == pytest.approx(expected_bias)


def test_cli_limit_and_rule_judge_write_partial_files_that_evaluate(
    datasets: Path, tmp_path: Path
) -> None:
    """A --limit run is partial; so is a judge that answers only some items. The command the
    run prints next evaluates the file as it is."""
    out = tmp_path / "ae.jsonl"
    args = ["judge", "run", "answer-equivalence", "mumath", "--limit", "5", "--quiet"]
    result = CliRunner().invoke(main, [*args, "--datasets", str(datasets), "--out", str(out)])
    assert result.exit_code == 0, result.output
    meta = read_meta(sidecar(out, "meta"))
    assert meta["partial"] is True and meta["limit"] == 5 and meta["model"] is None
    assert meta["counts"]["predictions"] == 5 and meta["cost_usd"] == 0.0
    assert meta["dataset"]["content_hash"]
    hint = result.output.split("next: mathjudge ", 1)[1].strip()
    assert hint.endswith("--allow-partial")
    store = ["--store", str(tmp_path / "s.duckdb"), "--bootstrap", "5", "--quiet"]
    evaluated = CliRunner().invoke(main, [*shlex.split(hint), "--datasets", str(datasets), *store])
    assert evaluated.exit_code == 0, evaluated.output
    assert "coverage 31.2% (PARTIAL)" in evaluated.output  # 5 of 16


def test_bad_credentials_stop_the_run_naming_the_item_and_write_nothing(
    datasets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "x.jsonl"
    with OpenAIStub(script=lambda _body: StubReply(status=401)) as stub:
        monkeypatch.setenv("MATHJUDGE_LLM_API_BASE", stub.api_base)
        monkeypatch.setenv("MATHJUDGE_LLM_API_KEY", "wrong")
        args = ["judge", "run", "direct", "opc", "--model", "openai/stub", "--limit", "3"]
        args += ["--datasets", str(datasets), "--cache", str(tmp_path / "c"), "--out", str(out)]
        result = CliRunner().invoke(main, [*args, "--quiet", "--concurrency", "1"])
        assert stub.count == 1  # not retried, and no further item asked
    assert result.exit_code == 1
    first = items(datasets, "opc", "judgments")[0]["item_id"]
    assert f"error: item {first}: openai/stub: AuthenticationError" in result.output
    assert not out.exists() and not sidecar(out, "meta").exists()
