"""The statistics every scorer builds on, written once (a module, not a benchmark folder).

Scorers sum additive per-cluster statistics in SQL and turn the sums into metrics with numpy,
elementwise, so that one `finalize` serves the point estimate and every bootstrap replicate.
Here: the SQL aggregates of the usual sums (confusion counts of a binary decision; the sums a
Pearson correlation needs) and the numpy side (a ratio that is undefined, NaN, where its
denominator is 0; F1 from counts; the correlation from its sums).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, NaN (undefined, reported as null) where den is 0; no warnings."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(num / np.where(den > 0, den, np.nan))


def f1(hits: np.ndarray, predicted: np.ndarray, actual: np.ndarray) -> np.ndarray:
    """F1 of one class from counts: 2 * hits / (predicted + actual), the harmonic mean of its
    precision and recall (0 with no hits, undefined with neither predictions nor members)."""
    return ratio(2 * hits, predicted + actual)


def confusion_sql(actual: str, predicted: str, predicted_negative: str) -> dict[str, str]:
    """SQL aggregates counting a binary decision against the truth: `pos` / `neg` (items whose
    truth `actual` holds / does not), `pred_pos` / `pred_neg` (items decided positive /
    negative; an item may be neither, e.g. inconclusive) and the hits `tp` / `tn`."""
    return {
        "pos": f"count_if({actual})",
        "neg": f"count_if(NOT ({actual}))",
        "pred_pos": f"count_if({predicted})",
        "pred_neg": f"count_if({predicted_negative})",
        "tp": f"count_if(({actual}) AND ({predicted}))",
        "tn": f"count_if(NOT ({actual}) AND ({predicted_negative}))",
    }


def correlation_sql(pred: str, gold: str, prefix: str = "") -> dict[str, str]:
    """SQL aggregates of the sums behind a Pearson correlation of `pred` and `gold` (rows
    where `pred` is null are left out): `n`, the sums `sp`, `sg`, `spp`, `sgg`, `spg`."""
    return {
        f"{prefix}n": f"count({pred})",
        f"{prefix}sp": f"sum({pred})",
        f"{prefix}sg": f"sum({gold})",
        f"{prefix}spp": f"sum({pred} * {pred})",
        f"{prefix}sgg": f"sum({gold} * {gold})",
        f"{prefix}spg": f"sum({pred} * {gold})",
    }


def pearson(sums: Mapping[str, np.ndarray], prefix: str = "") -> np.ndarray:
    """The Pearson correlation from the sums of `correlation_sql`; undefined (NaN) where
    either side is (numerically) constant or there are no rows."""
    n, sp, sg = sums[f"{prefix}n"], sums[f"{prefix}sp"], sums[f"{prefix}sg"]
    spp, sgg = sums[f"{prefix}spp"], sums[f"{prefix}sgg"]
    var_p = spp - ratio(sp * sp, n)
    var_g = sgg - ratio(sg * sg, n)
    cov = sums[f"{prefix}spg"] - ratio(sp * sg, n)
    degenerate = (var_p <= 1e-12 * np.abs(spp)) | (var_g <= 1e-12 * np.abs(sgg))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(degenerate, np.nan, cov / np.sqrt(var_p * var_g)))
