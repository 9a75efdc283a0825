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
import pytest

from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.api import publish_site
from mathjudge.base.errors import MathJudgeError
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.site.export import download_names
from mathjudge.site.render import render_site

SCRIPT_JUDGE = "<script>alert(1)</script>"
MAIN = "StepMathBench: every judge on all items"  # caption of the benchmark page's main table
OUR_INLINE_SCRIPT = '<script>document.documentElement.classList.add("js")</script>'
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
        self.h3: list[str] = []
        self.badges: dict[str, list[str]] = {}  # cell text -> its source badges
        self._rows: list[list[str]] = []
        self._text: list[str] | None = None
        self._badges: list[str] | None = None  # inside a cell's span.badges
        self._depth = 0
        self._caption = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.links += [v for k, v in attrs if k in ("href", "src") and v is not None]
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if self._badges is not None:
            self._depth += tag == "span"
        elif tag == "span" and values.get("class") == "badges" and self._text is not None:
            self._badges, self._depth = [], 1
        if tag == "table":
            self._rows = []
        elif tag == "tr":
            self._rows.append([])
        elif tag in ("th", "td", "caption", "h2", "h3"):
            self._text = []

    def handle_endtag(self, tag: str) -> None:
        if self._badges is not None and tag == "span":
            self._depth -= 1
            if self._depth == 0:
                self._pending = self._badges
                self._badges = None
            return
        if tag in ("th", "td", "caption", "h2", "h3") and self._text is not None:
            text = " ".join("".join(self._text).split())
            self._text = None
            if tag == "caption":
                self._caption = text
            elif tag in ("h2", "h3"):
                getattr(self, tag).append(text)
            else:
                self._rows[-1].append(text)
                if getattr(self, "_pending", None) is not None:
                    self.badges[text] = self._pending
                    self._pending = None
        elif tag == "table":
            self.tables[self._caption] = self._rows

    def handle_data(self, data: str) -> None:
        if self._badges is not None:
            if data.strip():
                self._badges.append(data.strip())
        elif self._text is not None:
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
    index = publish_site(store, tmp / "site")
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


@pytest.mark.slow
def test_benchmark_page_shows_every_metric_with_paper_scale_and_ci(built: Built) -> None:
    scores = latest_scores(built.store)
    assert set(scores) == {"close judge", "harsh judge", "constant judge", SCRIPT_JUDGE, IMG_JUDGE}
    page = parse(built.site / "stepmathbench.html")
    # Every metric overall; a scope's table holds the headline per subset (the scope test
    # below), every metric per subset is in the downloads (test_downloads_hold_the_store_numbers).
    for scope, subset in [("overall", "all")]:
        headers, rows = by_judge(page.tables[MAIN])
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
            n = judge_scores[(scope, subset, "corr")][3]  # the headline's
            assert rows[judge][-2] == str(n)
            assert page.badges[judge] == ["reproduced"]


@pytest.mark.slow
def test_undefined_values_show_na_and_sort_last(built: Built) -> None:
    scores = latest_scores(built.store)["constant judge"]
    assert scores[("overall", "all", "corr")][0] is None  # the store says undefined
    page = parse(built.site / "stepmathbench.html")
    headers, rows = by_judge(page.tables[MAIN])
    assert rows["constant judge"][column(headers, "corr")] == "n/a"
    assert rows["constant judge"][column(headers, "answer_corr")] == "n/a"
    assert list(rows)[-1] == "constant judge"
    corr = [float(r[column(headers, "corr")].split()[0]) for r in list(rows.values())[:-1]]
    assert corr == sorted(corr, reverse=True)
    text = (built.site / "stepmathbench.html").read_text(encoding="utf-8")
    assert 'title="undefined for this judge' in text


@pytest.mark.slow
def test_scope_sections_coverage_hash_and_bootstrap(built: Built) -> None:
    page = parse(built.site / "stepmathbench.html")
    assert page.h3[:3] == ["By type", "By generator", "By level"]
    # A scope is one table of the headline on each of its subsets, as the store holds it.
    headers, by_type = by_judge(page.tables["StepMathBench: Corr ×100 by type"])
    assert headers[1:] == ["Type: Calculation", "Type: Proof", "Type: Open-ended"]
    stored = latest_scores(built.store)["close judge"][("type", "Proof", "corr")]
    assert by_type["close judge"][2] == expected_cell("corr", *stored[:3])
    headers, _ = by_judge(page.tables["StepMathBench: Corr ×100 by level"])
    assert {f"Difficulty level {i}" for i in (1, 2, 3)} <= set(headers)
    _, rows = by_judge(page.tables[MAIN])
    assert rows[IMG_JUDGE][-1] == "80.0% partial"
    assert rows["close judge"][-1] == "100%"
    con = duckdb.connect(str(built.store), read_only=True)
    (content_hash,) = con.execute("SELECT DISTINCT content_hash FROM submissions").fetchone() or ()
    con.close()
    text = (built.site / "stepmathbench.html").read_text(encoding="utf-8")
    assert content_hash in text
    assert "B = 50 resamples, seed 2" in text
    assert "95% interval" in text and "cluster bootstrap" in text


