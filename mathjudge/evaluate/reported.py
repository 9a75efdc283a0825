"""Judge results transcribed from the source papers, imported into the results store.

The shared `reported/` folder holds the papers' tables as CSV (its SOURCE.md says how each was
transcribed). Every imported row becomes an `EvaluationResult` that the site shows beside the
reproduced ones but can never be mistaken for them:
- `source` is "reported", with a citation (paper title, arXiv id, table);
- the judge is the paper's label ("o3 (Ref+MS)"); the setting (context, prompt, backbone...)
  goes to `meta`, with the table and the CSV line it came from;
- dataset_version and content_hash are "reported": the paper scored its own copy of the data,
  so no build of ours applies;
- values are converted to the store's natural units (fractions, score points); CIs only where
  the paper prints them; no bootstrap and no item predictions.
`submission_sha256` hashes the CSV file and the row index and `created` is fixed per paper, so
importing the same files again replaces the same submissions.
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Collection
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from mathjudge import __version__, sidefiles
from mathjudge.display import MAX_JUDGE_NAME, meta_problem, text_problem
from mathjudge.errors import MathJudgeError, Problem
from mathjudge.evaluate.results import EvaluationResult
from mathjudge.evaluate.scoring import Score
from mathjudge.evaluate.store import connect, delete, save_many

SOURCE = "reported"


@dataclass(frozen=True)
class Paper:
    title: str
    arxiv: str

    @property
    def created(self) -> str:
        """First day of the arXiv id's month (YYMM): a date derivable offline and fixed, so a
        re-import stores exactly what the previous one did."""
        return f"20{self.arxiv[:2]}-{self.arxiv[2:4]}-01T00:00:00+00:00"

    def cite(self, tables: list[str]) -> str:
        return f'"{self.title}", arXiv:{self.arxiv}, {", ".join(tables)}'


STEPMATH = Paper(
    "StepMathAgent: A Step-Wise Agent for Evaluating Mathematical Processes through Tree-of-Error",
    "2503.10105",
)
PROOFBENCH = Paper("Reliable Fine-Grained Evaluation of Natural Language Math Proofs", "2510.13888")
UMATH = Paper(
    "U-MATH: A University-Level Benchmark for Evaluating Mathematical Skills in Large Language "
    "Models",
    "2412.03205",
)
CBU = Paper(
    "Judging What We Cannot Solve: A Consequence-Based Approach for Oracle-Free Evaluation of "
    "Research-Level Math",
    "2602.06291",
)
PAPERS = {
    "expertmath": CBU,
    "stepmathbench": STEPMATH,
    "proofbench": PROOFBENCH,
    "proofbench_bon": PROOFBENCH,
    "mumath": UMATH,
}
# Items each paper scored: solutions, proofs (145 problems x 3), best-of-n proofs (29 x 16),
# judgment tasks (271 problems x 4 solutions).
# ExpertMath: 192 problems (70 originals, 122 variants) x 10 candidates (9 LLM + the human one).
N_ITEMS = {
    "stepmathbench": 1000,
    "proofbench": 435,
    "proofbench_bon": 464,
    "mumath": 1084,
    "expertmath": 1920,
}


@dataclass(frozen=True)
class Row:
    """One CSV record and where it is, so that every error names file, line and column."""

    path: Path
    line: int
    index: int  # 0-based among the data rows
    file_sha256: str
    cells: dict[str, str]

    def error(self, column: str | None, message: str) -> MathJudgeError:
        return MathJudgeError(str(Problem(str(self.path), self.line, column, message)))

    def text(self, column: str, allowed: Collection[str] | None = None) -> str:
        value = self.cells[column].strip()
        if allowed is not None and value not in allowed:
            raise self.error(column, f"unknown value {value!r}; expected one of {sorted(allowed)}")
        return value

    def number(self, column: str) -> Decimal | None:
        """The cell as printed (exact decimal, so 72.6 / 100 stores as 0.726); None if empty."""
        cell = self.cells[column].strip()
        if not cell:
            return None
        try:
            value = Decimal(cell)
        except InvalidOperation:
            raise self.error(column, f"{cell!r} is not a number") from None
        if not value.is_finite():
            raise self.error(column, f"{cell!r} is not a finite number")
        return value

    @property
    def sha256(self) -> str:
        return hashlib.sha256(f"{self.file_sha256}:{self.index}".encode()).hexdigest()

    @property
    def origin(self) -> str:
        return f"{self.path.name}:{self.line}"


def read_rows(path: Path, columns: tuple[str, ...]) -> list[Row]:
    """The data rows of a transcribed CSV whose header must be exactly `columns` (any order)."""
    data = sidefiles.read_bytes(path, sidefiles.TABLE_MAX_BYTES, "reported table")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise MathJudgeError(f"{path}:{line}: not UTF-8 ({exc.reason})") from exc
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip() for h in next(reader, [])]
    for column in header:
        if column not in columns or header.count(column) > 1:
            problem = "unknown column" if column not in columns else "duplicate column"
            raise MathJudgeError(str(Problem(str(path), 1, column, problem)))
    for column in columns:
        if column not in header:
            raise MathJudgeError(str(Problem(str(path), 1, column, "missing column")))
    file_sha = hashlib.sha256(data).hexdigest()
    rows: list[Row] = []
    start = reader.line_num + 1
    for record in reader:
        if record:
            if len(record) != len(header):
                message = f"{len(record)} cells, the header has {len(header)}"
                raise MathJudgeError(str(Problem(str(path), start, None, message)))
            rows.append(
                Row(path, start, len(rows), file_sha, dict(zip(header, record, strict=True)))
            )
        start = reader.line_num + 1
    return rows


def _score(
    row: Row,
    column: str,
    where: tuple[str, str, int],
    metric: str,
    scale: int = 1,
    margin: str | None = None,
) -> list[Score]:
    """The cell as a score in natural units (cell / scale), with value -/+ the printed margin
    as its interval when `margin` names a column; no row for an empty cell."""
    value = row.number(column)
    if value is None:
        return []
    scope, subset, n = where
    half = row.number(margin) if margin else None
    low, high = (None, None) if half is None else ((value - half) / scale, (value + half) / scale)
    return [
        Score(
            scope,
            subset,
            metric,
            float(value / scale),
            None if low is None else float(low),
            None if high is None else float(high),
            n,
        )
    ]


def _result(
    benchmark: str,
    tables: list[str],
    rows: list[Row],
    judge: str,
    scores: list[Score],
    meta: dict[str, Any],
    fields: tuple[str, ...],
    *,
    n_items: int | None = None,
    runs: int = 1,
    runs_agg: str = "mean",
) -> EvaluationResult:
    if not scores:
        raise rows[0].error(None, "the row gives no values")
    # The same checks as `--judge` and `--meta`: these names and texts reach every page.
    judge_problem = text_problem(judge, MAX_JUDGE_NAME)
    if judge_problem:
        raise rows[0].error("judge", f"the judge name {judge_problem}")
    meta_found = meta_problem(meta)
    if meta_found:
        what, problem = meta_found
        raise rows[0].error(None, f"meta: {what} {problem}")
    if len({_where(s) for s in scores}) < len(scores):
        origins = ", ".join(r.origin for r in rows)
        raise MathJudgeError(f"{origins}: the same score given twice for {judge!r}")
    n_expected = N_ITEMS[benchmark]
    n = n_expected if n_items is None else n_items
    return EvaluationResult(
        benchmark=benchmark,
        dataset_version=SOURCE,
        content_hash=SOURCE,
        judge=judge,
        submission_sha256=rows[0].sha256,
        n_items=n,
        n_expected=n_expected,
        coverage=n / n_expected,
        partial=n < n_expected,
        runs=runs,
        runs_agg=runs_agg,
        fields=fields,
        bootstrap={},
        meta={
            **{k: v for k, v in meta.items() if v != ""},
            "tables": tables,
            "transcribed_from": [r.origin for r in rows],
        },
        mathjudge_version=__version__,
        scores=tuple(scores),
        created=PAPERS[benchmark].created,
        source=SOURCE,
        citation=PAPERS[benchmark].cite(tables),
    )


# --- StepMathBench (StepMathAgent Tables 3 and 4) -----------------------------------------------

# column group -> (scope, subset, solutions)
STEP_GROUPS = {
    "all": ("overall", "all", 1000),
    "calc": ("type", "Calculation", 725),
    "proof": ("type", "Proof", 250),
    "open": ("type", "Open-ended", 25),
}
STEP_METRICS = {"avgs": "avg_score", "corr": "corr", "mse": "mse", "or": "overlap"}
STEP_COLUMNS = tuple(f"{g}_{m}" for g in STEP_GROUPS for m in STEP_METRICS)


@dataclass(frozen=True)
class Block:
    """A block of the paper's table: what it scores and how its printed values are scaled."""

    prefix: str
    field: str
    avgs_scale: int  # AvgS is the mean 0-10 score x10, or the mean 0/1 verdict x100
    mse_scale: int  # MSE is points^2 on 0-10 as is, or 100 x MSE of 0/1

    def scores(self, row: Row) -> list[Score]:
        scales = {"avgs": self.avgs_scale, "corr": 100, "mse": self.mse_scale, "or": 100}
        return [
            s
            for g, where in STEP_GROUPS.items()
            for m, metric in STEP_METRICS.items()
            for s in _score(row, f"{g}_{m}", where, self.prefix + metric, scales[m])
        ]

    def gold(self, row: Row) -> list[Score]:
        return [
            s
            for g, where in STEP_GROUPS.items()
            for s in _score(
                row, f"{g}_avgs", where, f"{self.prefix}gold_avg_score", self.avgs_scale
            )
        ]


