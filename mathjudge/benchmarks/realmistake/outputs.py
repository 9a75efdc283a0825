"""The judges' calls that the ReaLMistake authors publish (`error_detection_outputs/` at the
pinned commit, the math task), turned into 28 submissions of `realmistake`:

- simple prompts: each of the 12 judges with the four simple prompts, on both response models:
  one submission, the prompt's number as its `run` (1 to 4), so that it is scored as the
  paper's table is (each prompt's value, then their mean);
- CoT prompt: the same 12 judges with the chain-of-thought instruction prompt, one run;
- self-consistency: 3 judges, the majority of five samples of the first simple prompt, on 50
  of GPT-4's 140 responses only: partial submissions (never ranked);
- majority vote: Llama-2-70B, Mixtral-8x7B and Qwen1.5-72B with the four simple prompts each,
  one call per response from their 12 (the published call is `error` only when more than 6 of
  the 12 are: a null call counts against it).

A file has one line per response: `prediction` (`error`, `no_error`, or null where the authors
could not read the judge's reply) and `metadata.id`. The calls are imported as published, the
authors' reading of each reply, with null kept as a null call (no error for precision, recall
and F1, wrong for accuracy, as they count it). The importer checks that each line names a
response of the file's model once, that the gold `label` a file repeats is the dataset's, and
that every response is there (the self-consistency files: a subset). The judges' replies are
not carried: they quote the responses, which the authors ask not to publish in plain text.
The details keep what is short and safe: the majority vote's tallies and the five samples' calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base import safejson
from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.benchmarks.published import Converted, github_files
from mathjudge.benchmarks.realmistake import JUDGE_MODELS, build
from mathjudge.dataio.sources import resolve

SOURCE = build.PINS.outputs_source
ROOT = "error_detection_outputs"
CALLS = {"error": True, "no_error": False, None: None}
SELF_CONSISTENCY = ("Mixtral-8x7B-Instruct-v0.1", "gpt-3.5-turbo-0125", "gpt-4-0125-preview")
VOTERS = ("Llama-2-70b-chat-hf", "Mixtral-8x7B-Instruct-v0.1", "Qwen1.5-72B-Chat")
SIMPLE_PROMPTS = tuple(f"baseline_errordetection_prompt_{k}" for k in (1, 2, 3, 4))


@dataclass(frozen=True)
class File:
    """One output file: which responses it judges and the run its calls are."""

    method: str  # folder under error_detection_outputs
    responses_of: str
    folder: str  # the judge's folder
    stem: str  # the prompt
    run: int | None  # None: the submission has one run and gives none

    @property
    def path(self) -> str:
        return (
            f"{ROOT}/{self.method}/math_word_problem_generation/{self.responses_of}/"
            f"{self.folder}/{self.stem}.jsonl"
        )


@dataclass(frozen=True)
class Judge:
    slug: str
    judge: str  # the leaderboard name
    model: str
    judging: str
    files: tuple[File, ...]
    partial: bool = False  # answers only some responses, as published


def _simple(model: str) -> Judge:
    files = tuple(
        File("simple_prompt_baseline", responses_of, model, stem, run)
        for responses_of in build.RESPONSE_MODELS
        for run, stem in enumerate(SIMPLE_PROMPTS, start=1)
    )
    judging = "LLM judge, the four simple prompts of the paper (run = prompt 1-4)"
    return Judge(f"{model.lower()}-simple", f"{model} (simple prompts 1-4)", model, judging, files)


def _cot(model: str) -> Judge:
    files = tuple(
        File("advanced_prompt_baseline", responses_of, model, "cot_instruction_prompt", None)
        for responses_of in build.RESPONSE_MODELS
    )
    judging = "LLM judge, the paper's chain-of-thought instruction prompt"
    return Judge(f"{model.lower()}-cot", f"{model} (CoT prompt)", model, judging, files)


def _self_consistency(model: str) -> Judge:
    files = (File("self_consistency", "gpt-4-0613", model, SIMPLE_PROMPTS[0], None),)
    judging = (
        "LLM judge, simple prompt 1 sampled five times, the majority call (self-consistency); "
        "published for 50 of GPT-4-0613's responses"
    )
    return Judge(
        f"{model.lower()}-self-consistency",
        f"{model} (self-consistency, 5 samples)",
        model,
        judging,
        files,
        partial=True,
    )


def _majority_vote() -> Judge:
    folder = "__".join(VOTERS)
    files = tuple(
        File("majority_vote", responses_of, folder, "majority_vote", None)
        for responses_of in build.RESPONSE_MODELS
    )
    judging = (
        "majority vote of the simple-prompt calls of Llama-2-70B, Mixtral-8x7B and "
        "Qwen1.5-72B (12 calls; error when more than 6 say error)"
    )
    name = "Majority vote (Llama-2-70B, Mixtral-8x7B, Qwen1.5-72B; 4 prompts each)"
    return Judge("majority-vote", name, " + ".join(VOTERS), judging, files)


JUDGES = (
    *(_simple(m) for m in JUDGE_MODELS),
    *(_cot(m) for m in JUDGE_MODELS),
    *(_self_consistency(m) for m in SELF_CONSISTENCY),
    _majority_vote(),
)


def _details(raw: dict[str, Any], item: str) -> dict[str, Any] | None:
    """What a line says besides its call that may be shown: the tallies of a vote, the calls
    of the samples; never the judge's reply."""
    if "votes_count" in raw:
        return {"item_id": item, "votes": raw["votes_count"]}
    if "predictions_list" in raw:
        return {"item_id": item, "sampled calls": raw["predictions_list"]}
    return None


