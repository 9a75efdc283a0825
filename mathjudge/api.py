"""The Python API: score a judge's predictions and compare two judges, from a notebook or a
script, with the results as pandas DataFrames. `mathjudge evaluate` and `mathjudge compare` are
these same calls with their output printed.

Predictions are a file (JSONL, CSV or Parquet), a pandas DataFrame or a list of dicts, one row
per prediction with the benchmark's fields (README, "Submitting predictions"). In-memory
predictions go through the same validation as a file; their rows are numbered from 1 in any
message, and the file named in a message is `<DataFrame>` or `<list of dicts>`.

    import pandas as pd
    from mathjudge import api

    scores = api.evaluate("opc", pd.DataFrame({"item_id": ids, "verdict": verdicts}), "my-judge")
    scores.query("scope == 'overall'")

The scores DataFrame has one row per (scope, subset, metric) with `value`, `ci_low`, `ci_high`
and `n`; `scores.attrs` holds the submission's facts (`submission_id`, `dataset_version`,
`content_hash`, `coverage`, `partial`, ...). Nothing is written unless `store` (a results
DuckDB file, as for the CLI) or `json_out` is given.

`score` and `paired` do the same work as `evaluate` and `compare` and return the result objects
(`EvaluationResult`, `Comparison`) instead of DataFrames; the CLI calls them and prints.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mathjudge import registry
from mathjudge.atomic import write_json_atomic
from mathjudge.config import default_datasets_dir
from mathjudge.dataio.reader import open_dataset
from mathjudge.errors import MathJudgeError, UsageError, ValidationFailed
from mathjudge.scoring.evaluator import DEFAULT_BOOTSTRAP, evaluate_file
from mathjudge.scoring.paired import Comparison
from mathjudge.spec.results import EvaluationResult

if TYPE_CHECKING:
    import pandas as pd

    Predictions = str | os.PathLike[str] | pd.DataFrame | Sequence[Mapping[str, Any]]
SCORE_COLUMNS = ["scope", "subset", "metric", "value", "ci_low", "ci_high", "n"]


def evaluate(
    benchmark: str,
    predictions: Predictions,
    judge: str,
    **kwargs: Any,
) -> pd.DataFrame:
    """Validate `predictions` completely, score them on `benchmark` with bootstrap CIs, and
    return the scores (keyword arguments as for `score`)."""
    import pandas as pd

    result = score(benchmark, predictions, judge, **kwargs)
    scores = pd.DataFrame([asdict(s) for s in result.scores], columns=SCORE_COLUMNS)
    store = kwargs.get("store")
    scores.attrs = {
        "benchmark": result.benchmark,
        "judge": result.judge,
        "submission_id": result.submission_id,
        "stored_in": str(store) if store is not None else None,
        "dataset_version": result.dataset_version,
        "content_hash": result.content_hash,
        "coverage": result.coverage,
        "partial": result.partial,
        "n_items": result.n_items,
        "n_expected": result.n_expected,
        "runs": result.runs,
        "bootstrap": dict(result.bootstrap),
    }
    return scores


def score(
    benchmark: str,
    predictions: Predictions,
    judge: str,
    *,
    datasets: str | os.PathLike[str] | None = None,
    revision: str | None = None,
    from_hub: str | None = None,
    store: str | os.PathLike[str] | None = None,
    json_out: str | os.PathLike[str] | None = None,
    allow_partial: bool = False,
    runs_agg: str = "mean",
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = None,
    meta: dict[str, Any] | None = None,
    options: dict[str, str] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> EvaluationResult:
    """`evaluate`'s work, returning the result object. With `store`, the result is saved
    there first (a submission, shown on the leaderboard); with `json_out`, also written as
    JSON. `revision` scores against that version of the dataset: the local build must be it,
    or with `from_hub` (a dataset repo) the release tagged `revision` there is fetched. Raises
    `MathJudgeError` on bad input, before anything is written."""
    datasets_dir = dataset_folder(benchmark, datasets, revision, from_hub)
    store_path = Path(store) if store is not None else None
    if store_path is not None:
        from mathjudge.store.lock import check_store_path, lock_timeout

        lock_timeout()  # an unusable setting fails now, not after the scoring
        check_store_path(store_path)
    with predictions_file(predictions) as path:
        result = evaluate_file(
            benchmark,
            path,
            judge,
            datasets_dir=datasets_dir,
            allow_partial=allow_partial,
            runs_agg=runs_agg,
            n_boot=n_boot,
            seed=seed,
            meta=meta,
            options=options,
            on_progress=on_progress,
        )
    if store_path is not None:
        from mathjudge.store import save

        save(store_path, result)  # first: no JSON claims a result the store does not hold
    if json_out is not None:
        write_json_atomic(Path(json_out), result.to_json())
    return result


def compare(benchmark: str, a: Any, b: Any, **kwargs: Any) -> pd.DataFrame:
    """Paired comparison A - B on the items both judged: each side is a judge name or
    submission id in `store`, or predictions (a file path, a DataFrame, a list of dicts).
    Returns one row per (scope, subset, metric) with both values (`a`, `b`), the difference,
    its 95% CI and a two-sided bootstrap p-value; `attrs["comparison"]` is the whole
    comparison (keyword arguments as for `paired`)."""
    import pandas as pd

    result = paired(benchmark, a, b, **kwargs)
    rows = pd.DataFrame([asdict(r) for r in result.rows])
    rows = rows.rename(columns={"a_value": "a", "b_value": "b"})
    rows.attrs = {"comparison": result}
    return rows


def paired(
    benchmark: str,
    a: str | Predictions,
    b: str | Predictions,
    *,
    store: str | os.PathLike[str] = "results.duckdb",
    datasets: str | os.PathLike[str] | None = None,
    json_out: str | os.PathLike[str] | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = None,
    options: dict[str, str] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> Comparison:
    """`compare`'s work, returning the `Comparison` (`.format_table()` is the CLI's output);
    with `json_out`, also written as JSON."""
    from mathjudge.scoring.compare import compare as run_compare

    datasets_dir = Path(datasets) if datasets is not None else default_datasets_dir()
    with (
        predictions_file(a, keep_names=True) as side_a,
        predictions_file(b, keep_names=True) as side_b,
    ):
        result = run_compare(
            benchmark,
            side_a,
            side_b,
            store=Path(store),
            datasets_dir=datasets_dir,
            n_boot=n_boot,
            seed=seed,
            options=options,
            on_progress=on_progress,
        )
    if json_out is not None:
        write_json_atomic(Path(json_out), result.to_json())
    return result


def dataset_folder(
    benchmark: str,
    datasets: str | os.PathLike[str] | None,
    revision: str | None,
    from_hub: str | None,
) -> Path:
    """The datasets folder to score against: `datasets` (default ./datasets or
    $MATHJUDGE_DATASETS), checked to hold `revision` if one is asked for, or the release
    `revision` fetched from the Hub repo `from_hub`."""
    if from_hub and not revision:
        raise UsageError("from_hub (--from-hub) needs revision (--revision): the version to fetch")
    dataset = registry.get(benchmark).dataset
    if from_hub:
        from mathjudge.dataio.hub import fetch_release

        return fetch_release(from_hub, revision, dataset)
    folder = Path(datasets) if datasets is not None else default_datasets_dir()
    if revision:
        built = open_dataset(dataset, folder)
        if built.version != revision:
            raise MathJudgeError(
                f"{built.root}: dataset version {built.version}, not {revision}; fetch that "
                f"release with --from-hub REPO (from_hub=...), or build it"
            )
    return folder


@contextmanager
def predictions_file(predictions: Any, *, keep_names: bool = False) -> Iterator[Any]:
    """A file holding `predictions`: a path as given, a DataFrame as Parquet, a list of dicts
    as JSON lines, in a temporary folder removed afterwards. With `keep_names`, a string is
    passed through unchanged (a judge name or a path, for `compare` to resolve)."""
    if isinstance(predictions, str) and keep_names:
        yield predictions
        return
    if isinstance(predictions, str | os.PathLike):
        yield Path(predictions)
        return
    if _is_frame(predictions):
        label, name = "<DataFrame>", "predictions.parquet"
    elif isinstance(predictions, Sequence) and not isinstance(predictions, bytes):
        label, name = "<list of dicts>", "predictions.jsonl"
    else:
        raise UsageError(
            f"predictions must be a file path, a pandas DataFrame or a list of dicts, not "
            f"{type(predictions).__name__}"
        )
    with tempfile.TemporaryDirectory(prefix="mathjudge-predictions-") as tmp:
        path = Path(tmp) / name
        _write(predictions, path, label)
        try:
            yield path
        except ValidationFailed as exc:
            problems = [replace(p, file=label) if p.file == str(path) else p for p in exc.problems]
            raise ValidationFailed(problems, omitted=exc.omitted) from None
        except MathJudgeError as exc:
            raise type(exc)(str(exc).replace(str(path), label)) from None


def _is_frame(value: Any) -> bool:
    """A pandas DataFrame; pandas is loaded already if one exists, so no import is needed."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def _write(predictions: Any, path: Path, label: str) -> None:
    if _is_frame(predictions):
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pa.Table.from_pandas(predictions, preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError) as exc:
            raise MathJudgeError(f"{label}: cannot be turned into a table ({exc})") from None
        pq.write_table(table, path)
        return
    with path.open("w", encoding="utf-8") as out:
        for i, row in enumerate(predictions, start=1):
            if not isinstance(row, Mapping):
                raise MathJudgeError(f"{label} row {i}: not a dict")
            try:
                out.write(json.dumps(dict(row), ensure_ascii=False) + "\n")
            except (TypeError, ValueError) as exc:
                raise MathJudgeError(f"{label} row {i}: not JSON ({exc})") from None
