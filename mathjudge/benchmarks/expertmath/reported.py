"""ExpertMath ranking numbers as printed in the CBU paper's prose (its Table 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mathjudge.benchmarks.expertmath import SPEC
from mathjudge.dataio.reported import Row, cell_score, read_rows, result
from mathjudge.spec.results import Evaluation

N_ITEMS = 1920  # 192 problems (70 originals, 122 variants) x 10 candidates


def _result(*args: Any, **kwargs: Any) -> Evaluation:
    assert SPEC.paper is not None
    return result(SPEC.name, SPEC.paper, N_ITEMS, *args, **kwargs)


EM_COLUMNS = ("method", "backbone", "dataset", "metric", "value", "where", "source", "note")
EM_METRICS = {"Acc@1": "acc_at_1", "Recall@5": "recall_at_5", "AUC": "auc", "HumanWin": "human_win"}
EM_METHODS = {
    "LLM-Judge": "LLM-Judge",
    "Consequence-Based Utility (CBU)": "CBU",
    "GenRM": "GenRM",
    "Reward model (RM)": "RM",
}


def _expertmath(folder: Path) -> list[Evaluation]:
    """Table 2's ranking metrics on ExpertMath, one judge per (method, backbone), e.g.
    "CBU (GPT-OSS-120B)". The file's other rows (logistic-regression gains, Figure 5 shares,
    prompt correlations, Daft-Math) are not scores of our metrics and are skipped."""
    rows = read_rows(folder / "expertmath_reported_numbers.csv", EM_COLUMNS)
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        if row.text("dataset") != "ExpertMath" or row.text("metric") not in EM_METRICS:
            continue
        method = row.text("method", EM_METHODS)
        grouped.setdefault(f"{EM_METHODS[method]} ({row.text('backbone')})", []).append(row)
    overall = ("overall", "all", N_ITEMS)
    out = []
    for judge, judge_rows in grouped.items():
        scores = [
            s
            for row in judge_rows
            for s in cell_score(row, "value", overall, EM_METRICS[row.text("metric")], 100)
        ]
        first = judge_rows[0]
        meta = {
            "method": first.text("method"),
            "backbone": first.text("backbone"),
            "where_in_paper": sorted({r.text("where")[:200] for r in judge_rows}),
            "notes": sorted({r.text("note") for r in judge_rows if r.text("note")}),
        }
        tables = sorted({r.text("source") for r in judge_rows})
        out.append(_result(tables, judge_rows, judge, scores, meta, ("score",)))
    return out


def load(folder: Path) -> list[Evaluation]:
    return _expertmath(folder)
