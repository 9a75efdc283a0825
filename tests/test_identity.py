"""One identity per judge (issue 28, item 1): a name read as an identity (case, spacing,
punctuation and compatibility forms set aside) by the alias lookup, the one-folder-per-judge
rule and the build check alike; a paper's row declared the pair of our reproduction is that
judge; two rows a reader could not tell apart are refused at publish; a close new name gets a
proposal from `repo check`.

On the real StepMathBench and the papers' tables of the shared mirror."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from conftest import write_jsonl
from mathjudge.base.errors import MathJudgeError
from mathjudge.base.names import canonical, close
from mathjudge.cli import main
from mathjudge.document.aliases import table
from mathjudge.document.publish import assemble
from mathjudge.document.reported import import_reported
from mathjudge.repo.folder import find_folders
from mathjudge.repo.proposals import proposals
from mathjudge.repo.submit import submit
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.store import save

B = 20
META = {
    "judge": "Plus one",
    "model": "none",
    "organization": "Test Lab",
    "link": "https://example.org/plus-one",
    "date": "2025-06-01",
    "config": {"rule": "gold score plus one"},
    "open_weights": None,
    "license": "CC0-1.0",
    "contact": "lab@example.org",
}


def test_a_name_as_an_identity() -> None:
    same = [
        "Internlm2-7b-reward",
        "InternLM2-7B-Reward",
        "internlm2 7b reward",
        "ＩｎｔｅｒｎＬＭ２-7B-Reward",
    ]
    assert {canonical(n) for n in same} == {"internlm27breward"}
    assert canonical("GPT-4o (pairwise)") != canonical("GPT-4 (pairwise)")
    assert canonical("o1-mini (Arena-Hard judge)") != canonical("Arena-Hard Judge (o1-mini)")
    assert canonical("!!!") == "!!!"  # punctuation alone still names something
    assert close("Skywork-Reward-Llama3.1-8B", "Skywork-Reward-Llama-3.1-8B-v2")
    assert not close("Skywork-Reward-Llama3.1-8B", "Skywork-Reward-Llama-3.1-8B")  # equal
    assert not close("GPT-4o", "o1-mini")


def test_the_alias_table_finds_a_judge_however_it_is_spelt() -> None:
    aliases = table()
    model, variant, _ = aliases.model_of("rewardmath", "reported", "internlm2 7B reward", {})
    assert (model.id, variant) == ("internlm2-7b-reward", "as quoted by arXiv:2510.13501")
    assert aliases.reproduction_of("rewardmath", "GRM gemma 2B") == "GRM-Gemma-2B-sftreg"
    assert aliases.paper_row_named("rewardmath", "internlm2-7b reward") is None  # ours: paired
    assert aliases.paper_row_named("stepmathbench", "gpt-4o v1") == "GPT-4oV1"


@pytest.fixture
def store(tmp_path: Path, datasets_dir: Path, mirror: Path, stepmath_rows: list[dict]):  # type: ignore[no-untyped-def]
    """A store with the papers' tables, and a function adding a reproduced judge to it."""
    path = tmp_path / "results.duckdb"
    import_reported(mirror / "reported", path)
    preds = write_jsonl(
        tmp_path / "p.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )

    def add(judge: str, **meta: Any) -> None:
        result = evaluate_file(
            "stepmathbench", preds, judge, datasets_dir=datasets_dir, n_boot=B, meta=meta
        )
        save(path, result)

    return path, add


def test_a_declared_pair_is_one_judge_whatever_the_names(store) -> None:  # type: ignore[no-untyped-def]
    path, add = store
    add("RuleEM (final-answer match)", kind="rule")
    board = next(b for b in assemble(path).benchmarks if b.name == "stepmathbench")
    paper = next(s for s in board.submissions if s.judge == "RuleEM")
    ours = next(s for s in board.submissions if s.judge == "RuleEM (final-answer match)")
    assert paper.provenance == "paper" and paper.identity == ours.identity
    assert {c.reported for c in board.comparisons} == {paper.id}


def test_two_rows_a_reader_cannot_tell_apart_are_refused_at_publish(store) -> None:  # type: ignore[no-untyped-def]
    path, add = store
    add("Close judge")
    add("close-judge")
    with pytest.raises(MathJudgeError) as refused:
        assemble(path)
    text = str(refused.value)
    assert text.startswith("stepmathbench: 'Close judge' (reproduced, submission ")
    assert "'close-judge' (reproduced" in text
    assert "differ only in case, spacing, punctuation or look-alike" in text
    assert "mathjudge/benchmarks/stepmathbench/aliases.yaml" in text


def test_a_judge_named_like_an_undeclared_papers_row_is_refused_at_publish(store) -> None:  # type: ignore[no-untyped-def]
    path, add = store
    add("gpt-4o v1")  # the paper's GPT-4oV1, not declared reproduced by this judge
    with pytest.raises(MathJudgeError, match=r"'GPT-4oV1' \(paper, .*'gpt-4o v1' \(reproduced"):
        assemble(path)


def _meta(tmp_path: Path, **changes: Any) -> Path:
    path = tmp_path / f"meta-{len(list(tmp_path.glob('meta-*')))}.yaml"
    path.write_text(yaml.safe_dump({**META, **changes}), encoding="utf-8")
    return path


def test_a_repository_refuses_one_judge_in_two_folders_and_a_papers_name(
    tmp_path: Path, datasets_dir: Path, stepmath_rows: list[dict]
) -> None:
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    preds = write_jsonl(
        tmp_path / "p.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )
    submit("stepmathbench", preds, _meta(tmp_path, judge="My-Judge"), repo,
           datasets_dir=datasets_dir)  # fmt: skip
    # Punctuation is no difference: the second folder would hide the first's result.
    with pytest.raises(
        MathJudgeError,
        match=r"my-judge holds the judge 'My-Judge' already \('my judge!' reads as the same",
    ):
        submit("stepmathbench", preds, _meta(tmp_path, judge="my judge!"), repo,
               datasets_dir=datasets_dir, slug="other")  # fmt: skip
    with pytest.raises(MathJudgeError, match=r"is the paper's 'GPT-4oV1' on stepmathbench"):
        submit("stepmathbench", preds, _meta(tmp_path, judge="GPT-4o v1"), repo,
               datasets_dir=datasets_dir)  # fmt: skip
    assert [f.meta.judge for f in find_folders(repo)] == ["My-Judge"]


def test_repo_check_proposes_the_alias_of_a_close_name(
    tmp_path: Path, datasets_dir: Path, stepmath_rows: list[dict]
) -> None:
    repo = tmp_path / "repo"
    (repo / "submissions").mkdir(parents=True)
    preds = write_jsonl(
        tmp_path / "p.jsonl", [{"item_id": r["uid"], "score": 5} for r in stepmath_rows]
    )
    for judge in ("GPT-4o V2b", "Plus one"):
        submit("stepmathbench", preds, _meta(tmp_path, judge=judge), repo,
               datasets_dir=datasets_dir)  # fmt: skip
    folders = find_folders(repo)
    notes = proposals(folders, folders)
    assert notes == [
        "stepmathbench/gpt-4o-v2b: 'GPT-4o V2b' is close to the paper's 'GPT-4oV2' on "
        "stepmathbench. If it is that judge configuration, declare the pair in "
        'mathjudge/benchmarks/stepmathbench/aliases.yaml (pairs: - {reported: "GPT-4oV2", '
        'reproduced: "GPT-4o V2b"}) so the board shows one row with both values and the verdict'
    ]
    run = CliRunner().invoke(
        main, ["repo", "check", str(repo), "--datasets", str(datasets_dir), "--bootstrap", "20"]
    )
    assert run.exit_code == 0, run.output
    assert "note: stepmathbench/gpt-4o-v2b: 'GPT-4o V2b' is close to the paper's" in run.output
