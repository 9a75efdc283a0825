"""The seven judges whose raw JudgeBench outputs the authors' repository publishes (at the pinned
commit, small enough to mirror), turned into submissions: one file -> one submission.

Each output row is a data row plus `judgments`: two games, the first shown (A, B), the second
shown (B, A), each with a `decision` relative to the order shown ("A>B", "B>A", "A=B" or null;
a failed call leaves the whole judgment null). Arena-Hard judges (o1-mini on the GPT-4o pairs,
Claude-3-haiku on the Claude pairs) become `decisions` in the original order (the second game
mapped back) with the as-shown decisions kept in `raw_decisions`, and the judge's text of each
game (its reasoning) kept as the submission's details. Reward models become
`score_a` / `score_b` from the first game's scores; the importer checks that the second game's
scores are the same pair reversed and that both recorded decisions follow from the scores (the
higher wins, a tie says "B>A" as shown), so scoring the scores reproduces the published decisions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.benchmarks.judgebench import build
from mathjudge.benchmarks.judgebench.metrics import score_decisions
from mathjudge.benchmarks.published import Converted, github_files
from mathjudge.dataio.jsonfiles import iter_jsonl
from mathjudge.dataio.sources import resolve

FLIP = {"A>B": "B>A", "B>A": "A>B", "A=B": "A=B", None: None}
BENCHMARKS = {"gpt4o": "judgebench", "claude": "judgebench_claude"}


@dataclass(frozen=True)
class Judge:
    slug: str
    judge: str
    model: str
    kind: str  # "arena_hard" (LLM judge, two games) or "reward_model"
    config: str  # which pairs it judged
    file_model: str  # `judge_model=` in the upstream file name

    @property
    def benchmark(self) -> str:
        return BENCHMARKS[self.config]

    @property
    def sha256(self) -> str:
        """Pinned in source.yaml (`outputs`), beside the data files."""
        return build.PINS.file(self.path).sha256

    @property
    def path(self) -> str:
        response_model = build.CONFIGS[self.config]
        return (
            f"outputs/dataset=judgebench,response_model={response_model},judge_name={self.kind},"
            f"judge_model={self.file_model}.jsonl"
        )


JUDGES: tuple[Judge, ...] = (
    Judge(
        "o1-mini-arena-hard",
        "o1-mini (Arena-Hard judge)",
        "o1-mini-2024-09-12",
        "arena_hard",
        "gpt4o",
        "o1-mini-2024-09-12",
    ),
    Judge(
        "skywork-reward-gemma-2-27b",
        "Skywork-Reward-Gemma-2-27B",
        "Skywork/Skywork-Reward-Gemma-2-27B",
        "reward_model",
        "gpt4o",
        "Skywork_Skywork-Reward-Gemma-2-27B",
    ),
    Judge(
        "skywork-reward-llama-3.1-8b",
        "Skywork-Reward-Llama-3.1-8B",
        "Skywork/Skywork-Reward-Llama-3.1-8B",
        "reward_model",
        "gpt4o",
        "Skywork_Skywork-Reward-Llama-3.1-8B",
    ),
    Judge(
        "internlm2-20b-reward",
        "InternLM2-20B-Reward",
        "internlm/internlm2-20b-reward",
        "reward_model",
        "gpt4o",
        "internlm_internlm2-20b-reward",
    ),
    Judge(
        "internlm2-7b-reward",
        "InternLM2-7B-Reward",
        "internlm/internlm2-7b-reward",
        "reward_model",
        "gpt4o",
        "internlm_internlm2-7b-reward",
    ),
    Judge(
        "grm-gemma-2b",
        "GRM-Gemma-2B",
        "Ray2333/GRM-Gemma-2B-rewardmodel-ft",
        "reward_model",
        "gpt4o",
        "Ray2333_GRM-Gemma-2B-rewardmodel-ft",
    ),
    Judge(
        "claude-3-haiku-arena-hard",
        "Claude-3-haiku (Arena-Hard judge)",
        "claude-3-haiku-20240307",
        "arena_hard",
        "claude",
        "claude-3-haiku-20240307",
    ),
)

SOURCE = build.PINS.outputs_source  # the pairs and every published output


def _decision(game: Any) -> str | None:
    """A game's decision as shown; a null game (failed call) decides nothing."""
    if game is None:
        return None
    if not isinstance(game, dict) or game.get("decision") not in FLIP:
        raise ValueError(f"a judgment must hold a decision in {sorted(filter(None, FLIP))}")
    return game["decision"]


