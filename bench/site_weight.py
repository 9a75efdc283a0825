"""Page weights of a built leaderboard site: what a reader's browser loads for each kind of page.

Each page is opened in Debian's Chromium (Playwright) from `file://`, scrolled to the bottom so
lazy images load too, and every resource it requested is counted by the size of its file: the
HTML itself, then the total with stylesheets, scripts, fonts and images. Also printed: the
whole site's size and page count, and the largest page of each kind (HTML only). Nothing is
timed; the figures do not depend on the machine.

    python bench/site_weight.py SITE            # e.g. the demo's site/
    python bench/site_weight.py --quick         # CI: a two-judge StepMathBench site built here
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path
from urllib.parse import unquote, urlsplit

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"


def kind(path: Path, site: Path) -> str:
    rel = path.relative_to(site).as_posix()
    if rel.startswith("items/"):
        return "item index" if path.name == "index.html" else "item page"
    for prefix, name in (("judges/", "judge page"), ("models/", "model page"),
                         ("datasets/", "dataset page"), ("releases/", "release")):  # fmt: skip
        if rel.startswith(prefix):
            return name
    if "/" not in rel and rel.endswith(".html"):
        return (
            rel
            if rel in ("index.html", "methodology.html", "downloads.html", "submit.html")
            else "benchmark page"
        )
    return "other"


def weigh(page, url: str) -> tuple[int, dict[str, int]]:  # type: ignore[no-untyped-def]
    loaded: list[str] = []
    page.on("requestfinished", lambda r: loaded.append(r.url))  # a fresh page per call
    page.goto(url, wait_until="networkidle")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(1000)  # lazy images below the fold start loading
    sizes: dict[str, int] = defaultdict(int)
    requests = 0
    for seen in dict.fromkeys(loaded):
        path = Path(unquote(urlsplit(seen).path))
        if path.is_file():
            requests += 1
            suffix = path.suffix.lstrip(".") or "other"
            sizes[{"woff2": "fonts", "svg": "images", "png": "images"}.get(suffix, suffix)] += (
                path.stat().st_size
            )
    return requests, dict(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path, nargs="?")
    parser.add_argument("--quick", action="store_true", help="CI: weigh a small site built here")
    args = parser.parse_args()
    if args.quick:
        from _tiny_site import tiny_site

        args.site = tiny_site(Path(tempfile.gettempdir()) / "mathjudge-site-weight")
    if args.site is None:
        parser.error("give the SITE folder (or --quick)")
    site = args.site.resolve()
    pages = sorted(site.rglob("*.html"))
    by_kind: dict[str, list[Path]] = defaultdict(list)
    for p in pages:
        by_kind[kind(p, site)].append(p)
    total = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
    print(f"site: {len(pages)} pages, {total / 2**20:.1f} MiB on disk ({site.name}/)")
    print(
        f"{'page kind':<16} {'pages':>6} {'largest HTML':>13}   sample: HTML, requests, total "
        "loaded (css, js, fonts, images)"
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for name, group in sorted(by_kind.items()):
            if name in ("other", "release"):
                continue
            largest = max(group, key=lambda q: q.stat().st_size)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            requests, sizes = weigh(page, largest.as_uri())
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


if __name__ == "__main__":
    main()
