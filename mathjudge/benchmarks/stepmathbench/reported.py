"""StepMathBench results as printed in the StepMathAgent paper (Tables 3 and 4)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.benchmarks.stepmathbench import SPEC
from mathjudge.dataio.reported import Row, cell_score, read_rows, result
from mathjudge.spec.results import Evaluation, Score

N_ITEMS = 1000  # solutions the paper scored


def _result(*args: Any, **kwargs: Any) -> Evaluation:
    assert SPEC.paper is not None
    return result(SPEC.name, SPEC.paper, N_ITEMS, *args, **kwargs)


# column group -> (scope, subset, solutions)
STEP_GROUPS = {
    "all": ("overall", "all", 1000),
    "calc": ("type", "Calculation", 725),
    "proof": ("type", "Proof", 250),
    "open": ("type", "Open-ended", 25),
}
STEP_METRICS = {"avgs": "avg_score", "corr": "corr", "mse": "mse", "or": "overlap"}
STEP_COLUMNS = tuple(f"{g}_{m}" for g in STEP_GROUPS for m in STEP_METRICS)


@dataclass(frozen=True)
class Block:
    """A block of the paper's table: what it scores and how its printed values are scaled."""

    prefix: str
    field: str
    avgs_scale: int  # AvgS is the mean 0-10 score x10, or the mean 0/1 verdict x100
    mse_scale: int  # MSE is points^2 on 0-10 as is, or 100 x MSE of 0/1

    def scores(self, row: Row) -> list[Score]:
        scales = {"avgs": self.avgs_scale, "corr": 100, "mse": self.mse_scale, "or": 100}
        return [
            s
            for g, where in STEP_GROUPS.items()
            for m, metric in STEP_METRICS.items()
            for s in cell_score(row, f"{g}_{m}", where, self.prefix + metric, scales[m])
        ]

    def gold(self, row: Row) -> list[Score]:
        return [
            s
            for g, where in STEP_GROUPS.items()
            for s in cell_score(
                row, f"{g}_avgs", where, f"{self.prefix}gold_avg_score", self.avgs_scale
            )
        ]


PROCESS = Block("", "score", 10, 1)
ANSWER = Block("answer_", "answer_correct", 100, 100)
BLOCKS = {"Final Answer Evaluation": ANSWER, "Problem-solving Process Evaluation": PROCESS}


def _stepmath(
    rows: list[Row], table: str, blocks: list[Block], golds: list[bool], meta_columns: list[str]
) -> list[Evaluation]:
    # The Gold rows are the human labels scored against themselves (Corr 100, MSE 0, OR 100), not
    # a judge. Their AvgS is the gold mean over the items the paper scored, which reproduced
    # results carry as `gold_avg_score` (the reference AvgS is read against): every judge of the
    # block gets it in the scopes it has scores for.
    gold = {b: b.gold(r) for r, b, is_gold in zip(rows, blocks, golds, strict=True) if is_gold}
    out = []
    for row, block, is_gold in zip(rows, blocks, golds, strict=True):
        if is_gold:
            continue
        scores = block.scores(row)
        scored = {(s.scope, s.subset) for s in scores}
        scores += [s for s in gold.get(block, []) if (s.scope, s.subset) in scored]
        # RuleEM is defined on Calculation only: it covers those 725 of the 1,000 solutions.
        n_items = sum(n for scope, subset, n in STEP_GROUPS.values() if (scope, subset) in scored)
        meta = {c: row.text(c) for c in meta_columns}
        out.append(
            _result(
                [table],
                [row],
                row.text("judge"),
                scores,
                meta,
                (block.field,),
                n_items=N_ITEMS if ("overall", "all") in scored else n_items,
            )
        )
    return out


def _stepmath_table3(folder: Path) -> list[Evaluation]:
    columns = ("judge", "backbone", "prompt_version", "block")
    rows = read_rows(folder / "stepmathbench_table3.csv", (*columns, *STEP_COLUMNS))
    blocks = [BLOCKS[r.text("block", BLOCKS)] for r in rows]
    golds = [r.text("judge") == "Gold" for r in rows]
    return _stepmath(rows, "Table 3", blocks, golds, ["backbone", "prompt_version", "block"])


def _stepmath_table4(folder: Path) -> list[Evaluation]:
    meta = ["row_label", "backbone", "prompt_version", "external_modules", "group"]
    rows = read_rows(folder / "stepmathbench_table4_ablation.csv", ("judge", *meta, *STEP_COLUMNS))
    golds = [r.text("group") == "Gold" for r in rows]
    return _stepmath(rows, "Table 4", [PROCESS] * len(rows), golds, meta)


def load(folder: Path) -> list[Evaluation]:
    return [*_stepmath_table3(folder), *_stepmath_table4(folder)]
