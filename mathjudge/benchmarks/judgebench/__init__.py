"""JudgeBench (arXiv:2410.12784): pairwise judgments of which of two responses is correct."""
