"""Page weights and Lighthouse scores of a built leaderboard site: what a reader's browser loads
for each kind of page, and how Lighthouse's mobile profile rates the pages a reader lands on.

Each page is opened in Debian's Chromium (Playwright), scrolled to the bottom so lazy images
and lazily loaded item data load too, and every resource it requested is counted by the size of
its file: the HTML itself, then the total with stylesheets, scripts, fonts, images and data.
Also printed: the whole site's size and file counts, and the largest page of each kind.

With `--lighthouse`, the site is served on 127.0.0.1 as a static host serves it (text
gzip-compressed) and Lighthouse 12.2 (installed from
package-lock.json by scripts/test) rates the overview, the largest benchmark page, the item
view of the item with the most text and the largest judge page on its mobile profile, against
the targets (performance >= 90, accessibility, best practices and SEO 100), and axe-core counts
violations on the same pages at 1366 and 390 px. The weights do not depend on the machine; the
performance score does (it is a timing): compare figures from a quiet machine.

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
from urllib.parse import unquote, urlsplit

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from browser.landing import (
    AXE,
    LIGHTHOUSE,
    kind,
    landing_pages,
    longest_item,
    serving,
)

CHROMIUM = "/usr/bin/chromium"
TARGETS = {"performance": 0.9, "accessibility": 1.0, "best-practices": 1.0, "seo": 1.0}


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
    """Lighthouse (mobile) and axe-core on the landing pages; True when every target is met."""
    if not LIGHTHOUSE.is_file() or not AXE.is_file():
        raise SystemExit(f"{LIGHTHOUSE} or {AXE} missing: run scripts/test once (npm ci)")
    pages = landing_pages(site)
    env = {**os.environ, "CHROME_PATH": CHROMIUM}
    met = True
    with serving(site) as base, tempfile.TemporaryDirectory() as tmp:
        print(f"\nLighthouse 12.2, mobile profile ({base}): "
              "performance, accessibility, best practices, SEO; TBT and LCP")  # fmt: skip
        for name, path in pages.items():
            out = Path(tmp) / "report.json"
            subprocess.run(
                [str(LIGHTHOUSE), base + path, "--quiet", "--output=json", f"--output-path={out}",
                 "--only-categories=performance,accessibility,best-practices,seo",
                 "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
                env=env, check=True, timeout=300,
            )  # fmt: skip
            result = json.loads(out.read_text(encoding="utf-8"))
            scores = {k: result["categories"][k]["score"] for k in TARGETS}
            met = met and all(scores[k] >= t for k, t in TARGETS.items())
            audits = result["audits"]
            print(
                f"  {name:<24} "
                + "  ".join(f"{k} {round(v * 100):>3}" for k, v in scores.items())
                + f"  TBT {audits['total-blocking-time']['numericValue']:.0f} ms"
                + f"  LCP {audits['largest-contentful-paint']['numericValue'] / 1000:.1f} s"
                + f"   {path}"
            )
        axe = AXE.read_text(encoding="utf-8")
        print("axe-core violations (rule: nodes)")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            for width, height in ((1366, 900), (390, 844)):
                page = browser.new_page(viewport={"width": width, "height": height})
                for name, path in pages.items():
                    page.goto(base + path, wait_until="networkidle")
                    if "item.html" in path:
                        page.wait_for_selector("html[data-item]")
                    page.add_script_tag(content=axe)
                    found = page.evaluate(
                        "async () => (await axe.run()).violations.map(v => [v.id, v.nodes.length])"
                    )
                    met = met and not found
                    shown = ", ".join(f"{rule}: {n}" for rule, n in found) or "none"
                    print(f"  {width:>4} px  {name:<24} {shown}")
                page.close()
            browser.close()
    print(f"targets: {'met' if met else 'NOT met'}")
    return met


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
