"""ArxivMathGradingBench scoring: finding the known error locations of arXiv papers
(Pseudo-Formalization paper, §4.2), the positive class being an error.

A judge predicts any number of error locations per paper and run (one row each), or says that
a run examined a paper and found no error with a single row whose location is null or absent
(and no description). Such a no-error row makes the paper answered (for the file's item coverage
and --allow-partial; paired comparison pairs answered papers) and counts its run towards n, but
adds no prediction; it cannot share its (paper, run) with location rows or with another no-error
row. For k = 1..n, n the number of runs in the file, the predictions of the first k runs (by run
index) are unioned per paper and de-duplicated by normalized location (`Location.key`: kind
and label, or the words of an unlabelled location; the first row in (run, file) order supplies
the text and description a matcher sees). Each remaining prediction is matched against each of
the paper's ground-truth locations by the chosen matcher (option `matcher`, `strict` by
default). Per paper:
- tp: ground-truth locations matched by at least one prediction
- fn: ground-truth locations matched by none
- fp: predictions matching no ground-truth location
Summed over papers:
- precision = tp / (tp + fp) (so tp counts matched locations, not matching predictions; it is
  undefined, null, when there are no predictions)
- recall = tp / (tp + fn)
- f1 = 2 tp / (2 tp + fp + fn), the harmonic mean of the two (0 when nothing is found)
- coverage = share of papers whose every location is found (fn = 0)
- false_errors_per_paper = fp / papers
Scope `k`, subsets `k=1`..`k=n`; `overall`/`all` is k = n. Every paper of the dataset is scored:
a paper without predictions (in the first k runs, or without rows at all, which validation
accepts only with --allow-partial) has all its locations missed. CIs resample papers. Repeated
rows are allowed (they are de-duplicated above); `--runs-agg` does not apply. An undecided match
(a matcher's None) stops the evaluation with a message rather than counting as a non-match.
"""

from __future__ import annotations

import os
from typing import Annotated, ClassVar

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import Field, StringConstraints, ValidationInfo, field_validator

from mathjudge.base.config import cache_dir
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.locations import (
    Location,
    parse_location,
    parse_locations,
)
from mathjudge.benchmarks.arxivmathgradingbench.matching import (
    MATCHERS,
    Matcher,
    MatchPair,
    PaperContext,
    PredictedLocation,
    StrictMatcher,
)
from mathjudge.benchmarks.stats import f1, ratio
from mathjudge.spec.prediction import PredictionRow
from mathjudge.spec.scorer import RunReducer, Scorer


class Prediction(PredictionRow):
    """One predicted error location of one paper in one run; many rows per (item_id, run).

    A row without a location says that run examined the paper and found no error: it stands
    alone in its (item_id, run), so "found nothing" is told apart from "not judged".
    """

    location: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)] | None = Field(
        default=None,
        description='where the error is, e.g. "proof of Theorem 19"; one location per row. '
        "Null or absent (and no description) on the single row of a (paper, run) that "
        "examined the paper and reports no error",
    )
    description: str | None = Field(
        default=None, description="what the error is (optional; only with a location)"
    )

    arrow_types: ClassVar[dict[str, pa.DataType]] = {
        "location": pa.string(),
        "description": pa.string(),
    }
    one_row_per_run: ClassVar[bool] = False
    per_row_optional: ClassVar[tuple[str, ...]] = ("location", "description")

    @field_validator("description")
    @classmethod
    def _only_with_a_location(cls, value: str | None, info: ValidationInfo) -> str | None:
        # A failed location is reported on its own; only a row with no location at all is odd.
        if value is not None and "location" in info.data and info.data["location"] is None:
            raise ValueError(
                "a description needs a location; a row reporting no error leaves both empty"
            )
        return value

    def reports_nothing(self) -> bool:
        return self.location is None


CLUSTER = "item_id"  # one paper per cluster
ITEM_COLUMNS = ("arxiv_id", "version", "title", "error_locations")
SCORED_FIELDS = ("location",)
SCOPES: dict[str, str] = {}
OPTIONS: dict[str, tuple[str, ...] | None] = {"matcher": MATCHERS, "match_model": None}
RUNS_AGG = "union"
COUNTS = ("tp", "fn", "fp")  # the per-paper statistics, what paired comparison resamples
# Per (paper, k) counts left on the connection by `combine_runs` for `stats_sql`.
COUNTS_TABLE = "location_counts"


