"""The five judges whose complete MathCheck-GSM replies the authors' repository publishes
(`results/gsm_checklist_<model>_task_all_question_all_<shots>_prediction.json` at the pinned
commit), turned into submissions of `mathcheck_gsm` (outcome judging) and
`mathcheck_gsm_process` (process judging): one file -> one submission of each.

A file has one row per checklist item, in the checklist's order (no id: joined by position; the
importer checks that each row's task, variant, question, solution and gold answer are the
item's). `model_prediction` is the judge's full reply, read by `parsing`; the reply, the rule
that read it (or "none") and the label it was read as go to the submission's details, so every
unreadable reply stays visible. Partial prediction files of the repository (90 or 456 rows) are
not pinned and not imported: a judge must have answered every item to be ranked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.base.errors import MathJudgeError, Problem, ValidationFailed
from mathjudge.benchmarks.mathcheck_gsm import build, parsing
from mathjudge.benchmarks.published import Converted, github_files, shown
from mathjudge.dataio.jsonfiles import read_json_array
from mathjudge.dataio.sources import resolve

SOURCE = build.PINS.outputs_source
OUTCOME, PROCESS = "mathcheck_gsm", "mathcheck_gsm_process"
TASKS = {OUTCOME: "outcome_judging", PROCESS: "process_judging"}
CHECKED = ("task_type", "question_type", "question", "solution", "answer")


@dataclass(frozen=True)
class Judge:
    key: str  # the model in the file name
    judge: str
    model: str
    shots: str  # "zeroshot" or "fewshot", as in the file name

    @property
    def path(self) -> str:
        return (
            f"results/gsm_checklist_{self.key}_task_all_question_all_{self.shots}_prediction.json"
        )

    def slug(self, benchmark: str) -> str:
        return self.key.lower() + ("-process" if benchmark == PROCESS else "")


JUDGES = (
    Judge("chatglm3-6b", "ChatGLM3-6B (zero-shot)", "THUDM/chatglm3-6b", "zeroshot"),
    Judge(
        "gemini-1.5-pro-latest", "Gemini-1.5-Pro (zero-shot)", "gemini-1.5-pro-latest", "zeroshot"
    ),
    Judge("gpt-3.5-turbo", "GPT-3.5-Turbo (zero-shot)", "gpt-3.5-turbo", "zeroshot"),
    Judge(
        "internlm2-math-20b",
        "InternLM2-Math-20B (few-shot)",
        "internlm/internlm2-math-20b",
        "fewshot",
    ),
    Judge("o1-mini", "o1-mini (zero-shot)", "o1-mini", "zeroshot"),
)


def replies(path: Path, checklist: list[Any]) -> list[str]:
    """The file's reply to every checklist item, after checking each row is that item's."""
    rows = read_json_array(path)
    if len(rows) != len(checklist):
        raise MathJudgeError(f"{path}: {len(rows)} rows, {len(checklist)} checklist items")
    problems = []
    out = []
    for i, (row, item) in enumerate(zip(rows, checklist, strict=True)):
        differ = [k for k in CHECKED if row.get(k) != item.get(k)]
        reply = row.get("model_prediction")
        if differ:
            message = f"not the row of checklist item {i} ({', '.join(differ)} differ)"
            problems.append(Problem(str(path), i, differ[0], message, "row"))
        elif not isinstance(reply, str):
            problems.append(Problem(str(path), i, "model_prediction", "expected text", "row"))
        else:
            out.append(reply)
    if problems:
        raise ValidationFailed(problems)
    return out


def convert(
    judge: Judge, benchmark: str, items: list[dict[str, Any]], texts: list[str]
) -> Converted:
    """`texts`: every reply of the file, by checklist position (= the upstream id)."""
    field, read = (
        ("verdict", parsing.outcome) if benchmark == OUTCOME else ("error_step", parsing.process)
    )
    rows, details = [], []
    for item in items:
        reply = texts[int(item["item_id"])]
        parsed = read(reply)
        rows.append({"item_id": item["item_id"], field: parsed.value})
        details.append(
            {
                "item_id": item["item_id"],
                "reply": shown(reply),
                "parsed_by": parsed.parsed_by,
                "read_as": parsed.read_as,
            }
        )
    unparsed = sum(r[field] is None for r in rows)
    meta = {
        "judge": judge.judge,
        "model": judge.model,
        "judging": f"LLM judge, {judge.shots.replace('shot', '-shot')} prompt of the MathCheck "
        "authors; free-text replies read exactly as the authors' scorer reads them",
        "benchmark": benchmark,
        "unparsed_replies": unparsed,
        "source": {
            "repository": f"https://github.com/{build.PINS.repo}",
            "commit": build.PINS.revision,
            "files": [{"path": judge.path, "sha256": build.PINS.file(judge.path).sha256}],
        },
        "imported_with": f"mathjudge import-outputs {benchmark}",
    }
    return Converted(
        judge.slug(benchmark),
        judge.judge,
        rows,
        meta,
        kind="llm_judge",
        converted_from=github_files(build.PINS.repo, build.PINS.revision, [judge.path]),
        details=tuple(details),
    )


def import_outputs(benchmark: str, source_dir: Path | None) -> list[Converted]:
    """Every published judge of `benchmark` (`mathcheck_gsm` or `mathcheck_gsm_process`)."""
    if benchmark not in TASKS:
        raise MathJudgeError(f"{benchmark}: no published MathCheck outputs")
    files = {name: f.path for name, f in resolve(SOURCE, source_dir).items()}
    checklist = read_json_array(files[build.CHECKLIST])
    outcome, process = build.checklist(checklist)
    items = outcome if benchmark == OUTCOME else process
    return [convert(j, benchmark, items, replies(files[j.path], checklist)) for j in JUDGES]
