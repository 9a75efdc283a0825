"""The site the browser tests read, built once per session from a real store: StepMathBench and
the Open Proof Corpus built from the shared mirror, judges with hostile names, the corpus's own
LLM judge, JudgeBench's published outputs (o1-mini's Arena-Hard judgments with their reasoning,
the reward models' scores), judges of several kinds, and the papers' reported tables.

Chromium missing is a failure, not a skip: these tests are the site's acceptance check.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, sync_playwright

from browser.demo_site import DemoSite, build
from conftest import DemoRun
from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.api import publish_site
from mathjudge.benchmarks.judgebench import build as judgebench
from mathjudge.benchmarks.judgebench.outputs import import_outputs
from mathjudge.benchmarks.opc import build as opc
from mathjudge.benchmarks.stepmathbench import build as stepmathbench
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.document.reported import import_reported
from mathjudge.judges.baselines import run_baseline
from mathjudge.judges.predictions import write_jsonl as write_predictions
from mathjudge.scoring.evaluator import evaluate_file

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCRIPT_JUDGE = "<script>alert(1)</script>"
IMG_JUDGE = '"><img src=x onerror=alert(2)>'
FORMULA_JUDGE = "=cmd|' /C calc'!A0"
B = 100
# The kind each StepMathBench judge says it is (meta `kind:`).
KINDS = {
    "close judge": "llm_judge",
    "far judge": "reward_model",
    SCRIPT_JUDGE: "llm_judge",
    IMG_JUDGE: "rule",
    FORMULA_JUDGE: "rule",
}
O1 = "o1-mini (Arena-Hard judge)"


@dataclass
class Site:
    root: Path
    disagreements: dict[str, int] = field(default_factory=dict)  # judge -> hand count
    answered: dict[str, set[str]] = field(default_factory=dict)  # StepMathBench judge -> items
    rows: list[dict[str, Any]] = field(default_factory=list)  # the upstream StepMathBench rows
    reasoning: dict[str, dict[str, str]] = field(default_factory=dict)  # o1-mini: item -> texts

    def url(self, path: str) -> str:
        page, _, fragment = path.partition("#")
        return (self.root / page).as_uri() + (f"#{fragment}" if fragment else "")

    def by_scope(self, **wanted: str) -> list[str]:
        """Item ids whose upstream fields have these values (counted from the raw rows)."""
        return [r["uid"] for r in self.rows if all(str(r[k]) == v for k, v in wanted.items())]

    def document(self) -> dict[str, Any]:
        return json.loads((self.root / "data" / "leaderboard.json").read_text(encoding="utf-8"))


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _stepmath_judges(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(5)

    def clip(x: float) -> float:
        return float(min(10, max(0, x)))

    return {
        "close judge": [
            {"item_id": r["uid"], "score": clip(r["gold_score"] + rng.choice((-1, 0, 0, 1)))}
            for r in rows
        ],
        "far judge": [
            {"item_id": r["uid"], "score": clip(r["gold_score"] + rng.choice((-4, 4)))}
            for r in rows
        ],
        SCRIPT_JUDGE: [{"item_id": r["uid"], "score": float(rng.randint(0, 10))} for r in rows],
        IMG_JUDGE: [
            {"item_id": r["uid"], "answer_correct": bool(r["gold_score_01"])} for r in rows[:600]
        ],
        FORMULA_JUDGE: [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in rows],
    }


def _judgebench(tmp: Path, mirror: Path, datasets: Path, store: Path, built: Site) -> None:
    """JudgeBench's published outputs, scored as the demo scores them, with o1-mini's
    reasoning as its details."""
    write_dataset(judgebench.build(mirror), datasets)
    for judge in import_outputs("judgebench", mirror):
        if judge.judge not in (O1, "Skywork-Reward-Gemma-2-27B", "GRM-Gemma-2B"):
            continue
        path = _write_jsonl(tmp / f"{judge.slug}.jsonl", judge.rows)
        kind = "llm_judge" if judge.details else "reward_model"
        meta = {"model": judge.meta["model"], "kind": kind,
                "converted_from": judge.meta["source"]["repository"]}  # fmt: skip
        result = evaluate_file("judgebench", path, judge.judge, datasets_dir=datasets, n_boot=B,
                               meta=meta)  # fmt: skip
        if not judge.details:
            results_store.save(store, result)
        else:  # stored as `repo sync` stores a folder with a details file
            results_store.save_synced(store, f"submissions/judgebench/{judge.slug}", "key", result,
                                      judge.details)  # fmt: skip
            built.reasoning = {
                d["item_id"]: {k: v for k, v in d.items() if k != "item_id"} for d in judge.details
            }


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory, mirror: Path, stepmath_rows) -> Site:
    tmp = tmp_path_factory.mktemp("browser-site")
    datasets, store = tmp / "datasets", tmp / "results.duckdb"
    write_dataset(stepmathbench.build(mirror), datasets)
    write_dataset(opc.build(mirror), datasets)
    built = Site(tmp / "site", rows=stepmath_rows)
    for n, (judge, rows) in enumerate(_stepmath_judges(stepmath_rows).items()):
        built.answered[judge] = {r["item_id"] for r in rows}
        path = _write_jsonl(tmp / f"step-{n}.jsonl", rows)
        meta = {"model": "<b>x</b>", "prompt": SCRIPT_JUDGE, "kind": KINDS[judge]}
        result = evaluate_file(
            "stepmathbench", path, judge, datasets_dir=datasets, n_boot=B,
            allow_partial=len(rows) < 1000, meta=meta,
        )  # fmt: skip
        if judge == "close judge":  # a judge with a details file: its rationale per item
            results_store.save_synced(store, "submissions/stepmathbench/close", "key", result, [
                {"item_id": r["item_id"], "rationale": f"step 2 of {r['item_id']} is wrong; {SCRIPT_JUDGE}"}
                for r in rows[:20]
            ])  # fmt: skip
        else:
            results_store.save(store, result)
        gold = {r["uid"]: r for r in stepmath_rows}
        built.disagreements[judge] = sum(
            r.get("score", gold[r["item_id"]]["gold_score"]) != gold[r["item_id"]]["gold_score"]
            or r.get("answer_correct", gold[r["item_id"]]["gold_score_01"])
            != bool(gold[r["item_id"]]["gold_score_01"])
            for r in rows
        )
    opc_spec = registry.get("opc")
    for baseline in opc_spec.baselines:
        items = pq.read_table(open_dataset("opc", datasets).parquet("judgments")).to_pylist()
        path = tmp / f"{baseline.key}.jsonl"
        write_predictions(path, run_baseline(opc_spec, baseline, iter(items), mirror)[0])
        result = evaluate_file(
            "opc", path, baseline.judge_name, datasets_dir=datasets, n_boot=B,
            allow_partial=baseline.partial, meta={"kind": baseline.kind},
        )  # fmt: skip
        results_store.save(store, result)
    _judgebench(tmp, mirror, datasets, store, built)
    import_reported(mirror / "reported", store)
    publish_site(store, built.root, local_texts=True)  # JudgeBench's texts stay here
    return built


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_run: DemoRun) -> DemoSite:
    """The demo's site (see `browser.demo_site`), built once per session."""
    return build(demo_run.folder / "results.duckdb", tmp_path_factory.mktemp("demo-site"))


# One browser per test module, not per session: while Playwright's sync API is running, its event
# loop is this thread's, so `asyncio.run` in every later test of the suite (the LLM client's)
# would fail with "cannot be called from a running event loop".
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} missing: install it with `apt-get install -y chromium`")
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield launched
        launched.close()


@dataclass
class Watched:
    page: Page
    problems: list[str]


@pytest.fixture
def watched(browser: Browser) -> Iterator[Watched]:
    """A page that records console errors, uncaught exceptions, dialogs and any request
    leaving the local file system."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []

    def console(msg: ConsoleMessage) -> None:
        if msg.type in ("error", "warning"):
            problems.append(f"console {msg.type}: {msg.text}")

    page.on("console", console)
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    page.on(
        "request",
        lambda r: None if r.url.startswith("file://") else problems.append(f"request {r.url}"),
    )
    yield Watched(page, problems)
    context.close()


def shots_dir() -> Path:
    """Screenshots go to test-artifacts/ (git-ignored), or to $MATHJUDGE_SHOTS when set."""
    folder = Path(os.environ.get("MATHJUDGE_SHOTS") or REPO / "test-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
