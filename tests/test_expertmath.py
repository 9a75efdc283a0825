"""ExpertMath-style packages: strict validation, the built dataset, and every ranking metric
against hand-computed values (ties, a variant with one correct candidate, an original with
several variants), plus a cross-check against a plain-Python reading of the definitions."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import datasets
import duckdb
import pytest
import yaml
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks.expertmath import build as builder
from mathjudge.benchmarks.expertmath.length import solution_length
from mathjudge.cli import main
from mathjudge.dataio.writer import write_dataset
from mathjudge.scoring.evaluator import evaluate_file

BENCH = "expertmath"

# original -> (variants, {problem: [(candidate, source, correct, score)]}); candidate order
# within a problem is file-name order, which is the order written here.
SPEC: dict[str, tuple[list[str], dict[str, list[tuple[str, str, bool, float]]]]] = {
    "o1": (
        ["v1a", "v1b", "v1c"],  # v1c has no candidates: a neighbourhood question only
        {
            "o1": [
                ("o1-a", "human", True, 5),
                ("o1-b", "m1", True, 9),
                ("o1-c", "m2", False, 9),  # ties with o1-b, which comes first
                ("o1-d", "m1", True, 2),
                ("o1-e", "m2", False, 7),
                ("o1-f", "m3", False, 1),
                ("o1-g", "m3", True, 3),
            ],
            "v1a": [
                ("v1a-a", "human", True, 4),
                ("v1a-b", "m1", False, 4),
                ("v1a-c", "m2", True, 1),
            ],
            "v1b": [
                ("v1b-a", "m1", False, 6),  # ties with the correct one and comes first
                ("v1b-b", "m2", True, 6),
                ("v1b-c", "m3", False, 0),
            ],
        },
    ),
    "o2": (
        [],
        {
            "o2": [
                ("o2-a", "human", True, 10),
                ("o2-b", "m1", False, 3),
                ("o2-c", "m2", False, 3),
                ("o2-d", "m3", True, 3),
            ]
        },
    ),
    "o3": (
        ["v3a"],
        {
            "o3": [
                ("o3-a", "m1", False, 2),
                ("o3-b", "m2", True, 1),
                ("o3-c", "m3", False, 0),
            ],
            "v3a": [  # one correct candidate, ranked sixth
                ("v3a-a", "human", True, 0),
                ("v3a-b", "m1", False, 5),
                ("v3a-c", "m2", False, 4),
                ("v3a-d", "m3", False, 3),
                ("v3a-e", "m4", False, 2),
                ("v3a-f", "m5", False, 1),
            ],
        },
    ),
}

# Worked by hand from SPEC (see the comments in each problem above):
# o1:  acc 1, recall 3/4, auc 5.5/12, human 0, mean 0        (ranking b c e a g d f)
# v1a: acc 1, recall 1,   auc 1/4,    human 1/2, mean 0
# v1b: acc 0, recall 1,   auc 3/4,    human n/a, mean 1
# o2:  acc 1, recall 1,   auc 3/4,    human 1, mean 1
# o3:  acc 0, recall 1,   auc 1/2,    human n/a, mean 1/2
# v3a: acc 0, recall 0,   auc 0,      human 0, mean 0
EXPECTED = {
    ("overall", "all"): {
        "acc_at_1": Fraction(5, 9),
        "recall_at_5": Fraction(29, 36),
        "auc": Fraction(107, 216),
        "human_win": Fraction(5, 12),
        "mean_win": Fraction(19, 36),
    },
    ("problem_kind", "original"): {
        "acc_at_1": Fraction(2, 3),
        "recall_at_5": Fraction(11, 12),
        "auc": Fraction(41, 72),
        "human_win": Fraction(1, 2),
        "mean_win": Fraction(1, 2),
    },
    ("problem_kind", "variant"): {
        "acc_at_1": Fraction(1, 4),
        "recall_at_5": Fraction(1, 2),
        "auc": Fraction(1, 4),
        "human_win": Fraction(1, 4),
        "mean_win": Fraction(1, 4),
    },
}


def write_package(root: Path, spec=SPEC, *, name: str = "tiny") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.yaml").write_text(
        yaml.safe_dump({"name": name, "version": "0.1", "license": "cc-by-4.0"}),
        encoding="utf-8",
    )
    for original, (variants, pools) in spec.items():
        folder = root / original
        (folder / "candidates").mkdir(parents=True)
        problem = {
            "statement": f"Statement of {original}.",
            "answer": "42",
            "solution": f"Expert solution of {original}.",
            "variants": [
                {"id": v, "statement": f"Statement of {v}.", "answer": "7", "solution": "Easy."}
                for v in variants
            ],
        }
        (folder / "problem.yaml").write_text(yaml.safe_dump(problem), encoding="utf-8")
        for problem_id, pool in pools.items():
            for cand, source, correct, _ in pool:
                front = {"source": source, "correct": correct}
                if problem_id != original:
                    front["problem"] = problem_id
                text = f"---\n{yaml.safe_dump(front)}---\nCandidate {cand} " + "word " * 3
                (folder / "candidates" / f"{cand}.md").write_text(text, encoding="utf-8")
    return root


def scores_of(spec=SPEC) -> dict[str, float]:
    return {c: s for _, pools in spec.values() for pool in pools.values() for c, *_, s in pool}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("expertmath")
    out = root / "datasets"
    write_dataset(builder.build(write_package(root / "package")), out)
    return out


def evaluate(datasets_dir: Path, tmp: Path, rows: list[dict], **kwargs):
    path = write_jsonl(tmp / "preds.jsonl", rows)
    return evaluate_file(BENCH, path, "judge", datasets_dir=datasets_dir, n_boot=200, **kwargs)


def by_key(result) -> dict[tuple[str, str, str], float]:
    return {(s.scope, s.subset, s.metric): s.value for s in result.scores}


def test_metrics_match_hand_computed_values(tiny: Path, tmp_path: Path) -> None:
    rows = [{"item_id": c, "score": s} for c, s in scores_of().items()]
    values = by_key(evaluate(tiny, tmp_path, rows))
    for (scope, subset), metrics in EXPECTED.items():
        for metric, expected in metrics.items():
            assert values[(scope, subset, metric)] == pytest.approx(float(expected), abs=1e-12), (
                scope,
                subset,
                metric,
            )


def test_ci_resamples_originals_and_brackets_the_value(tiny: Path, tmp_path: Path) -> None:
    rows = [{"item_id": c, "score": s} for c, s in scores_of().items()]
    result = evaluate(tiny, tmp_path, rows)
    assert result.to_json()["bootstrap"]["unit"] == "original_id"
    acc = next(s for s in result.scores if s.scope == "overall" and s.metric == "acc_at_1")
    # Per-original acc values are 2/3, 1 and 0: every resample mean lies in [0, 1], and with
    # three clusters the interval cannot be a single point.
    assert 0 <= acc.ci_low < acc.value < acc.ci_high <= 1
    assert acc.n == 26


def test_runs_are_averaged_before_ranking(tiny: Path, tmp_path: Path) -> None:
    """Two runs whose mean is SPEC's scores give SPEC's metrics."""
    rows = []
    for c, s in scores_of().items():
        rows += [{"item_id": c, "run": 0, "score": s + 1}, {"item_id": c, "run": 1, "score": s - 1}]
    values = by_key(evaluate(tiny, tmp_path, rows))
    assert values[("overall", "all", "auc")] == pytest.approx(107 / 216)
    assert ("run", "run=0", "auc") in values


def test_partial_submission_ranks_the_answered_candidates(tiny: Path, tmp_path: Path) -> None:
    """Only o2 answered, without its human candidate: metrics over o2's other three."""
    rows = [
        {"item_id": c, "score": s} for c, s in scores_of().items() if c in ("o2-b", "o2-c", "o2-d")
    ]
    result = evaluate(tiny, tmp_path, rows, allow_partial=True)
    values = by_key(result)
    assert result.partial
    # ranking b(3) c(3) d(3) by order: wrong first; the one correct is third of three
    assert values[("overall", "all", "acc_at_1")] == 0
    assert values[("overall", "all", "recall_at_5")] == 1
    assert values[("overall", "all", "auc")] == 0.5
    assert values[("overall", "all", "human_win")] is None
    assert values[("overall", "all", "mean_win")] == 0.5


