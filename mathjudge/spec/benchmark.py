"""`BenchmarkSpec`: everything particular to one benchmark, declared once in its folder.

A spec is plain data plus references to code ("module:attribute") that `registry` resolves and
imports only when used: listing the benchmarks or printing `--help` reads the specs without
loading DuckDB, pyarrow or pydantic. A reference is ".module:attr" inside the benchmark's folder
or "mathjudge.benchmarks.<module>:<attr>" (a shared module or a sibling benchmark): code of the
benchmarks layer, never above it. Reference judges are named, not referenced (`Judging.judges`,
`Baseline.judge`); the judges layer looks them up.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mathjudge.spec.cases import Case, Target
from mathjudge.spec.presentation import (
    BenchmarkPresentation,
    ItemField,
    ItemNote,
    MetricGroup,
    MetricSpec,
    PlotSpec,
    ScopeSpec,
)

# What kind of judge made a submission (its meta's `kind`); the site filters by it.
JudgeKind = Literal["llm_judge", "reward_model", "process_reward_model", "rule", "baseline"]


@dataclass(frozen=True)
class Paper:
    """The paper that defines a benchmark (or a table of reported results)."""

    title: str
    arxiv: str  # "2503.10105"

    @property
    def created(self) -> str:
        """First day of the arXiv id's month (YYMM): a date derivable offline and fixed, so a
        re-import of reported results stores exactly what the previous one did."""
        return f"20{self.arxiv[:2]}-{self.arxiv[2:4]}-01T00:00:00+00:00"

    def cite(self, tables: list[str]) -> str:
        return f'"{self.title}", arXiv:{self.arxiv}, {", ".join(tables)}'


@dataclass(frozen=True)
class Judging:
    """How reference judges see this benchmark: how a prediction is written (`target`), how a
    dataset row becomes a `Case`, which judges apply, and (optionally) a module function
    `rows(dataset, rows) -> rows` that joins what the items config alone does not carry."""

    target: Target
    case: Callable[[Mapping[str, Any]], Case]
    judges: tuple[str, ...]
    rows: str | None = None  # code reference "module:function" (see the module note)


@dataclass(frozen=True)
class BaselineContext:
    """What a baseline judge is told besides the rows: the benchmark and the source folder
    (a baseline converting a published judgment reads it from the source)."""

    benchmark: str
    source_dir: Path | None


@dataclass(frozen=True)
class Baseline:
    """A deterministic judge `mathjudge demo` runs wherever this benchmark is built: either
    `run`, a code reference (".corpus:baseline", see the module note) to a
    `(rows, BaselineContext, **args) -> predictions` callable, or `judge`, the name of a
    reference judge that needs no model, run through the judge runner as `mathjudge judge run`
    would. Shortcut baselines (a constant, the longer solution, a position) are declared with
    the helpers of `mathjudge.benchmarks.shortcuts`."""

    key: str  # file-name slug of its predictions
    judge_name: str
    partial: bool  # answers only part of the benchmark by design
    description: str  # what the rule does
    run: str | None = None
    judge: str | None = None
    # Keyword arguments `run` is called with (a shortcut's field, value or measure).
    args: Mapping[str, Any] = field(default_factory=dict)
    # One sentence: what its value tells a reader of the board (shown beside its line there).
    tells: str = ""
    # The submission meta's judge kind: "baseline" for a reference point (a constant, a length),
    # "rule" for a program that judges, "llm_judge" etc. for a published judgment it converts.
    kind: JudgeKind = "baseline"
    # True when it converts a judgment published with the benchmark's pinned source (the Open
    # Proof Corpus's own LLM judgments): the meta then names that source as `converted_from`.
    from_source: bool = False
    # A code reference like `run`, `(rows, BaselineContext) -> details rows`: the judge's own
    # account of each item where the source holds one (the corpus judge's issues), shown on
    # the item views as a submitter's details file is.
    details: str | None = None


@dataclass(frozen=True)
class BenchmarkSpec:
    name: str  # the folder name under mathjudge/benchmarks/
    title: str
    summary: str
    paper: Paper | None
    dataset: str  # built dataset folder (several benchmarks may share one)
    items_config: str  # the config whose rows a judge is scored on
    seed: int  # default bootstrap seed, recorded with every result
    headline: str
    groups: tuple[MetricGroup, ...]
    scopes: tuple[ScopeSpec, ...] = ()
    cluster_label: str = "problems"
    overview_extra: tuple[str, ...] = ()
    items: tuple[ItemField, ...] = ()
    item_text: tuple[str, ...] = ()
    item_notes: tuple[ItemNote, ...] = ()
    item_title: str = "{item_id}"
    text_elsewhere: tuple[tuple[str, str], ...] = ()
    first_step: int = 1
    headline_note: str = ""
    plots: tuple[PlotSpec, ...] = ()
    judging: Judging | None = None
    baselines: tuple[Baseline, ...] = ()
    reported: str | None = None  # module in the folder with `load(folder) -> results`
    # Sources that must not leave the machine they were built on (e.g. decrypted upstream).
    local_only: str | None = None
    # "module:function" writing the dataset together with its papers' PDFs (`--with-pdfs`).
    pdfs: str | None = None
    # A folder inside the benchmark's folder to build from when no source is reachable.
    example: str | None = None
    # A click command (group) of its own, "module:attribute" in its folder, added to `mathjudge`.
    command: str | None = None
    # "module:function" `(benchmark, source_dir) -> [published.Converted]` where the paper
    # publishes its judges' raw per-item outputs (`mathjudge import-outputs`, the demo).
    outputs: str | None = None
    # What a reader must know about the data that the summary does not say (which split this
    # is, what a build leaves out); shown on the benchmark's page.
    notes: tuple[str, ...] = ()

    @property
    def builds_dataset(self) -> bool:
        """True for the benchmark whose folder builds its dataset (the one named after it)."""
        return self.dataset == self.name

    @property
    def title_columns(self) -> tuple[str, ...]:
        """The item columns `item_title` names."""
        return tuple(f for _, f, _, _ in string.Formatter().parse(self.item_title) if f)

    @property
    def metrics(self) -> tuple[MetricSpec, ...]:
        return tuple(m for g in self.groups for m in g.metrics)

    def metric(self, key: str) -> MetricSpec:
        return self.presentation().metric(key)

    def presentation(self) -> BenchmarkPresentation:
        return BenchmarkPresentation(
            name=self.name,
            display_name=self.title,
            summary=self.summary,
            headline=self.headline,
            groups=self.groups,
            scopes=self.scopes,
            cluster_label=self.cluster_label,
            overview_extra=self.overview_extra,
            items=self.items,
            item_text=self.item_text,
            item_notes=self.item_notes,
            item_title=self.item_title,
            text_elsewhere=self.text_elsewhere,
            first_step=self.first_step,
            headline_note=self.headline_note,
            plots=self.plots,
            dataset=self.dataset,
            items_config=self.items_config,
            local_only=self.local_only,
        )