PROCESS = Block("", "score", 10, 1)
ANSWER = Block("answer_", "answer_correct", 100, 100)
BLOCKS = {"Final Answer Evaluation": ANSWER, "Problem-solving Process Evaluation": PROCESS}


def _stepmath(
    rows: list[Row], table: str, blocks: list[Block], golds: list[bool], meta_columns: list[str]
) -> list[EvaluationResult]:
    # The Gold rows are the human labels scored against themselves (Corr 100, MSE 0, OR 100), not
    # a judge. Their AvgS is the gold mean over the items the paper scored, which reproduced
    # results carry as `gold_avg_score` (the reference AvgS is read against): every judge of the
    # block gets it in the scopes it has scores for.
    gold = {b: b.gold(r) for r, b, is_gold in zip(rows, blocks, golds, strict=True) if is_gold}
    out = []
    for row, block, is_gold in zip(rows, blocks, golds, strict=True):
        if is_gold:
            continue
        scores = block.scores(row)
        scored = {(s.scope, s.subset) for s in scores}
        scores += [s for s in gold.get(block, []) if (s.scope, s.subset) in scored]
        # RuleEM is defined on Calculation only: it covers those 725 of the 1,000 solutions.
        n_items = sum(n for scope, subset, n in STEP_GROUPS.values() if (scope, subset) in scored)
        meta = {c: row.text(c) for c in meta_columns}
        out.append(
            _result(
                "stepmathbench",
                [table],
                [row],
                row.text("judge"),
                scores,
                meta,
                (block.field,),
                n_items=N_ITEMS["stepmathbench"] if ("overall", "all") in scored else n_items,
            )
        )
    return out