def reference_metrics(spec, scores: dict[str, float]) -> dict[str, float]:
    """The metric definitions read literally, in plain Python, for the overall scope."""
    per_original: dict[str, dict[str, list[float]]] = {}
    for original, (_, pools) in spec.items():
        acc: dict[str, list[float]] = {m: [] for m in ("acc", "rec", "auc", "hw", "mw")}
        for pool in pools.values():
            ranked = sorted(enumerate(pool), key=lambda t: (-scores[t[1][0]], t[0]))
            correct = [scores[c] for c, _, ok, _ in pool if ok]
            wrong = [scores[c] for c, _, ok, _ in pool if not ok]
            acc["acc"].append(float(ranked[0][1][2]))
            acc["rec"].append(sum(t[1][2] for t in ranked[:5]) / len(correct))

            def win(a: float, b: float) -> float:
                return 1.0 if a > b else 0.5 if a == b else 0.0

            acc["auc"].append(
                sum(win(a, b) for a in correct for b in wrong) / (len(correct) * len(wrong))
            )
            mean_wrong = sum(wrong) / len(wrong)
            humans = [scores[c] for c, src, ok, _ in pool if src == "human" and ok]
            if humans:
                acc["hw"].append(sum(win(h, mean_wrong) for h in humans) / len(humans))
            acc["mw"].append(win(sum(correct) / len(correct), mean_wrong))
        per_original[original] = {m: sum(v) / len(v) for m, v in acc.items() if v}
    out = {}
    for m, key in (
        ("acc", "acc_at_1"),
        ("rec", "recall_at_5"),
        ("auc", "auc"),
        ("hw", "human_win"),
        ("mw", "mean_win"),
    ):
        values = [o[m] for o in per_original.values() if m in o]
        out[key] = sum(values) / len(values)
    return out