def arena_hard_row(pair_id: str, games: list[Any]) -> dict[str, Any]:
    shown = [_decision(g) for g in games]
    return {"item_id": pair_id, "decisions": [shown[0], FLIP[shown[1]]], "raw_decisions": shown}


def _scores(game: Any) -> list[float]:
    scores = (game or {}).get("judgment", {}).get("scores") if isinstance(game, dict) else None
    if (
        not isinstance(scores, list)
        or len(scores) != 2
        or not all(isinstance(s, int | float) and not isinstance(s, bool) for s in scores)
    ):
        raise ValueError("a reward-model judgment must hold two numeric scores")
    return [float(s) for s in scores]


def reward_model_row(pair_id: str, games: list[Any]) -> dict[str, Any]:
    first, second = _scores(games[0]), _scores(games[1])
    if second != first[::-1]:
        raise ValueError(f"second-game scores {second} are not the first game's {first} reversed")
    shown = [_decision(g) for g in games]
    mapped_back = score_decisions(*first)
    if [mapped_back[0], FLIP[mapped_back[1]]] != shown:
        raise ValueError(f"recorded decisions {shown} do not follow from the scores {first}")
    return {"item_id": pair_id, "score_a": first[0], "score_b": first[1], "raw_decisions": shown}


def convert(judge: Judge, pairs: list[dict[str, Any]], path: Path) -> Converted:
    """One output file -> one submission; rows must be the data file's pairs, in its order, with
    the same label."""
    problems: list[Problem] = []
    rows = []
    details = []
    seen = 0
    for lineno, out in iter_jsonl(path):
        seen += 1

        def bad(field: str | None, message: str, lineno: int = lineno) -> None:
            problems.append(Problem(str(path), lineno, field, message))

        if lineno > len(pairs) or not isinstance(out, dict):
            bad(None, "no data row on this line")
            continue
        pair = pairs[lineno - 1]
        if out.get("pair_id") != pair["pair_id"] or out.get("label") != pair["label"]:
            bad("pair_id", f"{out.get('pair_id')!r} does not match the data row {pair['pair_id']}")
            continue
        games = out.get("judgments")
        if not isinstance(games, list) or len(games) != 2:
            bad("judgments", "must hold two games")
            continue
        try:
            make = arena_hard_row if judge.kind == "arena_hard" else reward_model_row
            rows.append(make(pair["pair_id"], games))
        except ValueError as exc:
            bad("judgments", str(exc))
            continue
        said = judgment_texts(games) if judge.kind == "arena_hard" else {}
        if said:
            details.append({"item_id": pair["pair_id"], **said})
    if seen != len(pairs):
        problems.append(Problem(str(path), None, None, f"{seen} rows, {len(pairs)} expected"))
    if problems:
        raise ValidationFailed(problems)
    meta = {
        "judge": judge.judge,
        "model": judge.model,
        "judging": "LLM judge, Arena-Hard prompt, two games with the order swapped"
        if judge.kind == "arena_hard"
        else "reward model, one score per response",
        "benchmark": judge.benchmark,
        "source": {
            "repository": f"https://github.com/{build.PINS.repo}",
            "commit": build.PINS.revision,
            "files": [{"path": judge.path, "sha256": judge.sha256}],
        },
        "imported_with": f"mathjudge import-outputs {judge.benchmark}",
    }
    return Converted(
        judge.slug,
        judge.judge,
        rows,
        meta,
        kind="llm_judge" if judge.kind == "arena_hard" else "reward_model",
        converted_from=github_files(build.PINS.repo, build.PINS.revision, [judge.path]),
        details=tuple(details),
    )


GAMES = ("game 1, A shown first", "game 2, B shown first")


def judgment_texts(games: list[Any]) -> dict[str, str]:
    """An LLM judge's own text in each game (its reasoning and verdict), where it has one."""
    out = {}
    for name, game in zip(GAMES, games, strict=True):
        judgment = game.get("judgment") if isinstance(game, dict) else None
        text = judgment.get("response") if isinstance(judgment, dict) else None
        if isinstance(text, str) and text.strip():
            out[name] = text.strip()
    return out


def import_outputs(benchmark: str, source_dir: Path | None) -> list[Converted]:
    """Every published judge of `benchmark` (`judgebench` or `judgebench_claude`), converted."""
    chosen = [j for j in JUDGES if j.benchmark == benchmark]
    if not chosen:
        raise MathJudgeError(f"{benchmark}: no published JudgeBench outputs")
    files = {name: f.path for name, f in resolve(SOURCE, source_dir).items()}
    by_config = build.pairs({p: files[p] for p in (f.path for f in build.SOURCE.files)})
    return [convert(j, by_config[j.config], files[j.path]) for j in chosen]