def _stepmath_table3(folder: Path) -> list[EvaluationResult]:
    columns = ("judge", "backbone", "prompt_version", "block")
    rows = read_rows(folder / "stepmathbench_table3.csv", (*columns, *STEP_COLUMNS))
    blocks = [BLOCKS[r.text("block", BLOCKS)] for r in rows]
    golds = [r.text("judge") == "Gold" for r in rows]
    return _stepmath(rows, "Table 3", blocks, golds, ["backbone", "prompt_version", "block"])


def _stepmath_table4(folder: Path) -> list[EvaluationResult]:
    meta = ["row_label", "backbone", "prompt_version", "external_modules", "group"]
    rows = read_rows(folder / "stepmathbench_table4_ablation.csv", ("judge", *meta, *STEP_COLUMNS))
    golds = [r.text("group") == "Gold" for r in rows]
    return _stepmath(rows, "Table 4", [PROCESS] * len(rows), golds, meta)


# --- ProofBench (ProofBench/ProofGrader paper) --------------------------------------------------

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
PB_OVERALL = ("overall", "all", N_ITEMS["proofbench"])
PB_PER_GENERATOR = N_ITEMS["proofbench"] // len(PB_GENERATORS)
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
        out += _score(row, source, where, metric, scale, margin)
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


def _pb_table(folder: Path, spec: PbTable) -> list[EvaluationResult]:
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
        out.append(_result("proofbench", [spec.table], [row], judge, scores, meta, ("score",)))
    return out


