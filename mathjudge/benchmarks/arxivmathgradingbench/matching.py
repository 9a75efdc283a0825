"""Deciding whether a predicted error location is a ground-truth one: the interface every
matcher implements, and the deterministic `strict` matcher.

A matcher decides a batch of (prediction, ground-truth location, paper) pairs at once, so an
LLM matcher can cache and run them concurrently. A decision is True (match), False (no match)
or None (the matcher could not decide, e.g. a failed LLM call): the scorer reports undecided
pairs instead of counting them as non-matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from mathjudge.benchmarks.arxivmathgradingbench.locations import Location

MATCHERS = ("strict", "llm")  # the first is the default


@dataclass(frozen=True)
class PredictedLocation:
    """A judge's predicted error location, with its explanation when the judge gave one."""

    location: Location
    description: str | None = None


@dataclass(frozen=True)
class PaperContext:
    """The paper a pair belongs to, so a matcher can read it (e.g. fetch the text by id)."""

    item_id: str
    arxiv_id: str
    version: str
    title: str | None = None


MatchPair = tuple[PredictedLocation, Location, PaperContext]


class Matcher(Protocol):
    def match_many(self, pairs: list[MatchPair]) -> list[bool | None]:
        """One decision per pair, in order: True, False, or None when undecided."""
        ...


class StrictMatcher:
    """Same normalized location (`Location.key`): both labelled with the same kind and label
    ("proof of Thm. 19" is "Theorem 19", "Theorem 18" never is, nor is "Lemma 19"), or both
    unlabelled with the same words up to case and spacing ("Main Theorem" is "main theorem")."""

    def match_many(self, pairs: list[MatchPair]) -> list[bool | None]:
        return [predicted.location.key == truth.key for predicted, truth, _ in pairs]
