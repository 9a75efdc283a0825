"""Paired statistics of two judges scored on the same items: one cluster bootstrap shared by
both, differences with percentile intervals and two-sided bootstrap p-values.

Two judges' CIs overlapping says little about whether one is better: both are scored on the same
items, so most of their sampling noise is shared. Both are restricted to the items both judged,
turned into per-cluster statistics by the engine, and bootstrapped with *one* set of cluster
(problem) resamples, so every replicate scores A and B on the same problems. For each metric in
each (scope, subset) the result is the difference d = A - B with

- a 95% percentile interval of the replicate differences d*;
- a two-sided bootstrap p-value p = min(1, 2 * min(P*(d* <= 0), P*(d* >= 0))), P* being the share
  of replicates where d* is defined. The tail shares move in steps of 1/B, so p moves in steps
  of 2/B: when no replicate falls on the far side of 0 the estimate would be 0, and p is reported
  as an upper bound, p < 2/B, never as 0.

`scoring.compare` resolves the two judges (store or file); rank intervals and tie groups
(`document.ranks`) use the same test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from mathjudge.scoring.bootstrap import percentile_interval
from mathjudge.scoring.engine import ClusterStats, replicates
from mathjudge.spec.scorer import Scorer


@dataclass(frozen=True)
class Side:
    """Where one judge's predictions came from, so a comparison can be traced back."""

    label: str  # judge name (store) or file path
    origin: str  # "store" or "file"
    ref: str  # submission id (store) or the file's sha256
    n_items: int  # items it judged, before restricting to the shared ones


@dataclass(frozen=True)
class Difference:
    scope: str
    subset: str
    metric: str
    a_value: float | None
    b_value: float | None
    diff: float | None  # a_value - b_value
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_is_bound: bool  # no replicate on the far side of 0: the p-value is below `p_value` (2/B)
    n_items: int


