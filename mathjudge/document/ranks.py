"""Rank intervals and tie groups for the reproduced judges of one benchmark.

A point ranking by the headline metric suggests more order than a few hundred problems can
support. Here every judge's per-item predictions (kept in the store) are turned into
per-cluster statistics by the scoring engine, all judges are bootstrapped with *one* set of
cluster resamples (`engine.replicates` over the side-by-side matrices, the same seed and B the
evaluator used, so each judge's replicates are exactly those behind its published CI), and then:

- rank interval: in every replicate each judge gets a competition rank (1 + the number of judges
  strictly better); the interval is the 2.5th to 97.5th percentile of those ranks;
- tie groups: judges are taken in order of their point estimate; a judge joins the current group
  unless the paired bootstrap difference to the group's first (best) judge is significant at
  5% (the two-sided bootstrap p-value of `mathjudge compare`), in which case it opens the next
  group. Judges sharing a group cannot be told apart by the data.

Ranks only where comparable: a judge is ranked only against judges scored on the same item
set, i.e. the same dataset build (content hash) with every item answered. Everything else is
shown unranked with the reason (`excluded`): a partial judge (its scores cover other items), a
judge scored on another build, a result on the small example a benchmark ships, a reported
result (no per-item predictions), a judge whose headline is undefined or missing. Fewer than two
comparable judges rank nothing. Benchmarks whose scorer pools several predictions per item are
not ranked either. A baseline (meta `kind: baseline`: a constant, a random or a shortcut rule)
is a reference line, never ranked: it is excluded with that reason, so the ranks, tie groups
and every leader drawn from them are judges' only.

Everything comes from the results store: the judges' per-item predictions and the scored
dataset's items (kept by content hash when the judges were evaluated), so ranking never needs
the built datasets.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
from mathjudge.scoring.engine import ClusterStats, cluster_statistics, replicates
from mathjudge.scoring.paired import metric_differences
from mathjudge.scoring.tables import connect
from mathjudge.spec.benchmark import BenchmarkSpec
from mathjudge.spec.document import Exclusion, RankEntry, Ranks
from mathjudge.spec.presentation import MetricSpec
from mathjudge.spec.results import Submission
from mathjudge.spec.scorer import Scorer
from mathjudge.store import read

ALPHA = 0.05
RANK_PERCENTILES = (2.5, 97.5)
OVERALL = ("overall", "all")


BASELINE = "a baseline: a reference line to read the judges against, never ranked"
NO_JUDGE = "no judge reproduced here yet, only baselines and papers' values"


def is_baseline(sub: Submission) -> bool:
    """Whether the submission says it is a baseline (its meta's `kind`)."""
    return sub.meta.get("kind") == "baseline"


@dataclass(frozen=True)
class Ranked:
    """One ranked judge: its submission and its `RankEntry`."""

    submission_id: str
    entry: RankEntry


def rank_benchmark(
    spec: BenchmarkSpec,
    submissions: list[Submission],
    con: duckdb.DuckDBPyConnection,
    example_hashes: frozenset[str] = frozenset(),
) -> Ranks:
    """The ranks of the judges (status "ranked") or the status saying why there are none;
    `excluded` gives every unranked submission the reason.

    `submissions` are the benchmark's latest ones (as `store.read.latest_submissions` gives
    them); `con` reads the store; `example_hashes` are the content hashes of datasets built from
    a benchmark's shipped example."""
    excluded: dict[str, Exclusion] = {}

    def exclude(sub: Submission, kind: str, text: str) -> None:
        excluded[sub.id] = Exclusion(kind=kind, text=text)

    reproduced = []
    for sub in submissions:
        if sub.source == "reported":
            exclude(sub, "reported", "reported in a paper: no per-item predictions to rank")
        elif is_baseline(sub):
            exclude(sub, "baseline", BASELINE)
        elif sub.content_hash in example_hashes:
            exclude(
                sub,
                "example",
                "scored on the small example shipped with mathjudge, not on the benchmark's data",
            )
        elif sub.partial or sub.coverage < 1:
            exclude(
                sub,
                "partial",
                f"partial: {_percent(sub.coverage)} of the items answered, so its scores "
                "cover other items than the ranked judges'",
            )
        else:
            reproduced.append(sub)
    scorer = registry.scorer(spec.name)
    why = None
    if scorer.pools_k:
        why = "its scorer pools many predictions per item"
    elif spec.metric(spec.headline).direction is None:
        why = "the headline metric has no direction"
    if why is None and not reproduced:
        if all(s.source == "reported" for s in submissions):
            why = "reported results only"
        elif all(s.source == "reported" or is_baseline(s) for s in submissions):
            why = NO_JUDGE
        else:
            why = "no judge scored on every item of the benchmark's data"
    if why is not None:
        for sub in reproduced:
            exclude(sub, "not ranked", f"not ranked: {why}")
        return Ranks(status=f"not ranked: {why}", excluded=excluded)
    headline = spec.metric(spec.headline)
    # The build most of the full-coverage judges were scored on (normally all of them).
    content_hash = Counter(s.content_hash for s in reproduced).most_common(1)[0][0]
    candidates = []
    for sub in reproduced:
        if sub.content_hash == content_hash:
            candidates.append(sub)
        else:
            exclude(
                sub,
                "other dataset",
                f"scored on another build of the dataset ({sub.dataset_version}, "
                f"{sub.content_hash[:19]}…) than the ranked judges",
            )
    items = read.dataset_items(con, content_hash, spec.items_config)
    if items is None:
        for sub in candidates:
            exclude(sub, "not ranked", "not ranked: the store keeps no items for its dataset")
        return Ranks(
            status="not ranked: the store keeps no items for its dataset; re-evaluate",
            excluded=excluded,
        )
    field = _headline_field(scorer, headline)
    boot = _common_bootstrap(candidates, spec)
    stats: list[tuple[str, ClusterStats]] = []
    tables = connect(items, scorer)
    try:
        for sub in candidates:
            table = _prediction_table(con, sub.id, field, scorer)
            if table is None:
                exclude(
                    sub, "no headline", f"gave no {field} predictions, which the headline needs"
                )
            else:
                stats.append((sub.id, cluster_statistics(tables, scorer, (field,), table)))
    finally:
        tables.close()
    ranked = rank_judges(stats, scorer, (field,), headline, boot["B"], boot["seed"])
    kept = {r.submission_id for r in ranked}
    for sid, _ in stats:
        if sid not in kept:
            excluded[sid] = Exclusion(
                kind="undefined", text=f"{headline.label} is undefined for it"
            )
    if len(ranked) < 2:
        for r in ranked:
            excluded[r.submission_id] = Exclusion(
                kind="alone",
                text="the only judge scored on every item of this build: nothing to rank it "
                "against",
            )
        return Ranks(status="not ranked: fewer than two comparable judges", excluded=excluded)
    return Ranks(
        status="ranked",
        metric=headline.key,
        direction=headline.direction,
        bootstrap={**boot, "unit": scorer.cluster, "alpha": ALPHA},
        dataset_content_hash=content_hash,
        judges={r.submission_id: r.entry for r in ranked},
        excluded=excluded,
    )


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.1f}%"


