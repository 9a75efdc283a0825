"""Model identity: which judges run on the same model, and which reported result our
reproduction corresponds to. Curated, reviewed like code, in two kinds of file:

- `mathjudge/document/models.yaml`: the models (id, name, organization, the names a
  submission's meta may give them by);
- `aliases.yaml` in each benchmark's folder: that benchmark's judges as stored (source, name)
  with the model each runs on, its configuration as the variant, and `pairs` of a reported
  result and our reproduction of the same judge.

Papers name one model many ways (`GPT-4o`, `gpt-4o (MS)`, `GPT-4oV2`); the table maps each
stored (benchmark, source, judge) to one model id with its configuration as the variant. Names
are matched as identities (`base.names.canonical`: case, spaces and punctuation ignored), so
an entry finds the stored judge however a paper or a converter spelt it. Publish
adds the model to every matching submission, a list of models with all their results, and the
reported-vs-reproduced comparisons of the declared pairs (`compare_pair`). A new benchmark
brings its aliases in its own folder; only a model no benchmark named before goes into
models.yaml.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from importlib import resources
from typing import Any, Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from mathjudge import registry
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.names import canonical
from mathjudge.spec.document import Comparison, ComparisonRow, ModelFacts, ModelType, Verdict
from mathjudge.spec.results import Submission

MODELS = "models.yaml"  # in this package
ALIASES = "aliases.yaml"  # in a benchmark's folder
Source = Literal["reported", "reproduced"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgeAlias(_Strict):
    benchmark: str
    source: Source
    judge: str
    variant: str = ""
    version: str | None = None
    # The agent or pipeline this judge is, where it is one built on the model (StepMathAgent,
    # the Arena-Hard judge prompt): its results are the pipeline's, never the model's own.
    pipeline: str | None = None


class Model(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]{0,63}$")  # a file name on the site
    name: str
    organization: str | None = None
    aliases: tuple[str, ...] = ()  # names a submission's meta may give as its `model`
    judges: tuple[JudgeAlias, ...] = ()  # from the benchmarks' aliases.yaml
    # The model's facts where a source states them (see models.yaml), None where none does.
    type: ModelType | None = None
    parameters: str | None = Field(default=None, pattern=r"^\d[\dx.]*[BM]$")
    open_weights: bool | None = None
    license: str | None = None
    released: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}(-\d{2})?$")
    facts_from: str | None = None

    @model_validator(mode="after")
    def _sourced(self) -> Model:
        stated = (self.type, self.parameters, self.open_weights, self.license, self.released)
        if any(v is not None for v in stated) and not self.facts_from:
            raise ValueError(f"{self.id}: facts without `facts_from`, the source that states them")
        return self

    def facts(self) -> ModelFacts:
        return ModelFacts(
            type=self.type,
            parameters=self.parameters,
            open_weights=self.open_weights,
            license=self.license,
            released=self.released,
            facts_from=self.facts_from,
        )


class Pair(_Strict):
    benchmark: str
    reported: str
    reproduced: str


class ModelsFile(_Strict):
    """`models.yaml`."""

    models: tuple[Model, ...]


class BenchmarkJudge(_Strict):
    """An entry of a benchmark's `aliases.yaml`: a stored judge and the model it runs on."""

    model: str
    source: Source
    judge: str
    variant: str = ""
    version: str | None = None
    pipeline: str | None = None


class BenchmarkPair(_Strict):
    reported: str
    reproduced: str


class BenchmarkAliases(_Strict):
    """A benchmark's `aliases.yaml`."""

    judges: tuple[BenchmarkJudge, ...] = ()
    pairs: tuple[BenchmarkPair, ...] = ()