@dataclass(frozen=True)
class Comparison:
    benchmark: str
    dataset_version: str
    content_hash: str
    a: Side
    b: Side
    fields: tuple[str, ...]  # prediction fields both judges give, the ones compared
    n_shared_items: int
    n_shared_problems: int
    n_boot: int
    seed: int
    unit: str  # the resampled cluster column
    rows: tuple[Difference, ...]  # groups in display order (overall first), metrics in order
    options: dict[str, str] = field(default_factory=dict)  # the scorer's, e.g. the matcher

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "dataset_version": self.dataset_version,
            "content_hash": self.content_hash,
            "a": asdict(self.a),
            "b": asdict(self.b),
            "fields": list(self.fields),
            "shared": {"items": self.n_shared_items, "problems": self.n_shared_problems},
            "bootstrap": {
                "B": self.n_boot,
                "seed": self.seed,
                "unit": self.unit,
                "paired": True,
                "ci": "percentile 95% of A-B",
                "p_value": "two-sided: min(1, 2*min(P*(d<=0), P*(d>=0))); bound 2/B when 0",
                "options": dict(self.options),
            },
            "rows": [asdict(r) for r in self.rows],
        }

    def format_table(self) -> str:
        """A plain-text table for the terminal: every (scope, subset), overall first."""
        head = ("scope", "subset", "metric", "A", "B", "A-B", "95% CI of A-B", "p", "n")
        body = [
            (
                r.scope,
                r.subset,
                r.metric,
                _fmt(r.a_value),
                _fmt(r.b_value),
                _fmt(r.diff),
                "n/a" if r.ci_low is None else f"[{_fmt(r.ci_low)}, {_fmt(r.ci_high)}]",
                _fmt_p(r),
                str(r.n_items),
            )
            for r in self.rows
        ]
        widths = [max(len(row[i]) for row in (head, *body)) for i in range(len(head))]

        def line(cells: tuple[str, ...]) -> str:
            return "  ".join(
                c.ljust(w) if i < 3 else c.rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()

        intro = [
            f"{self.benchmark}: A = {_describe(self.a)}; B = {_describe(self.b)}",
            f"paired on {self.n_shared_items} shared items of {self.n_shared_problems} problems; "
            f"fields: {', '.join(self.fields)}"
            + "".join(f"; {k}: {v}" for k, v in self.options.items() if v),
            f"one paired bootstrap over {self.unit} (B={self.n_boot}, seed={self.seed}); "
            "two-sided bootstrap p-values",
        ]
        return "\n".join([*intro, "", line(head), *(line(cells) for cells in body)])


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _fmt_p(row: Difference) -> str:
    if row.p_value is None:
        return "n/a"
    return f"<{row.p_value:.3g}" if row.p_is_bound else f"{row.p_value:.3g}"


def _describe(side: Side) -> str:
    where = f"submission {side.ref}" if side.origin == "store" else f"sha256 {side.ref[:12]}"
    return f"{side.label} ({side.origin}, {where}, {side.n_items} items)"


def paired_differences(
    scorer: Scorer,
    fields: tuple[str, ...],
    stats_a: ClusterStats,
    stats_b: ClusterStats,
    n_boot: int,
    seed: int,
    on_progress: Callable[[int], None] | None,
) -> list[Difference]:
    """A - B for every metric in every (scope, subset), from one shared cluster bootstrap (the
    two laid out alike: `ClusterStats.same_layout`)."""
    # One call, so A and B share every resample. B enters as B - A and is added back: where the
    # judges agree those columns are exactly 0, so identical judges give d* = 0 exactly, which
    # summing B's own columns would not guarantee (BLAS may round the two halves differently).
    difference = replace(stats_b, matrix=stats_b.matrix - stats_a.matrix)
    sums_a, sums_d = replicates([stats_a, difference], n_boot, seed, on_progress)
    rep_a = stats_a.metrics(scorer, fields, sums_a)
    rep_b = stats_b.metrics(scorer, fields, sums_a + sums_d)
    point_a = stats_a.metrics(scorer, fields, stats_a.totals)
    point_b = stats_b.metrics(scorer, fields, stats_b.totals)
    names = scorer.metric_names(fields)
    per_metric = {m: metric_differences(rep_a[m] - rep_b[m]) for m in names}
    rows = []
    for g, (scope, subset) in enumerate(stats_a.groups):
        for m in names:
            a_value, b_value = _clean(point_a[m][g]), _clean(point_b[m][g])
            low, high, p, bound = (x[g] for x in per_metric[m])
            diff = None
            if a_value is not None and b_value is not None and not np.isnan(p):
                diff = a_value - b_value
            defined = diff is not None  # CI and p only next to a defined difference
            rows.append(
                Difference(
                    scope=scope,
                    subset=subset,
                    metric=m,
                    a_value=a_value,
                    b_value=b_value,
                    diff=diff,
                    ci_low=_clean(low) if defined else None,
                    ci_high=_clean(high) if defined else None,
                    p_value=float(p) if defined else None,
                    p_is_bound=defined and bool(bound),
                    n_items=int(stats_a.n_items[g]),
                )
            )
    return rows


def metric_differences(
    diffs: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per group (column) of replicate differences A - B: CI bounds, p-value (NaN without
    defined replicates), bound flag. The leaderboard's tie groups use the same test."""
    interval = percentile_interval(diffs)
    n_defined = (~np.isnan(diffs)).sum(axis=0)
    tail = np.minimum((diffs <= 0).sum(axis=0), (diffs >= 0).sum(axis=0))
    bound = tail == 0  # the estimate would be 0: report its resolution 2/B as a bound instead
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.minimum(1.0, 2 * np.where(bound, 1, tail) / n_defined)
    p[n_defined == 0] = np.nan
    return interval.low, interval.high, p, bound


def _clean(x: float) -> float | None:
    return None if np.isnan(x) else float(x)
