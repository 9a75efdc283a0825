"""Shared fixtures. Real data comes from the shared mirror and is never copied into the repo;
when it is missing the tests that need it fail (not skip), so CI cannot pass without it."""

from __future__ import annotations

import atexit
import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

# litellm fetches a remote price list at import unless told to use its bundled copy; tests must
# never reach outside 127.0.0.1, whichever module imports litellm first.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
from pathlib import Path

import pytest
import xdist
from lanes import ModuleScheduling, Watch, longest_first, outside_its_unit, slow_by_rule
from standins import NetworkGuard

# Builders and the writer import `datasets` (2 s): imported by the fixtures that build, so that
# pytest's own process, which runs no test when there are workers, starts without it.

REPO = Path(__file__).resolve().parents[1]


def mirror_root() -> Path:
    root = Path(os.environ.get("MATHJUDGE_MIRROR") or REPO.parent / "shared" / "data")
    if not (root / "stepmathbench" / "stepmath.jsonl").is_file():
        pytest.fail(f"shared data missing: set MATHJUDGE_MIRROR (looked in {root})")
    return root


@pytest.fixture(scope="session")
def mirror() -> Path:
    return mirror_root()


@pytest.fixture
def math_verify_unhurried(monkeypatch: pytest.MonkeyPatch) -> None:
    """math-verify's timeouts are wall-clock alarms of 2 s: a comparison that takes 0.6 s on
    a quiet machine ran out under a load of 7, and the judge called the answer undecided.
    Tests of what a judge decides give it time (none of them is about the alarm)."""
    from mathjudge.answers import alarm

    monkeypatch.setattr(alarm, "TIMEOUT_S", 60)


@dataclass(frozen=True)
class DemoRun:
    """`mathjudge demo` as a newcomer runs it: its folder (datasets, store, site) and output."""

    folder: Path
    stdout: str
    env: dict[str, str]  # the bare environment it ran in, for commands run after it


DEMO_TIMEOUT = 3600  # seconds: the whole demo on a loaded 2-core machine


@pytest.fixture(scope="session")
def demo_run(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> DemoRun:
    """One demo for the session, in a process started in an empty folder with a bare
    environment: the CLI's test of it, RuleEM's agreement test and the browser tests of its
    site all read this run (tests/lanes.py schedules them on one worker), so the suite pays for
    the demo once."""
    folder = tmp_path_factory.mktemp("demo")
    env = {
        "MATHJUDGE_MIRROR": str(mirror),
        "PATH": "/usr/bin:/bin",
        "HOME": str(folder),
        # The shared mirror has no ProofBench or μ-MATH copy: the demo must skip them with a
        # reason, and never reach for the Hub.
        "HF_HUB_OFFLINE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "mathjudge", "demo", "--quiet"],
        cwd=folder, capture_output=True, text=True, env=env, timeout=DEMO_TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return DemoRun(folder, done.stdout, env)


@pytest.fixture(scope="session")
def stepmath_rows(mirror: Path) -> list[dict]:
    with (mirror / "stepmathbench" / "stepmath.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


@pytest.fixture(scope="session")
def datasets_dir(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real StepMathBench, built once per session."""
    from mathjudge.benchmarks.stepmathbench import build as stepmathbench
    from mathjudge.dataio.writer import write_dataset

    out = tmp_path_factory.mktemp("datasets")
    write_dataset(stepmathbench.build(mirror), out)
    return out


FIXTURES = REPO / "tests" / "fixtures"
SCORING = REPO / "tests" / "scoring"


def build_source(dataset: str, mirror: Path, fixtures: Path = FIXTURES) -> Path:
    """Where the suite builds `dataset` from, by convention: its fixture folder
    `tests/fixtures/<dataset>/` (a small copy in the upstream layout, for data the mirror holds
    no copy of), else the example its benchmark ships, else the shared mirror."""
    from mathjudge import registry

    if (fixtures / dataset).is_dir():
        return fixtures / dataset
    return registry.example_dir(dataset) or mirror


@pytest.fixture(scope="session")
def all_builds(mirror: Path) -> dict:
    """Every dataset a registered benchmark builds, built once per session from its
    `build_source` (name -> `Build`)."""
    from mathjudge import registry

    return {
        name: registry.builder(name).build(build_source(name, mirror))
        for name in registry.datasets()
    }


@pytest.fixture(scope="session")
def all_written(all_builds: dict, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every dataset of `all_builds` written to one folder, once per session (the tests only
    read it)."""
    from mathjudge.dataio.writer import write_dataset

    out = tmp_path_factory.mktemp("all-datasets")
    for build in all_builds.values():
        write_dataset(build, out)
    return out


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[NetworkGuard]:
    """Refuse (and record) every connection to a host that is not 127.0.0.1; the test fails if
    anything tried. Modules that talk to local stand-ins use it for all their tests."""
    guard = NetworkGuard(monkeypatch)
    yield guard
    assert guard.attempts == [], f"tried to reach {guard.attempts}"


@pytest.fixture
def stub_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider key for litellm's OpenAI route; the stand-in servers accept any."""
    monkeypatch.setenv("OPENAI_API_KEY", "stub-key")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Watch every test for slow work it is not marked for (tests/lanes.py), where tests run:
    not in xdist's controller, which hands tests to workers (its watch would import the site)."""
    if xdist.is_xdist_controller(session):
        return
    config = session.config
    patch = pytest.MonkeyPatch()
    watch = Watch()
    watch.install(patch)
    config.pluginmanager.register(watch, "lanes-watch")
    config.add_cleanup(patch.undo)


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects by the marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    misplaced = [why for item in items if (why := outside_its_unit(item)) is not None]
    if misplaced:
        raise pytest.UsageError("\n".join(dict.fromkeys(misplaced)))
    for item in items:
        if slow_by_rule(item) is not None:
            item.add_marker(pytest.mark.slow)
    longest_first(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> ModuleScheduling | None:
    """`--dist loadscope` (pyproject.toml) schedules by module, and by the units of tests/lanes.py."""
    return ModuleScheduling(config, log) if config.getvalue("dist") == "loadscope" else None


def pytest_unconfigure(config: pytest.Config) -> None:
    """A worker, done, leaves its objects to the operating system. Python's exit collects
    garbage over every object the worker made (litellm's and datasets' modules hold millions):
    2-4 s during which pytest waits for the worker. Frozen, they are skipped; DuckDB's binding
    then reports the objects it still sees as leaked, on stderr, as the interpreter ends: that
    is sent to /dev/null at exit (after pytest has restored its own stderr), when the worker has
    sent every report to pytest's own process."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return
    gc.freeze()
    atexit.register(os.dup2, os.open(os.devnull, os.O_WRONLY), 2)  # 2: the process's stderr
