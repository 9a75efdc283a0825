"""One scoring module per benchmark. The engine (`evaluate/scoring.py`) asks each for:

- `Prediction`: a `PredictionRow` subclass, the row contract of a submission (with
  `arrow_types` for its fields and, optionally, `requires_one_of`);
- `DEFAULT_SEED`: the bootstrap seed recorded with every result;
- `CLUSTER`: the item column the bootstrap resamples (the problem);
- `ITEM_COLUMNS`: the dataset columns the statistics read;
- `SCORED_FIELDS`: prediction fields that enter the metrics;
- `SCOPES`: scope name -> SQL expression over item columns giving the subset;
- `stats_sql(fields)`: one SELECT over the table `scoped` (scope, subset, ci, the item columns and
  the run-combined prediction fields) returning scope, subset, ci, n_items and additive
  statistics per (scope, subset, ci); a scorer may emit scopes of its own (e.g. best-of-n's
  `bon`, subsets `n=k`);
- `finalize(sums, fields)`: summed statistics -> metric arrays, elementwise, so the same code
  gives point estimates and every bootstrap replicate;
- `metric_names(fields)`: metric keys in display order, headline first where it matters;
- optionally `extras(con, fields)`: tables that are not metrics (e.g. a confusion matrix);
- optionally `NO_CI`: metric keys that are counts, reported without a bootstrap interval;
- optionally `combine_runs(con, table, fields, options)` (+ `RUNS_AGG`, the name recorded): the
  scorer's own way of combining runs (ArxivMathGradingBench unions the first k runs) instead
  of `--runs-agg`;
- optionally `OPTIONS`: name -> allowed values (first = default), e.g. `matcher`; resolved values
  are recorded with the result.
On `Prediction`, `one_row_per_run = False` allows many rows per (item_id, run) and
`per_row_optional` lists fields a row may leave out.
"""
