"""Base types shared by every layer: what a benchmark is (`benchmark`), how its metrics are
shown (`presentation`), what a judge reads (`cases`), the scorer contract (`scorer`), the row
contract of predictions (`prediction`), evaluation results (`results`) and the leaderboard
document (`document`).

Nothing here imports another mathjudge package, so every layer can depend on these types.
Import the submodules directly; this package imports nothing so that reading a spec stays cheap.
"""
