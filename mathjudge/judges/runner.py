"""Runs a reference judge over a benchmark's items and writes a valid submission.

Every (item, run) pair is one task; model calls go through one `LlmClient`, so concurrency,
retries, the per-call timeout and the disk cache are shared. An answer is stored in the cache
the moment it arrives, so a killed run loses only calls in flight and the next run replays the
rest without a request. The predictions file and its `meta.json` are written atomically at the
end, and only then.

A pair without a judgment (no parseable answer after the repair attempts, or a provider error
after the retries) is never dropped silently: it is listed in `<stem>.failures.jsonl` with its
reason and counted in the summary and meta.json. Where the benchmark has an inconclusive
verdict the pair is written as `verdict: null`; elsewhere it has no row and the file is partial.

Python API (also used by other pipelines):

    run = run_judge(judge, "proofbench", rows, client=LlmClient(...), runs=3)
    paths = write_outputs(run, Path("preds.jsonl"), extra_meta={...})

and `judges.base.Ask` for cached, parsed calls keyed by (messages, params, run index).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mathjudge import __version__, registry
from mathjudge.base.atomic import atomic_path
from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.reader import BuiltDataset, open_dataset
from mathjudge.judges.base import Ask, Fields, Judge, JudgeFailure, prompt_hashes
from mathjudge.judges.predictions import write_jsonl
from mathjudge.llm.client import LlmClient, Progress, gather_in_order, run_sync
from mathjudge.llm.usage import UNKNOWN, LlmStats
from mathjudge.spec.benchmark import Judging


@dataclass
class JudgeRun:
    """What one run of a judge produced, in item order then run order."""

    judge: Judge
    benchmark: str
    model: str | None
    runs: int
    items: int  # items the judge applies to
    not_applicable: int  # items it is not defined for (no row, by design)
    predictions: list[dict[str, Any]]
    failures: list[dict[str, Any]]
    details: list[dict[str, Any]]
    stats: LlmStats = field(default_factory=LlmStats)
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def partial(self) -> bool:
        """True when some item given has no row at all, because it failed or the judge is not
        defined for it (the file then needs `--allow-partial`)."""
        answered = {p["item_id"] for p in self.predictions}
        return len(answered) < self.items + self.not_applicable

    def counts(self) -> dict[str, int]:
        return {
            "items": self.items,
            "not_applicable": self.not_applicable,
            "runs": self.runs,
            "pairs": self.items * self.runs,
            "predictions": len(self.predictions),
            "failures": len(self.failures),
            "written_inconclusive": sum(1 for f in self.failures if f["written"]),
        }

    def summary(self) -> str:
        """The end-of-run lines: calls, cache hits, failures, tokens and cost."""
        lines = [f"{self.judge.name} on {self.benchmark}: {len(self.predictions)} prediction(s)"]
        if self.judge.uses_model:
            lines.append(self.stats.describe())
            lines.append(
                f"cost of all answers used (new + cached): {_cost(total_cost(self.stats))}"
            )
        if self.failures:
            how = (
                "written as inconclusive"
                if judging_of(self.benchmark).target.inconclusive_allowed
                else ("left out (evaluate with --allow-partial)" if self.partial else "left out")
            )
            lines.append(f"{len(self.failures)} failure(s), {how}:")
            for f in self.failures[:5]:
                run = "" if f["run"] is None else f" run {f['run']}"
                lines.append(f"  {f['item_id']}{run}: {f['reason']}")
            if len(self.failures) > 5:
                lines.append(f"  ... and {len(self.failures) - 5} more in the failures file")
        return "\n".join(lines)


def run_judge(
    judge: Judge,
    benchmark: str,
    rows: Iterable[Mapping[str, Any]],
    *,
    client: LlmClient | None,
    runs: int = 1,
    attempts: int = 3,
    progress: Progress | None = None,
) -> JudgeRun:
    """Judges every row `runs` times (synchronous; runs its own event loop)."""
    judging = judging_of(benchmark)
    if judge.name not in judging.judges:
        supported = ", ".join(benchmarks_of(judge.name))
        raise MathJudgeError(f"judge {judge.name!r} does not support {benchmark!r} ({supported})")
    if runs < 1:
        raise MathJudgeError("--runs must be at least 1")
    if judge.uses_model and client is None:
        raise MathJudgeError(f"judge {judge.name!r} needs a model (--model)")
    goal = judging.target
    every = [judging.case(row) for row in rows]
    cases = [c for c in every if judge.applies(c)]

    async def one(index: int, run: int | None) -> Outcome:
        c = cases[index]
        ask = Ask(client, c.item_id, run or 0, attempts) if client is not None else None
        try:
            return await judge.judge(c, goal, ask), None
        except JudgeFailure as exc:
            return None, str(exc)

    pairs: list[tuple[int, int | None]] = [(i, r) for i in range(len(cases)) for r in range(runs)]
    outcomes = run_sync(gather_in_order((one(i, r) for i, r in pairs), progress))
    # A scorer that unites runs itself (Hard2Verify's union over k) gets every run as a row.
    scorer_combines = registry.scorer(benchmark).reducer is not None
    if judge.combines_runs and runs > 1 and not scorer_combines:
        pairs, outcomes = _combined(pairs, outcomes, runs, judge.combine_runs)

    predictions, failures, details = [], [], []
    for (index, run), (fields, reason) in zip(pairs, outcomes, strict=True):
        head: dict[str, Any] = {"item_id": cases[index].item_id}
        if runs > 1 and run is not None:
            head["run"] = run
        if fields is None:
            written = goal.inconclusive_allowed
            failures.append({**head, "run": run, "reason": reason, "written": written})
            if written:
                predictions.append({**head, "verdict": None})
            continue
        shown = {k: v for k, v in fields.items() if not k.startswith("_")}
        extra = {k[1:]: v for k, v in fields.items() if k.startswith("_")}
        predictions.append({**head, **shown})
        if extra:
            details.append({**head, **extra})
    return JudgeRun(
        judge=judge,
        benchmark=benchmark,
        model=client.model if client is not None else None,
        runs=runs,
        items=len(cases),
        not_applicable=len(every) - len(cases),
        predictions=predictions,
        failures=failures,
        details=details,
        stats=client.stats if client is not None else LlmStats(),
        params=dict(client.params) if client is not None else {},
    )


Outcome = tuple[dict[str, Any] | None, str | None]  # (fields, failure reason)


def _combined(
    pairs: list[tuple[int, int | None]],
    outcomes: list[Outcome],
    runs: int,
    combine: Callable[[list[Fields | None]], Fields],
) -> tuple[list[tuple[int, int | None]], list[Outcome]]:
    """One outcome per item for judges that combine their own runs (`combine_runs`)."""
    merged_pairs: list[tuple[int, int | None]] = []
    merged: list[Outcome] = []
    for start in range(0, len(pairs), runs):
        group = outcomes[start : start + runs]
        merged_pairs.append((pairs[start][0], None))
        try:
            merged.append((combine([fields for fields, _ in group]), None))
        except JudgeFailure as exc:
            reasons = "; ".join(f"run {r}: {why}" for r, (_, why) in enumerate(group) if why)
            merged.append((None, f"{exc} ({reasons})"))
    return merged_pairs, merged


@dataclass(frozen=True)
class Outputs:
    predictions: Path
    meta: Path
    failures: Path | None
    details: Path | None


def sidecar(out: Path, kind: str) -> Path:
    """`preds.jsonl` -> `preds.<kind>.jsonl` (or `.json` for meta)."""
    suffix = ".json" if kind == "meta" else ".jsonl"
    return out.with_name(f"{out.stem}.{kind}{suffix}")


def write_outputs(
    run: JudgeRun, out: Path, *, extra_meta: Mapping[str, Any] | None = None
) -> Outputs:
    """Writes the predictions (JSONL), meta.json and, when there are any, the failures and the
    judge's details; each file atomically. Stale sidecars of an earlier run are removed."""
    write_jsonl(out, run.predictions)
    paths: dict[str, Path | None] = {}
    for kind, rows in (("failures", run.failures), ("details", run.details)):
        path = sidecar(out, kind)
        if rows:
            write_jsonl(path, rows)
            paths[kind] = path
        else:
            path.unlink(missing_ok=True)
            paths[kind] = None
    meta = build_meta(run, out, paths, extra_meta)
    meta_path = sidecar(out, "meta")
    with atomic_path(meta_path) as tmp:
        tmp.write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return Outputs(out, meta_path, paths["failures"], paths["details"])


