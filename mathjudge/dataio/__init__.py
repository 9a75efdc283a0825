"""Reading and writing datasets: upstream sources (mirror, pinned download, hub snapshot), the
writer (Parquet, card, manifest, atomic publish), the built-dataset reader and the hub upload."""
