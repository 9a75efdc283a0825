"""ReaLMistake's simple-prompt table for the math task (arXiv:2404.03602; parsed from the
authors' own LaTeX table files, see the shared reported/SOURCE.md): F1, accuracy, precision and
recall in %, each the mean over the four simple prompts, per judge and per response model.

One result per judge, named as our import of its published calls is ("gpt-4-0613 (simple
prompts 1-4)"), so the alias table can pair them. The table's `random` column (the expected
score of guessing `error` at the label rate) and `human` column (experts re-labelling a sample)
are references, not judges of these 300 responses, and are not imported.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from mathjudge.benchmarks.realmistake import JUDGE_MODELS, RESPONSES_OF, SPEC
from mathjudge.dataio.reported import Row, cell_score, read_rows, result
from mathjudge.spec.results import Evaluation, Score

FILE = "realmistake_mathgen_simple_prompt.csv"
COLUMNS = ("judge", "responses_of", "metric", "value", "averaged_over", "source_file")
METRICS = ("f1", "accuracy", "precision", "recall")
REFERENCES = ("random", "human")  # not judges: see the module note
RESPONSES = dict(zip(RESPONSES_OF, (140, 160), strict=True))  # responses the paper scored
TABLE = "simple-prompt table (MathGen rows)"


def load(folder: Path) -> list[Evaluation]:
    assert SPEC.paper is not None
    by_judge: dict[str, list[tuple[Row, Score]]] = defaultdict(list)
    for row in read_rows(folder / FILE, COLUMNS):
        judge = row.text("judge", (*JUDGE_MODELS, *REFERENCES))
        responses_of = row.text("responses_of", RESPONSES)
        metric = row.text("metric", METRICS)
        if judge in REFERENCES:
            continue
        where = ("responses_of", responses_of, RESPONSES[responses_of])
        by_judge[judge] += [(row, s) for s in cell_score(row, "value", where, metric, 100)]
    out = []
    for judge in JUDGE_MODELS:
        cells = by_judge.get(judge, [])
        if not cells:
            continue
        rows = [row for row, _ in cells]
        meta = {
            "kind": "llm_judge",
            "judge_as_printed": judge,
            "averaged_over": rows[0].text("averaged_over"),
            "rule": "binary error detection, error = positive; each prompt's value, then the "
            "mean over the four prompts",
        }
        out.append(
            result(
                SPEC.name,
                SPEC.paper,
                sum(RESPONSES.values()),
                [TABLE],
                rows,
                f"{judge} (simple prompts 1-4)",
                [s for _, s in cells],
                meta,
                ("error",),
                runs=4,
                runs_agg="each prompt scored on its own, then the mean of the four",
            )
        )
    return out
