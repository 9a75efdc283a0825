"""What scoring does for large inputs gives the numbers of the plain way: scopes fixed per
problem derived from overall, statistics in slices of whole problems, DuckDB's memory bounded,
a JSON lines file parsed a piece at a time; and the bootstrap's blocked sums equal the
straightforward product of resampling counts and the statistics matrix."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from conftest import FIXTURES, write_jsonl
from mathjudge import registry
from mathjudge.base.errors import ValidationFailed
from mathjudge.benchmarks.proofbench import build as proofbench
from mathjudge.dataio.reader import open_dataset
from mathjudge.dataio.writer import write_dataset
from mathjudge.scoring import bootstrap, evaluator, matrix, tables
from mathjudge.scoring.evaluator import evaluate_file, scored_items
from mathjudge.validate import columnar
from mathjudge.validate.predictions import load_predictions

CONTESTS = ("USAMO", "IMO", "PUTNAM", "EGMO", "APMO")
GENERATORS = ("o3", "gemini-2.5-pro", "DeepSeek-R1-0528")

Scores = dict[tuple[str, str, str], tuple[float | None, float | None, float | None, int]]


@pytest.fixture(scope="module")
def proofbench_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ProofBench built from a snapshot in the upstream schema: 150 problems of 5 contests and
    6 years, ratings with ties, a few problems every proof of which got the same rating."""
    rng = random.Random(11)
    snapshot = tmp_path_factory.mktemp("proofbench-snapshot")
    card = (FIXTURES / "proofbench" / "README.md").read_text(encoding="utf-8")
    start, end = card.index("- config_name: best_of_n"), card.index("---", 4)
    (snapshot / "README.md").write_text(card[:start] + card[end:], encoding="utf-8")
    (snapshot / "data").mkdir()
    rows = []
    for k in range(150):
        contest, year = rng.choice(CONTESTS), rng.randint(2019, 2024)
        constant = rng.random() < 0.1
        for generator in GENERATORS:
            rows.append(
                {
                    "problem_id": f"{contest}-{year}-{k}",
                    "problem": f"Problem {k}.",
                    "reference_solution": "A solution.",
                    "marking_scheme": "7 points for a proof.",
                    "generator": generator,
                    "model_solution": f"A proof by {generator}.",
                    "expert_rating": 0 if constant else rng.choice([0, 0, 1, 3, 5, 7, 7]),
                    "metadata": {"contest": contest, "contest_year": year},
                }
            )
    write_jsonl(snapshot / "data" / "proofbench.jsonl", rows)
    out = tmp_path_factory.mktemp("datasets")
    write_dataset(proofbench.build(snapshot), out)
    return out


def predictions(bench: str, datasets_dir: Path, path: Path) -> Path:
    """A noisy judge of every item, with ties."""
    spec = registry.get(bench)
    items = scored_items(spec, registry.scorer(bench), open_dataset(spec.dataset, datasets_dir))
    rng = random.Random(5)
    ids = items.column("item_id").to_pylist()
    rng.shuffle(ids)
    if bench == "stepmathbench":
        rows = [
            {"item_id": i, "score": rng.choice([0, 3, 5.5, 8, 10]), "answer_correct": rng.random() < 0.6}
            for i in ids
        ]  # fmt: skip
    else:
        rows = [{"item_id": i, "score": rng.choice([0, 1, 2.5, 6, 7])} for i in ids]
    return write_jsonl(path, rows)


def scores(result: Any) -> Scores:
    return {
        (s.scope, s.subset, s.metric): (s.value, s.ci_low, s.ci_high, s.n) for s in result.scores
    }


def assert_same(got: Scores, expected: Scores) -> None:
    assert got.keys() == expected.keys()
    for key, values in expected.items():
        for a, b in zip(got[key], values, strict=True):
            assert (a is None) == (b is None), key
            if a is not None:
                assert a == pytest.approx(b, rel=1e-12, abs=1e-15), key


