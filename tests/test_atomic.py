"""Publishing a folder under a fixed name: a run killed at the worst moment (injected, not
timed) never leaves the name without a complete folder where the system can swap folders,
and the next run cleans up (or restores) what the killed run left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mathjudge.base import atomic

# A run of atomic_dir that writes VERSION into NAME and is killed (SIGKILL, no cleanup of any
# kind) at the injection point between its two steps.
KILLED_RUN = """
import os, signal, sys
from pathlib import Path
from mathjudge.base import atomic

final, version, swap = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "swap"
if not swap:
    atomic.exchange = lambda a, b: False  # as on a system that cannot swap folders
atomic._between_steps = lambda: os.kill(os.getpid(), signal.SIGKILL)
with atomic.atomic_dir(final) as tmp:
    (tmp / "data").mkdir()
    (tmp / "data" / "rows.txt").write_text(version * 1000)
    (tmp / "VERSION").write_text(version)
"""


def publish(final: Path, version: str) -> None:
    with atomic.atomic_dir(final) as tmp:
        (tmp / "data").mkdir()
        (tmp / "data" / "rows.txt").write_text(version * 1000)
        (tmp / "VERSION").write_text(version)


def killed_run(final: Path, version: str, mode: str) -> None:
    run = subprocess.run([sys.executable, "-c", KILLED_RUN, str(final), version, mode])
    assert run.returncode == -signal.SIGKILL


def complete(final: Path) -> str:
    """The version the folder holds, after checking that all of it is there."""
    version = (final / "VERSION").read_text()
    assert (final / "data" / "rows.txt").read_text() == version * 1000
    return version


def leftovers(final: Path) -> list[str]:
    return sorted(p.name for p in final.parent.iterdir() if p.name != final.name)


@pytest.mark.slow
def test_a_kill_after_the_swap_leaves_the_new_folder_published(tmp_path: Path) -> None:
    if atomic._exchange_call() is None:
        pytest.skip("this system cannot swap folders (covered by the two-rename test)")
    final = tmp_path / "dataset"
    publish(final, "1")
    killed_run(final, "2", "swap")
    assert complete(final) == "2"
    (left,) = leftovers(final)  # the replaced folder, not yet removed when the kill came
    assert left.startswith(".dataset.tmp-") and (tmp_path / left / "VERSION").read_text() == "1"
    publish(final, "3")
    assert complete(final) == "3" and leftovers(final) == []


@pytest.mark.slow
def test_without_a_swap_the_next_run_restores_the_old_folder(tmp_path: Path) -> None:
    final = tmp_path / "dataset"
    publish(final, "1")
    killed_run(final, "2", "rename")
    assert not final.exists()  # the two-rename window this fallback cannot avoid
    assert {name.split("-")[0] for name in leftovers(final)} == {".dataset.old", ".dataset.tmp"}
    atomic.recover(final)  # what the next run does first
    assert complete(final) == "1" and leftovers(final) == []
    publish(final, "3")
    assert complete(final) == "3" and leftovers(final) == []


@pytest.mark.slow
def test_a_kill_while_writing_leaves_the_old_folder_and_a_staging_folder_to_clean(
    tmp_path: Path,
) -> None:
    final = tmp_path / "site"
    publish(final, "1")
    script = KILLED_RUN.replace(
        '    (tmp / "VERSION").write_text(version)', "    os.kill(os.getpid(), signal.SIGKILL)"
    )
    run = subprocess.run([sys.executable, "-c", script, str(final), "2", "swap"])
    assert run.returncode == -signal.SIGKILL
    assert complete(final) == "1"
    assert [name.split("-")[0] for name in leftovers(final)] == [".site.tmp"]
    publish(final, "3")
    assert complete(final) == "3" and leftovers(final) == []


@pytest.mark.slow
def test_a_staging_folder_of_a_live_process_is_left_alone(tmp_path: Path) -> None:
    final = tmp_path / "site"
    publish(final, "1")
    sleeper = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                               stdin=subprocess.PIPE)  # fmt: skip
    try:
        busy = tmp_path / f".site.tmp-{sleeper.pid}-abc"
        busy.mkdir()
        gone = tmp_path / f".site.tmp-{dead_pid()}-def"
        gone.mkdir()
        publish(final, "2")
        assert busy.is_dir() and not gone.exists()
    finally:
        sleeper.communicate()
    publish(final, "3")
    assert leftovers(final) == []


def test_an_error_while_writing_keeps_the_published_folder(tmp_path: Path) -> None:
    final = tmp_path / "site"
    publish(final, "1")
    with pytest.raises(RuntimeError), atomic.atomic_dir(final) as tmp:
        (tmp / "VERSION").write_text("2")
        raise RuntimeError("builder failed")
    assert complete(final) == "1" and leftovers(final) == []


def dead_pid() -> int:
    process = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                             capture_output=True, text=True)  # fmt: skip
    pid = int(process.stdout)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    return pid


# A file write killed (SIGKILL) after its temporary file is written, before the rename.
KILLED_FILE_WRITE = """
import os, signal, sys
from pathlib import Path
from mathjudge.base import atomic

with atomic.atomic_path(Path(sys.argv[1])) as tmp:
    tmp.write_text("half")
    os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.slow
def test_a_killed_file_write_leaves_a_part_file_the_next_write_removes(tmp_path: Path) -> None:
    target = tmp_path / "scores.json"
    target.write_text("old")
    run = subprocess.run([sys.executable, "-c", KILLED_FILE_WRITE, str(target)])
    assert run.returncode == -signal.SIGKILL
    (part,) = [p for p in tmp_path.iterdir() if p.name != "scores.json"]
    assert part.name.startswith(".scores.json.part-") and target.read_text() == "old"
    sleeper = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                               stdin=subprocess.PIPE)  # fmt: skip
    try:
        busy = tmp_path / f".scores.json.part-{sleeper.pid}-abc"  # a write still running
        busy.write_text("busy")
        other = tmp_path / f".other.json.part-{dead_pid()}-abc"  # another target's: not ours
        other.write_text("x")
        atomic.write_json_atomic(target, {"new": 1})
        assert busy.exists() and other.exists() and not part.exists()
    finally:
        sleeper.communicate()
    assert target.read_text(encoding="utf-8") == '{\n  "new": 1\n}\n'
    atomic.write_json_atomic(target, {"new": 2})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([other.name, "scores.json"])
