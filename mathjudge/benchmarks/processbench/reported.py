"""ProcessBench results as printed in the paper (arXiv:2412.06559, the authors' preview PDF of
2024-12-10; see the shared reported/SOURCE.md): Table 3 (F1 per subset and their Average), Tables
5 and 7 (error and correct accuracies per subset; their F1 cells repeat Table 3's and are checked
against it), Tables 6 and 8 (two PRMs with a threshold chosen per subset) and Table 9 (the
open critic models decoding greedily). No judge outputs are published, so none of these has a
reproduced counterpart.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.processbench import SPEC, SUBSET_ORDER
from mathjudge.dataio.reported import Row, cell_score, read_rows, result
from mathjudge.spec.results import Evaluation, Score

FILE = "processbench_paper_table.csv"
SIZES = {"gsm8k": 400, "math": 1000, "olympiadbench": 1000, "omnimath": 1000}
N_ITEMS = sum(SIZES.values())
COLUMNS = (
    "table",
    "group",
    "model",
    *(f"{s}_f1" for s in SUBSET_ORDER),
    "average_f1",
    *(f"{s}_{k}_acc" for s in SUBSET_ORDER for k in ("error", "correct")),
    "setting",
)
SETTINGS = {
    "prm": "a process reward model's own step predictions",
    "prm_threshold_selected_on_gsm8k": "scalar step scores, one threshold chosen for the best F1 "
    "on GSM8K",
    "prm_threshold_per_subset": "scalar step scores, a threshold chosen per subset (the paper's "
    "upper bound)",
    "majority_vote_8": "critic prompt, majority vote over 8 samples",
    "greedy": "critic prompt, greedy decoding",
    "single_sample": "critic prompt, one sample",
}
# Tables by the evaluation they report: 3, 5 and 7 are the main one; 6 with 8, and 9, others.
FAMILIES = {
    "3": "main",
    "5": "main",
    "7": "main",
    "6": "thresholds",
    "8": "thresholds",
    "9": "greedy",
}


def _scores(row: Row, f1: bool, accuracies: bool, average: bool) -> list[Score]:
    out: list[Score] = []
    if average:
        out += cell_score(row, "average_f1", ("overall", "all", N_ITEMS), "f1", 100)
    for s in SUBSET_ORDER:
        where = ("subset_name", s, SIZES[s])
        if f1:
            out += cell_score(row, f"{s}_f1", where, "f1", 100)
        if accuracies:
            out += cell_score(row, f"{s}_error_acc", where, "error_accuracy", 100)
            out += cell_score(row, f"{s}_correct_acc", where, "correct_accuracy", 100)
    return out


def _judge(row: Row) -> str:
    model = row.text("model")
    return f"{model} (greedy)" if row.text("table") == "9" else model


def load(folder: Path) -> list[Evaluation]:
    assert SPEC.paper is not None
    rows = read_rows(folder / FILE, COLUMNS)
    grouped: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        table = row.text("table", FAMILIES)
        row.text("setting", SETTINGS)
        grouped[f"{FAMILIES[table]}/{_judge(row)}"].append(row)
    out = []
    for key, group in grouped.items():
        by_table = {r.text("table"): r for r in group}
        if len(by_table) != len(group):
            raise group[0].error("table", f"{key}: a table lists the judge twice")
        scores: list[Score] = []
        if "3" in by_table:
            scores += _scores(by_table["3"], f1=True, accuracies=False, average=True)
            for table in ("5", "7"):
                if table in by_table:
                    _same_f1(by_table["3"], by_table[table])
                    scores += _scores(by_table[table], f1=False, accuracies=True, average=False)
        else:
            for row in group:
                scores += _scores(row, f1=True, accuracies=True, average=False)
        first = group[0]
        meta: dict[str, Any] = {
            "kind": "process_reward_model"
            if first.text("setting").startswith("prm")
            else "llm_judge",
            "setting": SETTINGS[first.text("setting")],
            "group_as_printed": first.text("group"),
            "labels": "as released on 2024-12-10 (math-688 labelled 2)",
        }
        tables = [f"Table {t}" for t in sorted(by_table, key=int)]
        out.append(
            result(
                SPEC.name,
                SPEC.paper,
                N_ITEMS,
                tables,
                group,
                _judge(first),
                scores,
                meta,
                ("error_step",),
            )
        )
    return out


def _same_f1(main: Row, breakdown: Row) -> None:
    """A breakdown table's F1 cells must be Table 3's (the paper prints each twice)."""
    for s in SUBSET_ORDER:
        column = f"{s}_f1"
        again = breakdown.number(column)
        if again is not None and again != main.number(column):
            raise breakdown.error(column, f"{again} differs from Table 3's {main.number(column)}")
    if breakdown.number("average_f1") is not None:
        raise MathJudgeError(f"{breakdown.origin}: a breakdown table prints no Average")