def combine_runs(
    con: duckdb.DuckDBPyConnection,
    table: pa.Table,
    fields: tuple[str, ...],
    options: dict[str, str],
) -> pa.Table:
    """Match the de-duplicated predictions, leave per-(paper, k) counts in `COUNTS_TABLE`, and
    return the counts at k = n, one row per paper (what is stored as the item predictions),
    with `judged`: whether the file has any row for the paper (what paired comparison pairs)."""
    for name in ("location", "description"):  # a file of no-error rows only gives neither
        if name not in table.column_names:
            table = table.append_column(name, pa.nulls(len(table), pa.string()))
    texts = pc.drop_null(pc.unique(table.column("location")))
    parsed = {text: parse_location(text) for text in texts.to_pylist()}
    keys = pa.array([p.key for p in parsed.values()], pa.string())
    positions = pc.index_in(table.column("location"), value_set=texts)
    located = table.append_column("key", pc.take(keys, positions))  # null on no-error rows
    located = located.append_column("row", pa.array(range(len(located)), pa.int64()))
    con.register("located", located)
    try:
        # One row per (paper, normalized location): the first k whose runs include it. Runs
        # are ranked before no-error rows are dropped, so a run that found nothing still
        # counts towards k.
        unique = con.sql(
            """SELECT item_id, key, location, description,
                      min(k) OVER (PARTITION BY item_id, key) AS first_k
               FROM (SELECT *, dense_rank() OVER (ORDER BY run) AS k FROM located)
               WHERE key IS NOT NULL
               QUALIFY row_number() OVER (PARTITION BY item_id, key ORDER BY run, row) = 1
               ORDER BY item_id, first_k, key"""
        ).to_arrow_table()
        n_runs = con.execute("SELECT count(DISTINCT run) FROM located").fetchall()[0][0]
    finally:
        con.unregister("located")
    papers = con.execute(
        "SELECT item_id, arxiv_id, version, title, error_locations FROM items"
    ).fetchall()
    truth = {p[0]: parse_locations(list(p[4])) for p in papers}
    judged = set(pc.unique(table.column("item_id")).to_pylist())
    context = {p[0]: PaperContext(p[0], p[1], p[2], p[3]) for p in papers}
    matched = _matches(
        unique,
        parsed,
        truth,
        context,
        make_matcher(options["matcher"], model=options["match_model"]),
    )

    con.register("unique_predictions", unique.select(["item_id", "key", "first_k"]))
    con.register("matched", matched)
    con.register(
        "truth",
        pa.table(
            {
                "item_id": pa.array(list(truth), pa.string()),
                "n_truth": pa.array([len(v) for v in truth.values()], pa.int64()),
                "judged": pa.array([item in judged for item in truth], pa.bool_()),
            }
        ),
    )
    try:
        con.execute(
            f"""CREATE OR REPLACE TEMP TABLE {COUNTS_TABLE} AS
            WITH ks AS (SELECT range AS k FROM range(1, {int(n_runs)} + 1)),
            found AS (  -- each matched ground-truth location, with the first k finding it
                SELECT item_id, j, min(first_k) AS found_k
                FROM matched JOIN unique_predictions USING (item_id, key) GROUP BY item_id, j
            ),
            wrong AS (  -- predictions matching no ground-truth location
                SELECT item_id, first_k
                FROM unique_predictions ANTI JOIN matched USING (item_id, key)
            ),
            tp AS (
                SELECT item_id, k, count(*) AS tp FROM found JOIN ks ON found_k <= k
                GROUP BY item_id, k
            ),
            fp AS (
                SELECT item_id, k, count(*) AS fp FROM wrong JOIN ks ON first_k <= k
                GROUP BY item_id, k
            )
            SELECT item_id, k, coalesce(tp, 0) AS tp, n_truth - coalesce(tp, 0) AS fn,
                   coalesce(fp, 0) AS fp, judged
            FROM truth CROSS JOIN ks LEFT JOIN tp USING (item_id, k) LEFT JOIN fp USING (item_id, k)
            """
        )
    finally:
        for name in ("unique_predictions", "matched", "truth"):
            con.unregister(name)
    return con.sql(
        f"SELECT item_id, tp, fn, fp, judged FROM {COUNTS_TABLE} WHERE k = {int(n_runs)}"
    ).to_arrow_table()


