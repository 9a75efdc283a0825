"""Scoring: the DuckDB engine with cluster-bootstrap CIs, run ensembling, per-run spread, paired
comparisons, and the `evaluate` orchestration that validates, scores and stores a submission."""
