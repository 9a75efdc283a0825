"""Submission validation, DuckDB scoring with cluster-bootstrap CIs, and the results store."""
