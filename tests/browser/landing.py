"""The pages a reader lands on and a static host to serve them: shared by the site audits
(`test_site_audits.py`, which assert on them) and `bench/site_weight.py` (which reports figures
on them), so both look at the same pages served the same way."""

from __future__ import annotations

import functools
import gzip
import http.server
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

REPO = Path(__file__).resolve().parents[2]
LIGHTHOUSE = REPO / "node_modules" / ".bin" / "lighthouse"
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
TOP_PAGES = ("index.html", "methodology.html", "downloads.html", "submit.html")


class StaticHost(http.server.SimpleHTTPRequestHandler):
    """Serves the site as a static host does (GitHub Pages among them): text files
    gzip-compressed for a client that accepts it, nothing logged."""

    COMPRESSED = (".html", ".css", ".js", ".json", ".svg", ".csv")

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in self.COMPRESSED):
            super().do_GET()
            return
        body = gzip.compress(path.read_bytes())
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serving(site: Path) -> Iterator[str]:
    """The site on http://127.0.0.1:PORT/ (`StaticHost`) while the block runs."""
    handler = functools.partial(StaticHost, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join()


def kind(path: Path, site: Path) -> str:
    """What a file of the built site is, for a reader: a benchmark page, an item view..."""
    rel = path.relative_to(site).as_posix()
    if rel.startswith("items/"):
        return "item view" if path.name == "item.html" else "item explorer"
    for prefix, name in (("judges/", "judge page"), ("models/", "model page"),
                         ("datasets/", "dataset page"), ("releases/", "release")):  # fmt: skip
        if rel.startswith(prefix):
            return f"{prefix[:-1]} index" if rel == f"{prefix}index.html" else name
    if "/" not in rel and rel.endswith(".html"):
        return rel if rel in TOP_PAGES else "benchmark page"
    return "other"


def _payload(script: Path) -> dict[str, Any]:
    """An item-data chunk (`data/items/<benchmark>/text-N.js`): its JSON argument."""
    text = script.read_text(encoding="utf-8")
    payload: dict[str, Any] = json.loads(text[text.index(",") + 1 : text.rindex(")")])
    return payload


def longest_item(site: Path) -> str:
    """The item view of the item with the most text (its texts and the judges' details)."""
    best, size = "", -1
    for chunk in sorted((site / "data" / "items").glob("*/text-*.js")):
        for item, entry in _payload(chunk).items():
            length = sum(map(len, entry["texts"]))
            length += sum(len(t) for _, lines in entry["details"] for _, t in lines)
            if length > size:
                best, size = f"items/{chunk.parent.name}/item.html#{quote(item, safe='')}", length
    return best


def page_types(site: Path) -> dict[str, str]:
    """One page of every kind the site has, the heaviest of its kind (the item view: the item
    with the most text), as paths relative to the site: what the weights and audits rate."""
    found: dict[str, Path] = {}
    for page in sorted(site.rglob("*.html")):
        name = kind(page, site)
        if name in ("other", "release"):
            continue
        if name not in found or page.stat().st_size > found[name].stat().st_size:
            found[name] = page
    pages = {name: page.relative_to(site).as_posix() for name, page in sorted(found.items())}
    if "item view" in pages:
        pages["item view"] = longest_item(site)
    return pages


def landing_pages(site: Path) -> dict[str, str]:
    """The overview, the largest benchmark page, the longest item view and the largest judge
    page (those the site has), as paths relative to the site."""
    benchmarks = [p for p in site.glob("*.html") if kind(p, site) == "benchmark page"]
    judges = [p for p in (site / "judges").glob("*.html") if p.name != "index.html"]
    pages = {"overview": "index.html"}
    if benchmarks:
        pages["largest benchmark page"] = max(benchmarks, key=lambda p: p.stat().st_size).name
    if (site / "data" / "items").is_dir():
        pages["longest item view"] = longest_item(site)
    if judges:
        judge = max(judges, key=lambda p: p.stat().st_size)
        pages["judge page"] = judge.relative_to(site).as_posix()
    return pages
