"""MR-MATH (ReasonEval, arXiv:2404.05692): finding invalid and redundant steps in math solutions."""
