"""The demo's site, for the browser tests of what a reader of the published leaderboard sees:
every benchmark the shared mirror holds, the baselines, the judges converted from the authors'
published outputs and the papers' tables, as `mathjudge demo` builds them.

The store is the session's one demo run (`demo_run` in tests/conftest.py). The site is
rendered afresh from a copy of it, with the texts of local-only datasets kept as the demo keeps
them, and once more with the address of a repository for the Submit page.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mathjudge.api import publish_site

REPO_URL = "https://github.com/example-org/math-judges"


@dataclass
class DemoSite:
    root: Path  # built with REPO_URL
    bare: Path  # the same store, built without a repository address

    def url(self, path: str, root: Path | None = None) -> str:
        page, _, fragment = path.partition("#")
        return ((root or self.root) / page).as_uri() + (f"#{fragment}" if fragment else "")

    def document(self) -> dict[str, Any]:
        text = (self.root / "data" / "leaderboard.json").read_text(encoding="utf-8")
        loaded: dict[str, Any] = json.loads(text)
        return loaded

    def bench(self, name: str) -> dict[str, Any]:
        return next(b for b in self.document()["benchmarks"] if b["name"] == name)

    def items(self, bench: str) -> dict[str, Any]:
        """The item index a benchmark's pages load (data/items/<bench>/index.js)."""
        return payload(self.root / "data" / "items" / bench / "index.js")

    def pages(self) -> list[str]:
        return sorted(
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*.html")
            if "releases" not in p.parts
        )


def payload(script: Path) -> dict[str, Any]:
    text = script.read_text(encoding="utf-8")
    payload: dict[str, Any] = json.loads(text[text.index(",") + 1 : text.rindex(")")])
    return payload


def build(store: Path, tmp: Path) -> DemoSite:
    """The demo's site from a copy of `store` (publishing writes the document into it)."""
    copy = tmp / "results.duckdb"
    shutil.copyfile(store, copy)
    root, bare = tmp / "site", tmp / "site-bare"
    publish_site(copy, root, local_texts=True, repo_url=REPO_URL)
    publish_site(copy, bare, local_texts=True)
    return DemoSite(root=root, bare=bare)
