"""Every registered benchmark, from the registry: it has a source to build from in the suite and
a scoring case, and its scoring case scores as worked out by hand. (Its card is checked by
`test_cards.py` and its recorded releases by `test_releases.py`, for every dataset the registry
builds.) A new benchmark folder without these fails here, by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmark_checks import missing, scoring_problems

from mathjudge import registry


@pytest.fixture(scope="module")
def datasets(all_written: Path) -> Path:
    return all_written


@pytest.mark.parametrize("name", registry.names())
def test_has_a_source_and_a_scoring_case(name: str, mirror: Path) -> None:
    assert missing(name, mirror) == []


@pytest.mark.parametrize("name", registry.names())
def test_its_scoring_case_scores_as_worked_out(name: str, datasets: Path, tmp_path: Path) -> None:
    assert scoring_problems(name, datasets, tmp_path) == []


def test_a_benchmark_without_them_is_named(mirror: Path, tmp_path: Path) -> None:
    """No fixture, no scoring case: both problems name the benchmark."""
    problems = missing("stepmathbench", mirror, tmp_path / "fixtures", tmp_path / "scoring")
    assert problems == [
        f"stepmathbench: no scoring case {tmp_path / 'scoring' / 'stepmathbench.json'} "
        "(predictions, the metrics they must give, and why)"
    ]  # the mirror holds its source
    empty = tmp_path / "no-mirror"
    empty.mkdir()
    assert missing("stepmathbench", empty, tmp_path, tmp_path)[0].startswith(
        "stepmathbench: no source to build stepmathbench from in the suite"
    )
