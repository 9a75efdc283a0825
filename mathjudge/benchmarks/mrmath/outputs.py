"""The twelve evaluators whose raw MR-MATH outputs the ReasonEval repository publishes, turned
into `mrmath` submissions (one per evaluator, covering both sets) with the authors' rules.

Verdict evaluators (GPT-4, GPT-3.5-turbo) give a verdict string and error-step text per
solution. Invalid set: the verdict counts only when exactly `Correct`/`correct` (positive) or
`Wrong`/`wrong` (negative), anything else ("**Correct**", "Wrong.") is no prediction; steps: a
`Correct` verdict makes every step positive, otherwise the first integer j of the error-step text,
when 1 <= j <= number of steps, makes steps before j positive, step j negative and later steps
unpredicted, and without such a j every step is positive. Redundant set: `Absent`/`absent`
positive, `Present`/`present` negative; every integer of the error-step text marks that step
negative, the others positive (the verdict is ignored there). The raw strings are kept, and
the evaluator's whole response (its step-by-step evaluation) as the submission's details.

Score evaluators give a value per line of a step (one per solution for ROSCOE): Math-Shepherd
its score, ReasonEval p_neutral + p_positive on the invalid set and -p_neutral on the redundant
set. A step's score is the minimum over its lines, a solution's the minimum over all lines. Above
the evaluator's threshold predicts positive and below negative; equal to it is negative at step
level and no prediction at solution level. Thresholds and scores are both written, so macro-F1
and AUC come from the same submission.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.benchmarks.mrmath import build
from mathjudge.benchmarks.published import Converted, github_files, shown
from mathjudge.dataio.jsonfiles import iter_jsonl
from mathjudge.dataio.sources import resolve
from mathjudge.spec.benchmark import JudgeKind

BENCHMARK = build.NAME
FOLDERS = {
    "invalid": "eval_results/mr-math_invalid_errors",
    "redundant": ("eval_results/mr-math_redundant_errors"),
}
VERDICTS = {
    "invalid": {"Correct": True, "correct": True, "Wrong": False, "wrong": False},
    "redundant": {"Absent": True, "absent": True, "Present": False, "present": False},
}


@dataclass(frozen=True)
class Evaluator:
    key: str  # upstream file stem (before `_eval_results.json`)
    judge: str
    model: str
    kind: str  # "verdict", "line scores" or "solution score"
    thresholds: dict[str, float] | None = None

    @property
    def sha256(self) -> tuple[str, ...]:
        """Of the invalid-set and the redundant-set file, pinned in source.yaml (`outputs`)."""
        return tuple(build.PINS.file(output_path(self, s)).sha256 for s in build.SETS)


def _reasoneval(key: str, model: str) -> Evaluator:
    return Evaluator(
        key,
        f"ReasonEval ({model})",
        f"ReasonEval fine-tuned from {model}",
        "line scores",
        {"invalid": 0.5, "redundant": -0.15},
    )


EVALUATORS: tuple[Evaluator, ...] = (
    Evaluator(
        "gpt4",
        "GPT-4",
        "gpt-4 (prompted, verdict and first error step)",
        "verdict",
    ),
    Evaluator(
        "gpt3_5_turbo",
        "GPT-3.5-turbo",
        "gpt-3.5-turbo (prompted, verdict and first error step)",
        "verdict",
    ),
    Evaluator(
        "math-shepherd_mistral-7b",
        "Math-Shepherd-Mistral-7B",
        "math-shepherd-mistral-7b-prm (process reward model)",
        "line scores",
        {"invalid": 0.5, "redundant": 0.5},
    ),
    _reasoneval(
        "reasoneval_llama2-7b",
        "Llama-2-7B",
    ),
    _reasoneval(
        "reasoneval_wizardmath-7b-v1.0",
        "WizardMath-7B-V1.0",
    ),
    _reasoneval(
        "reasoneval_mistral-7b",
        "Mistral-7B",
    ),
    _reasoneval(
        "reasoneval_llemma-7b",
        "Llemma-7B",
    ),
    _reasoneval(
        "reasoneval_abel-7b-002",
        "Abel-7B-002",
    ),
    _reasoneval(
        "reasoneval_wizardmath-7b-v1.1",
        "WizardMath-7B-V1.1",
    ),
    _reasoneval(
        "reasoneval_llemma-34b",
        "Llemma-34B",
    ),
    Evaluator(
        "roscoe-sa",
        "ROSCOE-SA",
        "ROSCOE semantic alignment (one score per solution)",
        "solution score",
        {"invalid": 0.025, "redundant": 0.025},
    ),
    Evaluator(
        "roscoe-ss",
        "ROSCOE-SS",
        "ROSCOE semantic similarity (one score per solution)",
        "solution score",
        {"invalid": 0.025, "redundant": 0.025},
    ),
)
# The submission meta's judge kind of each way of judging: GPT-4 and GPT-3.5 are prompted,
# Math-Shepherd and ReasonEval score every step, ROSCOE is a fixed formula over sentence
# embeddings (no trained judge).
JUDGE_KIND: dict[str, JudgeKind] = {
    "verdict": "llm_judge",
    "line scores": "process_reward_model",
    "solution score": "rule",
}
LINE_SCORE = {
    "math-shepherd": "the PRM's score per line",
    "reasoneval": "p_neutral + p_positive per line (invalid set), -p_neutral (redundant set)",
}


def output_path(evaluator: Evaluator, set_name: str) -> str:
    return f"{FOLDERS[set_name]}/{evaluator.key}_eval_results.json"


SOURCE = build.PINS.outputs_source  # the two sets and every published output


# ---- verdict evaluators ------------------------------------------------------------------------


def first_integer(text: str) -> int | None:
    match = re.search(r"\d+", text)
    return int(match.group()) if match else None


def all_integers(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"\d+", text)]


def verdict_solution(set_name: str, verdict: str) -> bool | None:
    return VERDICTS[set_name].get(verdict)


def verdict_steps(set_name: str, verdict: str, error_steps: str, n_steps: int) -> list[bool | None]:
    if set_name == "redundant":
        marked = set(all_integers(error_steps))
        return [k not in marked for k in range(1, n_steps + 1)]
    if VERDICTS["invalid"].get(verdict) is True:
        return [True] * n_steps
    j = first_integer(error_steps)
    if j is None or not 1 <= j <= n_steps:
        return [True] * n_steps
    return [True] * (j - 1) + [False] + [None] * (n_steps - j)


# ---- score evaluators --------------------------------------------------------------------------


def line_value(evaluator: Evaluator, set_name: str, value: Any) -> float:
    """One line's score: Math-Shepherd's value, or from ReasonEval's [p_neg, p_neu, p_pos]."""
    if evaluator.key.startswith("math-shepherd"):
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise ValueError("a line score must be a number")
        return float(value)
    if (
        not isinstance(value, list)
        or len(value) != 3
        or not all(isinstance(p, int | float) and not isinstance(p, bool) for p in value)
    ):
        raise ValueError("a line score must be [p_negative, p_neutral, p_positive]")
    return float(value[2] + value[1]) if set_name == "invalid" else float(-value[1])