def build_meta(
    run: JudgeRun,
    out: Path,
    paths: Mapping[str, Path | None],
    extra: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """What `evaluate --meta` records: who judged, with what, and what it cost."""
    return {
        "judge": run.judge.name,
        "benchmark": run.benchmark,
        "model": run.model,
        "prompts": prompt_hashes(run.judge.prompts),
        "params": run.params,
        "judge_params": run.judge.params(),
        "runs": run.runs,
        "counts": run.counts(),
        "partial": run.partial,
        "usage": run.stats.summary() if run.judge.uses_model else None,
        "cost_usd": total_cost(run.stats) if run.judge.uses_model else 0.0,
        "predictions_file": out.name,
        "failures_file": failures.name if (failures := paths.get("failures")) else None,
        "details_file": details.name if (details := paths.get("details")) else None,
        "mathjudge_version": __version__,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        **(extra or {}),
    }


def total_cost(stats: LlmStats) -> float | str:
    """USD of every answer the predictions rest on (fetched now or replayed from the cache);
    'unknown' when litellm's cost map lacks the model."""
    spent, replayed = stats.spent.cost_usd, stats.replayed.cost_usd
    if spent == UNKNOWN or replayed == UNKNOWN:
        return UNKNOWN
    return round(float(spent) + float(replayed), 8)


def _cost(value: float | str) -> str:
    return f"${value:.6f}" if isinstance(value, float) else str(value)


def default_out(benchmark: str, judge: str, model: str | None) -> Path:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model or "rules").strip("-")
    return Path("predictions") / benchmark / f"{judge}--{slug}.jsonl"


def dataset_rows(
    benchmark: str, datasets_dir: Path, *, limit: int | None = None
) -> tuple[BuiltDataset, list[dict[str, Any]], int]:
    """The built dataset, the rows a judge is scored on (the first `limit` of them) and how
    many rows there are in all."""
    import pyarrow.parquet as pq

    spec = registry.get(benchmark)
    dataset = open_dataset(spec.dataset, datasets_dir)
    table = pq.read_table(dataset.parquet(spec.items_config))
    total = table.num_rows
    if limit is not None:
        table = table.slice(0, limit)
    rows = table.to_pylist()
    if spec.judging is not None and spec.judging.rows is not None:
        rows = registry.resolve(spec.name, spec.judging.rows)(dataset, rows)
    return dataset, rows, total


def judging_of(benchmark: str) -> Judging:
    """How reference judges see `benchmark`; an error for one no reference judge writes."""
    judging = registry.get(benchmark).judging
    if judging is None:
        known = ", ".join(s.name for s in registry.specs() if s.judging is not None)
        raise MathJudgeError(f"no reference judge writes {benchmark!r} yet; known: {known}")
    return judging


def benchmarks_of(judge: str) -> list[str]:
    """The benchmarks whose spec lists `judge`."""
    return [s.name for s in registry.specs() if s.judging and judge in s.judging.judges]
