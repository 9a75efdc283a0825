"""One `evaluate_file` call, timed by phase, with the process's RSS over time: run in a fresh
process (see `_scale_common.run_mathjudge`) that imports nothing but mathjudge, so its peak
RSS is what `mathjudge evaluate` itself needs.

Not a library module: imported by the scripts in this folder.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import json
import os
import resource
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

JUDGE = "bench"

# (module, attribute, phase): the library functions `evaluate_file` goes through, wrapped for
# the duration of the call; "scorer" stands for the benchmark's scorer (its hooks).
PHASES: list[tuple[str, str, str]] = [
    ("mathjudge.scoring.evaluator", "open_dataset", "open_dataset"),
    ("mathjudge.scoring.evaluator", "scored_items", "scored_items"),
    ("mathjudge.scoring.evaluator", "load_predictions", "load_predictions"),
    ("mathjudge.scoring.evaluator", "score", "score"),
    ("mathjudge.scoring.engine", "connect", "connect"),
    ("mathjudge.scoring.engine", "combined_predictions", "combined_predictions"),
    ("mathjudge.scoring.engine", "cluster_statistics", "cluster_statistics"),
    ("scorer", "extras", "extras"),
    ("mathjudge.scoring.engine", "replicates", "replicates"),
]
TOP = ("open_dataset", "scored_items", "load_predictions", "score")  # the others are in score


@dataclass
class Measured:
    wall: float
    cpu: float  # user + system seconds of every thread: what other load does not inflate much
    phases: dict[str, float]  # seconds
    phases_cpu: dict[str, float]  # CPU seconds of every thread while the phase ran
    phase_rss_mb: dict[str, float]  # highest RSS seen while the phase ran (innermost phase)
    rss_before_mb: float  # before the call: the interpreter and mathjudge's imports
    rss_peak_mb: float  # ru_maxrss: the whole process, the call included
    scores: list[tuple[str, str, str, float | None, float | None, float | None, int]]
    seed: int
    groups: list[tuple[str, str]]
    replicates: dict[str, np.ndarray]  # metric -> (B, groups), as `score` computed them
    load: tuple[float, float]  # 1-minute load average at the start and the end


class _Rss:
    """Samples the process's RSS every few milliseconds, keeping the highest per phase."""

    def __init__(self) -> None:
        self.stack = ["(outside)"]
        self.peak: dict[str, float] = {}
        self.page = os.sysconf("SC_PAGE_SIZE")
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with open("/proc/self/statm") as statm:
            while self.running:
                statm.seek(0)
                mb = int(statm.read().split()[1]) * self.page / 2**20
                label = self.stack[-1]
                self.peak[label] = max(self.peak.get(label, 0.0), mb)
                time.sleep(0.005)

    def stop(self) -> None:
        self.running = False
        self.thread.join()


@contextlib.contextmanager
def _instrumented(
    targets: list[tuple[Any, str, str]],
    rss: _Rss,
    phases: dict[str, float],
    phases_cpu: dict[str, float],
    kept: dict[str, Any],
) -> Iterator[None]:
    """Wrap the targets: time each call, keep its result, label the RSS samples."""

    def timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            rss.stack.append(label)
            start, cpu = time.perf_counter(), time.process_time()
            try:
                out = fn(*args, **kwargs)
            finally:
                phases[label] = phases.get(label, 0.0) + time.perf_counter() - start
                phases_cpu[label] = phases_cpu.get(label, 0.0) + time.process_time() - cpu
                rss.stack.pop()
            kept[label] = out
            return out

        return wrapper

    def put(owner: Any, name: str, value: Any) -> None:
        # A scorer is a frozen dataclass: its hooks are swapped in place, and back afterwards.
        if dataclasses.is_dataclass(owner) and not isinstance(owner, type):
            object.__setattr__(owner, name, value)
        else:
            setattr(owner, name, value)

    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]
    try:
        for owner, name, label in targets:
            put(owner, name, timed(label, getattr(owner, name)))
        yield
    finally:
        for owner, name, original in saved:
            put(owner, name, original)


def evaluate(
    benchmark: str,
    predictions: Path,
    datasets_dir: Path,
    n_boot: int,
    boot_seed: int | None,
    json_out: Path | None,
) -> Measured:
    """The timed call; the result's scores (and, with `json_out`, its JSON) and replicates."""
    from mathjudge import registry
    from mathjudge.scoring import evaluator

    scorer = registry.scorer(benchmark)
    targets = []
    for module, name, label in PHASES:
        owner = scorer if module == "scorer" else importlib.import_module(module)
        if getattr(owner, name) is not None:  # a scorer without that hook
            targets.append((owner, name, label))
    rss = _Rss()
    phases: dict[str, float] = {}
    phases_cpu: dict[str, float] = {}
    kept: dict[str, Any] = {}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load_start = os.getloadavg()[0]
    with _instrumented(targets, rss, phases, phases_cpu, kept):
        start, cpu_start = time.perf_counter(), time.process_time()
        result = evaluator.evaluate_file(
            benchmark, predictions, JUDGE, datasets_dir=datasets_dir, n_boot=n_boot, seed=boot_seed
        )
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    rss.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    if json_out is not None:
        json_out.write_text(json.dumps(result.to_json()) + "\n", encoding="utf-8")
    stats = kept["cluster_statistics"]
    (sums,) = kept["replicates"]
    replicated = stats.metrics(scorer, scorer.fields_of(result.fields), sums)
    return Measured(
        wall=wall,
        cpu=cpu,
        phases=phases,
        phases_cpu=phases_cpu,
        phase_rss_mb=rss.peak,
        rss_before_mb=before,
        rss_peak_mb=peak,
        scores=[
            (s.scope, s.subset, s.metric, s.value, s.ci_low, s.ci_high, s.n) for s in result.scores
        ],
        seed=int(result.bootstrap["seed"]),
        groups=list(stats.groups),
        replicates=replicated,
        load=(load_start, os.getloadavg()[0]),
    )


def phase_rows(m: Measured) -> list[tuple[str, float, float, float, int]]:
    """(label, seconds, CPU seconds, peak RSS MB, depth) for the report: the top-level phases
    and, inside `score`, its steps; what the wrapped functions do not cover is shown as the
    rest."""
    p, c, r = m.phases, m.phases_cpu, m.phase_rss_mb
    inner = [name for _, name, _ in PHASES if name not in TOP and name in p]
    rows = [(name, p.get(name, 0.0), c.get(name, 0.0), r.get(name, 0.0), 1) for name in TOP[:3]]
    rows.append(("score", p.get("score", 0.0), c.get("score", 0.0), r.get("score", 0.0), 1))
    rows += [(name, p[name], c[name], r.get(name, 0.0), 2) for name in inner]
    rest = p.get("score", 0.0) - sum(p[name] for name in inner)
    rest_cpu = c.get("score", 0.0) - sum(c[name] for name in inner)
    rows.append(("finalize, percentiles, rows", rest, rest_cpu, r.get("score", 0.0), 2))
    other = m.wall - sum(p.get(name, 0.0) for name in TOP)
    other_cpu = m.cpu - sum(c.get(name, 0.0) for name in TOP)
    rows.append(("other (sha256, result)", other, other_cpu, r.get("(outside)", 0.0), 1))
    return rows
