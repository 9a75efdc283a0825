"""Reference judges. Deterministic baselines live here; LLM judges arrive with the runner."""
