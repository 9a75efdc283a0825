"""ProofBench best-of-n headline numbers as printed in the paper's prose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mathjudge.benchmarks.proofbench_bon import SPEC
from mathjudge.dataio.reported import Row, cell_score, integer, read_rows, result
from mathjudge.spec.results import Evaluation, Score

N_ITEMS = 464  # best-of-n proofs: 29 problems x 16


def _result(*args: Any, **kwargs: Any) -> Evaluation:
    assert SPEC.paper is not None
    return result(SPEC.name, SPEC.paper, N_ITEMS, *args, **kwargs)


BON_POOL = 16  # expert-scored o3 proofs per problem (paper section 4)
BON_SCORE = "avg_expert_score_of_selected_proof"
BON_GAP = "pct_of_binary_to_oracle_gap_closed"
BON_ORACLE = "Human oracle"
BON_WHERE = "best-of-n in the prose (abstract, §1, §4.1)"


def _pb_bon(folder: Path) -> list[Evaluation]:
    """Best-of-n headline numbers from the prose. The human oracle is not a selector: its value
    is the `bon_oracle` reference of every selector at the same n, as reproduced results carry
    it. The "% of gap closed" row is derived from the other three and is skipped."""
    columns = (
        *("selector", "selector_backbone", "generator", "n_problems", "n"),
        *("metric", "value", "unit", "where"),
    )
    rows = read_rows(folder / "proofbench_bon.csv", columns)
    selectors: list[tuple[Row, int, list[Score]]] = []
    oracle: dict[int, list[Score]] = {}
    for row in rows:
        if row.text("metric", [BON_SCORE, BON_GAP]) == BON_GAP:
            continue
        row.text("unit", ["0-7 points"])
        n_problems, n = integer(row, "n_problems"), integer(row, "n")
        scopes = [("bon", f"n={n}", n_problems * BON_POOL)]
        if n == BON_POOL:  # the whole pool, which reproduced results also report as overall
            scopes.append(("overall", "all", n_problems * BON_POOL))
        is_oracle = row.text("selector") == BON_ORACLE
        metric = "bon_oracle" if is_oracle else "bon_score"
        scores = [s for where in scopes for s in cell_score(row, "value", where, metric)]
        if is_oracle:
            oracle[n] = scores
        else:
            selectors.append((row, n, scores))
    out = []
    for row, n, scores in selectors:
        meta = {c: row.text(c) for c in ("selector_backbone", "generator", "n_problems", "where")}
        judge = row.text("selector")
        scores += oracle.get(n, [])
        out.append(_result([BON_WHERE], [row], judge, scores, meta, ("score",)))
    return out


def load(folder: Path) -> list[Evaluation]:
    return _pb_bon(folder)
