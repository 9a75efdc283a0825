"""The leaderboard document: everything the site shows, as typed models.

`evaluate.publish` assembles it from the results store (scores, ranks, each benchmark's
presentation facts from its spec) and stores it; the leaderboard renders it and never looks a
benchmark up. `LeaderboardDocument.model_json_schema()` is the published schema of
`leaderboard.json`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from mathjudge.spec.presentation import BenchmarkPresentation

SCHEMA_VERSION = 3
DOCUMENT = "leaderboard"  # the name the published document is stored under


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScoreRow(_Model):
    scope: str
    subset: str
    metric: str
    value: float | None
    ci_low: float | None
    ci_high: float | None
    n: int


class Submission(_Model):
    """The latest submission of one judge for one benchmark, with every score."""

    id: str
    dataset_version: str
    content_hash: str
    judge: str
    meta: dict[str, str]  # a bounded summary (`display.summary`); the whole meta: `meta_file`
    meta_file: str | None = None  # under the site's data/ folder
    sha256: str
    created: str  # ISO 8601, UTC
    partial: bool
    coverage: float
    n_items: int
    runs: int
    runs_agg: str
    fields: list[str]
    bootstrap: dict[str, Any]
    source: Literal["reproduced", "reported"] | str
    citation: str | None
    mathjudge_version: str
    extras: dict[str, list[dict[str, Any]]]
    scores: list[ScoreRow]


class RankEntry(_Model):
    value: float
    rank: int  # competition rank of the point estimate
    rank_low: int
    rank_high: int
    group: int  # tie group, 1 = the group of the best judge


class Ranks(_Model):
    """Rank intervals and tie groups, or `status` saying why a benchmark is not ranked."""

    status: str
    metric: str | None = None
    direction: str | None = None
    bootstrap: dict[str, Any] | None = None  # B, seed, unit, alpha of the shared bootstrap
    dataset_content_hash: str | None = None
    judges: dict[str, RankEntry] = {}


class BenchmarkDocument(_Model):
    name: str
    presentation: BenchmarkPresentation
    submissions: list[Submission]
    ranks: Ranks
    # Added by the site's export: download file names and the item explorer's data.
    downloads: dict[str, str] | None = None
    items: dict[str, Any] | None = None


class DatasetDocument(_Model):
    name: str
    version: str
    content_hash: str
    card: str
    manifest: dict[str, Any]


class GeneratedFrom(_Model):
    store: str
    submissions_in_store: int
    latest_submission: str | None
    mathjudge_version: str


class LeaderboardDocument(_Model):
    schema_version: Literal[3] = SCHEMA_VERSION
    generated_from: GeneratedFrom
    benchmarks: list[BenchmarkDocument]  # those with results
    datasets: list[DatasetDocument]
    # Every benchmark of the installation that published it, for the methodology page.
    methodology: list[BenchmarkPresentation] = []
