"""The 31 judges whose RewardMATH scores the authors' repository publishes (`results/RewardMATH/`
at the pinned commit), turned into submissions: one file -> one submission.

Pointwise files (`<name>_reward.json`, benchmark `rewardmath`): one object per problem, in the
benchmark's order, with the problem, its ten solution references and `score`, aligned with the
references: a number per solution (9 classifier reward models; 9 LLM judges whose 1-10 rating,
or 1-5 for Prometheus, the authors parsed from the reply, writing 1 when they could not) or, for
the 4 process reward models, a list of step scores. Pairwise files (`<name>_pairwise_reward.json`,
benchmark `rewardmath_pairwise`): the nine incorrect references and, per game, the judge's
verdict (`A`, `B` or null) and the correct solution's position.

Every file is checked against the built items: the same problem and references in every row,
the same positions. Three pointwise files (`chatgpt`, `gpt4`, `gpt4o`) have 485 rows, the last
two exact copies of rows 481 and 482; the copies are checked and left out (each problem counts
once).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.benchmarks.published import Converted, from_pinned_file
from mathjudge.benchmarks.rewardmath import build
from mathjudge.dataio.jsonfiles import Record, read_json_array
from mathjudge.dataio.sources import resolve
from mathjudge.spec.benchmark import JudgeKind

FOLDER = "results/RewardMATH"
SOURCE = build.PINS.outputs_source  # the item files and every published output
POINTWISE, PAIRWISE = "rewardmath", "rewardmath_pairwise"


@dataclass(frozen=True)
class Judge:
    key: str  # file stem before `_reward.json` / `_pairwise_reward.json`
    judge: str
    model: str
    kind: JudgeKind
    judging: str
    benchmark: str = POINTWISE

    @property
    def path(self) -> str:
        suffix = "_pairwise_reward.json" if self.benchmark == PAIRWISE else "_reward.json"
        return f"{FOLDER}/{self.key}{suffix}"

    @property
    def slug(self) -> str:
        return self.key.lower().replace("_", "-") + (
            "-pairwise" if self.benchmark == PAIRWISE else ""
        )


def _rm(key: str, judge: str, model: str) -> Judge:
    return Judge(key, judge, model, "reward_model", "classifier reward model, one score each")


def _prm(key: str, judge: str, model: str) -> Judge:
    return Judge(
        key, judge, model, "process_reward_model", "process reward model, a score per step"
    )


# The LLM judges: file stem -> (name, model). Prometheus uses its 1-5 rubric, the others a
# 1-10 rating; their pairwise files use the same stems.
LLMS = {
    "chatgpt": ("GPT-3.5-Turbo", "gpt-3.5-turbo-0125"),
    "gpt4": ("GPT-4", "gpt-4-0125-preview"),
    "gpt4o": ("GPT-4o", "gpt-4o-2024-05-13"),
    "opus": ("Claude 3 Opus", "claude-3-opus-20240229"),
    "sonnet-3-5": ("Claude 3.5 Sonnet", "claude-3-5-sonnet-20240620"),
    "llama3_8B": ("Llama-3-8B-Instruct", "meta-llama/Meta-Llama-3-8B-Instruct"),
    "llama3_70B": ("Llama-3-70B-Instruct", "meta-llama/Meta-Llama-3-70B-Instruct"),
    "prometheus_7B": ("Prometheus-7B-v2.0", "prometheus-eval/prometheus-7b-v2.0"),
    "prometheus_8x7B": ("Prometheus-8x7B-v2.0", "prometheus-eval/prometheus-8x7b-v2.0"),
}


def _rating(key: str) -> str:
    return "1-5 rubric" if key.startswith("prometheus") else "1-10 rating"


JUDGES: tuple[Judge, ...] = (
    _rm("ArmoRM", "ArmoRM-Llama3-8B-v0.1", "RLHFlow/ArmoRM-Llama3-8B-v0.1"),
    _rm("internlm2", "InternLM2-7B-Reward", "internlm/internlm2-7b-reward"),
    _rm("internlm2_20b", "InternLM2-20B-Reward", "internlm/internlm2-20b-reward"),
    _rm("Eurus-RM", "Eurus-RM-7B", "openbmb/Eurus-RM-7b"),
    _rm("beaver", "Beaver-7B-v2.0-Reward", "PKU-Alignment/beaver-7b-v2.0-reward"),
    _rm("oasst-rm", "OASST-RM-2.1-Pythia-1.4B", "OpenAssistant/oasst-rm-2.1-pythia-1.4b-epoch-2.5"),
    _rm("grm_gemma", "GRM-Gemma-2B-sftreg", "Ray2333/GRM-Gemma-2B-sftreg"),
    _rm("grm_llama3", "GRM-Llama3-8B-sftreg", "Ray2333/GRM-llama3-8B-sftreg"),
    _rm("skywork_llama3", "Skywork-Reward-Llama-3.1-8B", "Skywork/Skywork-Reward-Llama-3.1-8B"),
    _prm("Math_Shepherd", "Math-Shepherd-Mistral-7B", "peiyi9979/math-shepherd-mistral-7b-prm"),
    _prm(
        "Easy_to_hard",
        "Llemma-7B-PRM (PRM800K, levels 1-3)",
        "ScalableMath/llemma-7b-prm-prm800k-level-1to3-hf",
    ),
    _prm("ReasonEval_7B", "ReasonEval-7B", "GAIR/ReasonEval-7B"),
    _prm("ReasonEval_34B", "ReasonEval-34B", "GAIR/ReasonEval-34B"),
    *(
        Judge(
            key,
            f"{name} ({_rating(key)})",
            model,
            "llm_judge",
            f"LLM judge, a {_rating(key)} of each solution parsed from its reply "
            "(1 where the authors' parser found none)",
        )
        for key, (name, model) in LLMS.items()
    ),
    *(
        Judge(
            key,
            f"{name} (pairwise)",
            model,
            "llm_judge",
            "LLM judge, the correct solution against each incorrect one, A or B as shown",
            PAIRWISE,
        )
        for key, (name, model) in LLMS.items()
    ),
)


def problem_rows(path: Path, n_problems: int) -> list[Record]:
    """The file's one row per problem: extra rows must repeat the last ones exactly (the three
    485-row files), and are dropped."""
    rows = read_json_array(path)
    extra = rows[n_problems:]
    if len(rows) < n_problems:
        raise MathJudgeError(f"{path}: {len(rows)} rows, {n_problems} problems expected")
    copies = rows[n_problems - len(extra) : n_problems]
    for row, copy in zip(extra, copies, strict=True):
        if dict(row) != dict(copy):
            raise MathJudgeError(f"{row.where}: an extra row that repeats no earlier problem")
    return rows[:n_problems]


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _pointwise_row(judge: Judge, item_id: str, score: Any) -> dict[str, Any]:
    if judge.kind == "process_reward_model":
        if not isinstance(score, list) or not score or not all(_number(s) for s in score):
            raise ValueError("expected a non-empty list of step scores")
        return {"item_id": item_id, "step_scores": [float(s) for s in score]}
    if not _number(score):
        raise ValueError(f"expected a number, got {score!r:.40}")
    return {"item_id": item_id, "score": float(score)}


def convert_pointwise(judge: Judge, solutions: list[dict[str, Any]], path: Path) -> Converted:
    by_problem: dict[int, list[dict[str, Any]]] = {}
    for s in solutions:
        by_problem.setdefault(s["problem_index"], []).append(s)
    problems: list[Problem] = []
    out = []
    for index, row in enumerate(problem_rows(path, len(by_problem))):
        items = by_problem[index]
        if row.get("problem") != items[0]["problem"] or row.get("solution_reference") != [
            s["solution_reference"] for s in items
        ]:
            problems.append(Problem(str(path), index, "problem", "not this problem's row", "row"))
            continue
        scores = row.get("score")
        if not isinstance(scores, list) or len(scores) != len(items):
            problems.append(Problem(str(path), index, "score", "one per solution", "row"))
            continue
        for item, score in zip(items, scores, strict=True):
            try:
                out.append(_pointwise_row(judge, item["item_id"], score))
            except ValueError as exc:
                problems.append(Problem(str(path), index, "score", str(exc), "row"))
    if problems:
        raise ValidationFailed(problems)
    return _converted(judge, out)


def convert_pairwise(judge: Judge, games: list[dict[str, Any]], path: Path) -> Converted:
    by_problem: dict[int, list[dict[str, Any]]] = {}
    for g in games:
        by_problem.setdefault(g["problem_index"], []).append(g)
    problems: list[Problem] = []
    out = []
    for index, row in enumerate(problem_rows(path, len(by_problem))):
        items = by_problem[index]
        expected = {
            "problem": items[0]["problem"],
            "solution_reference": [g["solution_reference"] for g in items],
            "chosen_position": [g["chosen_position"] for g in items],
        }
        if any(row.get(k) != v for k, v in expected.items()):
            problems.append(Problem(str(path), index, "problem", "not this problem's games", "row"))
            continue
        verdicts = row.get("score")
        if (
            not isinstance(verdicts, list)
            or len(verdicts) != len(items)
            or any(v not in ("A", "B", None) for v in verdicts)
        ):
            problems.append(Problem(str(path), index, "score", "A, B or null per game", "row"))
            continue
        out += [
            {"item_id": g["item_id"], "preferred": v} for g, v in zip(items, verdicts, strict=True)
        ]
    if problems:
        raise ValidationFailed(problems)
    return _converted(judge, out)


def _converted(judge: Judge, rows: list[dict[str, Any]]) -> Converted:
    return from_pinned_file(
        build.PINS,
        judge.path,
        rows,
        slug=judge.slug,
        judge=judge.judge,
        model=judge.model,
        judging=judge.judging,
        benchmark=judge.benchmark,
        kind=judge.kind,
    )


def import_outputs(benchmark: str, source_dir: Path | None) -> list[Converted]:
    """Every published judge of `benchmark` (`rewardmath` or `rewardmath_pairwise`)."""
    chosen = [j for j in JUDGES if j.benchmark == benchmark]
    if not chosen:
        raise MathJudgeError(f"{benchmark}: no published RewardMATH outputs")
    files = {name: f.path for name, f in resolve(SOURCE, source_dir).items()}
    solutions, games = build.from_results(
        read_json_array(files[build.ITEMS_FILE]), read_json_array(files[build.GAMES_FILE])
    )
    if benchmark == PAIRWISE:
        return [convert_pairwise(j, games, files[j.path]) for j in chosen]
    return [convert_pointwise(j, solutions, files[j.path]) for j in chosen]
