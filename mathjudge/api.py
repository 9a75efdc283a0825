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

`publish_site` publishes the leaderboard document into a store and renders the static site
from it (`mathjudge site build`).

`request` builds the `EvaluationRequest` that `evaluate` scores, `score` scores one and returns
the `Evaluation`, `paired` does `compare`'s work and returns the `Comparison`; the CLI calls
`score` and `paired` and prints. In-memory predictions are handed to the validator as they are
(a DataFrame as an Arrow table), never written to a file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from mathjudge.base.atomic import write_json_atomic
from mathjudge.base.config import default_datasets_dir
from mathjudge.base.errors import MathJudgeError, UsageError
from mathjudge.scoring import evaluator
from mathjudge.scoring.paired import Comparison
from mathjudge.spec.request import (
    DEFAULT_BOOTSTRAP,
    EvaluationRequest,
    PredictionRows,
    PredictionSource,
)
from mathjudge.spec.results import Evaluation

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    PredictionsArg: TypeAlias = (
        str | os.PathLike[str] | pd.DataFrame | pa.Table | Sequence[Mapping[str, Any]]
    )
SCORE_COLUMNS = ["scope", "subset", "metric", "value", "ci_low", "ci_high", "n"]


def evaluate(
    benchmark: str,
    predictions: PredictionsArg,
    judge: str,
    **settings: Any,
) -> pd.DataFrame:
    """Validate `predictions` completely, score them on `benchmark` with bootstrap CIs, and
    return the scores (keyword arguments as for `request`)."""
    import pandas as pd

    asked = request(benchmark, predictions, judge, **settings)
    result = score(asked)
    scores = pd.DataFrame([asdict(s) for s in result.scores], columns=SCORE_COLUMNS)
    scores.attrs = {
        "benchmark": result.benchmark,
        "judge": result.judge,
        "submission_id": result.id,
        "stored_in": str(asked.store) if asked.store is not None else None,
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


def request(
    benchmark: str,
    predictions: PredictionsArg,
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
    meta: Mapping[str, Any] | None = None,
    options: Mapping[str, str] | None = None,
) -> EvaluationRequest:
    """The evaluation asked for: with `store`, the result is saved there first (a submission,
    shown on the leaderboard); with `json_out`, also written as JSON. `revision` scores against
    that version of the dataset: the local build in `datasets` (default ./datasets or
    $MATHJUDGE_DATASETS) must be it, or with `from_hub` (a dataset repo) the release tagged
    `revision` there is fetched."""
    return EvaluationRequest(
        benchmark=benchmark,
        predictions=as_predictions(predictions),
        judge=judge,
        datasets=Path(datasets) if datasets is not None else default_datasets_dir(),
        revision=revision,
        from_hub=from_hub,
        allow_partial=allow_partial,
        runs_agg=runs_agg,
        n_boot=n_boot,
        seed=seed,
        meta=dict(meta or {}),
        options=dict(options or {}),
        store=Path(store) if store is not None else None,
        json_out=Path(json_out) if json_out is not None else None,
    )


def score(
    asked: EvaluationRequest,
    *,
    on_progress: Callable[[int], None] | None = None,
    on_step: Callable[[str, int], None] | None = None,
) -> Evaluation:
    """Score the request (see `request`) and return the result object. Raises
    `MathJudgeError` on bad input, before anything is written. `on_progress(n)` counts
    bootstrap replicates; with `on_step(description, total)` it counts each long step's units
    from its start (see `evaluator.evaluate`)."""
    return evaluator.evaluate(asked, on_progress=on_progress, on_step=on_step)


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
    a: str | PredictionsArg,
    b: str | PredictionsArg,
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
    result = run_compare(
        benchmark,
        a if isinstance(a, str) else as_predictions(a),
        b if isinstance(b, str) else as_predictions(b),
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


def publish_site(
    store: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    release: str | None = None,
    local_texts: bool = False,
    on_skip: Callable[[str], None] = lambda _: None,
    repo_url: str | None = None,
) -> Path:
    """Publish the leaderboard document into `store` (scores, ranks, comparisons:
    `document.publish`) and render the site at `out` from it (`site.render`); returns the
    index page's path. `local_texts` keeps the texts of local-only datasets (a site that stays
    on this machine); `on_skip` hears of each stored submission that cannot be rendered and is
    left out; `repo_url`, the https:// address of the leaderboard's repository, is what the
    Submit page links. Building the site never loads the judges or the model client."""
    from mathjudge.document.publish import publish
    from mathjudge.repo.config import repository_url
    from mathjudge.site.render import build_site
    from mathjudge.store.lock import exclusive

    if repo_url is not None:
        repository_url(repo_url, "repo_url")
    with exclusive(Path(store)):  # no submission removed between the document and the pages
        publish(Path(store), on_skip)
        return build_site(
            Path(store), Path(out), release=release, local_texts=local_texts, repo_url=repo_url
        )


def as_predictions(predictions: Any) -> PredictionSource:
    """Predictions as the validator reads them: a path as given, a DataFrame as an Arrow table,
    an Arrow table or a list of dicts as they are."""
    if isinstance(predictions, str | os.PathLike):
        return Path(predictions)
    if _is_frame(predictions):
        import pyarrow as pa

        try:
            table = pa.Table.from_pandas(predictions, preserve_index=False)
        except (pa.ArrowException, ValueError, TypeError) as exc:
            raise MathJudgeError(f"<DataFrame>: cannot be turned into a table ({exc})") from None
        return PredictionRows(table, "<DataFrame>")
    pyarrow = sys.modules.get("pyarrow")
    if pyarrow is not None and isinstance(predictions, pyarrow.Table):
        return PredictionRows(predictions, "<Arrow table>")
    if isinstance(predictions, Sequence) and not isinstance(predictions, bytes):
        return PredictionRows(predictions, "<list of dicts>")
    raise UsageError(
        f"predictions must be a file path, a pandas DataFrame, an Arrow table or a list of "
        f"dicts, not {type(predictions).__name__}"
    )


def _is_frame(value: Any) -> bool:
    """A pandas DataFrame; pandas is loaded already if one exists, so no import is needed."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)
