"""RewardMATH (Kim et al., arXiv:2410.01729): 483 MATH problems, each with one correct solution
(the human reference rewritten step by step by GPT-4, reference `human_to_GPT-4`) and nine
incorrect ones, for judges that must rank the correct one first.

Two configs: `solutions` (10 per problem, the items of `rewardmath`: a reward per solution) and
`games` (9 per problem, the items of `rewardmath_pairwise`: the correct solution against each
incorrect one, with the position, A or B, where the correct one is shown).

Where the items come from:
- the Hugging Face datasets `RewardMATH/RewardMATH` and `RewardMATH/RewardMATH_pairwise` (the
  `hub` pins), which carry the solution texts;
- offline, the authors' GitHub commit as the shared mirror holds it: its result files list every
  problem with its ten solution references (in the authors' order) and the pairwise files every
  game's position, but not the solution texts. Such a build says so (the manifest's
  `limitations`, the card), carries the ids, labels and problems, and scores every judge exactly
  as a Hub build does: the item ids are the same. Each solution's number of steps is there
  too: the three process reward models whose outputs the commit holds (`STEP_FILES`) score one
  value per step of the solution, and they agree on every solution (checked), as they do with
  the texts of the two sample problems the repository keeps.

Item ids: `<problem_index>::<solution_reference>`, the problem's 0-based position (the upstream
`problem_id`, the row of every result file); a reference repeated within a problem (77 problems
have one, e.g. three `google/gemma-7b-it` solutions) gets `#2`, `#3` on its later occurrences
in the authors' order, and the one empty reference (problem 414) is written `(empty)`. A game's
id is its incorrect solution's id.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import datasets
from datasets import List, Value

from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.cards import render_card_body
from mathjudge.dataio.hubrows import load_rows
from mathjudge.dataio.jsonfiles import Record, expect, read_json_array
from mathjudge.dataio.pins import load_pins
from mathjudge.dataio.sources import (
    ResolvedFile,
    Source,
    commit_mirror,
    resolve,
    snapshot_or_commit,
)
from mathjudge.dataio.writer import Build, CardInfo, Table

NAME = "rewardmath"
PINS = load_pins(NAME)  # source.yaml: the version, the GitHub commit, the Hub datasets
VERSION = PINS.version
SOURCE = PINS.source
HUB_SOLUTIONS, HUB_GAMES = PINS.hub
ITEMS_FILE = "results/RewardMATH/ArmoRM_reward.json"
GAMES_FILE = "results/RewardMATH/gpt4_pairwise_reward.json"
# Process reward models' step-score lists: one score per step of each solution.
STEP_FILES = (
    "results/RewardMATH/Math_Shepherd_reward.json",
    "results/RewardMATH/ReasonEval_7B_reward.json",
    "results/RewardMATH/ReasonEval_34B_reward.json",
)
CORRECT = "human_to_GPT-4"
EMPTY_REFERENCE = "(empty)"
POSITIONS = ("A", "B")
NO_TEXTS = "texts: on the Hub; this build carries ids, labels and the problem"

SOLUTION_FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_index": Value("int32"),
        "position": Value("int8"),
        "solution_reference": Value("string"),
        "occurrence": Value("int8"),
        "is_correct": Value("bool"),
        "label_name": Value("string"),  # "correct" / "incorrect": `is_correct` as a name
        "problem": Value("string"),
        "answer": Value("string"),
        "subject": Value("string"),
        "level": Value("int8"),
        "steps": List(Value("string")),
        "n_steps": Value("int16"),
    }
)
GAME_FEATURES = datasets.Features(
    {
        "item_id": Value("string"),
        "problem_index": Value("int32"),
        "game": Value("int8"),
        "solution_reference": Value("string"),
        "correct_item_id": Value("string"),
        "chosen_position": Value("string"),
        "correct_is_a": Value("bool"),
        "problem": Value("string"),
        "solution_a": List(Value("string")),
        "solution_b": List(Value("string")),
        "n_steps_a": Value("int16"),
        "n_steps_b": Value("int16"),
    }
)
HUB_SOLUTION_COLUMNS = (
    "problem",
    "answer",
    "eval_solution",
    "solution_reference",
    "solution_type",
    "subject",
    "level",
    "problem_id",
    "id",
)
HUB_GAME_COLUMNS = (
    "problem",
    "eval_solution_A",
    "eval_solution_B",
    "solution_reference",
    "chosen_position",
    "problem_id",
    "id",
)


def solution_ids(problem_index: int, references: list[str]) -> list[tuple[str, int]]:
    """(item id, occurrence) of each solution of a problem, in the authors' order."""
    seen: Counter[str] = Counter()
    out = []
    for reference in references:
        seen[reference] += 1
        n = seen[reference]
        name = reference or EMPTY_REFERENCE
        out.append((f"{problem_index}::{name}{'' if n == 1 else f'#{n}'}", n))
    return out


