"""Scored exactly as `judgebench` (the same metrics, declared once there)."""

from mathjudge.benchmarks.judgebench.metrics import SCORER

__all__ = ["SCORER"]
