"""What the item pages say of a judge's call: every value the store keeps per item is named in
plain words by its benchmark, and the words the calls files show (computed in SQL) are the
words the pages and downloads use (`show_value`)."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from mathjudge import registry
from mathjudge.site.items import _call_text_sql, _details_lines, show_value
from mathjudge.spec.document import ItemColumn

JARGON = ("On the right side", "Prefers A", "(-1: none)", "Solution positive")


def _stored_fields(name: str) -> set[str]:
    """The per-item values the store keeps for a benchmark's judges (lists are scored, not
    kept)."""
    scorer = registry.scorer(name)
    out = set()
    for field in scorer.scored_fields:
        kind = scorer.prediction.arrow_types.get(field)
        if kind is not None and pa.types.is_nested(kind):
            continue
        out.update(scorer.columns_of(field))
    return out


@pytest.mark.parametrize("name", registry.names())
def test_every_value_a_call_shows_is_explained_in_plain_words(name: str) -> None:
    spec = registry.get(name)
    if registry.scorer(name).pools_k:
        pytest.skip("its scorer pools many predictions per item: no per-item call is shown")
    explained = {f.field: f for f in spec.items} | {n.field: n for n in spec.item_notes}
    missing = sorted(_stored_fields(name) - set(explained))
    assert missing == [], f"{name}: no plain words for {missing}"
    for entry in explained.values():
        assert len(entry.description.split()) >= 8, (name, entry.field)
        assert not any(word in entry.label for word in JARGON), (name, entry.label)


VALUES = [None, -2.0, -1.0, -0.0, 0.0, 1e-05, 0.180664, 0.5, 1.0, 2.5, 7.0, 123456789.0]


@pytest.mark.parametrize(
    "column",
    [
        ItemColumn(field="x", label="Score", kind="score", gold="g"),
        ItemColumn(field="x", label="Raw", kind="raw", gold=""),
        ItemColumn(field="x", label="Answer", kind="binary", gold="g", words=["yes", "no", ""]),
        ItemColumn(field="x", label="Preferred", kind="verdict", gold="g", words=["A", "B", "tie"]),
    ],
)
def test_the_calls_files_show_a_value_in_the_words_of_the_pages(column: ItemColumn) -> None:
    db = duckdb.connect()
    try:
        db.register("p", pa.table({"prediction": pa.array(VALUES, pa.float64())}))
        shown = [r[0] for r in db.sql(f"SELECT {_call_text_sql(column)} FROM p").fetchall()]
    finally:
        db.close()
    assert shown == [show_value(column.kind, v, column.words) for v in VALUES]


def test_a_solution_held_as_steps_stays_a_list_of_texts() -> None:
    """ProcessBench's paragraphs and MR-MATH's steps (each a list of lines) reach the item view
    as a list, one text per step, never as the printed form of a list."""
    from mathjudge.site.items import _items_table

    stored = pa.table(
        {
            "item_id": ["a", "b"],
            "paragraphs": [["Step one $x$.", "Step two."], []],
            "lines": [[["first line", "second line"], ["next step"]], None],
            "question": ["Why?", "How?"],
        }
    )
    db = duckdb.connect()
    try:
        table = _items_table(db, stored, [], ["paragraphs", "lines", "question"], [])
    finally:
        db.close()
    rows = {r["item_id"]: r for r in table.to_pylist()}
    assert rows["a"]["paragraphs"] == ["Step one $x$.", "Step two."]
    assert rows["a"]["lines"] == ["first line\nsecond line", "next step"]
    assert rows["b"]["paragraphs"] == [] and rows["b"]["lines"] is None
    assert rows["a"]["question"] == "Why?"


def test_a_details_value_that_holds_nothing_reads_none() -> None:
    """MathCheck-GSM's details of a reply no rule could read carry `read_as` null; the item view
    shows it, and any other value that holds nothing, as "none" (the word a call without a
    value shows), never as an empty box or as JSON's "null"."""
    unread = {"reply": "The answer is 12.", "parsed_by": "none", "read_as": None}
    assert _details_lines([unread]) == [
        ["reply", "The answer is 12."],
        ["parsed_by", "none"],
        ["read_as", "none"],
    ]
    blank = {"run": 2, "reasoning": " \n", "steps": [], "votes": {}, "score": 0, "ok": False}
    assert _details_lines([blank]) == [
        ["run 2: reasoning", "none"],
        ["run 2: steps", "none"],
        ["run 2: votes", "none"],
        ["run 2: score", "0"],
        ["run 2: ok", "false"],
    ]
