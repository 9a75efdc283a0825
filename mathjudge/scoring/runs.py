"""Ensembling of several runs per item into one prediction, in DuckDB SQL.

Numeric fields use the chosen aggregate; boolean fields always use a majority vote (ties go to
false, the lower value); `majority` on numbers takes the most frequent value, and when several
values tie it takes the lower median of the tied values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa

from mathjudge.spec.scorer import FIELDWISE_REDUCERS as RUNS_AGGREGATES


def _numeric(field: str, how: str) -> str:
    if how == "mean":
        return f"SELECT item_id, avg({field}) AS {field} FROM submitted GROUP BY item_id"
    if how == "median":
        return f"SELECT item_id, median({field}) AS {field} FROM submitted GROUP BY item_id"
    return f"""
        SELECT item_id, {field} FROM (
            SELECT item_id, {field},
                   row_number() OVER (PARTITION BY item_id ORDER BY {field}) AS rank_in_ties,
                   count(*) OVER (PARTITION BY item_id) AS n_ties
            FROM (
                SELECT item_id, {field}, count(*) AS votes FROM submitted
                GROUP BY item_id, {field}
                QUALIFY votes = max(votes) OVER (PARTITION BY item_id)
            )
        ) WHERE rank_in_ties = (n_ties + 1) // 2"""


def _boolean(field: str) -> str:
    return (
        f"SELECT item_id, count_if({field}) * 2 > count(*) AS {field} "
        "FROM submitted GROUP BY item_id"
    )


def aggregate_sql(fields: dict[str, pa.DataType], how: str) -> str:
    """SQL over the relation `submitted` giving one row per item_id with every field in `fields`.

    Field names come from the benchmark's prediction model, never from the submission file.
    """
    import pyarrow as pa  # here, not at module level: the CLI imports RUNS_AGGREGATES

    if how not in RUNS_AGGREGATES:
        raise ValueError(f"runs aggregate must be one of {RUNS_AGGREGATES}")
    parts = [
        _boolean(name) if pa.types.is_boolean(kind) else _numeric(name, how)
        for name, kind in fields.items()
    ]
    sql = f"SELECT * FROM ({parts[0]}) AS f0"
    for i, part in enumerate(parts[1:], start=1):
        sql += f" JOIN ({part}) AS f{i} USING (item_id)"
    return sql
