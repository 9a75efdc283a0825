"""One folder per benchmark: `__init__.py` declares its `SPEC` (a `BenchmarkSpec`), `build.py`
turns its pinned upstream source into rows, `metrics.py` holds its `SCORER`, `card.md` the
data-card prose. `mathjudge.registry` discovers the folders. Modules here that are not folders
hold logic several benchmarks share (e.g. `verdicts` for μ-MATH and the Open Proof Corpus)."""
