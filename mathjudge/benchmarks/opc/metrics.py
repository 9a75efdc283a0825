"""The Open Proof Corpus is scored by the shared verdict scorer (`benchmarks.verdict_metrics`)."""

from mathjudge.benchmarks.opc import SPEC
from mathjudge.benchmarks.verdict_metrics import scorer

SCORER = scorer(SPEC)
