"""An item view's load time when a judge's details on the item are huge (issue 29: 40 rows of
"x\\n\\n" x 3,300 on one item, 660 KB, 132,000 paragraphs, took the item view 34 s to load).

Setup (not timed): StepMathBench built from `MATHJUDGE_MIRROR` into `--workdir`, one judge
stored with those details on `stepmath-1` (written to the store directly, as a store from before
`check` bounded details per item holds them: `check` now refuses the file), the site published.

Measured in Debian's Chromium, `--runs` times each, median and every run:
- mathjudge: `items/stepmathbench/item.html#stepmath-1` from navigation until the item is shown
  (`html[data-item]`), and the page's element count then;
- baseline, in the same run: the straightforward rendering the item view used before, every
  paragraph of those details at once as its own element in a details cell (the site's
  stylesheet, one block per row), on a page of its own, from navigation until laid out.

    MATHJUDGE_MIRROR=../shared/data python bench/item_view.py [--rows 40] [--runs 3]
    python bench/item_view.py --quick          # CI: 4 rows, one run
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.api import publish_site
from mathjudge.dataio.writer import write_dataset
from mathjudge.scoring.evaluator import evaluate_file

CHROMIUM = "/usr/bin/chromium"
BENCH = "stepmathbench"
PARAGRAPHS = 3300  # per row, "x\n\n" each

BASELINE = """([rows, paragraphs]) => {
  const td = document.createElement("td");
  for (let r = 0; r < rows; r++) {
    const box = document.createElement("div");
    box.className = "reasoning";
    const text = document.createElement("div");
    text.className = "text";
    for (let k = 0; k < paragraphs; k++) {
      const p = document.createElement("p");
      p.textContent = "x";
      text.appendChild(p);
    }
    box.appendChild(text);
    td.appendChild(box);
  }
  document.querySelector("main").appendChild(td);
  void document.body.offsetHeight;
  return new Promise(done => requestAnimationFrame(() =>
    done(document.getElementsByTagName("*").length)));
}"""


def site_with_details(workdir: Path, rows: int) -> Path:
    """The site, built afresh around the dataset kept in `workdir`."""
    mirror = Path(os.environ.get("MATHJUDGE_MIRROR", "../shared/data"))
    datasets, store = workdir / "datasets", workdir / "results.duckdb"
    if not (datasets / BENCH / "manifest.json").is_file():
        write_dataset(registry.builder(BENCH).build(mirror), datasets)
    ids = [f"stepmath-{i}" for i in range(1, 1001)]
    path = workdir / "judge.jsonl"
    path.write_text("".join(json.dumps({"item_id": i, "score": 5}) + "\n" for i in ids), "utf-8")
    result = evaluate_file(BENCH, path, "Verbose judge", datasets_dir=datasets, n_boot=20)
    store.unlink(missing_ok=True)
    details = [{"item_id": "stepmath-1", "why": "x\n\n" * PARAGRAPHS} for _ in range(rows)]
    results_store.save_synced(store, "submissions/stepmathbench/verbose", "key", result, details)
    return publish_site(store, workdir / "site").parent


def item_view(browser: Browser, site: Path) -> tuple[float, int]:
    page = browser.new_page()
    started = time.perf_counter()
    page.goto((site / "items" / BENCH / "item.html").as_uri() + "#stepmath-1")
    page.wait_for_selector("html[data-item='stepmath-1']", state="attached", timeout=600_000)
    seconds = time.perf_counter() - started
    nodes = page.evaluate("document.getElementsByTagName('*').length")
    page.close()
    return seconds, nodes


def baseline(browser: Browser, site: Path, rows: int) -> tuple[float, int]:
    page = browser.new_page()
    blank = site / "baseline.html"
    blank.write_text(
        '<!doctype html><html><head><link rel="stylesheet" href="assets/style.css"></head>'
        "<body><main></main></body></html>",
        encoding="utf-8",
    )
    started = time.perf_counter()
    page.goto(blank.as_uri())
    nodes = page.evaluate(BASELINE, [rows, PARAGRAPHS])
    seconds = time.perf_counter() - started
    page.close()
    return seconds, nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=40)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--quick", action="store_true", help="4 rows, one run (CI)")
    args = parser.parse_args()
    rows, runs = (4, 1) if args.quick else (args.rows, args.runs)
    workdir = args.workdir or Path(tempfile.gettempdir()) / "mathjudge-item-view"
    workdir.mkdir(parents=True, exist_ok=True)
    site = site_with_details(workdir, rows)
    size = rows * len(json.dumps({"item_id": "stepmath-1", "why": "x\n\n" * PARAGRAPHS}))
    print(f"load average {os.getloadavg()[0]:.1f}; details: {rows} rows on one item, "
          f"{size:,} bytes, {rows * PARAGRAPHS:,} paragraphs")  # fmt: skip
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])  # fmt: skip
        for name, measure in (("item view", lambda: item_view(browser, site)),
                              ("baseline: every paragraph at once",
                               lambda: baseline(browser, site, rows))):  # fmt: skip
            found = [measure() for _ in range(runs)]
            times = [t for t, _ in found]
            print(f"{name}: {statistics.median(times):.2f} s median "
                  f"({', '.join(f'{t:.2f}' for t in times)}), {found[-1][1]:,} elements")  # fmt: skip
        browser.close()


if __name__ == "__main__":
    main()