def _pb_table3(folder: Path) -> list[EvaluationResult]:
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
            scores += _score(row, "mae", ("generator", generator, PB_PER_GENERATOR), "mae")
        meta = {"model": model, "context": context}
        judge = f"{label} ({context})"
        out.append(_result("proofbench", ["Table 3"], group, judge, scores, meta, ("score",)))
    return out


def _pb_table4(folder: Path) -> list[EvaluationResult]:
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
                "proofbench",
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

BON_POOL = 16  # expert-scored o3 proofs per problem (paper section 4)
BON_SCORE = "avg_expert_score_of_selected_proof"
BON_GAP = "pct_of_binary_to_oracle_gap_closed"
BON_ORACLE = "Human oracle"
BON_WHERE = "best-of-n in the prose (abstract, §1, §4.1)"


def _pb_bon(folder: Path) -> list[EvaluationResult]:
    """Best-of-n headline numbers from the prose. The human oracle is not a selector: its value
    is the `bon_oracle` reference of every selector at the same n, as reproduced results carry
    it. The "% of gap closed" row is derived from the other three and is skipped."""
    columns = (
        *("selector", "selector_backbone", "generator", "n_problems", "n"),
        *("metric", "value", "unit", "where"),
    )
    rows = read_rows(folder / "proofbench_bon.csv", columns)
    selectors: list[tuple[Row, int, list[Score]]] = []
    oracle: dict[int, list[Score]] = {}
    for row in rows:
        if row.text("metric", [BON_SCORE, BON_GAP]) == BON_GAP:
            continue
        row.text("unit", ["0-7 points"])
        n_problems, n = _integer(row, "n_problems"), _integer(row, "n")
        scopes = [("bon", f"n={n}", n_problems * BON_POOL)]
        if n == BON_POOL:  # the whole pool, which reproduced results also report as overall
            scopes.append(("overall", "all", n_problems * BON_POOL))
        is_oracle = row.text("selector") == BON_ORACLE
        metric = "bon_oracle" if is_oracle else "bon_score"
        scores = [s for where in scopes for s in _score(row, "value", where, metric)]
        if is_oracle:
            oracle[n] = scores
        else:
            selectors.append((row, n, scores))
    out = []
    for row, n, scores in selectors:
        meta = {c: row.text(c) for c in ("selector_backbone", "generator", "n_problems", "where")}
        judge = row.text("selector")
        scores += oracle.get(n, [])
        out.append(_result("proofbench_bon", [BON_WHERE], [row], judge, scores, meta, ("score",)))
    return out


def _integer(row: Row, column: str) -> int:
    value = row.number(column)
    if value is None or value != value.to_integral_value() or value < 1:
        raise row.error(column, "expected a positive integer")
    return int(value)


# --- μ-MATH (U-MATH paper, Tables 5 and 7) ------------------------------------------------------

MU_AUTHORS = {  # column infix -> the solution author as the paper names it (section 3.3)
    "qwen": "Qwen2.5 72B",
    "llama": "Llama-3.1 8B",
    "gpt": "GPT-4o",
    "gemini": "Gemini 1.5 Pro",
}
MU_PROMPTS = {"cot": "CoT", "autocot": "AutoCoT"}
MU_RATES = ("tpr", "tnr", "ppv", "npv")  # printed for CoT only
MU_NAMES = ("judge", "judge_as_printed", "judge_version")