def _matches(
    unique: pa.Table,
    parsed: dict[str, Location],
    truth: dict[str, list[Location]],
    context: dict[str, PaperContext],
    matcher: Matcher,
) -> pa.Table:
    """(item_id, key, j) for every prediction key matching ground-truth location j of its
    paper, deciding each unique (paper, key, location) once."""
    pairs: list[MatchPair] = []
    index: list[tuple[str, str, int]] = []
    for item_id, key, location, description in zip(
        *(unique.column(c).to_pylist() for c in ("item_id", "key", "location", "description")),
        strict=True,
    ):
        predicted = PredictedLocation(parsed[location], description)
        for j, location_truth in enumerate(truth[item_id]):
            pairs.append((predicted, location_truth, context[item_id]))
            index.append((item_id, key, j))
    decisions = matcher.match_many(pairs) if pairs else []
    if len(decisions) != len(pairs):
        raise MathJudgeError(f"matcher gave {len(decisions)} decisions for {len(pairs)} pairs")
    undecided = [pair for pair, d in zip(pairs, decisions, strict=True) if d is None]
    if undecided:
        shown = "; ".join(
            f"{c.item_id}: {p.location.text!r} vs {t.text!r}" for p, t, c in undecided[:5]
        )
        raise MathJudgeError(
            f"the matcher could not decide {len(undecided)} of {len(pairs)} location pairs "
            f"({shown}{' ...' if len(undecided) > 5 else ''}); nothing was scored. Re-run to "
            "retry them."
        )
    hits = [i for i, d in zip(index, decisions, strict=True) if d]
    return pa.table(
        {
            "item_id": pa.array([h[0] for h in hits], pa.string()),
            "key": pa.array([h[1] for h in hits], pa.string()),
            "j": pa.array([h[2] for h in hits], pa.int64()),
        }
    )


def stats_sql(fields: tuple[str, ...]) -> str:
    """Per paper (cluster): its counts at every k under `k`, and at k = n under `overall`."""
    return f"""
        WITH papers AS (SELECT item_id, ci, tp, fn, fp FROM scoped WHERE scope = 'overall'),
        labelled AS (
            SELECT 'k' AS scope, 'k=' || k AS subset, ci, c.tp, c.fn, c.fp
            FROM {COUNTS_TABLE} c JOIN papers USING (item_id)
            UNION ALL
            SELECT 'overall' AS scope, 'all' AS subset, ci, tp, fn, fp FROM papers
        )
        SELECT scope, subset, ci, 1 AS n_items, tp, fn, fp, 1 AS papers,
               CAST(fn = 0 AS INTEGER) AS fully_found
        FROM labelled"""


def finalize(sums: dict[str, np.ndarray], fields: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Metric values from summed counts; elementwise, for point estimates and replicates."""

    tp, fn, fp, papers = sums["tp"], sums["fn"], sums["fp"], sums["papers"]
    return {
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, tp + fn),
        "f1": f1(tp, tp + fp, tp + fn),
        "coverage": ratio(sums["fully_found"], papers),
        "false_errors_per_paper": ratio(fp, papers),
    }


SCORER = Scorer(
    prediction=Prediction,
    cluster=CLUSTER,
    item_columns=ITEM_COLUMNS,
    scored_fields=SCORED_FIELDS,
    stats_sql=stats_sql,
    finalize=finalize,
    scopes=SCOPES,
    reducer=RunReducer(RUNS_AGG, combine_runs, COUNTS, COUNTS_TABLE),
    options=OPTIONS,
)


def make_matcher(name: str, *, model: str = "") -> Matcher:
    """The matcher `--matcher NAME` selects; `llm` asks `model` (litellm name), reaching it
    through MATHJUDGE_LLM_API_BASE / MATHJUDGE_LLM_API_KEY when set, with answers cached."""
    if name == "strict":
        return StrictMatcher()
    if name == "llm":
        if not model:
            raise MathJudgeError("--matcher llm needs --match-model MODEL (a litellm model name)")
        # Imported only when chosen: it pulls in litellm.
        from mathjudge.benchmarks.arxivmathgradingbench.llm_match import LlmMatcher

        return LlmMatcher(
            model,
            cache_dir() / "llm",
            api_base=os.environ.get("MATHJUDGE_LLM_API_BASE") or None,
            api_key=os.environ.get("MATHJUDGE_LLM_API_KEY") or None,
        )
    raise ValueError(f"unknown matcher {name!r}; known: {', '.join(MATCHERS)}")
