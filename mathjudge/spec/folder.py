"""The records of a leaderboard submission folder (`submissions/<benchmark>/<slug>/`): its meta
(`meta.yaml`: who made the predictions, with which model and how, and under which license they
are published) and its record (`submission.json`: version, time, options and checksums).

Declared here, among the base types, because both the leaderboard repository's tools
(`mathjudge.repo`) and the site's Submit page (`mathjudge.site`) read them. Both
come from strangers' pull requests, so both are strict: a boolean is `true` or `false` (never
the text "false"), numbers are finite and integers exact (within ±2^53), every text is checked
to be displayable, and whatever is accepted here can be stored, published and rendered.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mathjudge.base.display import MAX_EXACT_INT, check_judge_name, check_meta, meta_problem
from mathjudge.base.errors import MathJudgeError
from mathjudge.spec.benchmark import JudgeKind

LINK = r"^https?://[^\s]+$"
ExactInt = Annotated[int, Field(ge=-MAX_EXACT_INT, le=MAX_EXACT_INT)]
FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
ConfigValue = bool | ExactInt | FiniteFloat | str


class SubmissionMeta(BaseModel):
    # Strict: no value is coerced from another type (the date, below, is written as text).
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    judge: str = Field(
        description="The name shown on the leaderboard, e.g. 'MyGrader (GPT-4o)'.",
        examples=["MyGrader (GPT-4o)"],
    )
    model: str = Field(
        description="The model behind the judge as its provider names it "
        "(e.g. 'gpt-4o'); 'none' for a rule-based judge.",
        examples=["gpt-4o"],
    )
    model_version: str | None = Field(
        None,
        description="The exact version or snapshot, e.g. 'gpt-4o-2024-08-06'.",
        examples=["gpt-4o-2024-08-06"],
    )
    organization: str = Field(description="Who made the predictions.", examples=["Example Lab"])
    link: str = Field(
        pattern=LINK,
        description="A page describing the judge: paper, repository or model card.",
        examples=["https://example.org/mygrader"],
    )
    date: Annotated[dt.date, Field(strict=False)] = Field(
        description="When the predictions were made (YYYY-MM-DD).", examples=["2025-06-01"]
    )
    prompt: str | None = Field(
        None,
        description="The prompt, or where to find it (a link or a file in your repository).",
        examples=["https://example.org/mygrader/prompt.txt"],
    )
    config: dict[str, ConfigValue] | None = Field(
        None,
        description="Settings that shape the predictions: temperature, samples, votes...",
        examples=[{"temperature": 0, "samples": 1}],
    )
    open_weights: bool | None = Field(
        description="Whether the model's weights are openly available (null: not stated).",
        examples=[True],
    )
    license: str = Field(
        description="The license under which the predictions may be redistributed, e.g. "
        "'CC-BY-4.0'.",
        examples=["CC-BY-4.0"],
    )
    contact: str = Field(
        description="An e-mail address or a page where you can be reached.",
        examples=["grader@example.org"],
    )
    kind: JudgeKind | None = Field(
        None,
        description="What kind of judge this is: llm_judge (a prompted language model), "
        "reward_model (one score per solution), process_reward_model (a score per step), rule "
        "(a program, no model) or baseline (a reference point such as a constant).",
        examples=["rule"],
    )
    converted_from: str | None = Field(
        None,
        description="Where the raw outputs these predictions were converted from are "
        "published (a repository URL at a commit, and the files); absent when the predictions "
        "were made for this submission.",
        examples=["https://github.com/ORG/REPO/tree/COMMIT/outputs"],
    )

    @field_validator("date", mode="before")
    @classmethod
    def _a_day(cls, value: Any) -> Any:
        """A date is a day, written YYYY-MM-DD: not a number of seconds, nor a time."""
        if isinstance(value, dt.datetime) or not isinstance(value, dt.date | str):
            raise ValueError("a date is written YYYY-MM-DD")
        return value

    @field_validator("config", mode="before")
    @classmethod
    def _kept_exactly(cls, config: Any) -> Any:
        """Numbers as given: finite, integers within ±2^53 (checked before a too large
        integer could pass as a float)."""
        if not isinstance(config, dict):
            return config
        found = meta_problem(config)
        if found:
            raise ValueError(" ".join(found))
        for key, value in config.items():
            if isinstance(value, dict | list):
                raise ValueError(f"the value at {key} must be text, a number or a boolean")
        return config

    @field_validator("judge")
    @classmethod
    def _displayable(cls, judge: str) -> str:
        try:
            return check_judge_name(judge, "judge")
        except MathJudgeError as exc:
            raise ValueError(str(exc).removeprefix("judge: ")) from None

    @model_validator(mode="after")
    def _described(self) -> SubmissionMeta:
        if self.prompt is None and not self.config:
            raise ValueError("give the prompt or the config (or both): how the judge was run")
        try:
            check_meta(self.stored(), "meta")
        except MathJudgeError as exc:
            raise ValueError(str(exc).removeprefix("meta: meta: ")) from None
        return self

    def stored(self) -> dict[str, Any]:
        """The meta as the results store keeps it (JSON values; optional fields left out when
        absent, a required null such as `open_weights: null` kept)."""
        fields = type(self).model_fields
        return {
            k: v
            for k, v in self.model_dump(mode="json").items()
            if v is not None or fields[k].is_required()
        }


SHA256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
FileName = Literal[
    "predictions.jsonl", "predictions.csv", "predictions.parquet", "meta.yaml", "details.jsonl"
]
MAX_VERSIONS = 10_000


class FolderOptions(BaseModel):
    """How the predictions are scored, as `mathjudge submit` was told."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    allow_partial: bool = False
    runs_agg: Literal["mean", "median", "majority"] = "mean"


class FolderVersion(BaseModel):
    """One version of a submission: its number, time, files (by sha256) and options."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    version: int = Field(ge=1, le=MAX_VERSIONS)
    submitted: str = Field(max_length=64)
    files: dict[FileName, SHA256] = Field(min_length=1)
    options: FolderOptions = FolderOptions()

    @field_validator("submitted")
    @classmethod
    def _time(cls, text: str) -> str:
        """An ISO 8601 time with its UTC offset (as `mathjudge submit` writes it)."""
        try:
            when = dt.datetime.fromisoformat(text)
            if when.tzinfo is None or when.utcoffset() is None:
                raise ValueError("no UTC offset")
            when.astimezone(dt.UTC)
        except (ValueError, OverflowError) as exc:
            raise ValueError(
                f"not an ISO 8601 time with its UTC offset, e.g. 2025-06-02T10:00:00+00:00 ({exc})"
            ) from None
        return text

    @property
    def submitted_utc(self) -> dt.datetime:
        return dt.datetime.fromisoformat(self.submitted).astimezone(dt.UTC)


class FolderRecord(FolderVersion):
    """`submission.json`: the current version, the folder it belongs to, and the earlier
    versions (whose files the repository's history keeps)."""

    benchmark: str = Field(max_length=64)
    slug: str = Field(max_length=64)
    history: list[FolderVersion] = Field(default=[], max_length=MAX_VERSIONS)