class AliasTable(_Strict):
    models: tuple[Model, ...]
    pairs: tuple[Pair, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> AliasTable:
        ids = [m.id for m in self.models]
        if len(ids) != len(set(ids)):
            raise ValueError(f"model ids repeat: {sorted({i for i in ids if ids.count(i) > 1})}")
        seen: dict[tuple[str, str, str], str] = {}
        for model in self.models:
            for j in model.judges:
                key = (j.benchmark, j.source, canonical(j.judge))
                if key in seen:
                    shown = (j.benchmark, j.source, j.judge)
                    raise ValueError(f"{shown} is listed under both {seen[key]} and {model.id}")
                seen[key] = model.id
        paired: set[tuple[str, str, str]] = set()
        for pair in self.pairs:
            for side, name in (("reported", pair.reported), ("reproduced", pair.reproduced)):
                named = (pair.benchmark, side, canonical(name))
                if named in paired:
                    raise ValueError(f"{pair.benchmark}: {name!r} is in two pairs")
                paired.add(named)
            a = seen.get((pair.benchmark, "reported", canonical(pair.reported)))
            b = seen.get((pair.benchmark, "reproduced", canonical(pair.reproduced)))
            if a is None or a != b:
                raise ValueError(
                    f"pair {pair.reported!r} / {pair.reproduced!r} on {pair.benchmark}: both "
                    "judges must be listed under one model"
                )
        return self

    def model_of(
        self, benchmark: str, source: str, judge: str, meta: dict[str, Any]
    ) -> tuple[Model, str, str | None] | None:
        """(model, variant, pipeline) of a stored submission, or None: the table's judge
        entry (names compared as identities), else a reproduced submission whose meta names the
        model by its id, name or an alias (its judge name is then the variant, and it is no
        pipeline)."""
        wanted_judge = canonical(judge)
        for model in self.models:
            for j in model.judges:
                if (j.benchmark, j.source) == (benchmark, source) and (
                    canonical(j.judge) == wanted_judge
                ):
                    return model, j.variant, j.pipeline
        named = meta.get("model")
        if source != "reproduced" or not isinstance(named, str):
            return None
        wanted = named.strip().casefold()
        for model in self.models:
            if wanted in {model.id, model.name.casefold(), *(a.casefold() for a in model.aliases)}:
                return model, judge, None
        return None

    def reproduction_of(self, benchmark: str, reported: str) -> str | None:
        """The name of our reproduction declared as the pair of the paper's row `reported`
        on `benchmark` (names compared as identities), or None."""
        wanted = canonical(reported)
        for pair in self.pairs:
            if pair.benchmark == benchmark and canonical(pair.reported) == wanted:
                return pair.reproduced
        return None

    def paper_row_named(self, benchmark: str, judge: str) -> str | None:
        """The paper's row on `benchmark` whose name `judge` is, written another way or not,
        when `judge` is not the reproduction declared its pair: a submission may not take it
        (the board would show two rows a reader cannot tell apart). None otherwise."""
        wanted = canonical(judge)
        for source, name in self.known_names(benchmark):
            if source == "reported" and canonical(name) == wanted:
                paired = self.reproduction_of(benchmark, name)
                if paired is None or canonical(paired) != wanted:
                    return name
        return None

    def known_names(self, benchmark: str) -> list[tuple[str, str]]:
        """(source, judge) of every judge the table names on `benchmark`."""
        found = {(j.source, j.judge) for m in self.models for j in m.judges
                 if j.benchmark == benchmark}  # fmt: skip
        for pair in self.pairs:
            if pair.benchmark == benchmark:
                found |= {("reported", pair.reported), ("reproduced", pair.reproduced)}
        return sorted(found)


M = TypeVar("M", bound=BaseModel)


def _parse(model: type[M], text: str, where: str) -> M:
    try:
        return model.model_validate(yaml.safe_load(text) or {})
    except yaml.YAMLError as exc:
        raise MathJudgeError(f"{where}: not valid YAML ({exc})") from None
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in exc.errors()
        )
        raise MathJudgeError(f"{where}: not a valid alias file ({problems})") from None


def parse_models(text: str, where: str) -> ModelsFile:
    return _parse(ModelsFile, text, where)


def parse_aliases(text: str, where: str) -> BenchmarkAliases:
    return _parse(BenchmarkAliases, text, where)


