"""Publishing: the leaderboard document assembled from the results store (ranks, tie groups,
model aliases, reported-vs-reproduced comparisons), and the import of the papers' reported
results into that store."""
