"""`validate` and `evaluate` as library calls: the CLI only parses arguments and prints."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from mathjudge import __version__, registry, sidefiles
from mathjudge.dataio.reader import BuiltDataset, open_dataset
from mathjudge.display import check_judge_name, check_meta
from mathjudge.errors import MathJudgeError
from mathjudge.scoring.engine import resolve_options, score
from mathjudge.spec.benchmark import BenchmarkSpec
from mathjudge.spec.results import DatasetSnapshot, EvaluationResult
from mathjudge.spec.scorer import Scorer
from mathjudge.validate.submission import Submission, load_submission

DEFAULT_BOOTSTRAP = 1000


def validate_file(
    benchmark: str, path: Path, datasets_dir: Path, *, allow_partial: bool = False
) -> Submission:
    spec = registry.get(benchmark)
    dataset = open_dataset(spec.dataset, datasets_dir)
    return load_submission(
        path,
        spec.scorer().prediction,
        dataset.item_ids(spec.items_config),
        allow_partial=allow_partial,
    )


def scored_items(spec: BenchmarkSpec, scorer: Scorer, dataset: BuiltDataset) -> pa.Table:
    """The items config's columns that scoring, ranking and the site read: ids, the scorer's
    columns, the item text and the gold columns the explorer shows."""
    columns = dict.fromkeys(
        ["item_id", *scorer.item_columns, *spec.item_text, *(f.gold for f in spec.items)]
    )
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
    return snapshot(spec, dataset, scored_items(spec, spec.scorer(), dataset))


def read_meta(path: Path | None) -> dict[str, Any]:
    """The `--meta` file: a JSON object of at most 1 MiB whose keys and texts may be shown."""
    if path is None:
        return {}
    return check_meta(sidefiles.read_json(path, sidefiles.META_MAX_BYTES, "meta file"), str(path))


def evaluate_file(
    benchmark: str,
    path: Path,
    judge: str,
    *,
    datasets_dir: Path,
    allow_partial: bool = False,
    runs_agg: str = "mean",
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = None,
    meta: dict[str, Any] | None = None,
    options: dict[str, str] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> EvaluationResult:
    """Validate `path` completely, then score it; raises before scoring on any problem.

    `options` are the scorer's own (e.g. ArxivMathGradingBench's matcher). They are recorded
    under `bootstrap["options"]`, which the submission id covers, so one file scored with two
    settings gives two results; scorers without options record nothing new.
    """
    judge = check_judge_name(judge)
    meta = check_meta(meta or {}, "meta")
    if n_boot < 1:
        raise MathJudgeError("--bootstrap must be at least 1")
    spec = registry.get(benchmark)
    scorer = spec.scorer()
    options = resolve_options(scorer, options)
    dataset = open_dataset(spec.dataset, datasets_dir)
    items = scored_items(spec, scorer, dataset)
    submission = load_submission(
        path,
        scorer.prediction,
        items.column("item_id").to_pylist(),
        allow_partial=allow_partial,
    )
    seed = spec.seed if seed is None else seed
    scored = score(
        items,
        scorer,
        submission.table,
        submission.fields,
        runs_agg=runs_agg,
        n_boot=n_boot,
        seed=seed,
        options=options,
        on_progress=on_progress,
    )
    bootstrap = {"B": n_boot, "seed": seed, "unit": scorer.cluster, "ci": "percentile 95%"}
    return EvaluationResult(
        benchmark=benchmark,
        dataset_version=dataset.version,
        content_hash=dataset.content_hash,
        judge=judge,
        submission_sha256=submission.sha256,
        n_items=submission.n_items,
        n_expected=submission.n_expected,
        coverage=submission.coverage,
        partial=submission.partial,
        runs=submission.runs,
        runs_agg=scorer.reducer.name if scorer.reducer is not None else runs_agg,
        fields=submission.fields,
        bootstrap=(bootstrap | {"options": options}) if options else bootstrap,
        meta=meta or {},
        mathjudge_version=__version__,
        scores=tuple(scored.scores),
        predictions=scored.predictions,
        extras=scored.extras,
        dataset=snapshot(spec, dataset, items),
        created=datetime.now(UTC).isoformat(),  # to the microsecond: re-runs stay ordered
    )
