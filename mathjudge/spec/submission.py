"""The meta of a leaderboard submission (`submissions/<benchmark>/<slug>/meta.yaml`): who made
the predictions, with which model and how, and under which license they are published.

Declared here, among the base types, because both the submission tools
(`mathjudge.submissions`) and the site's Submit page (`mathjudge.leaderboard`) read it.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mathjudge.display import check_judge_name, check_meta
from mathjudge.errors import MathJudgeError
from mathjudge.spec.benchmark import JudgeKind

LINK = r"^https?://[^\s]+$"


class SubmissionMeta(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    judge: str = Field(description="The name shown on the leaderboard, e.g. 'MyGrader (GPT-4o)'.")
    model: str = Field(
        description="The model behind the judge as its provider names it "
        "(e.g. 'gpt-4o'); 'none' for a rule-based judge."
    )
    model_version: str | None = Field(
        None, description="The exact version or snapshot, e.g. 'gpt-4o-2024-08-06'."
    )
    organization: str = Field(description="Who made the predictions.")
    link: str = Field(
        pattern=LINK, description="A page describing the judge: paper, repository or model card."
    )
    date: dt.date = Field(description="When the predictions were made (YYYY-MM-DD).")
    prompt: str | None = Field(
        None, description="The prompt, or where to find it (a link or a file in your repository)."
    )
    config: dict[str, str | int | float | bool] | None = Field(
        None, description="Settings that shape the predictions: temperature, samples, votes..."
    )
    open_weights: bool | None = Field(
        description="Whether the model's weights are openly available (null: not stated)."
    )
    license: str = Field(
        description="The license under which the predictions may be redistributed, e.g. "
        "'CC-BY-4.0'."
    )
    contact: str = Field(description="An e-mail address or a page where you can be reached.")
    kind: JudgeKind | None = Field(
        None,
        description="What kind of judge this is: llm_judge (a prompted language model), "
        "reward_model (one score per solution), process_reward_model (a score per step), rule "
        "(a program, no model) or baseline (a reference point such as a constant).",
    )
    converted_from: str | None = Field(
        None,
        description="Where the raw outputs these predictions were converted from are "
        "published (a repository URL at a commit, and the files); absent when the predictions "
        "were made for this submission.",
    )

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