def rank_judges(
    stats: list[tuple[str, ClusterStats]],
    scorer: Scorer,
    fields: tuple[str, ...],
    headline: MetricSpec,
    n_boot: int,
    seed: int,
) -> list[Ranked]:
    """Rank intervals and tie groups from one shared bootstrap over every judge's matrix."""
    if not stats:
        return []
    sums = replicates([s for _, s in stats], n_boot, seed)
    points, reps = [], []
    for (_, s), replicated in zip(stats, sums, strict=True):
        g = s.groups.index(OVERALL)
        points.append(_key(headline, s.metrics(scorer, fields, s.totals), g))
        reps.append(_key(headline, s.metrics(scorer, fields, replicated), g))
    point = np.array(points, dtype=float)
    keep = np.flatnonzero(~np.isnan(point))  # an undefined headline (e.g. constant) is unranked
    if len(keep) == 0:
        return []
    point = point[keep]
    rep = np.column_stack([reps[i] for i in keep])  # (B, judges): lower key = better
    rep = np.where(np.isnan(rep), np.inf, rep)  # undefined in a replicate: last there
    better = (rep[:, None, :] < rep[:, :, None]).sum(axis=2)  # (B, judge): judges strictly better
    low = np.percentile(better + 1, RANK_PERCENTILES[0], axis=0, method="lower")
    high = np.percentile(better + 1, RANK_PERCENTILES[1], axis=0, method="higher")
    order = np.argsort(point, kind="stable")
    groups = np.zeros(len(keep), dtype=int)
    group, leader = 0, None
    for j in order:
        if leader is None or _significant(rep[:, leader], rep[:, j]):
            group, leader = group + 1, j
        groups[j] = group
    out = []
    for j, i in enumerate(keep):
        s = stats[i][1]
        value = s.metrics(scorer, fields, s.totals)[headline.key][s.groups.index(OVERALL)]
        entry = RankEntry(
            value=float(value),
            rank=int(1 + (point < point[j]).sum()),
            rank_low=int(low[j]),
            rank_high=int(high[j]),
            group=int(groups[j]),
        )
        out.append(Ranked(stats[i][0], entry))
    return sorted(out, key=lambda r: (r.entry.rank, r.submission_id))


