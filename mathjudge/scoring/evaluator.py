"""`validate` and `evaluate` as library calls: the CLI and the API build an `EvaluationRequest`;
`evaluate` resolves what it names once, validates, scores and saves."""

from __future__ import annotations

import gzip
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mathjudge import __version__, registry, store
from mathjudge.base import sidefiles
from mathjudge.base.atomic import atomic_path, json_text
from mathjudge.base.config import check_bootstrap
from mathjudge.base.display import check_judge_name, check_meta
from mathjudge.base.errors import MathJudgeError, UsageError
from mathjudge.dataio.reader import BuiltDataset, open_dataset
from mathjudge.scoring.engine import resolve_options, score
from mathjudge.scoring.tables import Limits
from mathjudge.spec.benchmark import BenchmarkSpec
from mathjudge.spec.request import EvaluationRequest
from mathjudge.spec.results import DatasetSnapshot, Evaluation, SubmittedFile
from mathjudge.spec.scorer import Scorer
from mathjudge.store.lock import check_store_path, lock_timeout
from mathjudge.validate.predictions import Predictions, WhoseItems, load_predictions

# From this many predictions on, scoring bounds DuckDB's memory, which then spills to disk.
LARGE_ROWS = 2_000_000
LARGE_MEMORY = "1GB"


def validate_file(
    benchmark: str,
    path: Path,
    datasets_dir: Path,
    *,
    allow_partial: bool = False,
    content: bytes | None = None,
) -> Predictions:
    """`path` validated (its `content`, if the caller has read it; see `load_predictions`)."""
    spec = registry.get(benchmark)
    dataset = open_dataset(spec.dataset, datasets_dir)
    return load_predictions(
        path,
        registry.scorer(spec.name).prediction,
        dataset.item_ids(spec.items_config),
        allow_partial=allow_partial,
        data=content,
        whose_items=whose_items(spec, datasets_dir),
    )


def whose_items(spec: BenchmarkSpec, datasets_dir: Path) -> WhoseItems:
    """Given item ids `spec`'s dataset does not have, the other built dataset most of them
    belong to, and the command that validates the file as such (a ProcessBench file
    submitted as StepMathBench)."""

    def whose(ids: list[str]) -> str | None:
        wanted, found = set(ids), []
        for name in registry.names():
            other = registry.get(name)
            if other.dataset == spec.dataset:
                continue
            try:
                known = open_dataset(other.dataset, datasets_dir).item_ids(other.items_config)
            except MathJudgeError:
                continue  # not built here
            found.append((len(wanted.intersection(known)), name))
        share, name = max(found, default=(0, ""))
        if share * 2 <= len(wanted):
            return None
        return (
            f"they are {name}'s ({share} of the {len(wanted)} checked): is this a file for "
            f"{name}? Validate it as one: `mathjudge validate {name} FILE`"
        )

    return whose


def scored_items(spec: BenchmarkSpec, scorer: Scorer, dataset: BuiltDataset) -> pa.Table:
    """The items config's columns that scoring, ranking and the site read: ids, the scorer's
    columns, the item text, the columns of an item's title and the gold columns the explorer
    shows."""
    columns = dict.fromkeys(
        ["item_id", *scorer.item_columns, *spec.item_text, *spec.title_columns,
         *(f.gold for f in spec.items)]
    )  # fmt: skip
    # ParquetFile, not read_table: the dataset layer behind read_table imports pandas.
    return pq.ParquetFile(dataset.parquet(spec.items_config)).read(columns=list(columns))


def snapshot(spec: BenchmarkSpec, dataset: BuiltDataset, items: pa.Table) -> DatasetSnapshot:
    return DatasetSnapshot(
        name=dataset.benchmark,
        version=dataset.version,
        content_hash=dataset.content_hash,
        items_config=spec.items_config,
        items=items,
        card=dataset.card(),
        manifest=dataset.manifest,
    )


def dataset_snapshot(benchmark: str, datasets_dir: Path) -> DatasetSnapshot:
    """The facts of `benchmark`'s built dataset the store keeps (items, card, manifest)."""
    spec = registry.get(benchmark)
    dataset = open_dataset(spec.dataset, datasets_dir)
    return snapshot(spec, dataset, scored_items(spec, registry.scorer(spec.name), dataset))


def read_meta(path: Path | None) -> dict[str, Any]:
    """The `--meta` file: a JSON object of at most 1 MiB whose keys and texts may be shown."""
    if path is None:
        return {}
    return check_meta(sidefiles.read_json(path, sidefiles.META_MAX_BYTES, "meta file"), str(path))


def evaluate_file(
    benchmark: str, path: Path, judge: str, *, datasets_dir: Path, **settings: Any
) -> Evaluation:
    """`evaluate` of the predictions file `path`; `settings` are the request's other fields
    (`allow_partial`, `n_boot`, `meta`, ...), `on_progress` and `on_step`. For tests, scripts and
    `repo sync`, which score files."""
    on_progress = settings.pop("on_progress", None)
    on_step = settings.pop("on_step", None)
    request = EvaluationRequest(benchmark, path, judge, datasets=datasets_dir, **settings)
    return evaluate(request, on_progress=on_progress, on_step=on_step)