def assemble(
    models: ModelsFile, benchmarks: Mapping[str, tuple[BenchmarkAliases, str]]
) -> AliasTable:
    """One table from the models and each benchmark's aliases (with the file they came from,
    which an error names)."""
    judges: dict[str, list[JudgeAlias]] = {m.id: [] for m in models.models}
    pairs = []
    for benchmark, (aliases, where) in sorted(benchmarks.items()):
        for n, entry in enumerate(aliases.judges):
            if entry.model not in judges:
                raise MathJudgeError(
                    f"{where}: judges.{n} ({entry.judge!r}) names model {entry.model!r}, which "
                    f"mathjudge/document/{MODELS} does not list"
                )
            facts = entry.model_dump(exclude={"model"})
            judges[entry.model].append(JudgeAlias(benchmark=benchmark, **facts))
        pairs += [Pair(benchmark=benchmark, **p.model_dump()) for p in aliases.pairs]
    try:
        return AliasTable(
            models=tuple(
                m.model_copy(update={"judges": tuple(judges[m.id])}) for m in models.models
            ),
            pairs=tuple(pairs),
        )
    except ValidationError as exc:
        problems = "; ".join(e["msg"] for e in exc.errors())
        raise MathJudgeError(f"the alias files disagree ({problems})") from None


@functools.cache
def table() -> AliasTable:
    """The shipped models and every registered benchmark's aliases (parsed once)."""
    text = resources.files("mathjudge.document").joinpath(MODELS).read_text(encoding="utf-8")
    models = parse_models(text, f"mathjudge/document/{MODELS}")
    found = {}
    for name in registry.names():
        path = registry.folder(name) / ALIASES
        if path.is_file():
            where = f"mathjudge/benchmarks/{name}/{ALIASES}"
            found[name] = (parse_aliases(path.read_text(encoding="utf-8"), where), where)
    return assemble(models, found)


# Verdicts from worst to best: a pair's verdict is the worst of its headline rows.
VERDICTS = ("outside_ci", "no_ci", "within_ci", "exact")


def rounds_to(value: float, printed: str, scale: int) -> bool:
    """Whether `value` (natural units), times `scale` and rounded half to even to the decimals
    of `printed`, is the printed number: how the paper's own float would have been printed."""
    try:
        paper = Decimal(printed)
    except InvalidOperation:
        return False
    if not paper.is_finite():
        return False
    step = Decimal(1).scaleb(min(paper.as_tuple().exponent, 0))  # type: ignore[arg-type]
    return (Decimal(value) * scale).quantize(step, rounding=ROUND_HALF_EVEN) == paper


def verdict(value: float | None, outside: bool | None, printed: dict[str, Any] | None) -> Verdict:
    """exact / within_ci / outside_ci / no_ci for one compared score (see `ComparisonRow`)."""
    cell = printed or {}
    if value is not None and cell and rounds_to(value, cell["text"], int(cell["scale"])):
        return "exact"
    if outside is None:
        return "no_ci"
    return "outside_ci" if outside else "within_ci"


def compare_pair(
    reported: Submission, reproduced: Submission, headline: str | None = None
) -> Comparison:
    """Every score both results give: the paper's value beside ours, flagged when it lies
    outside our 95% CI (no flag where we have no interval), with its verdict; the pair's
    verdict is the worst among the rows of the `headline` metric (all rows without one)."""
    ours = {(s.scope, s.subset, s.metric): s for s in reproduced.scores}
    cells = reported.meta.get("printed") or {}
    rows = []
    for paper in reported.scores:
        key = (paper.scope, paper.subset, paper.metric)
        mine = ours.get(key)
        if mine is None or paper.value is None:
            continue
        low, high = mine.ci_low, mine.ci_high
        outside = None if low is None or high is None else not low <= paper.value <= high
        cell = cells.get("/".join(key))
        printed = cell if isinstance(cell, dict) and set(cell) == {"text", "scale"} else None
        rows.append(
            ComparisonRow(
                scope=key[0],
                subset=key[1],
                metric=key[2],
                reported=paper.value,
                value=mine.value,
                ci_low=low,
                ci_high=high,
                outside=outside,
                printed=printed["text"] if printed else None,
                verdict=verdict(mine.value, outside, printed),
            )
        )
    rows.sort(key=lambda r: (r.scope != "overall", r.scope, r.subset, r.metric))
    judged = [r for r in rows if r.metric == headline] or rows
    return Comparison(
        reported=reported.id,
        reproduced=reproduced.id,
        rows=rows,
        n_outside=sum(bool(r.outside) for r in rows),
        verdict=min((r.verdict for r in judged), key=VERDICTS.index, default="no_ci"),
    )
