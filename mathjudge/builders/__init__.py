"""Dataset builders: one module per benchmark, all writing through `writer.write_dataset`."""