def evaluate(
    request: EvaluationRequest,
    *,
    on_progress: Callable[[int], None] | None = None,
    on_step: Callable[[str, int], None] | None = None,
) -> Evaluation:
    """Validate the request's predictions completely, then score them; with `request.store`
    the result is saved there (a submission, shown on the leaderboard), with
    `request.json_out` also written as JSON. Raises `MathJudgeError` on bad input, before
    anything is written. `on_progress` counts bootstrap replicates; with `on_step` (called as
    each long step starts: reading, statistics, bootstrap) it counts every step's units.

    From LARGE_ROWS predictions on, DuckDB's memory is bounded (LARGE_MEMORY) and spills to a
    temporary folder (in $TMPDIR) that is removed afterwards.

    The scorer's `options` (e.g. ArxivMathGradingBench's matcher) are recorded under
    `bootstrap["options"]`, which the submission id covers, so one file scored with two
    settings gives two results; scorers without options record nothing new.
    """
    judge = check_judge_name(request.judge)
    meta = check_meta(dict(request.meta), "meta")
    check_bootstrap(request.n_boot, request.seed)
    if request.revision is not None and not request.revision.strip():
        raise UsageError("--revision is empty: give the dataset version to score on")
    if request.from_hub and not request.revision:
        raise UsageError("--from-hub goes with --revision (the version to fetch)")
    if request.store is not None:
        lock_timeout()  # an unusable setting fails now, not after the scoring
        check_store_path(request.store)
    spec = registry.get(request.benchmark)
    scorer = registry.scorer(spec.name)
    options = resolve_options(scorer, dict(request.options))
    dataset = _dataset(spec, request)
    items = scored_items(spec, scorer, dataset)
    if on_step is not None:
        on_step("reading predictions", 0)
    valid = load_predictions(
        request.predictions,
        scorer.prediction,
        items.column("item_id"),
        allow_partial=request.allow_partial,
        data=request.content,
        whose_items=whose_items(spec, request.datasets),
    )
    kept = _kept_file(valid.format, valid.content)
    valid = replace(valid, content=None)  # not held while scoring: `kept` is
    pa.default_memory_pool().release_unused()  # the parse's buffers, before scoring's
    seed = spec.seed if request.seed is None else request.seed
    with _limits(valid.table.num_rows) as limits:
        scored = score(
            items,
            scorer,
            valid,
            runs_agg=request.runs_agg,
            n_boot=request.n_boot,
            seed=seed,
            options=options,
            on_progress=on_progress,
            on_step=on_step,
            limits=limits,
        )
    bootstrap = {"B": request.n_boot, "seed": seed, "unit": scorer.cluster, "ci": "percentile 95%"}
    result = Evaluation(
        benchmark=spec.name,
        dataset_version=dataset.version,
        content_hash=dataset.content_hash,
        judge=judge,
        sha256=valid.sha256,
        n_items=valid.n_items,
        n_expected=valid.n_expected,
        coverage=valid.coverage,
        partial=valid.partial,
        runs=valid.runs,
        runs_agg=scorer.reducer.name if scorer.reducer is not None else request.runs_agg,
        fields=valid.fields,
        bootstrap=(bootstrap | {"options": options}) if options else bootstrap,
        meta=meta,
        mathjudge_version=__version__,
        scores=tuple(scored.scores),
        predictions=scored.predictions,
        extras=scored.extras,
        dataset=snapshot(spec, dataset, items),
        submitted=kept,
        created=datetime.now(UTC).isoformat(),  # to the microsecond: re-runs stay ordered
    )
    _keep(result, request.store, request.json_out)
    return result


def _kept_file(fmt: str | None, content: bytes | None) -> SubmittedFile | None:
    """The predictions file to keep with the result (None for rows scored from memory),
    compressed at gzip's fastest level: about a tenth of its size for a third of a second per
    70 MB (bench/large_submission.py)."""
    if fmt is None or content is None:
        return None
    return SubmittedFile(fmt, gzip.compress(content, compresslevel=1, mtime=0))


@contextmanager
def _limits(rows: int) -> Iterator[Limits | None]:
    """DuckDB's bounds for scoring `rows` predictions: none below LARGE_ROWS."""
    if rows < LARGE_ROWS:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="mathjudge-spill-") as spill:
        yield Limits(LARGE_MEMORY, Path(spill))


def _keep(result: Evaluation, into: Path | None, json_out: Path | None) -> None:
    """Save `result` into the store and as JSON, both or neither: the JSON is written beside
    its target first, then the store is saved, then the JSON renamed into place (a rename
    needs no space). A full disk at either write leaves the store as it was and no JSON
    claiming a result the store does not hold."""
    if json_out is None:
        if into is not None:
            store.save(into, result)
        return
    with atomic_path(json_out) as tmp:
        tmp.write_text(json_text(result.to_json()), encoding="utf-8")
        if into is not None:
            store.save(into, result)


def _dataset(spec: BenchmarkSpec, request: EvaluationRequest) -> BuiltDataset:
    """The built dataset the request scores against: the build in `request.datasets`, which
    must be `request.revision` if one is asked for, or that release fetched from the Hub repo
    `request.from_hub`."""
    if request.from_hub and request.revision:
        from mathjudge.dataio.hub import fetch_release

        return open_dataset(
            spec.dataset, fetch_release(request.from_hub, request.revision, spec.dataset)
        )
    dataset = open_dataset(spec.dataset, request.datasets)
    if request.revision and dataset.version != request.revision:
        raise MathJudgeError(
            f"{dataset.root}: dataset version {dataset.version}, not {request.revision}; fetch "
            "that release with --from-hub REPO (from_hub=...), or build it"
        )
    return dataset
