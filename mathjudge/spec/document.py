"""The leaderboard document: everything the site shows, as typed models.

`document.publish` assembles it from the results store (scores, ranks, each benchmark's
presentation facts from its spec) and stores it; the leaderboard renders it and never looks a
benchmark up. `LeaderboardDocument.model_json_schema()` is the published schema of
`leaderboard.json`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.dataclasses import dataclass

from mathjudge.base.names import canonical
from mathjudge.spec.presentation import BenchmarkPresentation
from mathjudge.spec.results import Submission

SCHEMA_VERSION: Literal[5] = 5
DOCUMENT = "leaderboard"  # the name the published document is stored under


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


ModelType = Literal["proprietary LLM", "open LLM", "classifier RM", "PRM", "rule"]


class ModelFacts(_Model):
    """What the curated model table (`document/models.yaml`) says of a model, each fact only
    where a source states it (None elsewhere); `facts_from` names the sources."""

    type: ModelType | None = None
    parameters: str | None = None  # as published: "7B", "8x7B"
    open_weights: bool | None = None
    license: str | None = None
    released: str | None = None  # YYYY-MM-DD (or YYYY-MM)
    facts_from: str | None = None


class ModelRef(_Model):
    """The model behind a judge (the curated alias table: `document/models.yaml`
    and each benchmark's `aliases.yaml`).

    `pipeline` names the agent or pipeline the judge is, where it is one built on the model
    ("StepMathAgent", "Arena-Hard judge prompt"): such a result belongs to the pipeline running
    on the model, and is never shown as the model's own."""

    id: str
    name: str
    variant: str  # the configuration of this judge ("prompt V1", "+ marking scheme"), or ""
    pipeline: str | None = None
    type: ModelType | None = None  # the model's type, where a source states it


Provenance = Literal["submitted", "published_outputs", "paper"]
Verdict = Literal["exact", "within_ci", "outside_ci", "no_ci"]


@dataclass(frozen=True, kw_only=True, config=ConfigDict(extra="forbid"))
class BoardSubmission(Submission):
    """The latest submission of one judge for one benchmark as the board shows it: the record
    (`spec.results.Submission`) with what the site adds. Its `meta` is a bounded summary
    (`display.summary`); the whole meta is the file `meta_file` names.

    `kind` is the submission meta's judge kind (llm_judge, reward_model,
    process_reward_model, rule, baseline; None where the meta gives none). `provenance` says
    where the predictions come from: "paper" for a result transcribed from a paper (source
    "reported"; no predictions), "published_outputs" for predictions converted from raw outputs
    the authors published (the meta's `converted_from` names them), "submitted" otherwise.

    `identity` is the judge this result belongs to: its name as an identity
    (`base.names.canonical`), or for a paper's row declared the pair of our reproduction (the
    benchmark's aliases.yaml), the reproduction's. Results with one identity on a board are one
    judge: one row, with its sources. Publish refuses a board where two results would be two
    rows under names that differ only in case, spacing or punctuation."""

    identity: str = ""  # left empty: the canonical form of `judge`
    meta_file: str | None = None  # under the site's data/ folder
    # Added by the site's export: the predictions as scored, one JSON line per item (gzip).
    predictions_file: str | None = None
    # Scored on the small example a benchmark ships (the dataset's manifest says so).
    example: bool = False
    model: ModelRef | None = None
    kind: str | None = None
    provenance: Provenance = "submitted"
    # A baseline the benchmark's spec declares: what its rule does and what its value tells.
    reference_note: str | None = None

    def __post_init__(self) -> None:
        if not self.identity:
            object.__setattr__(self, "identity", canonical(self.judge))


class RankEntry(_Model):
    value: float
    rank: int  # competition rank of the point estimate
    rank_low: int
    rank_high: int
    group: int  # tie group, 1 = the group of the best judge


class Exclusion(_Model):
    """Why a submission has no rank: `kind` one of reported, baseline, partial, example, other
    dataset, no headline, undefined, alone, not ranked; `text` says it in words. A baseline is
    a reference line (meta `kind: baseline`), never ranked."""

    kind: str
    text: str


class Ranks(_Model):
    """Rank intervals and tie groups, or `status` saying why a benchmark is not ranked.

    Judges are ranked only against judges scored on the same item set (same dataset build,
    every item answered); every other submission is in `excluded` with the reason."""

    status: str
    metric: str | None = None
    direction: str | None = None
    bootstrap: dict[str, Any] | None = None  # B, seed, unit, alpha of the shared bootstrap
    dataset_content_hash: str | None = None
    judges: dict[str, RankEntry] = {}
    excluded: dict[str, Exclusion] = {}


class ComparisonRow(_Model):
    """One score the paper prints beside ours. `verdict`: "exact" when our value, rounded to
    the decimals the paper prints, is the paper's number; else "within_ci" / "outside_ci" by our
    95% interval; "no_ci" when we have no interval (and it is not exact)."""

    scope: str
    subset: str
    metric: str
    reported: float
    value: float | None  # ours
    ci_low: float | None
    ci_high: float | None
    outside: bool | None  # the paper's value lies outside our CI (None: no CI to test)
    verdict: Verdict = "no_ci"
    printed: str | None = None  # the paper's cell as printed ("66.07"), where it was recorded


class Comparison(_Model):
    """A reported result and our reproduction of the same judge (declared in the alias
    table), on every score both give."""

    reported: str  # submission ids
    reproduced: str
    rows: list[ComparisonRow]
    n_outside: int
    # The worst verdict among the rows of the benchmark's headline metric (all rows when the
    # paper prints no headline value): outside_ci < no_ci < within_ci < exact.
    verdict: Verdict = "no_ci"


class ItemJudge(_Model):
    """A judge in a benchmark's item data: how many items it answered and on how many its
    call disagrees with the gold label (None: no field of it is compared with gold)."""

    submission: str  # id
    answered: int
    disagree: int | None


class ItemColumn(_Model):
    """A judge's prediction field in the item data, beside its gold column ("" when it is not
    compared with gold); `kind` says how it is shown (score, binary, verdict)."""

    field: str
    label: str
    kind: str
    gold: str
    description: str = ""  # in plain words, for the item view's legend
    # A verdict's words for a positive, a negative and a zero value (`ItemField.words`).
    words: list[str] = ["correct", "incorrect", "inconclusive"]


class ItemData(_Model):
    """Added by the site's export: a benchmark's per-item data, or why there is none. The
    files are under the site's data/ folder."""

    status: str  # "exported", or why not
    content_hash: str | None = None  # the dataset build whose items these are
    n_items: int = 0
    judges: list[ItemJudge] = []  # whose predictions are in the files
    fields: list[ItemColumn] = []
    facets: list[str] = []  # item columns to filter by (scopes, categories)
    texts: list[str] = []  # item columns shown as text
    items: str | None = None  # Parquet: item texts, scope columns, gold labels
    predictions: str | None = None  # Parquet: one row per (submission, item, field)
    details: str | None = None  # Parquet: the judges' own details per item, where given
    pages: str | None = None  # the folder of the script files the item pages load
    # Why the item texts and the judges' details are left out (a local-only dataset on a site
    # built for publishing); None when they are in.
    withheld: str | None = None


class BenchmarkDocument(_Model):
    name: str
    presentation: BenchmarkPresentation
    submissions: list[BoardSubmission]
    ranks: Ranks
    comparisons: list[Comparison] = []
    # What a reader must know about the data: the spec's notes (e.g. which split this is), then
    # the limitations the built dataset's manifest declares (e.g. texts left out).
    notes: list[str] = []
    # Added by the site's export: download file names and the item explorer's data.
    downloads: dict[str, str] | None = None
    items: ItemData | None = None


class DatasetDocument(_Model):
    name: str
    version: str
    content_hash: str
    card: str
    manifest: dict[str, Any]


class ModelResult(_Model):
    benchmark: str
    submission: str  # id
    judge: str
    source: str
    variant: str
    pipeline: str | None = None  # the agent or pipeline on the model, never the model itself


class ModelDocument(_Model):
    """One model and every result of a judge built on it (the alias table's grouping)."""

    id: str
    name: str
    organization: str | None = None
    facts: ModelFacts = ModelFacts()
    results: list[ModelResult]

    @property
    def benchmarks(self) -> list[str]:
        return sorted({r.benchmark for r in self.results})


class GeneratedFrom(_Model):
    store: str
    submissions_in_store: int
    latest_submission: str | None
    mathjudge_version: str
    # What the document is a function of (the store's rows, mathjudge's code, DuckDB's
    # version): publishing an unchanged store again reuses the document instead of ranking
    # every judge anew. None: a document stored before fingerprints.
    fingerprint: str | None = None
    # The stored submissions left out (they cannot be rendered), with how to remove them.
    skipped: list[str] = []


class LeaderboardDocument(_Model):
    schema_version: Literal[5] = SCHEMA_VERSION
    generated_from: GeneratedFrom
    benchmarks: list[BenchmarkDocument]  # those with results
    datasets: list[DatasetDocument]
    models: list[ModelDocument] = []
    # Every benchmark of the installation that published it, for the methodology page.
    methodology: list[BenchmarkPresentation] = []
