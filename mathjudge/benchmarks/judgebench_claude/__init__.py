"""JudgeBench's Claude pairs: the same task and dataset as `judgebench`, other responses."""

from __future__ import annotations

from dataclasses import replace

from mathjudge.benchmarks import judgebench

SPEC = replace(
    judgebench.SPEC,
    name="judgebench_claude",
    title="JudgeBench (Claude pairs)",
    summary=judgebench.summary(
        "270 pairs of Claude-3.5-Sonnet responses to knowledge, reasoning, math and coding "
        "questions."
    ),
    items_config="claude",
    outputs="mathjudge.benchmarks.judgebench.outputs:import_outputs",
    reported=None,  # the paper's tables are all on the GPT-4o pairs (`judgebench`)
)
