"""Leaderboard v0: a real results store (real dataset, real scoring) rendered as a static site.

Expected cell texts are computed here from the store's own values and the scales StepMathAgent
Table 3 prints (AvgS x10, Corr/OR x100, MSE x1; answer metrics x100), not via the site's code.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import random
import shutil
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.errors import MathJudgeError
from mathjudge.leaderboard.export import download_names
from mathjudge.leaderboard.render import render_site
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.site import publish_and_render

SCRIPT_JUDGE = "<script>alert(1)</script>"
IMG_JUDGE = '"><img src=x onerror=alert(1)>'
# metric -> (column label, scale, decimals) as the paper's Table 3 shows them
PAPER = {
    "avg_score": ("AvgS", 10, 1),
    "gold_avg_score": ("Gold AvgS", 10, 1),
    "corr": ("Corr", 100, 1),
    "mse": ("MSE", 1, 2),
    "overlap": ("OR", 100, 1),
    "answer_avg_score": ("Ans AvgS", 100, 1),
    "answer_gold_avg_score": ("Gold Ans AvgS", 100, 1),
    "answer_corr": ("Ans Corr", 100, 1),
    "answer_mse": ("Ans MSE", 100, 1),
    "answer_overlap": ("Ans OR", 100, 1),
}


class Page(HTMLParser):
    """The parts of a page the tests read: tables as text grids, links, ids, headings."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.h2: list[str] = []
        self._rows: list[list[str]] = []
        self._text: list[str] | None = None
        self._caption = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.links += [v for k, v in attrs if k in ("href", "src") and v is not None]
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "table":
            self._rows = []
        elif tag == "tr":
            self._rows.append([])
        elif tag in ("th", "td", "caption", "h2"):
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("th", "td", "caption", "h2") and self._text is not None:
            text = " ".join("".join(self._text).split())
            self._text = None
            if tag == "caption":
                self._caption = text
            elif tag == "h2":
                self.h2.append(text)
            else:
                self._rows[-1].append(text)
        elif tag == "table":
            self.tables[self._caption] = self._rows

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def by_judge(grid: list[list[str]]) -> tuple[list[str], dict[str, list[str]]]:
    """(column headers, judge -> cells) of a metric table."""
    header_at = next(i for i, row in enumerate(grid) if row and row[0] == "Judge")
    rows = grid[header_at + 1 :]
    judges = [row[0] for row in rows]
    assert len(judges) == len(set(judges)), f"a judge appears twice: {judges}"
    return grid[header_at], {row[0]: row for row in rows}


def column(headers: list[str], metric: str) -> int:
    label = PAPER[metric][0]
    (index,) = [i for i, h in enumerate(headers) if h.startswith(label + " ")]
    return index


def paper_format(metric: str, x: float) -> str:
    _, scale, decimals = PAPER[metric]
    return f"{x * scale:.{decimals}f}"