def _mumath(folder: Path) -> list[EvaluationResult]:
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
    inconclusive = _unique_judges(table7)
    judges = _unique_judges(table5)
    for name, row in inconclusive.items():
        if name not in judges:
            raise row.error("judge", f"{name!r} is not a judge of mumath_table5.csv")
    overall = ("overall", "all", N_ITEMS["mumath"])
    per_author = N_ITEMS["mumath"] // len(MU_AUTHORS)
    out = []
    for name, row in judges.items():
        for prompt, prompt_name in MU_PROMPTS.items():
            scores = _score(row, f"mumath_f1_{prompt}", overall, "macro_f1", 100)
            if prompt == "cot":
                scores += [s for r in MU_RATES for s in _score(row, f"{r}_cot", overall, r, 100)]
            for key, author in MU_AUTHORS.items():
                where = ("author_model", author, per_author)
                scores += _score(row, f"f1_{key}_{prompt}", where, "macro_f1", 100)
            sources = [row]
            if name in inconclusive:
                sources.append(inconclusive[name])
                column = f"inconclusive_pct_{prompt}"
                scores += _score(inconclusive[name], column, overall, "inconclusive_rate", 100)
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
            out.append(_result("mumath", tables, sources, judge, scores, meta, ("verdict",)))
    return out


# --- ExpertMath (the CBU paper's prose; its Table 2 is not in the rendering) -------------------

EM_COLUMNS = ("method", "backbone", "dataset", "metric", "value", "where", "source", "note")
EM_METRICS = {"Acc@1": "acc_at_1", "Recall@5": "recall_at_5", "AUC": "auc", "HumanWin": "human_win"}
EM_METHODS = {
    "LLM-Judge": "LLM-Judge",
    "Consequence-Based Utility (CBU)": "CBU",
    "GenRM": "GenRM",
    "Reward model (RM)": "RM",
}


def _expertmath(folder: Path) -> list[EvaluationResult]:
    """Table 2's ranking metrics on ExpertMath, one judge per (method, backbone), e.g.
    "CBU (GPT-OSS-120B)". The file's other rows (logistic-regression gains, Figure 5 shares,
    prompt correlations, Daft-Math) are not scores of our metrics and are skipped."""
    rows = read_rows(folder / "expertmath_reported_numbers.csv", EM_COLUMNS)
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        if row.text("dataset") != "ExpertMath" or row.text("metric") not in EM_METRICS:
            continue
        method = row.text("method", EM_METHODS)
        grouped.setdefault(f"{EM_METHODS[method]} ({row.text('backbone')})", []).append(row)
    overall = ("overall", "all", N_ITEMS["expertmath"])
    out = []
    for judge, judge_rows in grouped.items():
        scores = [
            s
            for row in judge_rows
            for s in _score(row, "value", overall, EM_METRICS[row.text("metric")], 100)
        ]
        first = judge_rows[0]
        meta = {
            "method": first.text("method"),
            "backbone": first.text("backbone"),
            "where_in_paper": sorted({r.text("where")[:200] for r in judge_rows}),
            "notes": sorted({r.text("note") for r in judge_rows if r.text("note")}),
        }
        tables = sorted({r.text("source") for r in judge_rows})
        out.append(_result("expertmath", tables, judge_rows, judge, scores, meta, ("score",)))
    return out


def _unique_judges(rows: list[Row]) -> dict[str, Row]:
    out: dict[str, Row] = {}
    for row in rows:
        name = row.text("judge")
        if not name or name in out:
            raise row.error("judge", f"empty or repeated judge name {name!r}")
        out[name] = row
    return out


# Not imported: expertmath_reported_numbers.csv. The ExpertMath benchmark is not built yet, so
# there is no benchmark key, metric set or scope layout to file its numbers under; several of
# them are also differences or ambiguous single-score references (SOURCE.md, section 4).


