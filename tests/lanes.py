"""The quick lane and the parallel run, as conftest.py's hooks use them.

`python -m pytest -m "not slow"` is the inner loop; scripts/test and CI run every test. A test
is slow, by rule, when it does work that takes seconds each time:

- it drives a browser: everything under tests/browser/ (marked here, by path);
- it reads the full mirror itself: its fixtures reach `mirror` other than through the
  session's shared data (`SHARED`: each dataset built and written, the StepMathBench file
  read, once per worker), e.g. a module fixture that builds, imports published outputs or demos from the
  mirror (marked here, from the fixture closure);
- it starts a process that runs Python, mathjudge, pip, Node or Chromium: the demo, a script,
  the CLI in a child process, a new virtualenv (`PROCESSES`);
- it renders a whole leaderboard site.

The last two cannot be seen before a test runs, so such a test carries `@pytest.mark.slow`
(a module whose fixtures do it: `pytestmark = pytest.mark.slow`), and `Watch` checks it: an
unmarked test that does either, in its body or through one of its fixtures, fails and says
what it did. A new slow test therefore cannot land in the quick lane unnoticed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

BROWSER = "tests/browser/"
SHARED = frozenset({"all_builds", "all_written", "datasets_dir", "stepmath_rows"})
# Where every site render passes (a module global that `build_site` calls by name).
SITE_RENDER = ("mathjudge.site.render", "swap_in")
PROCESSES = frozenset({"mathjudge", "pip", "pip3", "node", "npm", "chromium", "lighthouse"})
RUNS_PYTHON = re.compile(r"\b(mathjudge|python3?|pip3?)\b")


def reads_the_mirror(item: pytest.Item) -> bool:
    """Whether the test, or a fixture it uses other than the shared ones, asks for `mirror`."""
    info = item._fixtureinfo  # type: ignore[attr-defined]
    seen: set[str] = set()
    todo = list(info.argnames)
    while todo:
        name = todo.pop()
        if name in seen or name in SHARED:
            continue
        seen.add(name)
        if name == "mirror":
            return True
        for definition in info.name2fixturedefs.get(name, ())[-1:]:
            todo.extend(definition.argnames)
    return False


def slow_by_rule(item: pytest.Item) -> str | None:
    """Why the test is slow before it runs, if it is (its path or its fixtures)."""
    if item.nodeid.startswith(BROWSER):
        return "drives a browser"
    if reads_the_mirror(item):
        return "reads the full mirror"
    return None


def process_kind(args: Any) -> str | None:
    """What a child process started with `args` is, if it is one of the slow kinds."""
    argv = [args] if isinstance(args, str | bytes | os.PathLike) else list(args)
    words = [os.fsdecode(a) if isinstance(a, bytes | os.PathLike) else str(a) for a in argv]
    if not words:
        return None
    name = Path(words[0]).name
    line = " ".join(words)
    if (
        words[0] == sys.executable
        or name.startswith("python")
        or name in PROCESSES
        or "/scripts/" in words[0]
        or (name in ("bash", "sh") and RUNS_PYTHON.search(line) is not None)
    ):
        return f"starts a process: {line[:120]}"
    return None


class Watch:
    """Records the slow work each test and each fixture does (processes, site renders), and
    fails an unmarked test that did some, itself or through its fixtures."""

    def __init__(self) -> None:
        self.test: pytest.Item | None = None
        self.fixture: Any = None  # the FixtureDef being set up, if any
        self.by_fixture: dict[int, list[str]] = {}
        self.by_test: list[str] = []

    def saw(self, what: str) -> None:
        if self.fixture is not None:
            self.by_fixture.setdefault(id(self.fixture), []).append(what)
        elif self.test is not None:
            self.by_test.append(what)

    def install(self, patch: pytest.MonkeyPatch) -> None:
        watch = self
        start = subprocess.Popen.__init__

        def popen(self: subprocess.Popen[Any], args: Any, *rest: Any, **options: Any) -> None:
            kind = process_kind(args)
            if kind is not None:
                watch.saw(kind)
            start(self, args, *rest, **options)

        patch.setattr(subprocess.Popen, "__init__", popen)
        module = __import__(SITE_RENDER[0], fromlist=[SITE_RENDER[1]])
        render: Callable[..., Any] = getattr(module, SITE_RENDER[1])

        def site(*args: Any, **kwargs: Any) -> Any:
            watch.saw("renders a whole site")
            return render(*args, **kwargs)

        patch.setattr(module, SITE_RENDER[1], site)

    def problems(self, item: pytest.Item) -> list[str]:
        """The slow work `item` did (fixtures included) if it is not marked slow."""
        if item.get_closest_marker("slow") is not None:
            return []
        done = list(self.by_test)
        info = item._fixtureinfo  # type: ignore[attr-defined]
        for name in item.fixturenames:  # type: ignore[attr-defined]
            for definition in info.name2fixturedefs.get(name, ()):
                done += [
                    f"{what} (fixture {name})" for what in self.by_fixture.get(id(definition), [])
                ]
        return list(dict.fromkeys(done))

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Generator[None, Any, Any]:
        outer, self.fixture = self.fixture, fixturedef
        try:
            return (yield)
        finally:
            self.fixture = outer

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
        self.test, self.by_test = item, []
        try:
            result = yield
        finally:
            self.test = None
        problems = self.problems(item)
        if problems:
            pytest.fail(
                f"{item.nodeid} is slow but not marked so (tests/lanes.py): "
                + "; ".join(problems)
                + ". Mark it @pytest.mark.slow, or do the work in-process.",
                pytrace=False,
            )
        return result


# The modules that read the session's one demo run (`demo_run` in conftest.py), run by one
# worker so that the demo runs once: the CLI's test of it, RuleEM's agreement with the human
# labels (the demo judges every StepMathBench item with it) and the browser tests of its site.
DEMO = "tests/demo"
DEMO_UNIT = (
    "tests/test_cli.py",
    "tests/test_rule_em.py",
    "tests/browser/test_boards_browser.py",
    "tests/browser/test_demo_pages.py",
    "tests/browser/test_every_item_math.py",
)
# The browser modules that read the browser tests' own site (`site` in tests/browser/conftest.py,
# built once per worker), run by one worker, beside the demo's: each unit takes minutes.
SITE = "tests/browser/site"
SITE_UNIT = ("tests/browser/test_site_browser.py", "tests/browser/test_site_audits.py")
# The modules whose tests call a model through litellm (a local stand-in): litellm's import
# takes 5 s of CPU, paid once per worker that makes a client, so one worker runs them all.
LLM = "tests/llm"
LLM_UNIT = tuple(
    f"tests/test_{name}.py"
    for name in (
        "arxiv_classify", "arxiv_licenses", "arxiv_llm_locations", "arxiv_llm_match",
        "arxiv_pipeline", "arxivmath_metrics", "expertmath_realmath", "judge_cbu",
        "judge_hard2verify", "judges", "llm_client", "runner",
    )
)  # fmt: skip


def scope_of(nodeid: str) -> str:
    """The unit a worker runs whole: the test's module, or the modules of DEMO_UNIT, of
    SITE_UNIT or of LLM_UNIT."""
    module = nodeid.split("::", 1)[0]
    if module in DEMO_UNIT:
        return DEMO
    if module in SITE_UNIT:
        return SITE
    return LLM if module in LLM_UNIT else module


# The session fixtures each of those units is there for: built once per worker, they would be
# built again (minutes) by a test that uses one from a module outside its unit.
UNIT_OF_FIXTURE = {"demo_run": DEMO, "site": SITE}


def outside_its_unit(item: pytest.Item) -> str | None:
    """Why the test's module must join a unit it is not in, if it must: it uses a session
    fixture of UNIT_OF_FIXTURE (a module fixture of the same name, as test_math_bounds has, is
    its own)."""
    info = item._fixtureinfo  # type: ignore[attr-defined]
    module, unit_of_module = item.nodeid.split("::", 1)[0], scope_of(item.nodeid)
    for name in item.fixturenames:  # type: ignore[attr-defined]
        unit = UNIT_OF_FIXTURE.get(name)
        definitions = info.name2fixturedefs.get(name, ())
        if unit is None or not definitions or definitions[-1].scope != "session":
            continue
        if unit_of_module != unit:
            return (
                f"{module} uses the session fixture {name!r}, built once per worker for the "
                f"modules of {unit}: add {module} to that unit in tests/lanes.py"
            )
    return None


class ModuleScheduling(LoadScopeScheduling):
    """xdist's loadscope scheduler, by `scope_of`: a module's tests stay on one worker (its
    module fixtures are built once), the demo's modules share one (and the demo they test), so
    do the modules of the browser tests' own site, and so do the modules that call a model (and
    import litellm).
    With --no-loadscope-reorder the units go out in the order collected."""

    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid)


# The units measured to take longest (scripts/test prints the slowest tests): started first,
# so that no worker is left running one of them alone at the end. After the full suite's four,
# the quick lane's longest (8-17 s each on a loaded 2-core machine; collected in name order,
# test_store_faults and test_submissions came last and left the other worker idle for 16 s).
LONGEST = (DEMO, SITE, "tests/test_leaderboard_repo.py", "tests/test_fuzz_submissions.py",
           LLM, "tests/test_store_faults.py", "tests/test_compare.py", "tests/test_proofbench.py",
           "tests/test_submissions.py", "tests/test_stepmathbench_metrics.py",
           "tests/test_store.py", "tests/test_scale_paths.py")  # fmt: skip


def longest_first(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        scope = scope_of(item.nodeid)
        return LONGEST.index(scope) if scope in LONGEST else len(LONGEST)

    items.sort(key=rank)
