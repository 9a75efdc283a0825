"""Where `mathjudge site build` spends its time, on a copy of a results store.

The build is run in this process with a timer around each of its parts: publishing the
document (ranking every judge), the per-item data of the item pages, the predictions
downloads, the other data files, rendering the pages (the plots among them), and replacing
the old site. Twice: a first build (the document is assembled and ranked) and a rebuild of the
unchanged store (publish keeps the stored document, see `document.publish`). The baseline in
the same run is the whole command as a fresh process (`mathjudge site build`), the figure the
target is about: the demo's store within 5 s on two quiet cores. Wall and CPU seconds; DuckDB
and the item export use both cores, so CPU may exceed wall. Timings depend on the machine and
its load: compare figures from a quiet one.

    python bench/site_build.py STORE          # e.g. the demo's results.duckdb
    python bench/site_build.py --quick        # CI: a two-judge store built here
"""

from __future__ import annotations

import argparse
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_S = 5.0


class Timer:
    """Wall and CPU seconds spent in wrapped functions, by label (nested parts included in
    their parent's figure)."""

    def __init__(self) -> None:
        self.spent: dict[str, list[float]] = {}

    def wrap(self, owner: Any, name: str, label: str) -> None:
        inner: Callable[..., Any] = getattr(owner, name)
        self.spent[label] = [0.0, 0.0]

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            wall, cpu = time.perf_counter(), time.process_time()
            try:
                return inner(*args, **kwargs)
            finally:
                found = self.spent.setdefault(label, [0.0, 0.0])
                found[0] += time.perf_counter() - wall
                found[1] += time.process_time() - cpu

        setattr(owner, name, timed)


def instrument(timer: Timer) -> None:
    from mathjudge.base import atomic
    from mathjudge.document import publish
    from mathjudge.site import export, plots, render

    timer.wrap(publish, "publish", "publish the document (ranks)")
    timer.wrap(render, "export_data", "data files")
    timer.wrap(export, "export_items", "  item data (two benchmarks at a time)")
    timer.wrap(export, "write_predictions", "  predictions downloads")
    timer.wrap(render, "render_site", "render the pages")
    timer.wrap(plots, "benchmark_plots", "  plots")
    timer.wrap(atomic, "_remove", "remove the replaced site")


def forget_document(store: Path) -> None:
    """Drop the published document, so the next build assembles and ranks it (as the first
    build of a store does)."""
    import duckdb

    con = duckdb.connect(str(store))
    try:
        con.execute("DELETE FROM documents")
    finally:
        con.close()


def build(store: Path, out: Path, label: str) -> None:
    from mathjudge.api import publish_site

    timer = Timer()
    instrument(timer)
    wall, cpu = time.perf_counter(), time.process_time()
    publish_site(store, out, local_texts=True)
    total = (time.perf_counter() - wall, time.process_time() - cpu)
    print(f"\n{label}: {total[0]:.2f} s wall, {total[1]:.2f} s CPU in this process")
    for name, (w, c) in timer.spent.items():
        print(f"  {name:<42} {w:7.2f} s wall {c:7.2f} s CPU")


def whole_command(store: Path, out: Path) -> float:
    """`mathjudge site build` as a fresh process (imports included), over an unchanged store
    and without the old site: what a reader of the target times."""
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "mathjudge", "site", "build", "--store", str(store), "--out",
         str(out), "--include-local-texts"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        sys.exit(f"site build failed:\n{done.stderr}")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", type=Path, nargs="?")
    parser.add_argument("--quick", action="store_true", help="a small store built here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.quick:
            from _tiny_site import tiny_site

            source = tiny_site(work / "tiny").parent / "results.duckdb"
        elif args.store is None:
            parser.error("give a results store (or --quick)")
        else:
            source = args.store
        store = work / "results.duckdb"
        shutil.copyfile(source, store)
        print(
            f"{os.cpu_count()} cores; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        forget_document(store)
        build(store, work / "site", "first build (the document assembled and ranked)")
        build(store, work / "site", "rebuild of the unchanged store (the document kept)")
        seconds = whole_command(store, work / "fresh")
        verdict = (
            ""
            if args.quick
            else f"  target <= {TARGET_S:g} s: " + ("met" if seconds <= TARGET_S else "MISSED")
        )
        print(
            f"\nmathjudge site build, a fresh process into a new folder: {seconds:.2f} s{verdict}"
        )
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
