"""One scoring module per benchmark; see `stepmathbench.py` for the interface they share."""
