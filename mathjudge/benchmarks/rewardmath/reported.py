"""RewardMATH accuracies as quoted by a later paper. The RewardMATH paper's own results table
was not reachable (see the shared reported/SOURCE.md, section 6); "Confidence as a Reward"
(Du et al., arXiv:2510.13501v1, Table 1) reprints its accuracies of 9 classifier reward models
and 4 process reward models (each under the product and the geometric mean), saying they are
"reported in the Kim et al. (2024)". Only accuracy is quoted: no MRR, no LLM judges.

A process reward model is one result with both aggregations (`accuracy_prod`,
`accuracy_geometric_mean`); a classifier's is `accuracy`. Names are as printed.
"""

from __future__ import annotations

from pathlib import Path

from mathjudge.benchmarks.rewardmath import PAPER, SPEC
from mathjudge.dataio.reported import Row, cell_score, read_rows, result
from mathjudge.spec.benchmark import Paper
from mathjudge.spec.results import Evaluation

FILE = "rewardmath_accuracy_quoted_in_arxiv2510.13501.csv"
COLUMNS = (
    "judge_as_printed",
    "model_linked",
    "group_as_printed",
    "aggregation",
    "rewardmath_accuracy",
    "shared_file",
)
QUOTING = Paper("Confidence as a Reward: Transforming LLMs into Reward Models", "2510.13501")
N_PROBLEMS = 483
METRICS = {"": "accuracy", "prod": "accuracy_prod", "geometric_mean": "accuracy_geometric_mean"}


def load(folder: Path) -> list[Evaluation]:
    """One result per printed name: a process reward model's two rows (product, geometric
    mean) are one result citing both."""
    by_judge: dict[str, list[Row]] = {}
    for row in read_rows(folder / FILE, COLUMNS):
        row.text("aggregation", METRICS)
        by_judge.setdefault(row.text("judge_as_printed"), []).append(row)
    out = []
    for judge, rows in by_judge.items():
        scores = [
            s
            for row in rows
            for s in cell_score(
                row,
                "rewardmath_accuracy",
                ("overall", "all", N_PROBLEMS),
                METRICS[row.text("aggregation")],
                100,
            )
        ]
        first = rows[0]
        meta = {
            "kind": "process_reward_model" if first.text("aggregation") else "reward_model",
            "model": first.text("model_linked"),
            "group_as_printed": ", ".join(dict.fromkeys(r.text("group_as_printed") for r in rows)),
            "quoted_from": f'"{PAPER.title}", arXiv:{PAPER.arxiv} (Kim et al., 2024)',
            "outputs_file": first.text("shared_file"),
        }
        fields = ("step_scores",) if first.text("aggregation") else ("score",)
        out.append(
            result(
                SPEC.name,
                QUOTING,
                N_PROBLEMS,
                ["Table 1 (quoting arXiv:2410.01729)"],
                rows,
                judge,
                scores,
                meta,
                fields,
            )
        )
    return out
