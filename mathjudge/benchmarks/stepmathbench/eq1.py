"""The paper's Eq. (1): a solution's 0-10 score from its step labels. The builder checks every
stored gold score against it, and the StepMathAgent judge scores its own step labels with it,
so it lives apart from both."""

from __future__ import annotations


def eq1_score(problem_type: str, labels: list[str]) -> int:
    """The paper's Eq. (1) on the 0-10 scale; correct-but-meaningless steps count as wrong.

    Calculation weighs the process (first n-1 steps) 6 and the final step 4; other types score
    the share of correct steps. Python's `round` (half to even) reproduces all stored scores.
    """
    ok = [label == "correct" for label in labels]
    n = len(ok)
    if n == 0:
        raise ValueError("a solution has no steps")
    if problem_type == "Calculation":
        if n == 1:
            return 10 * int(ok[0])
        return round(6 * sum(ok[:-1]) / (n - 1) + 4 * int(ok[-1]))
    return round(10 * sum(ok) / n)
