"""μ-MATH is scored by the shared verdict scorer (`benchmarks.verdict_metrics`)."""

from mathjudge.benchmarks.mumath import SPEC
from mathjudge.benchmarks.verdict_metrics import scorer

SCORER = scorer(SPEC)
