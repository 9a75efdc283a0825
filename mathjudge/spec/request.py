"""`EvaluationRequest`: one evaluation as asked for, built once where it is asked (the CLI's
options, the API's arguments) and handed unchanged to the evaluator, which resolves each thing
it names (the benchmark, the dataset and its revision) once.

Predictions are a file or rows held in memory (`PredictionRows`: an Arrow table, e.g. from a
DataFrame, or row mappings); the validator reads either as it is, and names in-memory rows by
their label (`<DataFrame>`) in its messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

DEFAULT_BOOTSTRAP = 1000


@dataclass(frozen=True)
class PredictionRows:
    """Predictions held in memory: an Arrow table or a sequence of row mappings, rows numbered
    from 1 in messages, which name them `label`."""

    rows: pa.Table | Sequence[Mapping[str, Any]]
    label: str


PredictionSource = Path | PredictionRows


@dataclass(frozen=True)
class EvaluationRequest:
    """What to score (`benchmark`, `predictions`, `judge`), against which dataset (the build in
    `datasets`; with `revision`, that version, fetched from the Hub repo `from_hub` if given),
    how (`allow_partial`, `runs_agg`, `n_boot`, `seed` (None: the benchmark's), the scorer's
    `options`), what to record with it (`meta`) and where to save it (`store`, `json_out`);
    `content` is the predictions file's bytes when the caller has read them."""

    benchmark: str
    predictions: PredictionSource
    judge: str
    datasets: Path
    revision: str | None = None
    from_hub: str | None = None
    allow_partial: bool = False
    runs_agg: str = "mean"
    n_boot: int = DEFAULT_BOOTSTRAP
    seed: int | None = None
    meta: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, str] = field(default_factory=dict)
    store: Path | None = None
    json_out: Path | None = None
    # A file's bytes when the caller has read (and hashed) them already (`repo sync`):
    # what is validated, scored and hashed, whatever the file holds by then.
    content: bytes | None = None
