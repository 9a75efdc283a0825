"""ProofBench results as printed in the ProofBench paper (Tables 1-6 and 10)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.benchmarks.proofbench import SPEC
from mathjudge.dataio.reported import Row, cell_score, read_rows, result
from mathjudge.spec.results import Evaluation, Score

N_ITEMS = 435  # proofs: 145 problems x 3 provers


def _result(*args: Any, **kwargs: Any) -> Evaluation:
    assert SPEC.paper is not None
    return result(SPEC.name, SPEC.paper, N_ITEMS, *args, **kwargs)


PB_MODELS = {
    "o3": "o3",
    "gpt-5": "GPT-5-Thinking",
    "Gemini": "gemini-2.5-pro",
    "o4-mini": "o4-mini",
    "R1": "DeepSeek-R1-0528",
    "gpt-4o": "gpt-4o",
}
PB_GENERATORS = ("o3", "Gemini", "R1")  # the three provers; subsets use the full names
PB_CONTEXTS = ("Ref+MS", "MS", "Ref", "None")
# metric column -> (metric key, prefix of its *_ci / *_std columns, printed scale)
PB_METRICS = {
    "rmse": ("rmse", "rmse", 1),
    "mae": ("mae", "mae", 1),
    "wta1_pct": ("wta1", "wta1", 100),
    "kendall_tau": ("kendall_tau_b", "kendall_tau", 1),
    "bias": ("bias", "bias", 1),
}
PB_OVERALL = ("overall", "all", N_ITEMS)
PB_PER_GENERATOR = N_ITEMS // len(PB_GENERATORS)
PB_CI_NOTE = (
    "95% CI margins as printed (value ± margin); the paper does not say how it computed them"
)
PB_RUNS = 5
PB_SINGLE = "Single (mean and std over n=5 runs)"
PB_AGGREGATES = {"Mean": "mean", "Median": "median", "Majority": "majority"}


def _pb_scores(
    row: Row, where: tuple[str, str, int] = PB_OVERALL, *, values: str = "", ci: bool = False
) -> list[Score]:
    """The row's five metrics; `values="std"` reads the `*_std` columns instead, `ci` adds
    the `*_ci` margins where the table has them."""
    out = []
    for column, (metric, side, scale) in PB_METRICS.items():
        source = f"{side}_{values}" if values else column
        margin = f"{side}_ci" if ci and f"{side}_ci" in row.cells else None
        out += cell_score(row, source, where, metric, scale, margin)
    return out


def _model(row: Row, column: str) -> tuple[str, str]:
    """(label as printed, full model name); "o3+o4-mini" is a two-model pipeline."""
    label = row.text(column)
    parts = label.split("+")
    for part in parts:
        if part not in PB_MODELS:
            raise row.error(column, f"unknown model {part!r}; expected one of {sorted(PB_MODELS)}")
    return label, " + ".join(PB_MODELS[p] for p in parts)


@dataclass(frozen=True)
class PbTable:
    """A ProofBench table with one evaluator per row and the five metrics as columns."""

    file: str
    table: str
    settings: tuple[str, ...]  # columns, after the model, that make up the judge's label
    model_column: str = "model"
    label_prefix: tuple[str, ...] = ()
    meta: tuple[tuple[str, str], ...] = ()
    ci: bool = False


PB_TABLES = (
    PbTable(
        "proofbench_table1_context.csv",
        "Table 1",
        ("context",),
        meta=(("ci", PB_CI_NOTE),),
        ci=True,
    ),
    PbTable("proofbench_table2_instruction.csv", "Table 2", ("context", "instruction")),
    PbTable("proofbench_table5_staged.csv", "Table 5", ("design",)),
    PbTable(
        "proofbench_table6_reflection.csv",
        "Table 6",
        ("stage",),
        model_column="backbone",
        label_prefix=("reflection pipeline",),
        meta=(("pipeline", "Evaluate -> Reflect -> Verdict"), ("context", "not stated")),
    ),
    PbTable("proofbench_table10_marking_scheme.csv", "Table 10", ("context", "marking_scheme")),
)


def _pb_table(folder: Path, spec: PbTable) -> list[Evaluation]:
    columns = (spec.model_column, *spec.settings, *PB_METRICS)
    if spec.ci:
        columns += tuple(f"{side}_ci" for side in ("rmse", "mae", "wta1"))
    out = []
    for row in read_rows(folder / spec.file, columns):
        label, model = _model(row, spec.model_column)
        settings = {c: row.text(c, PB_CONTEXTS if c == "context" else None) for c in spec.settings}
        meta = {"model": model, **dict(spec.meta), **settings}
        if "+" in label:
            meta["note"] = "the paper does not say which model runs which stage"
        judge = f"{label} ({', '.join([*spec.label_prefix, *settings.values()])})"
        scores = _pb_scores(row, ci=spec.ci)
        out.append(_result([spec.table], [row], judge, scores, meta, ("score",)))
    return out


def _pb_table3(folder: Path) -> list[Evaluation]:
    """Long format, one MAE per (evaluator, generator): one result per evaluator, under its
    Table 1 name so that it joins that result. As printed, R1's three MAEs average to 1.372,
    not Table 1's 1.357 (SOURCE.md lists the paper's R1 inconsistencies)."""
    rows = read_rows(
        folder / "proofbench_table3_per_generator.csv", ("evaluator", "context", "generator", "mae")
    )
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.text("evaluator"), row.text("context", PB_CONTEXTS)), []).append(row)
    out = []
    for (label, context), group in groups.items():
        _, model = _model(group[0], "evaluator")
        scores: list[Score] = []
        for row in group:
            generator = PB_MODELS[row.text("generator", PB_GENERATORS)]
            scores += cell_score(row, "mae", ("generator", generator, PB_PER_GENERATOR), "mae")
        meta = {"model": model, "context": context}
        judge = f"{label} ({context})"
        out.append(_result(["Table 3"], group, judge, scores, meta, ("score",)))
    return out


def _pb_table4(folder: Path) -> list[Evaluation]:
    """Five o3 runs combined three ways. The single-run mean and std (and the best single run)
    describe the runs behind every combination, so each combination carries them as
    `run_spread`, as a reproduced ensemble does."""
    stds = tuple(f"{side}_std" for _, side, _ in PB_METRICS.values())
    rows = read_rows(
        folder / "proofbench_table4_ensemble.csv", ("model", "context", "run", *PB_METRICS, *stds)
    )
    runs = {r.text("run", [PB_SINGLE, "Best single", *PB_AGGREGATES]): r for r in rows}
    spread: list[Score] = []
    if PB_SINGLE in runs:
        single = runs[PB_SINGLE]
        spread += _pb_scores(single, ("run_spread", "mean", PB_RUNS))
        spread += _pb_scores(single, ("run_spread", "std", PB_RUNS), values="std")
    if "Best single" in runs:
        spread += _pb_scores(runs["Best single"], ("run_spread", "best", PB_RUNS))
    out = []
    for name, agg in PB_AGGREGATES.items():
        if name not in runs:
            continue
        row = runs[name]
        label, model = _model(row, "model")
        context = row.text("context", PB_CONTEXTS)
        meta: dict[str, Any] = {"model": model, "context": context, "runs_agg": agg}
        if agg == "median":
            meta["paper_name"] = "ProofGrader"  # the paper's Figure 4 caption
        out.append(
            _result(
                ["Table 4"],
                [row],
                f"{label} ×{PB_RUNS} ({agg})",
                _pb_scores(row) + spread,
                meta,
                ("score",),
                runs=PB_RUNS,
                runs_agg=agg,
            )
        )
    return out


# Not imported: Table 9 (appendix A.4) compares each evaluator's MAE on its own model family
# with its MAE on another (differences, bootstrap CIs, p-values between cells of Table 3): an
# analysis of self-preference, not an evaluator's score.


def load(folder: Path) -> list[Evaluation]:
    results = [r for spec in PB_TABLES for r in _pb_table(folder, spec)]
    return [*results, *_pb_table3(folder), *_pb_table4(folder)]
