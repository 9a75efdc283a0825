"""μ-MATH results as printed in the U-MATH paper (Tables 5 and 7)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mathjudge.benchmarks.mumath import SPEC
from mathjudge.dataio.reported import cell_score, read_rows, result, unique_judges
from mathjudge.spec.results import Evaluation

N_ITEMS = 1084  # judgment tasks: 271 problems x 4 solutions


def _result(*args: Any, **kwargs: Any) -> Evaluation:
    assert SPEC.paper is not None
    return result(SPEC.name, SPEC.paper, N_ITEMS, *args, **kwargs)


MU_AUTHORS = {  # column infix -> the solution author as the paper names it (section 3.3)
    "qwen": "Qwen2.5 72B",
    "llama": "Llama-3.1 8B",
    "gpt": "GPT-4o",
    "gemini": "Gemini 1.5 Pro",
}
MU_PROMPTS = {"cot": "CoT", "autocot": "AutoCoT"}
MU_RATES = ("tpr", "tnr", "ppv", "npv")  # printed for CoT only
MU_NAMES = ("judge", "judge_as_printed", "judge_version")


def _mumath(folder: Path) -> list[Evaluation]:
    """CoT (the paper's default prompt) is the judge under its own name; AutoCoT, for which
    the paper prints only F1 and the inconclusive rate, is the separate judge "X (AutoCoT)"."""
    table5 = read_rows(
        folder / "mumath_table5.csv",
        (
            *MU_NAMES,
            "umath_text_acc",
            *(f"mumath_f1_{p}" for p in MU_PROMPTS),
            *(f"{r}_cot" for r in MU_RATES),
            *(f"f1_{a}_{p}" for a in MU_AUTHORS for p in MU_PROMPTS),
        ),
    )
    table7 = read_rows(
        folder / "mumath_table7_inconclusive.csv",
        (*MU_NAMES, *(f"inconclusive_pct_{p}" for p in MU_PROMPTS)),
    )
    inconclusive = unique_judges(table7)
    judges = unique_judges(table5)
    for name, row in inconclusive.items():
        if name not in judges:
            raise row.error("judge", f"{name!r} is not a judge of mumath_table5.csv")
    overall = ("overall", "all", N_ITEMS)
    per_author = N_ITEMS // len(MU_AUTHORS)
    out = []
    for name, row in judges.items():
        for prompt, prompt_name in MU_PROMPTS.items():
            scores = cell_score(row, f"mumath_f1_{prompt}", overall, "macro_f1", 100)
            if prompt == "cot":
                scores += [
                    s for r in MU_RATES for s in cell_score(row, f"{r}_cot", overall, r, 100)
                ]
            for key, author in MU_AUTHORS.items():
                where = ("author_model", author, per_author)
                scores += cell_score(row, f"f1_{key}_{prompt}", where, "macro_f1", 100)
            sources = [row]
            if name in inconclusive:
                sources.append(inconclusive[name])
                column = f"inconclusive_pct_{prompt}"
                scores += cell_score(inconclusive[name], column, overall, "inconclusive_rate", 100)
            if not scores:
                continue
            meta: dict[str, Any] = {
                "judge_as_printed": row.text("judge_as_printed"),
                "judge_version": row.text("judge_version"),
                "prompt": prompt_name,
                "inconclusive": "counted as incorrect (paper section 4.3)",
            }
            acc = row.number("umath_text_acc")
            if acc is not None:
                meta["umath_text_accuracy_as_solver"] = float(acc / 100)
            judge = name if prompt == "cot" else f"{name} ({prompt_name})"
            tables = ["Table 5", "Table 7"][: len(sources)]
            out.append(_result(tables, sources, judge, scores, meta, ("verdict",)))
    return out


def load(folder: Path) -> list[Evaluation]:
    return _mumath(folder)
