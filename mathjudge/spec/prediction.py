"""The row contract every benchmark's predictions share; each benchmark's scoring module
subclasses it with its prediction fields. These models are the source of truth for the format."""

from __future__ import annotations

from typing import ClassVar

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, model_validator

RUN_MAX = 2**31 - 1  # runs are stored as 32-bit integers


class PredictionRow(BaseModel):
    """Fields every benchmark's prediction row has; subclasses add the prediction fields."""

    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, frozen=True)

    item_id: str = Field(min_length=1)
    run: int | None = Field(default=None, ge=0, le=RUN_MAX, description="run index, for ensembles")

    # Arrow type of each prediction field in the validated table.
    arrow_types: ClassVar[dict[str, pa.DataType]] = {}
    # A row must give at least one of these fields.
    requires_one_of: ClassVar[tuple[str, ...]] = ()
    # False where an item takes many rows per run (e.g. one per error location found): then
    # (item_id, run) is no duplicate, and the scorer decides what repeated rows mean.
    one_row_per_run: ClassVar[bool] = True
    # Optional fields a row may give or leave out whatever the other rows do (e.g. a comment).
    per_row_optional: ClassVar[tuple[str, ...]] = ()

    def reports_nothing(self) -> bool:
        """True on a row saying its run examined the item and found nothing to predict (only
        where an item takes many rows per run); such a row must be alone in its (item, run)."""
        return False

    @classmethod
    def prediction_fields(cls) -> tuple[str, ...]:
        return tuple(name for name in cls.model_fields if name not in ("item_id", "run"))

    @model_validator(mode="after")
    def _gives_a_prediction(self) -> PredictionRow:
        wanted = self.requires_one_of
        if wanted and all(getattr(self, name) is None for name in wanted):
            raise ValueError(f"give at least one of: {', '.join(wanted)}")
        return self
