"""Validation of a predictions file (JSONL, CSV, Parquet): every problem located by line and
field, a vectorised path for clean files, and the checks that decide which reader may see it."""