@pytest.mark.slow
def test_index_orders_each_benchmark_by_its_headline_with_standings(built: Built) -> None:
    """The front page's StepMathBench card: judges with a Corr value, best first, each with
    its rank interval or the reason it has none; the glance names the leader, the metric, its
    direction, interval and n, and whether the lead holds."""
    page = parse(built.index)
    assert "stepmathbench.html" in page.links
    grid = page.tables["StepMathBench: judges by Corr ×100, best first"]
    assert grid[0][:3] == ["Rank", "Judge", "Corr ×100 ↑ (higher is better) [95% CI]"]
    rows = grid[1:]
    scores = latest_scores(built.store)
    corr = {j: s[("overall", "all", "corr")] for j, s in scores.items()}
    # The constant judge's Corr is undefined, so it has no place in a table ordered by Corr.
    expected = sorted((j for j in corr if corr[j][0] is not None), key=lambda j: -corr[j][0])
    assert [r[1] for r in rows] == expected
    for rank, judge, cell in rows:
        # The value and its interval; the number of items is in the glance and on the board's page.
        assert cell == expected_cell("corr", *corr[judge][:3])
        if judge == IMG_JUDGE:  # 80% of the items: shown, not ranked
            assert rank == "partial 80.0%"
        else:
            assert rank.split()[1] == "group"
    text = built.index.read_text(encoding="utf-8")
    glance = text[text.index('class="glance"') : text.index("</section>")]
    leader = expected[0]
    assert f">{leader}</a>" in glance.replace("&lt;", "<").replace("&gt;", ">")
    assert 'Corr ×100</span> <span class="dir">↑ higher is better' in glance
    assert expected_cell("corr", *corr[leader][:3]).split(" ", 1)[1] in glance  # the interval
    assert f"n = {corr[leader][3]}" in glance
    assert "significant lead" in glance or "tied with" in glance
    # One count of results on every page: all five judges, the undefined one too.
    assert "5 results (5 reproduced)" in text
    bench = (built.site / "stepmathbench.html").read_text(encoding="utf-8")
    assert "5 results (5 reproduced)" in bench and "Submissions (5)" in bench


def assert_links_resolve(site: Path) -> None:
    """Every href/src is relative, stays inside the site, and names an existing file and id
    (the item pages' fragments name an item or a filter, read by their script)."""
    for page_path in sorted(site.rglob("*.html")):
        page = parse(page_path)
        assert page.links
        for link in page.links:
            parts = urlsplit(link)
            assert not parts.scheme and not parts.netloc, f"{page_path.name}: external {link}"
            target = (page_path.parent / unquote(parts.path)).resolve() if parts.path else page_path
            assert target.is_file(), f"{page_path.name}: broken link {link}"
            assert site.resolve() in target.parents
            if parts.fragment and "items" not in target.relative_to(site.resolve()).parts:
                assert parts.fragment in parse(target).ids, f"{page_path.name}: {link}"


@pytest.mark.slow
def test_every_relative_link_resolves_and_nothing_is_external(built: Built) -> None:
    pages = {p.name for p in built.site.glob("*.html")}
    assert pages == {
        "index.html", "stepmathbench.html", "methodology.html", "downloads.html", "submit.html"
    }  # fmt: skip
    # The benchmark's 1,000 items: the explorer's five pages of 200 and the one item view.
    assert sorted(p.name for p in (built.site / "items" / "stepmathbench").iterdir()) == [
        "index.html", "item.html", "page-2.html", "page-3.html", "page-4.html", "page-5.html"
    ]  # fmt: skip
    assert_links_resolve(built.site)


@pytest.mark.slow
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
    assert board["schema_version"] == 5
    assert board["generated_from"]["submissions_in_store"] == 6
    assert [b["name"] for b in board["benchmarks"]] == ["stepmathbench"]