def test_random_scores_agree_with_a_plain_python_reading(tiny: Path, tmp_path: Path) -> None:
    rng = random.Random(7)
    for _ in range(5):
        scores = {c: float(rng.randint(0, 3)) for c in scores_of()}  # many ties
        values = by_key(
            evaluate(tiny, tmp_path, [{"item_id": c, "score": s} for c, s in scores.items()])
        )
        for metric, expected in reference_metrics(SPEC, scores).items():
            assert values[("overall", "all", metric)] == pytest.approx(expected), metric


def test_built_dataset_configs_and_card(tiny: Path) -> None:
    root = tiny / BENCH
    problems = datasets.load_dataset(str(root), "problems", split="test")
    assert problems["problem_id"] == ["o1", "v1a", "v1b", "v1c", "o2", "o3", "v3a"]
    assert problems["is_variant"] == [False, True, True, True, False, False, True]
    assert problems["original_id"] == ["o1", "o1", "o1", "o1", "o2", "o3", "o3"]
    assert problems["n_candidates"] == [7, 3, 3, 0, 4, 3, 6]
    candidates = datasets.load_dataset(str(root), "candidates", split="test").to_list()
    assert len(candidates) == 26
    v1b = [c for c in candidates if c["problem_id"] == "v1b"]
    assert [(c["item_id"], c["position"], c["correct"], c["original_id"]) for c in v1b] == [
        ("v1b-a", 0, False, "o1"),
        ("v1b-b", 1, True, "o1"),
        ("v1b-c", 2, False, "o1"),
    ]
    assert sum(c["is_human"] for c in candidates) == 4
    hoods = duckdb.execute(
        "SELECT original_id, variant_id, position FROM read_parquet(?) ORDER BY ALL",
        [str(root / "data/neighbourhoods/test-00000-of-00001.parquet")],
    ).fetchall()
    assert hoods == [("o1", "v1a", 0), ("o1", "v1b", 1), ("o1", "v1c", 2), ("o3", "v3a", 0)]
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["sources"][0]["kind"] == "package"
    assert {i["path"] for i in manifest["sources"][0]["inputs"]} >= {
        "package.yaml",
        "o1/problem.yaml",
        "o1/candidates/o1-a.md",
    }
    assert "example" not in manifest  # a real package, not the shipped example
    card = (root / "README.md").read_text()
    assert "config_name: candidates" in card and "cc-by-4.0" in card


