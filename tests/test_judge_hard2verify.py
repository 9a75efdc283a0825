"""`direct` and `pf-bv` on Hard2Verify: one 0/1 label per step of the dataset's segmentation,
every run written as a `run` row for the scorer's pessimistic union, evaluated end to end on
the fixture against the local stub (counts worked out by hand below)."""

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

from mathjudge.benchmarks.hard2verify import build as builder
from mathjudge.cli import main
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.judges.parsing import step_labels_parser
from mathjudge.judges.pf_bv import PfBv, step_modules_parser
from mathjudge.judges.runner import run_judge, write_outputs
from mathjudge.llm.answers import AnswerError
from mathjudge.llm.client import LlmClient
from mathjudge.scoring.evaluator import evaluate_file

FIXTURE = Path(__file__).parent / "fixtures" / "hard2verify"
BENCH = "hard2verify"
# Two labellings per response; both runs send the same messages, so which run gets which is
# up to timing, and only their union (k = 2, the overall scope) is fixed.
DIRECT = {
    "Let n be odd.": ("1, 1, 0, 1", "1, 1, 1, 0"),  # gold 1 1 0 0
    "Write n = 2k + 1.": ("1, 1, 1", "1, 0, 1"),  # gold 1 1 1
    "By AM-GM, a + b >= 2ab.": ("1 1", "0 1"),  # gold 0 1
    "By AM-GM, a + b >= 2 sqrt(ab).": ("1,1,1", "1,1,1"),  # gold 1 1 1
    "Let p be an odd prime.": ("1, 0, 1, 1", "1, 1, 1, 1"),  # gold 1 0 1 1
}
# Union: flagged steps 3,4 | 2 | 1 | - | 2. Steps tp 4 fp 1 fn 0 tn 11; responses flagged
# 0001 0002 0003 0005 against wrong 0001 0003 0005: tp 3 fp 1 fn 0 tn 1.
DIRECT_UNION = {
    "step_precision": 4 / 5,
    "step_recall": 1.0,
    "step_tnr": 11 / 12,
    "step_balanced_f1": 22 / 23,
    "proof_precision": 3 / 4,
    "proof_recall": 1.0,
    "proof_tnr": 1 / 2,
    "proof_balanced_f1": 2 / 3,
}
# pf-bv: these step texts are the conclusions the checker rejects.
REJECTED = {
    "A product of two odd numbers is even.",
    "By AM-GM, a + b >= 2ab.",
    "Then p - 1 is odd.",
}
# Flagged: 0001 step 3 (gold wrong 3, 4), 0003 step 1, 0005 step 2. Steps tp 3 fp 0 fn 1
# tn 12; responses: exactly the three wrong ones flagged.
PFBV = {
    "step_precision": 1.0,
    "step_recall": 3 / 4,
    "step_tnr": 1.0,
    "step_balanced_f1": 6 / 7,
    "proof_precision": 1.0,
    "proof_recall": 1.0,
    "proof_tnr": 1.0,
    "proof_balanced_f1": 1.0,
}


pytestmark = pytest.mark.usefixtures("no_network")


@pytest.fixture(scope="module")
def datasets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("datasets")
    write_dataset(builder.build(FIXTURE), out)
    return out


def steps_of(text: str, heading: str) -> list[str]:
    body = text.split(f"## {heading}\n\n", 1)[1].split("\n\n## ", 1)[0]
    return [re.sub(r"^\[\d+\] ", "", part) for part in body.split("\n\n")]


def overall(path: Path, datasets: Path) -> dict[str, float | None]:
    result = evaluate_file(BENCH, path, "judge (stub)", datasets_dir=datasets, n_boot=20)
    return {s.metric: s.value for s in result.scores if s.scope == "overall"}


