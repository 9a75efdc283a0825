"""One folder per benchmark: its builder, scorer, importer of published outputs and card."""