def test_build_is_deterministic(tmp_path: Path) -> None:
    package = write_package(tmp_path / "p")
    a = write_dataset(builder.build(package), tmp_path / "a")
    b = write_dataset(builder.build(package), tmp_path / "b")
    ma, mb = (json.loads((d / "manifest.json").read_text()) for d in (a, b))
    assert ma["content_hash"] == mb["content_hash"]
    assert [f["sha256"] for f in ma["files"]] == [f["sha256"] for f in mb["files"]]


def problems_of(exc: pytest.ExceptionInfo[ValidationFailed]) -> list[str]:
    return [str(p) for p in exc.value.problems]


def test_missing_answer_names_file_line_and_field(tmp_path: Path) -> None:
    root = write_package(tmp_path / "p")
    path = root / "o2" / "problem.yaml"
    path.write_text("statement: S\nsolution: T\n", encoding="utf-8")
    with pytest.raises(ValidationFailed) as exc:
        builder.build(root)
    assert problems_of(exc) == [f"{path}:1 [answer]: problem: missing"]


def test_variant_without_answer_and_unknown_field(tmp_path: Path) -> None:
    root = write_package(tmp_path / "p")
    path = root / "o3" / "problem.yaml"
    path.write_text(
        "statement: S\nanswer: '1'\nsolution: T\nvariants:\n"
        "  - id: v3a\n    statement: S\n    solution: T\n    anwser: '2'\n",
        encoding="utf-8",
    )
    with pytest.raises(ValidationFailed) as exc:
        builder.build(root)
    found = problems_of(exc)
    assert f"{path}:5 [anwser]: variants[0]: unknown field" in found
    assert f"{path}:5 [answer]: variants[0]: missing" in found


def test_pool_without_a_wrong_or_correct_candidate(tmp_path: Path) -> None:
    spec = {
        "o1": ([], {"o1": [("a", "human", True, 0), ("b", "m", True, 0)]}),
        "o2": (
            ["v2"],
            {"o2": [("c", "human", True, 0), ("d", "m", False, 0)], "v2": [("e", "m", False, 0)]},
        ),
    }
    root = write_package(tmp_path / "p", spec)
    with pytest.raises(ValidationFailed) as exc:
        builder.build(root)
    found = problems_of(exc)
    assert any("problem o1 has no wrong candidate" in p and str(root / "o1") in p for p in found)
    assert any("problem v2 has no correct candidate" in p for p in found)
    assert len(found) == 2


def test_duplicate_ids_name_both_files(tmp_path: Path) -> None:
    spec = {
        "o1": (["dup"], {"o1": [("x", "human", True, 0), ("y", "m", False, 0)]}),
        "o2": ([], {"o2": [("x", "human", True, 0), ("z", "m", False, 0)]}),
        "dup": ([], {"dup": [("w", "human", True, 0), ("u", "m", False, 0)]}),
    }
    root = write_package(tmp_path / "p", spec)
    with pytest.raises(ValidationFailed) as exc:
        builder.build(root)
    found = problems_of(exc)
    assert (
        f"{root / 'o2/candidates/x.md'}: duplicate candidate id 'x' (also in {root / 'o1/candidates/x.md'})"
        in found
    )
    assert any("duplicate problem id 'dup'" in p for p in found)


def test_bad_candidate_files(tmp_path: Path) -> None:
    root = write_package(tmp_path / "p")
    cands = root / "o2" / "candidates"
    (cands / "o2-b.md").write_text("no front matter\n", encoding="utf-8")
    (cands / "o2-c.md").write_text("---\nsource: m\ncorrect: maybe\n---\ntext\n", encoding="utf-8")
    (cands / "o2-d.md").write_text(
        "---\nsource: m\ncorrect: true\nproblem: nope\n---\ntext\n", encoding="utf-8"
    )
    (cands / "o2-e.md").write_text("---\nsource: m\ncorrect: false\n---\n\n", encoding="utf-8")
    (cands / "o2-f.md").write_text("---\nsource: [m\n---\nx\n", encoding="utf-8")
    with pytest.raises(ValidationFailed) as exc:
        builder.build(root)
    found = problems_of(exc)
    assert f"{cands / 'o2-b.md'}:1: must start with a '---' front matter line" in found
    assert f"{cands / 'o2-c.md'}:2 [correct]: front matter: must be true or false" in found
    assert any(p.startswith(f"{cands / 'o2-d.md'}:2 [problem]: 'nope' is neither") for p in found)
    assert f"{cands / 'o2-e.md'}:5: the candidate solution is empty" in found
    assert any(p.startswith(f"{cands / 'o2-f.md'}:2: not valid YAML") for p in found)


