"""The site's dataset page lists every version of the dataset the results store holds."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from mathjudge import store as results_store
from mathjudge.api import publish_site
from mathjudge.scoring.evaluator import dataset_snapshot, evaluate_file


@pytest.mark.slow
def test_the_dataset_page_lists_every_stored_version_newest_first(
    datasets_dir: Path, stepmath_rows: list[dict], tmp_path: Path
) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        "".join(
            json.dumps({"item_id": r["uid"], "score": r["gold_score"]}) + "\n"
            for r in stepmath_rows
        )
    )
    store = tmp_path / "results.duckdb"
    result = evaluate_file("stepmathbench", preds, "exact", datasets_dir=datasets_dir, n_boot=20)
    results_store.save(store, result)
    current = dataset_snapshot("stepmathbench", datasets_dir)
    older = replace(
        current,
        version="1.0.0",
        content_hash="sha256:" + "0" * 64,
        manifest={**current.manifest, "version": "1.0.0", "sources": [{"revision": "old"}]},
    )
    later_minor = replace(
        older,
        version="1.10.0",
        content_hash="sha256:" + "1" * 64,
        manifest={**older.manifest, "version": "1.10.0"},
    )
    results_store.save_datasets(store, [older, later_minor])
    publish_site(store, tmp_path / "site")

    page = (tmp_path / "site" / "datasets" / "stepmathbench.html").read_text(encoding="utf-8")
    versions = re.search(r"<h2>Versions</h2>(.*?)</table>", page, re.S).group(1)
    rows = re.findall(
        r'<tr><th scope="row">([^<]+)</th><td[^>]*><code class="hash">([^<]+)</code></td>'
        r'<td[^>]*><code class="hash">([^<]*)</code></td><td class="num"[^>]*>(\d+)</td></tr>',
        versions,
    )
    revision = current.manifest["sources"][0]["revision"]
    assert rows == [
        ("1.10.0", "sha256:" + "1" * 64, "old", "0"),  # numeric order: 1.10.0 after 1.1.0
        (current.version, current.content_hash, revision, "1"),
        ("1.0.0", "sha256:" + "0" * 64, "old", "0"),
    ]
    # The rest of the page describes the newest version.
    assert "<dt>Version</dt><dd>1.10.0</dd>" in page
