"""The 13 judges whose RewardBench-math scores the RewardMATH repository publishes
(`results/Rewardbench/` at the pinned commit), turned into submissions of `rewardbench_math`.

Classifier reward models (9 files, 447 rows): the problem and `score`, two numbers, the chosen
solution's first and the rejected one's second whatever `solution_reference` calls them
(`human_to_GPT-4` / `modified_with_GPT-4`, or `chosen` / `rejected`). Rows come in different
orders in different files, so they are joined to the items by the problem text, which is
unique. Process reward models (4 files, 894 rows): one row per solution with `problem_id`,
`solution_type` and `output.step_scores`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.benchmarks.published import Converted, from_pinned_file
from mathjudge.benchmarks.rewardbench_math import build
from mathjudge.dataio.jsonfiles import read_json_array
from mathjudge.dataio.sources import resolve
from mathjudge.spec.benchmark import JudgeKind

FOLDER = "results/Rewardbench"
SOURCE = build.PINS.outputs_source
REFERENCES = (["human_to_GPT-4", "modified_with_GPT-4"], ["chosen", "rejected"])


@dataclass(frozen=True)
class Judge:
    key: str  # file stem after `rewardbench_`
    judge: str
    model: str
    kind: JudgeKind

    @property
    def path(self) -> str:
        return f"{FOLDER}/rewardbench_{self.key}.json"

    @property
    def slug(self) -> str:
        return self.key.lower().replace("_", "-")


JUDGES: tuple[Judge, ...] = tuple(
    Judge(key, judge, model, "reward_model")
    for key, judge, model in (
        ("ArmoRM", "ArmoRM-Llama3-8B-v0.1", "RLHFlow/ArmoRM-Llama3-8B-v0.1"),
        ("internlm2", "InternLM2-7B-Reward", "internlm/internlm2-7b-reward"),
        ("internlm2-20b", "InternLM2-20B-Reward", "internlm/internlm2-20b-reward"),
        ("Eurus-RM", "Eurus-RM-7B", "openbmb/Eurus-RM-7b"),
        ("beaver", "Beaver-7B-v2.0-Reward", "PKU-Alignment/beaver-7b-v2.0-reward"),
        (
            "oasst-rm",
            "OASST-RM-2.1-Pythia-1.4B",
            "OpenAssistant/oasst-rm-2.1-pythia-1.4b-epoch-2.5",
        ),
        ("GRM_Gemma_2B", "GRM-Gemma-2B-sftreg", "Ray2333/GRM-Gemma-2B-sftreg"),
        ("GRM-Llama3-8B", "GRM-Llama3-8B-sftreg", "Ray2333/GRM-llama3-8B-sftreg"),
        (
            "Skywork-Llama-3.1-8B",
            "Skywork-Reward-Llama-3.1-8B",
            "Skywork/Skywork-Reward-Llama-3.1-8B",
        ),
    )
) + tuple(
    Judge(key, judge, model, "process_reward_model")
    for key, judge, model in (
        ("Math_Shepherd", "Math-Shepherd-Mistral-7B", "peiyi9979/math-shepherd-mistral-7b-prm"),
        (
            "Easy_to_hard",
            "Llemma-7B-PRM (PRM800K, levels 1-3)",
            "ScalableMath/llemma-7b-prm-prm800k-level-1to3-hf",
        ),
        ("ReasonEval_7B", "ReasonEval-7B", "GAIR/ReasonEval-7B"),
        ("ReasonEval_34B", "ReasonEval-34B", "GAIR/ReasonEval-34B"),
    )
)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _classifier_rows(path: Path, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_problem = {r["problem"]: r["problem_id"] for r in items if r["is_chosen"]}
    problems: list[Problem] = []
    scores: dict[int, tuple[float, float]] = {}
    for i, row in enumerate(read_json_array(path)):
        problem, score = row.get("problem"), row.get("score")
        pid = by_problem.get(problem) if isinstance(problem, str) else None

        def bad(field: str, message: str, i: int = i) -> None:
            problems.append(Problem(str(path), i, field, message, unit="row"))

        if pid is None or pid in scores:
            bad("problem", "not one of the problems, or a problem seen before")
        elif row.get("solution_reference") not in REFERENCES:
            bad(
                "solution_reference",
                "neither human_to_GPT-4/modified_with_GPT-4 nor chosen/rejected",
            )
        elif not isinstance(score, list) or len(score) != 2 or not all(map(_number, score)):
            bad("score", "must be two numbers, the chosen solution's first")
        else:
            scores[pid] = (float(score[0]), float(score[1]))
    if len(scores) != len(by_problem) and not problems:
        message = f"scores {len(scores)} of the {len(by_problem)} problems"
        problems.append(Problem(str(path), None, None, message))
    if problems:
        raise ValidationFailed(problems)
    return [
        {"item_id": r["item_id"], "score": scores[r["problem_id"]][0 if r["is_chosen"] else 1]}
        for r in items
    ]


def _prm_rows(path: Path, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = read_json_array(path)
    if len(rows) != len(items):
        raise MathJudgeError(f"{path}: {len(rows)} rows, {len(items)} solutions expected")
    problems: list[Problem] = []
    out = []
    for i, (row, item) in enumerate(zip(rows, items, strict=True)):
        output = row.get("output")
        steps = output.get("step_scores") if isinstance(output, dict) else None
        if (row.get("problem_id"), row.get("solution_type"), row.get("problem")) != (
            item["problem_id"],
            item["solution_type"],
            item["problem"],
        ):
            message = f"not the row of {item['item_id']} (the items file's order)"
            problems.append(Problem(str(path), i, "problem_id", message, unit="row"))
        elif not isinstance(steps, list) or not steps or not all(map(_number, steps)):
            message = "expected a non-empty list of numbers"
            problems.append(Problem(str(path), i, "output.step_scores", message, unit="row"))
        else:
            out.append({"item_id": item["item_id"], "step_scores": [float(s) for s in steps]})
    if problems:
        raise ValidationFailed(problems)
    return out


def convert(judge: Judge, items: list[dict[str, Any]], path: Path) -> Converted:
    if judge.kind == "process_reward_model":
        rows = _prm_rows(path, items)
        judging = "process reward model, a score per step"
    else:
        rows = _classifier_rows(path, items)
        judging = "classifier reward model, one score per solution"
    return from_pinned_file(
        build.PINS,
        judge.path,
        rows,
        slug=judge.slug,
        judge=judge.judge,
        model=judge.model,
        judging=judging,
        benchmark=build.NAME,
        kind=judge.kind,
    )


def import_outputs(benchmark: str, source_dir: Path | None) -> list[Converted]:
    if benchmark != build.NAME:
        raise MathJudgeError(f"{benchmark}: no published outputs in {__name__}")
    files = {name: f.path for name, f in resolve(SOURCE, source_dir).items()}
    items = build.solutions(read_json_array(files[build.ITEMS_FILE]))
    return [convert(j, items, files[j.path]) for j in JUDGES]
