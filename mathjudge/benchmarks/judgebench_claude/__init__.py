"""JudgeBench's Claude pairs: the same task and dataset as `judgebench`, other responses."""

from __future__ import annotations

from mathjudge.benchmarks.judgebench import (
    GROUPS,
    ITEM_TEXT,
    ITEMS,
    LOCAL_ONLY,
    PAPER,
    summary,
)
from mathjudge.spec.benchmark import BenchmarkSpec

SPEC = BenchmarkSpec(
    name="judgebench_claude",
    title="JudgeBench (Claude pairs)",
    summary=summary(
        "270 pairs of Claude-3.5-Sonnet responses to knowledge, reasoning, math and coding "
        "questions."
    ),
    paper=PAPER,
    dataset="judgebench",
    items_config="claude",
    seed=6,
    headline="math_accuracy",
    overview_extra=("accuracy",),
    groups=GROUPS,
    cluster_label="pairs",
    items=ITEMS,
    item_text=ITEM_TEXT,
    outputs="mathjudge.benchmarks.judgebench.outputs:import_outputs",
    local_only=LOCAL_ONLY,
)
