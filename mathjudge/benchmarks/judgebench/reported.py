"""JudgeBench results as printed in the paper (arXiv:2410.12784, Tables 1-3; see the shared
reported/SOURCE.md): accuracy per category and overall on the 350 GPT-4o pairs, in %.

Judge names: a prompted judge of Table 1 or 2 is "<judge> (<model>)" ("Arena-Hard Judge
(o1-mini)"); a fine-tuned judge or a reward model is its printed name; Table 1's multi-agent
ChatEval names no model. Table 2's GPT-4o row reprints Table 1's Arena-Hard Judge (GPT-4o) and
is kept once.
"""

from __future__ import annotations

from pathlib import Path

from mathjudge.benchmarks.judgebench import SPEC
from mathjudge.dataio.reported import cell_score, read_rows, result
from mathjudge.spec.results import Evaluation

FILE = "judgebench_paper_tables.csv"
COLUMNS = (
    "judge",
    "model",
    "table",
    "knowledge",
    "reasoning",
    "math",
    "coding",
    "overall",
    "pairs",
)
# column -> (metric, pairs it is computed on)
CATEGORIES = {
    "knowledge": ("knowledge_accuracy", 154),
    "reasoning": ("reasoning_accuracy", 98),
    "math": ("math_accuracy", 56),
    "coding": ("coding_accuracy", 42),
    "overall": ("accuracy", 350),
}
N_PAIRS = 350
KINDS = {"1": "judges of Table 1", "2": "the Arena-Hard judge prompt", "3": "reward models"}


def judge_name(judge: str, model: str) -> str:
    if not model or model == judge:
        return judge
    return model if judge == "Reward Model" else f"{judge} ({model})"


def load(folder: Path) -> list[Evaluation]:
    assert SPEC.paper is not None
    out = []
    for row in read_rows(folder / FILE, COLUMNS):
        table = row.text("table", KINDS)
        if row.text("pairs") != "gpt4o":
            raise row.error("pairs", "only the GPT-4o pairs are in the paper's tables")
        judge, model = row.text("judge"), row.text("model")
        if not judge:
            raise row.error("judge", "empty")
        scores = [
            s
            for column, (metric, n) in CATEGORIES.items()
            for s in cell_score(row, column, ("overall", "all", n), metric, 100)
        ]
        meta = {
            "kind": "reward_model" if table == "3" else "llm_judge",
            "judge_as_printed": judge,
            "model_as_printed": model,
            "pairs": "the 350 GPT-4o response pairs",
            "rule": "two games with the order swapped; inconsistent or tied games count as wrong",
        }
        out.append(
            result(
                SPEC.name,
                SPEC.paper,
                N_PAIRS,
                [f"Table {table}"],
                [row],
                judge_name(judge, model),
                scores,
                meta,
                ("decisions",),
            )
        )
    return out