def test_direct_labels_every_step_and_runs_are_united_by_the_scorer(
    datasets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: Counter[str] = Counter()

    def labeller(body: dict[str, Any]) -> StubReply:
        text = body["messages"][0]["content"]
        first = steps_of(text, "Solution, step by step")[0]
        labels = DIRECT[first][seen[first]]
        seen[first] += 1
        return StubReply(content=f"Checked each step.\nLABELS: {labels}")

    out = tmp_path / "direct.jsonl"
    args = ["judge", "run", "direct", BENCH, "--model", "openai/stub", "--runs", "2", "--quiet"]
    args += ["--datasets", str(datasets), "--cache", str(tmp_path / "c"), "--out", str(out)]
    monkeypatch.setenv("MATHJUDGE_LLM_API_KEY", "k")
    with OpenAIStub(script=labeller) as stub:
        result = CliRunner().invoke(main, [*args, "--api-base", stub.api_base])
        assert result.exit_code == 0, result.output
        assert stub.count == 5 * 2
        prompt = stub.bodies[0]["messages"][0]["content"]
    assert "[1] " in prompt and "labels in all" in prompt
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((r["item_id"], r["run"]) for r in rows) == [
        (f"h2v-000{i}", run) for i in range(1, 6) for run in (0, 1)
    ]
    got = overall(out, datasets)
    for metric, expected in DIRECT_UNION.items():
        assert got[metric] == pytest.approx(expected), metric


def module_writer(body: dict[str, Any]) -> StubReply:
    """One module per step, except a response of three steps that also states its own
    conclusion (modules over step ranges)."""
    text = body["messages"][0]["content"]
    if "## Proof, step by step" in text:
        steps = steps_of(text, "Proof, step by step")
        groups = (
            [[1, 2, 3]]
            if steps[0] == "Write n = 2k + 1."
            else [[i] for i in range(1, 1 + len(steps))]
        )
        if steps[0].startswith("By AM-GM, a + b >= 2 sqrt"):
            groups = [[1, 2], [3]]
        blocks = []
        for number, group in enumerate(groups, start=1):
            listed = f"{group[0]}-{group[-1]}" if len(group) > 1 else str(group[0])
            conclusion = steps[group[-1] - 1]
            uses = "none" if number == 1 else str(number - 1)
            blocks.append(
                f"MODULE {number}\nSteps: {listed}\nPremises: the hypotheses.\n"
                f"Conclusion: {conclusion}\nUses: {uses}\nProof: as written.\nEND MODULE"
            )
        return StubReply(content="\n".join(blocks) + f"\nMODULES: {len(groups)}")
    assert "## Module checks" not in text  # no calibration call for step labels
    conclusion = text.split("Claimed conclusion: ", 1)[1].split("\n", 1)[0]
    verdict = "invalid" if conclusion in REJECTED else "valid"
    return StubReply(content=f"Checked.\nVERDICT: {verdict}")


def test_pf_bv_labels_steps_through_modules(datasets: Path, tmp_path: Path) -> None:
    rows = pq.read_table(open_dataset(BENCH, datasets).parquet("responses")).to_pylist()
    with OpenAIStub(script=module_writer) as stub:
        client = LlmClient("openai/stub", cache_dir=None, api_base=stub.api_base, api_key="k")
        run = run_judge(PfBv(), BENCH, rows, client=client, runs=2)
        # per run: 1 rewrite + modules (4, 1, 2, 2, 4) = 18; two runs, not combined
        assert stub.count == 2 * 18
    labels = {(p["item_id"], p["run"]): p["step_labels"] for p in run.predictions}
    for run_index in (0, 1):
        assert [labels[(f"h2v-000{i}", run_index)] for i in range(1, 6)] == [
            [1, 1, 0, 1],
            [1, 1, 1],
            [0, 1],
            [1, 1, 1],
            [1, 0, 1, 1],
        ]
    assert run.details[0]["invalid_modules"] == [3]
    out = tmp_path / "pfbv.jsonl"
    write_outputs(run, out)
    got = overall(out, datasets)
    for metric, expected in PFBV.items():
        assert got[metric] == pytest.approx(expected), metric


MODULES = """MODULE 1
Steps: 1-2
Premises: a.
Conclusion: b.
Uses: none
Proof: c.
END MODULE
MODULE 2
Steps: 3
Premises: a.
Conclusion: d.
Uses: 1
Proof: e.
END MODULE
MODULES: 2"""


def test_step_answers_are_read_strictly() -> None:
    assert step_labels_parser(3)("fine\nLABELS: 1, 0, 1") == [1, 0, 1]
    assert step_labels_parser(2)("**LABELS:** 0 1.") == [0, 1]
    for answer, reason in (
        ("LABELS: 1, 0", "must give 3 labels"),
        ("LABELS: 1, 2, 1", "only 0 and 1"),
        ("1, 1, 1", "LABELS"),
    ):
        with pytest.raises(AnswerError, match=reason):
            step_labels_parser(3)(answer)
    found = step_modules_parser(3)(MODULES)
    assert [(m.number, steps) for m, steps in found] == [(1, (1, 2)), (2, (3,))]
    for answer, reason in (
        (MODULES.replace("Steps: 3", "Steps: 2"), r"step\(s\) 3 belong to no module"),
        (MODULES.replace("Steps: 3", "Steps: 4"), "from 1 to 3"),
        (MODULES.replace("Steps: 3\n", ""), "needs a 'Steps:' line"),
    ):
        with pytest.raises(AnswerError, match=reason):
            step_modules_parser(3)(answer)