def step_scores(line_scores: list[float], steps: list[list[str]]) -> list[float]:
    """The minimum over each step's lines (lines in order, steps consecutive)."""
    out, start = [], 0
    for step in steps:
        out.append(min(line_scores[start : start + len(step)]))
        start += len(step)
    return out


def solution_pred(score: float, threshold: float) -> bool | None:
    """Above positive, below negative, equal: no prediction."""
    if score == threshold:
        return None
    return score > threshold


def step_pred(score: float, threshold: float) -> bool:
    """Above positive; equal or below negative."""
    return score > threshold


def _prediction(evaluator: Evaluator, item: dict[str, Any], out: dict[str, Any]) -> dict:
    set_name, n_steps = item["set"], item["n_steps"]
    row: dict[str, Any] = {"item_id": item["item_id"]}
    if evaluator.kind == "verdict":
        verdict, error_steps = out.get("correctness_pred"), out.get("error_step_pred")
        if not isinstance(verdict, str) or not isinstance(error_steps, str):
            raise ValueError("correctness_pred and error_step_pred must be text")
        return row | {
            "solution_pred": verdict_solution(set_name, verdict),
            "step_preds": verdict_steps(set_name, verdict, error_steps, n_steps),
            "raw_verdict": verdict,
            "raw_error_steps": error_steps,
        }
    threshold = (evaluator.thresholds or {})[set_name]
    scores = out.get("scores")
    if evaluator.kind == "solution score":
        if not isinstance(scores, int | float) or isinstance(scores, bool):
            raise ValueError("scores must be one number per solution")
        return row | {"solution_pred": solution_pred(scores, threshold), "solution_score": scores}
    if not isinstance(scores, list) or len(scores) != item["n_lines"]:
        got = len(scores) if isinstance(scores, list) else type(scores).__name__
        raise ValueError(f"{got} line scores for {item['n_lines']} lines")
    per_step = step_scores([line_value(evaluator, set_name, v) for v in scores], item["steps"])
    solution = min(per_step)
    return row | {
        "solution_pred": solution_pred(solution, threshold),
        "solution_score": solution,
        "step_preds": [step_pred(s, threshold) for s in per_step],
        "step_scores": per_step,
    }