def check_references(where: str, references: Any) -> list[str]:
    """A problem's ten solution references: text, the correct one first and only once."""
    if not isinstance(references, list) or not all(isinstance(r, str) for r in references):
        raise MathJudgeError(f"{where} [solution_reference]: expected a list of text")
    if not references or references[0] != CORRECT or references.count(CORRECT) != 1:
        raise MathJudgeError(
            f"{where} [solution_reference]: the correct solution ({CORRECT}) must come first "
            "and only once"
        )
    return references


def _solution_rows(
    index: int, problem: str, references: list[str], extra: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    rows = []
    for position, (reference, (item_id, occurrence)) in enumerate(
        zip(references, solution_ids(index, references), strict=True)
    ):
        correct = reference == CORRECT
        rows.append(
            {
                "item_id": item_id,
                "problem_index": index,
                "position": position,
                "solution_reference": reference,
                "occurrence": occurrence,
                "is_correct": correct,
                "label_name": "correct" if correct else "incorrect",
                "problem": problem,
                "answer": None,
                "subject": None,
                "level": None,
                "steps": None,
                "n_steps": None,
                **(extra[position] if extra else {}),
            }
        )
    return rows


def _game_rows(
    solutions: list[dict[str, Any]],
    positions: list[str],
    texts: list[tuple[list[str], list[str]]] | None = None,
) -> list[dict[str, Any]]:
    correct = solutions[0]
    out = []
    for game, (wrong, chosen) in enumerate(zip(solutions[1:], positions, strict=True)):
        shown = (correct, wrong) if chosen == "A" else (wrong, correct)
        out.append(
            {
                "item_id": wrong["item_id"],
                "problem_index": wrong["problem_index"],
                "game": game,
                "solution_reference": wrong["solution_reference"],
                "correct_item_id": correct["item_id"],
                "chosen_position": chosen,
                "correct_is_a": chosen == "A",
                "problem": wrong["problem"],
                "solution_a": texts[game][0] if texts else None,
                "solution_b": texts[game][1] if texts else None,
                "n_steps_a": shown[0]["n_steps"],
                "n_steps_b": shown[1]["n_steps"],
            }
        )
    return out


def step_counts(items: list[Record], step_files: list[list[Record]]) -> list[list[int]]:
    """Each problem's solutions' numbers of steps: the length of the step-score list every one
    of the process reward models' files gives it, which must agree (and list the problems and
    references of `items`)."""
    counts = []
    for index, row in enumerate(items):
        found = set()
        for rows in step_files:
            if len(rows) < len(items):
                raise MathJudgeError(f"{rows[-1].where}: fewer problems than {ITEMS_FILE}")
            other = rows[index]
            if other["solution_reference"] != row["solution_reference"]:
                raise MathJudgeError(
                    f"{other.where} [solution_reference]: not the references of {row.where}"
                )
            scores = other["score"]
            if not isinstance(scores, list) or not all(isinstance(s, list) for s in scores):
                raise MathJudgeError(f"{other.where} [score]: expected a list of step-score lists")
            found.add(tuple(len(s) for s in scores))
        if len(found) != 1:
            raise MathJudgeError(f"{row.where}: the step-score files disagree on the step counts")
        counts.append(list(found.pop()))
    return counts


def from_results(
    items: list[Record], games: list[Record], steps: list[list[int]] | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Solutions and games from the authors' result files: a direct file (problem, the ten
    references) and a pairwise one (the nine incorrect references, in the same order, and the
    correct solution's position in each game), with each solution's number of `steps` when
    given (the outputs importer needs the ids only)."""
    if len(items) != len(games):
        raise MathJudgeError(f"{ITEMS_FILE} has {len(items)} problems, {GAMES_FILE} {len(games)}")
    solutions: list[dict[str, Any]] = []
    game_rows: list[dict[str, Any]] = []
    for index, (row, pair) in enumerate(zip(items, games, strict=True)):
        problem = expect(row, "problem", str)
        references = check_references(row.where, row["solution_reference"])
        if expect(pair, "problem", str) != problem:
            raise MathJudgeError(f"{pair.where} [problem]: not the problem of {row.where}")
        if pair["solution_reference"] != references[1:]:
            raise MathJudgeError(
                f"{pair.where} [solution_reference]: not the incorrect references of {row.where}"
            )
        positions = pair["chosen_position"]
        if not isinstance(positions, list) or any(p not in POSITIONS for p in positions):
            raise MathJudgeError(f"{pair.where} [chosen_position]: expected a list of A / B")
        counts = [{"n_steps": n} for n in steps[index]] if steps else None
        rows = _solution_rows(index, problem, references, counts)
        solutions += rows
        game_rows += _game_rows(rows, positions)
    return solutions, game_rows


def _by_problem(rows: list[dict[str, Any]], per: int, repo: str) -> dict[int, list[dict]]:
    """Hub rows grouped by `problem_id`, each group ordered by its place (`id - per * pid`),
    which must run 0..k-1."""
    groups: dict[int, list[dict]] = {}
    for row in rows:
        groups.setdefault(row["problem_id"], []).append(row)
    for pid, group in groups.items():
        group.sort(key=lambda r: r["id"])
        places = [r["id"] - per * pid for r in group]
        if places != list(range(len(group))):
            raise MathJudgeError(f"{repo}: problem_id {pid} has the rows {places}, not 0..n-1")
    if sorted(groups) != list(range(len(groups))):
        raise MathJudgeError(f"{repo}: problem_id must run 0..{len(groups) - 1}")
    return groups


def from_hub(
    direct: list[dict[str, Any]], pairwise: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
    """Solutions and games from the two Hub datasets, with their texts; also how many games
    show, as A and B, the texts of the direct dataset's two solutions (all, when consistent)."""
    problems = _by_problem(direct, 10, HUB_SOLUTIONS.repo)
    games_by_problem = _by_problem(pairwise, 9, HUB_GAMES.repo)
    if sorted(problems) != sorted(games_by_problem):
        raise MathJudgeError(f"{HUB_SOLUTIONS.repo} and {HUB_GAMES.repo} hold other problems")
    solutions: list[dict[str, Any]] = []
    game_rows: list[dict[str, Any]] = []
    matching = 0
    for index in sorted(problems):
        group, games = problems[index], games_by_problem[index]
        where = f"{HUB_SOLUTIONS.repo} problem_id {index}"
        references = check_references(where, [r["solution_reference"] for r in group])
        for r in group:
            if (r["solution_type"] == "chosen") != (r["solution_reference"] == CORRECT):
                raise MathJudgeError(f"{where}: solution_type does not follow the reference")
        extra = [
            {"answer": r["answer"], "subject": r["subject"], "level": r["level"]}
            | {"steps": list(r["eval_solution"]), "n_steps": len(r["eval_solution"])}
            for r in group
        ]
        rows = _solution_rows(index, group[0]["problem"], references, extra)
        if [g["solution_reference"] for g in games] != references[1:]:
            raise MathJudgeError(
                f"{HUB_GAMES.repo} problem_id {index}: not the incorrect references of {where}"
            )
        positions = [g["chosen_position"] for g in games]
        if any(p not in POSITIONS for p in positions):
            raise MathJudgeError(f"{HUB_GAMES.repo} problem_id {index}: chosen_position not A/B")
        texts = [(list(g["eval_solution_A"]), list(g["eval_solution_B"])) for g in games]
        for shown, chosen, wrong in zip(texts, positions, rows[1:], strict=True):
            pair = (rows[0]["steps"], wrong["steps"])
            matching += shown == (pair if chosen == "A" else pair[::-1])
        solutions += rows
        game_rows += _game_rows(rows, positions, texts)
    return solutions, game_rows, matching


def _facts(solutions: list[dict[str, Any]], games: list[dict[str, Any]]) -> dict[str, Any]:
    repeated = Counter(
        (r["problem_index"], r["solution_reference"]) for r in solutions if r["occurrence"] > 1
    )
    return {
        "n_problems": len({r["problem_index"] for r in solutions}),
        "n_solutions": len(solutions),
        "n_games": len(games),
        "problems_with_repeats": len({p for p, _ in repeated}),
        "empty_references": [r["item_id"] for r in solutions if not r["solution_reference"]],
        "positions": Counter(g["chosen_position"] for g in games),
        "references": Counter(r["solution_reference"] for r in solutions if not r["is_correct"]),
    }


def build(source_dir: Path | None = None, source: Source = SOURCE) -> Build:
    mirror = commit_mirror(source, source_dir)
    if mirror is not None:
        resolved = resolve(source, mirror)
        items = read_json_array(resolved[ITEMS_FILE].path)
        steps = step_counts(items, [read_json_array(resolved[f].path) for f in STEP_FILES])
        solutions, games = from_results(items, read_json_array(resolved[GAMES_FILE].path), steps)
        sources: tuple[tuple[Source, dict[str, ResolvedFile]], ...] = ((source, resolved),)
        limitations: tuple[str, ...] = (NO_TEXTS,)
        matching = None
    else:
        direct = snapshot_or_commit(HUB_SOLUTIONS, source, source_dir)
        pairwise = snapshot_or_commit(HUB_GAMES, source, source_dir)
        solutions, games, matching = from_hub(
            load_rows(direct.folder, HUB_SOLUTIONS.repo, HUB_SOLUTION_COLUMNS),
            load_rows(pairwise.folder, HUB_GAMES.repo, HUB_GAME_COLUMNS),
        )
        sources = (
            (replace(HUB_SOLUTIONS, revision=direct.revision), direct.files),
            (replace(HUB_GAMES, revision=pairwise.revision), pairwise.files),
        )
        limitations = ()
    facts = _facts(solutions, games)
    texts = not limitations
    return Build(
        benchmark=NAME,
        version=VERSION,
        tables=(
            Table("solutions", "test", SOLUTION_FEATURES, solutions),
            Table("games", "test", GAME_FEATURES, games),
        ),
        card_info=CardInfo(
            pretty_name="RewardMATH",
            # The GitHub repository is MIT; no license was found for the Hub datasets.
            license="mit" if not texts else "unknown",
            language=("en",),
            task_categories=("text-classification",),
            task_ids=("multi-class-classification",),  # which solution is the correct one
            annotations_creators=("machine-generated",),
            language_creators=("found", "machine-generated"),
            source_datasets=("original",) if not texts else (HUB_SOLUTIONS.repo, HUB_GAMES.repo),
            size_category="n<1K" if len(solutions) + len(games) < 1000 else "1K<n<10K",
        ),
        card_body=render_card_body(
            NAME,
            version=VERSION,
            texts=texts,
            sources=[s for s, _ in sources],
            items_file=ITEMS_FILE,
            games_file=GAMES_FILE,
            no_texts=NO_TEXTS,
            **facts,
        ),
        sources=sources,
        checks={
            "problems": facts["n_problems"],
            "solutions": facts["n_solutions"],
            "games": facts["n_games"],
            "unique_item_ids": len({r["item_id"] for r in solutions}) == len(solutions),
            "problems_with_repeated_references": facts["problems_with_repeats"],
            "empty_references": facts["empty_references"],
            **({} if matching is None else {"games_showing_the_direct_texts": matching}),
        },
        limitations=limitations,
    )