@pytest.fixture
def data(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path, Path]:
    bench = request.param
    where = request.getfixturevalue(
        "datasets_dir" if bench == "stepmathbench" else "proofbench_dir"
    )
    return bench, where, predictions(bench, where, tmp_path / "p.jsonl")


BENCHES = pytest.mark.parametrize("data", ["stepmathbench", "proofbench"], indirect=True)
FIXED = {"stepmathbench": ("type", "level"), "proofbench": ("contest", "year")}


@BENCHES
def test_scopes_fixed_per_problem_equal_scopes_computed(
    data: tuple[str, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The problem-level scopes' statistics, taken from overall and summed block by block in
    the bootstrap, are those DuckDB computes for them one by one."""
    bench, datasets_dir, path = data
    scorer = registry.scorer(bench)
    spec = registry.get(bench)
    items = scored_items(spec, scorer, open_dataset(spec.dataset, datasets_dir))
    found = tables.connect(items, scorer)
    fixed = found.fixed
    found.close()
    assert fixed is not None and sorted(fixed.names) == sorted(FIXED[bench])
    derived = scores(evaluate_file(bench, path, "j", datasets_dir=datasets_dir, n_boot=300))

    computed_each = dataclasses.replace(scorer, stats_from_rows=False)
    monkeypatch.setattr(registry, "scorer", lambda name: computed_each)
    computed = scores(evaluate_file(bench, path, "j", datasets_dir=datasets_dir, n_boot=300))
    assert {k[0] for k in computed} >= {"overall", *FIXED[bench]}
    assert_same(derived, computed)


@BENCHES
def test_large_path_equals_in_memory(
    data: tuple[str, Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forced on a small file: DuckDB limited and spilling, statistics in many slices of whole
    problems, the file parsed in many pieces; the same scores as the plain way."""
    bench, datasets_dir, path = data
    plain = scores(evaluate_file(bench, path, "j", datasets_dir=datasets_dir, n_boot=300))

    limits: list[tables.Limits | None] = []
    connect = tables.connect

    def spy(items: Any, scorer: Any, given: tables.Limits | None = None) -> tables.ScoringTables:
        limits.append(given)
        assert given is None or given.spill_dir.is_dir()
        return connect(items, scorer, given)

    steps: list[tuple[str, int]] = []
    monkeypatch.setattr("mathjudge.scoring.engine.connect", spy)
    monkeypatch.setattr(evaluator, "LARGE_ROWS", 1)
    monkeypatch.setattr(matrix, "SLICE_ROWS", 40)
    monkeypatch.setattr(columnar, "PARSE_PIECE", 2048)
    large = evaluate_file(
        bench,
        path,
        "j",
        datasets_dir=datasets_dir,
        n_boot=300,
        on_step=lambda what, total: steps.append((what, total)),
    )
    assert limits and limits[0] is not None and limits[0].memory == evaluator.LARGE_MEMORY
    slices = dict(steps)["statistics"]
    assert slices >= 10  # a slice is whole problems of about 40 rows
    assert not limits[0].spill_dir.exists()  # removed afterwards
    assert_same(scores(large), plain)


def straightforward_sums(m: np.ndarray, n_boot: int, seed: int, order: np.ndarray) -> np.ndarray:
    """The resampling the bootstrap module documents, written plainly: chunks of CHUNK
    replicates seeded from SeedSequence(seed).spawn, each replicate's cluster counts from
    integers(0, C, C, int32), times the matrix (whose row i is cluster order[i])."""
    n_clusters = m.shape[0]
    sizes = [min(bootstrap.CHUNK, n_boot - s) for s in range(0, n_boot, bootstrap.CHUNK)]
    out = []
    for chunk_seed, size in zip(np.random.SeedSequence(seed).spawn(len(sizes)), sizes, strict=True):
        rng = np.random.default_rng(chunk_seed)
        for _ in range(size):
            draws = rng.integers(0, n_clusters, size=n_clusters, dtype=np.int32)
            counts = np.bincount(draws, minlength=n_clusters).astype(np.float64)
            out.append(counts[order] @ m)
    return np.array(out)


def test_replicate_sums_equal_straightforward_products() -> None:
    """More clusters than a block of weights, in blocks of a scope fixed per cluster: the
    column sums and every block's sums of its columns."""
    rng = np.random.default_rng(3)
    n_clusters, n_boot = bootstrap.BLOCK * 2 + 1234, 120
    m = rng.normal(size=(n_clusters, 6))
    label = rng.integers(0, 5, n_clusters)
    order = np.argsort(label, kind="stable")
    bounds = np.concatenate([[0], np.cumsum(np.bincount(label))])
    blocks = bootstrap.Blocks(order, bounds, np.array([1, 4]))
    got = bootstrap.replicate_sums(m, n_boot, 9, blocks=blocks)
    whole = straightforward_sums(m, n_boot, 9, order)
    assert got[:, :6] == pytest.approx(whole, rel=1e-12)
    for b in range(5):
        rows = m[bounds[b] : bounds[b + 1]][:, [1, 4]]
        alone = straightforward_sums(
            np.vstack([np.zeros((bounds[b], 2)), rows, np.zeros((n_clusters - bounds[b + 1], 2))]),
            n_boot,
            9,
            order,
        )
        assert got[:, 6 + 2 * b : 8 + 2 * b] == pytest.approx(alone, rel=1e-12)
    plain = bootstrap.replicate_sums(m, n_boot, 9)
    assert plain == pytest.approx(
        straightforward_sums(m, n_boot, 9, np.arange(n_clusters)), rel=1e-12
    )


def test_counts_past_255_are_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counts are kept as bytes while they fit; a cluster drawn 300 times is counted 300."""
    real = np.random.default_rng

    class Always:
        def __init__(self, seed: Any) -> None:
            self.rng = real(seed)

        def integers(self, low: int, high: int, size: int, dtype: Any) -> np.ndarray:
            return np.full(size, 7, dtype=dtype)  # every draw is cluster 7

    monkeypatch.setattr(np.random, "default_rng", Always)
    m = np.arange(300 * 2, dtype=np.float64).reshape(300, 2)
    got = bootstrap.replicate_sums(m, 3, 0)
    assert got.tolist() == [(300 * m[7]).tolist()] * 3


def test_json_lines_in_pieces_equal_one_piece(
    datasets_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file parsed in many pieces is the file parsed at once; a field the model does not
    take, an integer in one piece and a string in another, is still reported where it is."""
    path = predictions("stepmathbench", datasets_dir, tmp_path / "p.jsonl")
    known = open_dataset("stepmathbench", datasets_dir).item_ids("solutions")
    model = registry.scorer("stepmathbench").prediction
    whole = load_predictions(path, model, known)
    monkeypatch.setattr(columnar, "PARSE_PIECE", 1000)
    pieces = load_predictions(path, model, known)
    assert pieces.table.equals(whole.table)
    assert np.array_equal(pieces.item_index, whole.item_index)

    lines = path.read_text(encoding="utf-8").splitlines()
    odd = [json.loads(line) for line in lines]
    odd[0]["confidence"], odd[-1]["confidence"] = 1, "high"
    bad = write_jsonl(tmp_path / "odd.jsonl", odd)
    with pytest.raises(ValidationFailed) as raised:
        load_predictions(bad, model, known)
    assert "confidence" in str(raised.value) and "unknown column" in str(raised.value)


def test_per_item_values_come_back_in_item_order() -> None:
    """A scope's subset per item, through a parallel scan free to reorder rows (as DuckDB may
    with several threads and large inputs): each value lands on its own item."""
    n = 400_000  # several of DuckDB's row groups, scanned by several threads
    items = pa.table({"level": pa.array(np.arange(n) % 7, pa.int8())})
    con = duckdb.connect()
    con.execute("SET threads = 4")
    con.execute("SET preserve_insertion_order = false")
    con.register("items", items)
    got = tables._per_item(con, items, "CAST(level AS VARCHAR)")
    assert got.to_pylist() == [str(k % 7) for k in range(n)]