def test_no_package_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    with pytest.raises(MathJudgeError, match=r"no problem package \(package.yaml\)"):
        builder.build(tmp_path)
    with pytest.raises(MathJudgeError, match="no folder given"):
        builder.build(None)


def test_cli_build_from_package_and_bad_package_exit_1(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "out"
    ok = runner.invoke(
        main, ["build", BENCH, "--source-dir", str(builder.EXAMPLE_PACKAGE), "--out", str(out)]
    )
    assert ok.exit_code == 0, ok.output
    assert (out / BENCH / "manifest.json").is_file()
    bad = write_package(tmp_path / "bad")
    (bad / "o1" / "problem.yaml").write_text("statement: S\nsolution: T\n", encoding="utf-8")
    before = (out / BENCH / "manifest.json").read_bytes()
    failed = runner.invoke(main, ["build", BENCH, "--source-dir", str(bad), "--out", str(out)])
    assert failed.exit_code == 1
    assert f"{bad / 'o1' / 'problem.yaml'}:1 [answer]: problem: missing" in failed.output
    assert (out / BENCH / "manifest.json").read_bytes() == before  # the old build is untouched


def test_example_package_with_the_length_baseline(tmp_path: Path) -> None:
    """The shipped example builds, and solution length, scored by hand, ranks it as computed."""
    path = write_dataset(builder.build(builder.EXAMPLE_PACKAGE), tmp_path)
    # The manifest says it is the shipped example, so the leaderboard never ranks it.
    assert json.loads((path / "manifest.json").read_text())["example"] is True
    rows = datasets.load_dataset(str(path), "candidates", split="test").to_list()
    preds = solution_length(rows)
    assert [p["score"] for p in preds] == [float(len(r["solution"].split())) for r in rows]
    result = evaluate(tmp_path, tmp_path, preds)
    values = by_key(result)
    # Expected from the candidates' lengths and labels, worked out per problem by the reference.
    spec = {}
    for r in rows:
        pools = spec.setdefault(r["original_id"], ([], {}))[1]
        pools.setdefault(r["problem_id"], []).append((r["item_id"], r["source"], r["correct"], 0))
    scores = {p["item_id"]: p["score"] for p in preds}
    for metric, expected in reference_metrics(spec, scores).items():
        assert values[("overall", "all", metric)] == pytest.approx(expected)
    assert values[("overall", "all", "recall_at_5")] < 1  # six candidates in one pool


def test_paired_comparison_of_two_score_files(tiny: Path, tmp_path: Path) -> None:
    """SPEC's scores against their negation: A - B per metric is the difference of the two
    evaluations (negated scores rank the other way round, ties kept in candidate order)."""
    from mathjudge.scoring.compare import compare

    scores = scores_of()
    a = write_jsonl(tmp_path / "a.jsonl", [{"item_id": c, "score": s} for c, s in scores.items()])
    b = write_jsonl(tmp_path / "b.jsonl", [{"item_id": c, "score": -s} for c, s in scores.items()])
    result = compare(BENCH, a, b, store=tmp_path / "none.duckdb", datasets_dir=tiny, n_boot=100)
    flipped = by_key(
        evaluate(tiny, tmp_path, [{"item_id": c, "score": -s} for c, s in scores.items()])
    )
    auc = next(r for r in result.rows if (r.scope, r.metric) == ("overall", "auc"))
    assert auc.a_value == pytest.approx(107 / 216)
    assert auc.b_value == pytest.approx(flipped[("overall", "all", "auc")])
    assert auc.b_value == pytest.approx(1 - 107 / 216)  # every pair flips; ties stay 1/2
    assert auc.diff == pytest.approx(auc.a_value - auc.b_value)
    assert result.n_shared_problems == 3