@pytest.mark.slow
def test_untrusted_strings_are_escaped_everywhere(built: Built) -> None:
    for path in built.site.glob("*.html"):
        # base.html's own inline script (it marks the page as scripted before the first paint)
        # is the one script element without a src; anything else would be injected.
        text = path.read_text(encoding="utf-8").replace(OUR_INLINE_SCRIPT, "", 1)
        assert "<script>" not in text.lower() and "alert(2)</script" not in text, path.name
        assert "<img src=x" not in text and "<b>bold" not in text, path.name
    text = (built.site / "stepmathbench.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    _, rows = by_judge(parse(built.site / "stepmathbench.html").tables[MAIN])
    assert SCRIPT_JUDGE in rows and IMG_JUDGE in rows  # shown, as text


def test_reported_result_with_unknown_metric_renders_from_data_files(tmp_path: Path) -> None:
    """The renderer needs only the exported files: a reported result (no bootstrap, a citation)
    with a metric the schema does not know is labelled and shown unscaled, not dropped."""
    score = {"scope": "overall", "subset": "all", "n": 3, "ci_low": 0.1, "ci_high": 0.3}
    submission = {
        "id": "abc", "benchmark": "stepmathbench", "judge": "paper judge", "source": "reported",
        "provenance": "paper",
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
        "schema_version": 5,
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
    headers, rows = by_judge(page.tables[MAIN])
    assert headers[1] == "Rank"  # a paper's result has none: says so
    assert headers[2].startswith("Corr ×100") and headers[3].startswith("brier")
    assert rows["paper judge"][1:4] == ["paper", "50.0 [10.0, 30.0]", "0.1235 [0.1, 0.3]"]
    assert page.badges["paper judge"] == ["paper"]
    text = (tmp_path / "stepmathbench.html").read_text(encoding="utf-8")
    # No bootstrap line of ours for a reported result, and no contradicting "none recorded".
    assert "Bootstrap of" not in text and "none recorded" not in text
    assert "1 result copied from papers" in text
    assert "&lt;i&gt;Some et al.&lt;/i&gt; 2025" in text and "<i>Some" not in text


def test_a_file_that_is_not_a_store_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "results.duckdb").write_text("not a database", encoding="utf-8")
    with pytest.raises(MathJudgeError, match="cannot read as a mathjudge results store"):
        publish_site(tmp_path / "results.duckdb", tmp_path / "site")


@pytest.mark.slow
def test_rebuild_replaces_site_without_leftovers(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "site"
    publish_site(built.store, out)
    (out / "stale.html").write_text("old", encoding="utf-8")
    index = publish_site(built.store, out)
    assert index == out / "index.html" and index.is_file()
    assert not (out / "stale.html").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


@pytest.mark.slow
def test_refuses_to_replace_an_unrelated_folder(built: Built, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("precious", encoding="utf-8")
    with pytest.raises(MathJudgeError, match="not a mathjudge site"):
        publish_site(built.store, out)
    assert (out / "thesis.tex").read_text(encoding="utf-8") == "precious"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


@pytest.mark.slow
def test_empty_store_renders_a_friendly_page(tmp_path: Path) -> None:
    store = tmp_path / "results.duckdb"
    results_store.connect(store).close()
    index = publish_site(store, tmp_path / "site")
    text = index.read_text(encoding="utf-8")
    assert "No results yet" in text and "mathjudge evaluate" in text
    pages = sorted(p.name for p in (tmp_path / "site").glob("*.html"))
    assert pages == ["downloads.html", "index.html", "methodology.html", "submit.html"]
    assert_links_resolve(index.parent)


def test_missing_store_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MathJudgeError, match="no results store"):
        publish_site(tmp_path / "nope.duckdb", tmp_path / "site")
    assert not (tmp_path / "site").exists()


@pytest.mark.slow
def test_an_unchanged_store_is_published_without_ranking_again(
    built: Built,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stepmath_rows: list[dict[str, Any]],
    datasets_dir: Path,
) -> None:
    """Ranking every judge is most of a site build; the document is a function of the store
    and the code, so publishing an unchanged store keeps the stored document, and any change
    to either ranks anew."""
    from mathjudge.document import publish as publishing

    store = tmp_path / "results.duckdb"
    shutil.copyfile(built.store, store)
    first = publishing.publish(store)
    ranked = {b.name: b.ranks for b in first.benchmarks}

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("ranked again")

    monkeypatch.setattr(publishing, "rank_benchmark", refuse)
    again = publishing.publish(store)
    assert again.model_dump() == first.model_dump()
    # A new submission, or other code, makes it another document: ranked anew.
    rows = [{"item_id": r["uid"], "score": float(r["gold_score"])} for r in stepmath_rows]
    evaluate(tmp_path, datasets_dir, store, "gold copier", rows)
    with pytest.raises(AssertionError, match="ranked again"):
        publishing.publish(store)
    monkeypatch.undo()
    fresh = publishing.publish(store)
    assert "gold copier" in {s.judge for b in fresh.benchmarks for s in b.submissions}
    assert {b.name: b.ranks for b in fresh.benchmarks} != ranked
    monkeypatch.setattr(publishing, "rank_benchmark", refuse)
    monkeypatch.setattr(publishing, "code_digest", lambda: "other code")
    with pytest.raises(AssertionError, match="ranked again"):
        publishing.publish(store)