def _significant(a: np.ndarray, b: np.ndarray) -> bool:
    diff = (a - b)[:, None]
    finite = np.isfinite(diff)
    if not finite.any():
        return False
    _, _, p, _ = metric_differences(np.where(finite, diff, np.nan))
    return bool(p[0] < ALPHA)


def _key(headline: MetricSpec, metrics: dict[str, np.ndarray], g: int) -> np.ndarray:
    """The headline as a sort key where lower is better (NaN = undefined)."""
    value = np.asarray(metrics[headline.key])[..., g]
    if headline.direction == "higher":
        return -value
    if headline.direction == "lower":
        return value
    if headline.direction == "closer to zero":
        return np.asarray(np.abs(value))
    return np.asarray(np.abs(value - np.asarray(metrics[headline.reference or ""])[..., g]))


def _headline_field(scorer: Scorer, headline: MetricSpec) -> str:
    for field in scorer.scored_fields:
        if headline.key in scorer.metric_names((field,)):
            return field
    raise MathJudgeError(f"headline metric {headline.key!r} comes from no single scored field")


def _common_bootstrap(submissions: list[Submission], spec: BenchmarkSpec) -> dict[str, int]:
    """The B and seed the judges were scored with (the scorer's defaults when they differ)."""
    seen = {(s.bootstrap.get("B"), s.bootstrap.get("seed")) for s in submissions}
    if len(seen) == 1:
        ((n_boot, seed),) = seen
        if isinstance(n_boot, int) and isinstance(seed, int):
            return {"B": n_boot, "seed": seed}
    return {"B": 1000, "seed": spec.seed}


def _prediction_table(
    con: duckdb.DuckDBPyConnection, sid: str, field: str, scorer: Scorer
) -> pa.Table | None:
    """The judge's stored per-item values of `field` (the columns that hold it once runs are
    combined), typed as the engine scored them."""
    columns = scorer.columns_of(field)
    table = read.prediction_columns(con, sid, columns)
    if table is None:
        return None
    if columns == (field,) and pa.types.is_boolean(scorer.prediction.arrow_types[field]):
        return table.set_column(1, field, table.column(field).cast(pa.bool_()))
    return table