def convert(evaluator: Evaluator, items: list[dict[str, Any]], files: dict[str, Path]) -> Converted:
    """One evaluator's two output files -> one submission. Output rows align with dataset rows
    by line and must carry the same `id`; every problem is reported before failing."""
    problems: list[Problem] = []
    rows = []
    details = []
    for set_name in build.SETS:
        path = files[output_path(evaluator, set_name)]
        expected = [i for i in items if i["set"] == set_name]
        seen = 0
        for lineno, out in iter_jsonl(path):
            seen += 1
            if lineno > len(expected) or not isinstance(out, dict):
                problems.append(Problem(str(path), lineno, None, "no dataset row on this line"))
                continue
            item = expected[lineno - 1]
            if out.get("id") != item["upstream_id"]:
                problems.append(
                    Problem(str(path), lineno, "id", f"{out.get('id')!r} != {item['upstream_id']}")
                )
                continue
            try:
                rows.append(_prediction(evaluator, item, out))
            except ValueError as exc:
                problems.append(Problem(str(path), lineno, "scores", str(exc)))
                continue
            response = out.get("response")
            if evaluator.kind == "verdict" and isinstance(response, str) and response.strip():
                details.append({"item_id": item["item_id"], "response": shown(response.strip())})
        if seen != len(expected):
            problems.append(
                Problem(str(path), None, None, f"{seen} rows, {len(expected)} expected")
            )
    if problems:
        raise ValidationFailed(problems)
    return Converted(
        evaluator.key,
        evaluator.judge,
        rows,
        _meta(evaluator, files),
        kind=JUDGE_KIND[evaluator.kind],
        converted_from=github_files(
            build.PINS.repo, build.PINS.revision, [output_path(evaluator, s) for s in build.SETS]
        ),
        details=tuple(details),
    )


def _meta(evaluator: Evaluator, files: dict[str, Path]) -> dict[str, Any]:
    paths = [output_path(evaluator, s) for s in build.SETS]
    meta: dict[str, Any] = {
        "judge": evaluator.judge,
        "model": evaluator.model,
        "judging": evaluator.kind,
        "benchmark": BENCHMARK,
        "source": {
            "repository": f"https://github.com/{build.PINS.repo}",
            "commit": build.PINS.revision,
            "files": [
                {"path": p, "sha256": sha} for p, sha in zip(paths, evaluator.sha256, strict=True)
            ],
        },
        "imported_with": "mathjudge import-outputs mrmath",
    }
    if evaluator.thresholds is not None:
        meta["thresholds"] = dict(evaluator.thresholds)
        meta["threshold_rule"] = (
            "score > threshold positive, < negative; equal: negative for a step, no prediction "
            "for a solution"
        )
    family = next((f for f in LINE_SCORE if evaluator.key.startswith(f)), None)
    if family is not None:
        meta["line_score"] = LINE_SCORE[family]
        meta["step_score"] = "minimum over the step's lines; solution score: minimum over lines"
    return meta


def _dataset_rows(files: dict[str, Path]) -> list[dict[str, Any]]:
    return build.solutions({p: files[p] for p in (build.INVALID_FILE, build.REDUNDANT_FILE)})


def converted(source_dir: Path | None = None) -> Iterator[Converted]:
    files = {name: f.path for name, f in resolve(SOURCE, source_dir).items()}
    items = _dataset_rows(files)
    for evaluator in EVALUATORS:
        yield convert(evaluator, items, files)


def import_outputs(benchmark: str, source_dir: Path | None) -> list[Converted]:
    """Every published evaluator of `benchmark` (only `mrmath` here), converted."""
    if benchmark != BENCHMARK:
        raise MathJudgeError(f"{benchmark}: no published outputs in {__name__}")
    return list(converted(source_dir))