def read_calls(
    path: Path, file: File, gold: dict[str, str], partial: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The calls of one output file as prediction rows (and details rows), after checking
    each line against the dataset's responses of `file.responses_of` (`gold`: id -> label)."""
    problems: list[Problem] = []
    rows: list[dict[str, Any]] = []
    details: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(path.read_bytes().split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            raw = safejson.loads(line)
        except safejson.JsonProblem as exc:
            problems.append(Problem(str(path), lineno, exc.field, exc.message))
            continue
        meta = raw.get("metadata") if isinstance(raw, dict) else None
        item = meta.get("id") if isinstance(meta, dict) else None
        if not isinstance(raw, dict) or not isinstance(item, str):
            problems.append(Problem(str(path), lineno, "metadata.id", "missing or not text"))
            continue
        if item not in gold:
            message = f"{item!r:.100} is no response of {file.responses_of}"
            problems.append(Problem(str(path), lineno, "metadata.id", message))
        elif item in seen:
            problems.append(Problem(str(path), lineno, "metadata.id", f"repeats line {seen[item]}"))
        elif raw.get("prediction") not in CALLS:
            message = f"{raw.get('prediction')!r:.40} is not error, no_error or null"
            problems.append(Problem(str(path), lineno, "prediction", message))
        elif "label" in raw and raw["label"] != gold[item]:
            message = f"{raw['label']!r:.40}, but the dataset's label is {gold[item]!r}"
            problems.append(Problem(str(path), lineno, "label", message))
        else:
            seen[item] = lineno
            run = {} if file.run is None else {"run": file.run}
            rows.append({"item_id": item, **run, "error": CALLS[raw["prediction"]]})
            extra = _details(raw, item)
            if extra is not None:
                details.append(extra)
    missing = [i for i in gold if i not in seen]
    if missing and not partial and not problems:
        listed = ", ".join(missing[:3]) + (" ..." if len(missing) > 3 else "")
        problems.append(Problem(str(path), None, "metadata.id", f"no line for {listed}"))
    if problems:
        raise ValidationFailed(problems)
    return rows, details


def convert(judge: Judge, paths: dict[str, Path], items: list[dict[str, Any]]) -> Converted:
    rows: list[dict[str, Any]] = []
    details: list[dict[str, Any]] = []
    for file in judge.files:
        gold = {
            r["item_id"]: r["label_name"] for r in items if r["responses_of"] == file.responses_of
        }
        calls, extra = read_calls(paths[file.path], file, gold, judge.partial)
        rows += calls
        details += extra
    files = [f.path for f in judge.files]
    meta = {
        "judge": judge.judge,
        "model": judge.model,
        "judging": judge.judging + "; the calls as the authors read the judge's replies",
        "benchmark": build.NAME,
        "null_calls": sum(r["error"] is None for r in rows),
        "source": {
            "repository": f"https://github.com/{build.PINS.repo}",
            "commit": build.PINS.revision,
            "files": [{"path": p, "sha256": build.PINS.file(p).sha256} for p in files],
        },
        "imported_with": f"mathjudge import-outputs {build.NAME}",
    }
    return Converted(
        judge.slug,
        judge.judge,
        rows,
        meta,
        kind="llm_judge",
        converted_from=github_files(build.PINS.repo, build.PINS.revision, files),
        details=tuple(details),
        partial=judge.partial,
    )


def import_outputs(benchmark: str, source_dir: Path | None) -> list[Converted]:
    """Every published judge of the math task."""
    if benchmark != build.NAME:
        raise MathJudgeError(f"{benchmark}: no published ReaLMistake outputs")
    files = {name: f.path for name, f in resolve(SOURCE, source_dir).items()}
    items = build.responses(files[build.ARCHIVE])
    return [convert(judge, files, items) for judge in JUDGES]