def expected_cell(metric: str, value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "n/a"
    assert low is not None and high is not None
    return (
        f"{paper_format(metric, value)} [{paper_format(metric, low)}, {paper_format(metric, high)}]"
    )


# --- the store ------------------------------------------------------------------------------


def judges(gold: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(7)

    def clip(x: float) -> float:
        return float(min(10, max(0, x)))

    def flip(label: int, p: float) -> bool:
        return bool(label) != (rng.random() < p)

    return {
        "close judge": [
            {
                "item_id": r["uid"],
                "score": clip(r["gold_score"] + rng.choice((-1, 0, 0, 1))),
                "answer_correct": flip(r["gold_score_01"], 0.1),
            }
            for r in gold
        ],
        "harsh judge": [
            {
                "item_id": r["uid"],
                "score": clip(r["gold_score"] - 3 + rng.choice((-2, 0, 2))),
                "answer_correct": flip(r["gold_score_01"], 0.3),
            }
            for r in gold
        ],
        "constant judge": [
            {"item_id": r["uid"], "score": 5.0, "answer_correct": True} for r in gold
        ],
        SCRIPT_JUDGE: [
            {"item_id": r["uid"], "score": clip(rng.choice((r["gold_score"], 10)))} for r in gold
        ],
        IMG_JUDGE: [
            {
                "item_id": r["uid"],
                "score": clip(r["gold_score"] + rng.choice((-2, 0, 1))),
                "answer_correct": flip(r["gold_score_01"], 0.2),
            }
            for r in gold[:800]
        ],
    }


def evaluate(tmp: Path, ds_dir: Path, store: Path, judge: str, rows: list[dict[str, Any]]) -> None:
    preds = tmp / f"preds-{len(list(tmp.glob('preds-*')))}.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = evaluate_file(
        "stepmathbench",
        preds,
        judge,
        datasets_dir=ds_dir,
        n_boot=50,
        allow_partial=len(rows) < 1000,
        meta={"model": "<b>bold</b> <script>alert(2)</script>", "temperature": 0},
    )
    results_store.save(store, result)


@dataclass(frozen=True)
class Built:
    store: Path
    site: Path
    index: Path


@pytest.fixture(scope="module")
def built(
    tmp_path_factory: pytest.TempPathFactory,
    stepmath_rows: list[dict[str, Any]],
    datasets_dir: Path,
) -> Built:
    gold = stepmath_rows
    tmp = tmp_path_factory.mktemp("leaderboard")
    ds_dir = datasets_dir
    store = tmp / "results.duckdb"
    # An older submission of "harsh judge" that the site must not show.
    stale = [{"item_id": r["uid"], "score": 0.0, "answer_correct": False} for r in gold]
    evaluate(tmp, ds_dir, store, "harsh judge", stale)
    for judge, rows in judges(gold).items():
        evaluate(tmp, ds_dir, store, judge, rows)
    index = publish_and_render(store, tmp / "site")
    return Built(store, tmp / "site", index)


def latest_scores(store: Path) -> dict[str, dict[tuple[str, str, str], tuple[Any, ...]]]:
    """judge -> (scope, subset, metric) -> (value, ci_low, ci_high, n), latest submission."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        rows = con.execute(
            """SELECT sub.judge, s.scope, s.subset, s.metric, s.value, s.ci_low, s.ci_high, s.n
               FROM scores s JOIN submissions sub ON s.submission_id = sub.id
               WHERE sub.created = (SELECT max(created) FROM submissions o
                                    WHERE o.judge = sub.judge AND o.benchmark = sub.benchmark)
                 AND sub.benchmark = ?""",
            ["stepmathbench"],
        ).fetchall()
    finally:
        con.close()
    out: dict[str, dict[tuple[str, str, str], tuple[Any, ...]]] = {}
    for judge, scope, subset, metric, *rest in rows:
        out.setdefault(judge, {})[(scope, subset, metric)] = tuple(rest)
    return out


# --- tests ----------------------------------------------------------------------------------


def test_benchmark_page_shows_every_metric_with_paper_scale_and_ci(built: Built) -> None:
    scores = latest_scores(built.store)
    assert set(scores) == {"close judge", "harsh judge", "constant judge", SCRIPT_JUDGE, IMG_JUDGE}
    page = parse(built.site / "stepmathbench.html")
    for (scope, subset), caption in [
        (("overall", "all"), "All items"),
        (("type", "Proof"), "Type: Proof"),
        (("level", "2"), "Difficulty level 2"),
    ]:
        headers, rows = by_judge(page.tables[caption])
        assert set(rows) == set(scores)
        for judge, judge_scores in scores.items():
            for metric in PAPER:
                key = (scope, subset, metric)
                cell = rows[judge][column(headers, metric)]
                if key in judge_scores:
                    value, low, high, _ = judge_scores[key]
                    assert cell == expected_cell(metric, value, low, high), (judge, key)
                else:
                    assert cell == "—", (judge, key)  # field not submitted
            n = judge_scores[(scope, subset, "avg_score")][3]
            assert rows[judge][-1] == str(n)


def test_undefined_values_show_na_and_sort_last(built: Built) -> None:
    scores = latest_scores(built.store)["constant judge"]
    assert scores[("overall", "all", "corr")][0] is None  # the store says undefined
    page = parse(built.site / "stepmathbench.html")
    headers, rows = by_judge(page.tables["All items"])
    assert rows["constant judge"][column(headers, "corr")] == "n/a"
    assert rows["constant judge"][column(headers, "answer_corr")] == "n/a"
    assert list(rows)[-1] == "constant judge"
    corr = [float(r[column(headers, "corr")].split()[0]) for r in list(rows.values())[:-1]]
    assert corr == sorted(corr, reverse=True)
    text = (built.site / "stepmathbench.html").read_text(encoding="utf-8")
    assert 'title="undefined for this judge' in text


def test_scope_sections_coverage_hash_and_bootstrap(built: Built) -> None:
    page = parse(built.site / "stepmathbench.html")
    sections = [h for h in page.h2 if h not in ("Judges compared", "Plots")]
    assert sections[:4] == ["Overall", "By type", "By generator", "By level"]
    assert {"Type: Calculation", "Type: Proof", "Type: Open-ended"} <= set(page.tables)
    assert {f"Difficulty level {i}" for i in (1, 2, 3)} <= set(page.tables)
    _, rows = by_judge(page.tables["All items"])
    assert rows[IMG_JUDGE][-2] == "80.0% partial"
    assert rows["close judge"][-2] == "100%"
    con = duckdb.connect(str(built.store), read_only=True)
    (content_hash,) = con.execute("SELECT DISTINCT content_hash FROM submissions").fetchone() or ()
    con.close()
    text = (built.site / "stepmathbench.html").read_text(encoding="utf-8")
    assert content_hash in text
    assert "B = 50 resamples, seed 2" in text
    assert "95% confidence" in text and "cluster bootstrap" in text


def test_index_orders_each_benchmark_by_its_headline_with_standings(built: Built) -> None:
    """The front page's StepMathBench card: judges with a Corr value, best first, each with
    its rank interval or the reason it has none; the leader and whether its lead holds."""
    page = parse(built.index)
    assert "stepmathbench.html" in page.links
    grid = page.tables["StepMathBench: judges by Corr, best first"]
    assert grid[0][:3] == ["Rank", "Judge", "Corr ×100 [95% CI]"]
    rows = grid[1:]
    corr = {j: s[("overall", "all", "corr")] for j, s in latest_scores(built.store).items()}
    # The constant judge's Corr is undefined, so it has no place in a table ordered by Corr.
    expected = sorted((j for j in corr if corr[j][0] is not None), key=lambda j: -corr[j][0])
    assert [r[1] for r in rows] == expected
    for rank, judge, cell in rows:
        assert cell.startswith(expected_cell("corr", *corr[judge][:3]))
        if judge == IMG_JUDGE:  # 80% of the items: shown, not ranked
            assert rank == "partial 80.0%"
        else:
            assert rank.split()[1] == "group"
    text = built.index.read_text(encoding="utf-8")
    assert "Leads: <strong>" in text and "5 results" not in text and "4 results" in text
    assert "5 judges" not in text


def assert_links_resolve(site: Path) -> None:
    """Every href/src is relative, stays inside the site, and names an existing file and id."""
    for page_path in sorted(site.rglob("*.html")):
        page = parse(page_path)
        assert page.links
        for link in page.links:
            parts = urlsplit(link)
            assert not parts.scheme and not parts.netloc, f"{page_path.name}: external {link}"
            target = (page_path.parent / unquote(parts.path)).resolve() if parts.path else page_path
            assert target.is_file(), f"{page_path.name}: broken link {link}"
            assert site.resolve() in target.parents
            if parts.fragment:
                assert parts.fragment in parse(target).ids, f"{page_path.name}: {link}"


def test_every_relative_link_resolves_and_nothing_is_external(built: Built) -> None:
    pages = {p.name for p in built.site.glob("*.html")}
    assert pages == {
        "index.html", "stepmathbench.html", "methodology.html", "downloads.html", "submit.html"
    }  # fmt: skip
    assert len(list((built.site / "items" / "stepmathbench").glob("*.html"))) == 1001
    assert_links_resolve(built.site)


def test_downloads_hold_the_store_numbers(built: Built) -> None:
    scores = latest_scores(built.store)
    with (built.site / "data" / "stepmathbench_scores.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == sum(len(s) for s in scores.values())
    for row in rows:
        value, low, high, n = scores[row["judge"]][(row["scope"], row["subset"], row["metric"])]
        assert (float(row["value"]) if row["value"] else None) == value
        assert (float(row["ci_low"]) if row["ci_low"] else None) == low
        assert (float(row["ci_high"]) if row["ci_high"] else None) == high
        assert int(row["n"]) == n
        assert row["content_hash"].startswith("sha256:")
    data = json.loads((built.site / "data" / "stepmathbench_scores.json").read_text("utf-8"))
    assert len(data["rows"]) == len(rows)
    board = json.loads((built.site / "data" / "leaderboard.json").read_text("utf-8"))
    assert board["schema_version"] == 4
    assert board["generated_from"]["submissions_in_store"] == 6
    assert [b["name"] for b in board["benchmarks"]] == ["stepmathbench"]


def test_untrusted_strings_are_escaped_everywhere(built: Built) -> None:
    for path in built.site.glob("*.html"):
        text = path.read_text(encoding="utf-8")
        assert "<script>" not in text.lower() and "alert(2)</script" not in text, path.name
        assert "<img src=x" not in text and "<b>bold" not in text, path.name
    text = (built.site / "stepmathbench.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    _, rows = by_judge(parse(built.site / "stepmathbench.html").tables["All items"])
    assert SCRIPT_JUDGE in rows and IMG_JUDGE in rows  # shown, as text


def test_reported_result_with_unknown_metric_renders_from_data_files(tmp_path: Path) -> None:
    """The renderer needs only the exported files: a reported result (no bootstrap, a citation)
    with a metric the schema does not know is labelled and shown unscaled, not dropped."""
    score = {"scope": "overall", "subset": "all", "n": 3, "ci_low": 0.1, "ci_high": 0.3}
    submission = {
        "id": "abc", "judge": "paper judge", "source": "reported",
        "citation": "<i>Some et al.</i> 2025", "coverage": 1.0, "partial": False,
        "dataset_version": "1.0.0", "content_hash": "sha256:x", "meta": {}, "sha256": "0" * 64,
        "created": "2025-01-01T00:00:00+00:00", "n_items": 3, "runs": 1, "runs_agg": "mean",
        "fields": ["score"], "bootstrap": {}, "mathjudge_version": "0.1.0", "extras": {},
        "scores": [
            {**score, "metric": "corr", "value": 0.5},
            {**score, "metric": "brier", "value": 0.123456},
        ],
    }  # fmt: skip
    bench = {
        "name": "stepmathbench",
        "downloads": download_names("stepmathbench"),
        "presentation": dataclasses.asdict(registry.get("stepmathbench").presentation()),
        "ranks": {"status": "not ranked: no reproduced judge"},
    }
    doc = {
        "schema_version": 4,
        "datasets": [],
        "generated_from": {
            "store": "r.duckdb", "submissions_in_store": 1, "mathjudge_version": "0.1.0",
            "latest_submission": submission["created"],
        },
        "benchmarks": [{**bench, "submissions": [submission]}],
    }  # fmt: skip
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "leaderboard.json").write_text(json.dumps(doc), encoding="utf-8")
    render_site(tmp_path)
    page = parse(tmp_path / "stepmathbench.html")
    headers, rows = by_judge(page.tables["All items"])
    assert headers[1] == "Rank"  # a reported result has none: a dash
    assert headers[2].startswith("Corr ×100") and headers[3].startswith("brier")
    assert rows["paper judge reported"][1:4] == ["—", "50.0 [10.0, 30.0]", "0.1235 [0.1, 0.3]"]
    text = (tmp_path / "stepmathbench.html").read_text(encoding="utf-8")
    # No bootstrap line of ours for a reported result, and no contradicting "none recorded".
    assert "Bootstrap of" not in text and "none recorded" not in text
    assert "1 result reported in papers" in text
    assert "&lt;i&gt;Some et al.&lt;/i&gt; 2025" in text and "<i>Some" not in text


def test_a_file_that_is_not_a_store_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "results.duckdb").write_text("not a database", encoding="utf-8")
    with pytest.raises(MathJudgeError, match="cannot read as a mathjudge results store"):
        publish_and_render(tmp_path / "results.duckdb", tmp_path / "site")


def test_rebuild_replaces_site_without_leftovers(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "site"
    publish_and_render(built.store, out)
    (out / "stale.html").write_text("old", encoding="utf-8")
    index = publish_and_render(built.store, out)
    assert index == out / "index.html" and index.is_file()
    assert not (out / "stale.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_refuses_to_replace_an_unrelated_folder(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious", encoding="utf-8")
    with pytest.raises(MathJudgeError, match="not a mathjudge site"):
        publish_and_render(built.store, out)
    assert (out / "thesis.tex").read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_empty_store_renders_a_friendly_page(tmp_path: Path) -> None:
    store = tmp_path / "results.duckdb"
    results_store.connect(store).close()
    index = publish_and_render(store, tmp_path / "site")
    text = index.read_text(encoding="utf-8")
    assert "No results yet" in text and "mathjudge evaluate" in text
    pages = sorted(p.name for p in (tmp_path / "site").glob("*.html"))
    assert pages == ["downloads.html", "index.html", "methodology.html", "submit.html"]
    assert_links_resolve(index.parent)


def test_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MathJudgeError, match="no results store"):
        publish_and_render(tmp_path / "nope.duckdb", tmp_path / "site")
    assert not (tmp_path / "site").exists()


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize("helper_items", [False, True])
def test_the_page_process_renders_the_same_site(
    built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, helper_items: bool
) -> None:
    """The second process renders benchmark pages, plots and a share of the item pages from the
    data files; the site is byte for byte the one a single process renders (with the helper
    drawing only the benchmark pages and plots, and with it rendering every item page too)."""
    from mathjudge.leaderboard import render
    from mathjudge.leaderboard.pageprocess import PageProcess

    # A benchmark page costed as free or as dear as the world: the one benchmark's item pages
    # go to the helper, or stay here.
    monkeypatch.setattr(render, "BENCHMARK_PAGE_COST", 0 if helper_items else 10**9)
    alone, helped = tmp_path / "alone", tmp_path / "helped"
    for site in (alone, helped):
        shutil.copytree(built.site / "data", site / "data")
    render_site(alone)
    with PageProcess() as helper:
        render_site(helped, helper=helper)
    document = json.loads((helped / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    handed = render._helper_share(helped, document["benchmarks"])
    assert handed == ({"stepmathbench"} if helper_items else set())
    ours, theirs = _tree(alone), _tree(helped)
    assert sorted(ours) == sorted(theirs)
    assert len([f for f in ours if f.startswith("items/stepmathbench/")]) == 1001
    assert [f for f in ours if ours[f] != theirs[f]] == []


def test_item_pages_are_shared_out_so_both_processes_finish_together(tmp_path: Path) -> None:
    """Largest benchmark first, each to the process with less work so far: with the demo's
    item counts and 146 submissions, 1,243 item pages go to the helper and 1,270 stay here
    (hand-computed from the costs: 900 + 1,243 against 876 + 1,270)."""
    from mathjudge.leaderboard import render

    counts = {"stepmathbench": 1000, "mrmath": 459, "opc": 434, "judgebench": 350,
              "judgebench_claude": 270}  # fmt: skip
    docs = []
    (tmp_path / "data").mkdir()
    for name, n in counts.items():
        file = f"{name}_items.parquet"
        pq.write_table(pa.table({"item_id": [str(i) for i in range(n)]}), tmp_path / "data" / file)
        docs.append({"name": name, "items": {"status": "exported", "downloads": {"items": file}},
                     "submissions": [{}] * (16 if name != "opc" else 2)})  # fmt: skip
    docs += [{"name": f"paper-only-{i}", "items": {"status": "no reproduced judge"},
              "submissions": [{}] * 20} for i in range(4)]  # fmt: skip
    assert sum(len(d["submissions"]) for d in docs) == 146 and len(docs) == 9
    assert render._helper_share(tmp_path, docs) == {"mrmath", "opc", "judgebench"}


def test_a_failing_page_process_leaves_the_site_as_it_was(
    built: Built, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mathjudge.leaderboard import pageprocess

    out = tmp_path / "site"
    publish_and_render(built.store, out)
    before = _tree(out)
    monkeypatch.setattr(pageprocess, "WORKER", "mathjudge.no_such_module")
    with pytest.raises(MathJudgeError, match=r"process rendering pages .*\(exit 1\).*no_such"):
        publish_and_render(built.store, out)
    assert _tree(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
