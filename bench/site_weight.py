"""Page weights and Lighthouse scores of a built leaderboard site: what a reader's browser loads
for each kind of page, and how Lighthouse's mobile profile rates one page of every kind.

Each page is opened in Debian's Chromium (Playwright), scrolled to the bottom so lazy images
and lazily loaded item data load too, and every resource it requested is counted by the size of
its file: the HTML itself, then the total with stylesheets, scripts, fonts, images and data.
Also printed: the whole site's size and file counts, and the largest page of each kind.

With `--lighthouse`, the site is served on 127.0.0.1 as a static host serves it (text
gzip-compressed) and Lighthouse 12.2 (installed from package-lock.json by scripts/test) rates
the heaviest page of every kind (the item view: the item with the most text) on its mobile
profile, against the targets (performance >= 90, accessibility, best practices and SEO 100);
axe-core counts violations on the same pages at 1366 and 390 px; and every page type gets a
verdict with its HTML size and DOM nodes at first load (targets: 300 KB, 3,000 nodes). The
weights do not depend on the machine; the performance score does (it is a timing): compare
figures from a quiet machine.

    python bench/site_weight.py SITE [--lighthouse]     # e.g. the demo's site/
    python bench/site_weight.py --quick                  # CI: a two-judge site built here
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from browser.landing import (
    AXE,
    LIGHTHOUSE,
    kind,
    longest_item,
    page_types,
    serving,
)

CHROMIUM = "/usr/bin/chromium"
TARGETS = {"performance": 0.9, "accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}
MAX_HTML_KB = 300
MAX_NODES = 3000


def weigh(page, url: str) -> tuple[int, dict[str, int]]:  # type: ignore[no-untyped-def]
    loaded: list[str] = []
    page.on("requestfinished", lambda r: loaded.append(r.url))  # a fresh page per call
    page.goto(url, wait_until="networkidle")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(1000)  # lazy images and data below the fold start loading
    sizes: dict[str, int] = defaultdict(int)
    requests = 0
    for seen in dict.fromkeys(loaded):
        path = Path(unquote(urlsplit(seen).path))
        if path.is_file():
            requests += 1
            suffix = path.suffix.lstrip(".") or "other"
            if "/data/" in path.as_posix():
                suffix = "data"
            sizes[{"woff2": "fonts", "svg": "images", "png": "images"}.get(suffix, suffix)] += (
                path.stat().st_size
            )
    return requests, dict(sizes)


def report_weights(site: Path) -> None:
    files = [p for p in site.rglob("*") if p.is_file()]
    outside = [p for p in files if p.relative_to(site).parts[0] not in ("data", "assets")]
    pages = sorted(site.rglob("*.html"))
    by_kind: dict[str, list[Path]] = defaultdict(list)
    for p in pages:
        by_kind[kind(p, site)].append(p)
    total = sum(p.stat().st_size for p in files)
    print(f"site: {len(files)} files, {total / 2**20:.1f} MiB on disk ({site.name}/); "
          f"{len(pages)} pages; {len(outside)} files outside data/ and assets/")  # fmt: skip
    print(
        f"{'page kind':<16} {'pages':>6} {'largest HTML':>13}   sample: HTML, requests, total "
        "loaded (css, js, fonts, images, data)"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for name, group in sorted(by_kind.items()):
            if name in ("other", "release"):
                continue
            largest = max(group, key=lambda q: q.stat().st_size)
            url = largest.as_uri()
            if name == "item view":
                url = (
                    site.joinpath(longest_item(site).split("#")[0]).as_uri()
                    + "#"
                    + (longest_item(site).split("#", 1)[1])
                )
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            requests, sizes = weigh(page, url)
            page.close()
            loaded = sum(sizes.values())
            detail = ", ".join(
                f"{k} {v / 1024:.0f}" for k, v in sorted(sizes.items()) if k != "html"
            )
            print(
                f"{name:<16} {len(group):>6} {largest.stat().st_size / 1024:>10.0f} KB   "
                f"{largest.relative_to(site)}: {requests} requests, {loaded / 1024:.0f} KB "
                f"({detail} KB)"
            )
        browser.close()


def report_audits(site: Path) -> bool:
    """Lighthouse (mobile) and axe-core on one page of every kind, with a verdict per kind;
    True when every target is met."""
    if not LIGHTHOUSE.is_file() or not AXE.is_file():
        raise SystemExit(f"{LIGHTHOUSE} or {AXE} missing: run scripts/test once (npm ci)")
    pages = page_types(site)
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    rows: dict[str, dict[str, Any]] = {name: {} for name in pages}
    with serving(site) as base, tempfile.TemporaryDirectory() as tmp:
        print(f"\nLighthouse 12.2, mobile profile ({base}); axe-core at 1366 and 390 px")
        for name, path in pages.items():
            out = Path(tmp) / "report.json"
            subprocess.run(
                [str(LIGHTHOUSE), base + path, "--quiet", "--output=json", f"--output-path={out}",
                 "--only-categories=performance,accessibility,best-practices,seo",
                 "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
                env=env, check=True, timeout=300,
            )  # fmt: skip
            result = json.loads(out.read_text(encoding="utf-8"))
            audits = result["audits"]
            rows[name].update(
                {k: result["categories"][k]["score"] for k in TARGETS}
                | {
                    "tbt": audits["total-blocking-time"]["numericValue"],
                    "lcp": audits["largest-contentful-paint"]["numericValue"] / 1000,
                }
            )
        axe = AXE.read_text(encoding="utf-8")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            for width, height in ((1366, 900), (390, 844)):
                page = browser.new_page(viewport={"width": width, "height": height})
                for name, path in pages.items():
                    page.goto(base + path, wait_until="networkidle")
                    if "item.html" in path:
                        page.wait_for_selector("html[data-item]")
                    if width == 1366:
                        rows[name]["nodes"] = page.evaluate(
                            "document.getElementsByTagName('*').length"
                        )
                    page.add_script_tag(content=axe)
                    found = page.evaluate(
                        "async () => (await axe.run()).violations.map(v => [v.id, v.nodes.length])"
                    )
                    rows[name][f"axe {width}"] = ", ".join(f"{r}: {n}" for r, n in found) or "0"
                page.close()
            browser.close()
    head = (f"{'page type':<16} {'HTML KB':>7} {'nodes':>6}  perf a11y  bp  seo {'TBT ms':>7} "
            f"{'LCP s':>6}  axe 1366 / 390   verdict   page")  # fmt: skip
    print(head)
    met_all = True
    for name, path in pages.items():
        r = rows[name]
        html_kb = (site / path.split("#")[0]).stat().st_size / 1024
        scores = {k: float(r[k]) for k in TARGETS}
        missed = [k for k, t in TARGETS.items() if scores[k] < t]
        if html_kb > MAX_HTML_KB:
            missed.append("HTML size")
        if int(r["nodes"]) > MAX_NODES:
            missed.append("DOM nodes")
        if r["axe 1366"] != "0" or r["axe 390"] != "0":
            missed.append("axe")
        met_all = met_all and not missed
        verdict = "met" if not missed else "MISSED: " + ", ".join(missed)
        print(
            f"{name:<16} {html_kb:>7.0f} {r['nodes']:>6}  "
            + " ".join(f"{round(scores[k] * 100):>4}" for k in TARGETS)
            + f" {float(r['tbt']):>7.0f} {float(r['lcp']):>6.1f}  {r['axe 1366']} / {r['axe 390']}"
            + f"   {verdict}   {path}"
        )
    print(f"targets: {'met' if met_all else 'NOT met'} (performance is a timing: judge it on a "
          "quiet machine)")  # fmt: skip
    return met_all


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, nargs="?")
    parser.add_argument("--lighthouse", action="store_true", help="also Lighthouse and axe-core")
    parser.add_argument("--quick", action="store_true", help="weigh a small site built here")
    args = parser.parse_args()
    if args.quick:
        from _tiny_site import tiny_site

        report_weights(tiny_site(Path(tempfile.gettempdir()) / "mathjudge-site-weight"))
        return
    if args.site is None:
        parser.error("give the site's folder (or --quick)")
    site = args.site.resolve()
    report_weights(site)
    if args.lighthouse and not report_audits(site):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
