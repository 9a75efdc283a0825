"""μ-MATH is scored by the shared verdict scorer (`benchmarks.verdict_metrics`)."""

from mathjudge.benchmarks.verdict_metrics import SCORER

__all__ = ["SCORER"]
