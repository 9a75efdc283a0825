"""arXiv error benchmarks: location parsing, location matching and the mining pipeline."""
