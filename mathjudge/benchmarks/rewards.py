"""What RewardMATH and RewardBench-math share: a reward per solution, given as one `score` or,
for a process reward model, as `step_scores` that are aggregated the ways the RewardMATH authors
aggregate them (arXiv:2410.01729, `src/evaluation/eval.py` of their repository). The scorer is
`reward_scoring`; this module holds the declarations, cheap to import with the specs."""

from __future__ import annotations

from mathjudge.spec.presentation import ItemField, ItemNote, MetricGroup, MetricSpec

# The step-score aggregations of the RewardMATH scorer, in the order the authors list them
# first the two their paper reports (prod, geometric mean); key -> label.
AGGREGATIONS = {
    "prod": "product",
    "geometric_mean": "geometric mean",
    "min": "minimum",
    "max": "maximum",
    "mean": "mean",
    "mean_logit": "sigmoid of the mean logit",
    "mean_odd": "mean odds",
    "last": "last step",
}
# A process reward model's `score` where it gives only step scores: the first aggregation the
# authors report, so every judge has a headline.
DEFAULT_AGGREGATION = "prod"

# What the glance says beside the headline: the rule that surprises a reader.
TIE_NOTE = (
    "A tie counts as a miss: judges that rate on a coarse scale (1 to 10) tie often and score "
    "low here."
)
# The per-solution values an item view shows beside the call, in plain words.
ITEM_NOTES = (
    ItemNote(
        "score",
        "Score",
        "The judge's score of this solution on its own scale (a reward, a rating); higher is "
        "better. A process reward model's is the product of its step scores.",
    ),
    *(
        ItemNote(
            f"prm_{key}",
            f"Steps: {label}",
            f"A process reward model's step scores combined by their {label}, as the authors "
            "score them.",
        )
        for key, label in AGGREGATIONS.items()
    ),
)


def judged_correct(others: str, correct: str, gold: str = "is_correct") -> ItemField:
    """The item explorer's field: what a judge's score says of one solution, by where it
    places the solution against the correct one (the scorer's `sides`)."""
    return ItemField(
        "sides",
        gold,
        "Verdict",
        "verdict",
        description=f"What the judge's score says of this solution. For {correct}: correct "
        f"when it scores strictly above {others}. For a wrong one: correct when it scores at "
        f"least as high as {correct} (the judge would take it for right). Gold: whether the "
        "solution is in fact correct.",
    )


def _pct(key: str, label: str, description: str, field: str | None = None) -> MetricSpec:
    """A per-problem rate: its n is the problems scored (the statistic `problems`)."""
    return MetricSpec(
        key,
        label,
        description,
        scale=100,
        decimals=2,
        direction="higher",
        field=field,
        n_from="problems",
    )


def groups(*, mrr: bool, what: str) -> tuple[MetricGroup, ...]:
    """The metric groups: accuracy (and MRR, where a problem has more than one wrong solution)
    of the judge's score, then the same under every aggregation of step scores. `what` says
    what accuracy counts."""
    main = [_pct("accuracy", "Accuracy", f"{what}, ×100; a tie counts as a failure.")]
    if mrr:
        main += [
            _pct(
                "mrr",
                "MRR",
                "Mean reciprocal rank of the correct solution among the problem's solutions, "
                "ties ranked against it, ×100.",
            ),
            _pct(
                "accuracy_with_ties",
                "Acc. (ties)",
                "As accuracy, but a tie with the best wrong solution counts as a success, ×100.",
            ),
        ]
    per_aggregation = []
    for key, label in AGGREGATIONS.items():
        per_aggregation.append(
            _pct(
                f"accuracy_{key}",
                f"Acc. ({label})",
                f"Accuracy with step scores aggregated by their {label}, ×100.",
                field="step_scores",
            )
        )
        if mrr:
            per_aggregation.append(
                _pct(
                    f"mrr_{key}",
                    f"MRR ({label})",
                    f"MRR with step scores aggregated by their {label}, ×100.",
                    field="step_scores",
                )
            )
    return (
        MetricGroup("Ranking the correct solution first", tuple(main)),
        MetricGroup(
            "Process reward models: each aggregation of the step scores",
            tuple(per_aggregation),
        ),
    )