def load_reported(folder: Path) -> list[EvaluationResult]:
    """Every imported row of `folder` (the shared `reported/`): one result per judge."""
    results = [*_stepmath_table3(folder), *_stepmath_table4(folder)]
    results += [r for spec in PB_TABLES for r in _pb_table(folder, spec)]
    results += [*_pb_table3(folder), *_pb_table4(folder), *_pb_bon(folder), *_mumath(folder)]
    results += _expertmath(folder)
    return _combine_judges(_merge_reprints(results))


def _merge_reprints(results: list[EvaluationResult]) -> list[EvaluationResult]:
    """A later table that reprints an earlier row (ProofBench Tables 2, 5 and 10 repeat Table
    1's Ref+MS rows; StepMathAgent Table 4 repeats Table 3's StepMathAgent) shows the same
    evaluation, not another judge: keep the first appearance under its name."""
    first: dict[tuple[str, frozenset[tuple[str, str, str, float | None]]], int] = {}
    out: list[EvaluationResult] = []
    for result in results:
        key = (result.benchmark, frozenset((*_where(s), s.value) for s in result.scores))
        if key in first:
            out[first[key]] = _join(out[first[key]], result, out[first[key]].scores)
        else:
            first[key] = len(out)
            out.append(result)
    return out


def _combine_judges(results: list[EvaluationResult]) -> list[EvaluationResult]:
    """The site shows one submission per (benchmark, judge), so results sharing a judge name
    must be one: a table adding other scores of the same evaluator (Table 3's per-generator
    MAEs of Table 1's Ref+MS evaluators) joins it; two values for one score are an error."""
    index: dict[tuple[str, str], int] = {}
    out: list[EvaluationResult] = []
    for result in results:
        key = (result.benchmark, result.judge)
        if key not in index:
            index[key] = len(out)
            out.append(result)
            continue
        kept = out[index[key]]
        if {_where(s) for s in kept.scores} & {_where(s) for s in result.scores}:
            a, b = kept.meta["transcribed_from"][0], result.meta["transcribed_from"][0]
            raise MathJudgeError(f"{a} and {b}: two results under the judge name {result.judge!r}")
        out[index[key]] = _join(kept, result, kept.scores + result.scores)
    return out


def _where(score: Score) -> tuple[str, str, str]:
    return score.scope, score.subset, score.metric


def _join(
    kept: EvaluationResult, other: EvaluationResult, scores: tuple[Score, ...]
) -> EvaluationResult:
    """`kept` with `scores`, citing both tables; `other`'s setting details (e.g. instruction
    "Norm" from Table 2) are added to meta where `kept` says nothing."""
    tables = sorted(
        kept.meta["tables"] + other.meta["tables"],
        key=lambda t: [int(w) if w.isdigit() else w for w in t.split()],  # Table 3 < Table 10
    )
    meta = {
        **other.meta,
        **kept.meta,
        "tables": tables,
        "transcribed_from": kept.meta["transcribed_from"] + other.meta["transcribed_from"],
    }
    citation = PAPERS[kept.benchmark].cite(tables)
    return replace(kept, scores=scores, meta=meta, citation=citation)


def import_reported(folder: Path, store: Path) -> int:
    """Load and check every file first, then save each result; returns how many were saved.
    Submissions of an earlier import that no longer exist (a corrected CSV hashes differently)
    are removed, so the store holds exactly the current transcription."""
    results = load_reported(folder)
    current = set(save_many(store, results))
    _remove_stale(store, current)
    return len(results)


def _remove_stale(path: Path, current: set[str]) -> None:
    con = connect(path, read_only=True)
    try:
        rows = con.execute(
            """SELECT id FROM submissions
               WHERE source = ? AND json_extract(meta, '$.transcribed_from') IS NOT NULL""",
            [SOURCE],
        ).fetchall()
    finally:
        con.close()
    stale = [sid for (sid,) in rows if sid not in current]
    if stale:
        delete(path, stale)
