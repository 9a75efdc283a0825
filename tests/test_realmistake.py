"""ReaLMistake (math word problem generation): the builder on the real data.zip and on invented
archives in its layout, the download of the pinned file from a local stand-in, the authors'
rule on small cases worked out by hand (runs scored one by one, then averaged; null calls; the
zeros where a ratio is undefined), the importer of the 28 published judges, every cell of the
paper's simple-prompt table and of the authors' own performance files reproduced, ranks and
comparisons from the store, and a published site that carries no text of the dataset.

No text of ReaLMistake is written here: the authors ask that its examples not be published in
plain text. Fixtures are invented; the real texts are read from the shared mirror only.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from standins import NetworkGuard, StaticServer

from conftest import write_jsonl
from mathjudge import registry
from mathjudge import store as results_store
from mathjudge.base.errors import MathJudgeError, ValidationFailed
from mathjudge.benchmarks.published import write_all
from mathjudge.benchmarks.realmistake import build, metrics, outputs
from mathjudge.cli import main
from mathjudge.dataio.writer import Build, CardInfo, Table, content_hash, write_dataset
from mathjudge.document.ranks import rank_benchmark
from mathjudge.scoring.compare import compare
from mathjudge.scoring.evaluator import evaluate_file
from mathjudge.store import read

BENCH = "realmistake"
COMMIT = "f94a8b978926414deb1dcf6b50076fd06c892192"
RAW = f"https://raw.githubusercontent.com/psunlpgroup/ReaLMistake/{COMMIT}"
GPT4, LLAMA = build.RESPONSES_OF
METRICS = ("f1", "precision", "recall", "accuracy")


def scores(result) -> dict[tuple[str, str, str], float | None]:
    return {(s.scope, s.subset, s.metric): s.value for s in result.scores}


# ---- the real build -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def built(mirror: Path) -> Build:
    return build.build(mirror)


@pytest.fixture(scope="module")
def real_datasets(built: Build, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("realmistake")
    write_dataset(built, out)
    return out


def test_source_is_pinned() -> None:
    assert [f.url for f in build.SOURCE.files] == [f"{RAW}/data.zip"]
    files = outputs.SOURCE.files
    assert len(files) == 1 + 125  # data.zip and every output file of the math task
    assert files[1].url == (
        f"{RAW}/error_detection_outputs/simple_prompt_baseline/math_word_problem_generation/"
        "Llama-2-70b-chat-hf/Llama-2-13b-chat-hf/baseline_errordetection_prompt_1.jsonl"
    )
    pinned = {f.path for f in files}
    assert {f.path for j in outputs.JUDGES for f in j.files} == pinned - {build.ARCHIVE}


def test_real_build_counts(built: Build) -> None:
    (table,) = built.tables
    rows = table.rows
    by_model = {m: [r for r in rows if r["responses_of"] == m] for m in build.RESPONSES_OF}
    assert {m: len(r) for m, r in by_model.items()} == {GPT4: 140, LLAMA: 160}
    assert {m: Counter(r["label_name"] for r in rs) for m, rs in by_model.items()} == {
        GPT4: {"error": 87, "no_error": 53},
        LLAMA: {"error": 128, "no_error": 32},
    }
    assert {m: Counter(r["difficulty"] for r in rs) for m, rs in by_model.items()} == {
        GPT4: {"difficult": 120, "easy": 20},
        LLAMA: {"difficult": 120, "easy": 40},
    }
    assert all(r["label"] == (r["label_name"] == "error") for r in rows)
    # One task number, one input: 160 inputs, 140 of them answered by both models.
    tasks = Counter(r["task_id"] for r in rows)
    assert (len(tasks), sum(n == 2 for n in tasks.values())) == (160, 140)
    assert all("/" in r["item_id"] for r in by_model[LLAMA])  # kept as upstream writes them
    assert rows[0]["item_id"] == "math_problem_generation_84_gpt-4-0613"
    assert Counter(c for r in rows for c in r["error_categories"]) == {
        "Instruction-Following": 52 + 28 + 43 + 65,
        "Reasoning Correctness": 28 + 7 + 65 + 17,
    }
    # Three of Llama-2's responses with an error have no category; no response without one has.
    assert sum(r["label"] and not r["error_categories"] for r in rows) == 3
    assert not any(r["error_categories"] for r in rows if not r["label"])


def test_card_states_the_license_and_the_authors_request(built: Build) -> None:
    assert built.card_info.license == "cc-by-sa-4.0"
    body = built.card_body
    assert "CC BY-SA 4.0" in body and "not be published online in plain" in body
    assert "responses of `gpt-4-0613`: 140 (error 87, no_error 53" in body
    assert "Instruction-Following 188, Context-Faithfulness 0" in body
    assert "ids, the labels and the judges' calls only" in body


def test_build_is_local_only(mirror: Path, tmp_path: Path) -> None:
    command = ["build", BENCH, "--source-dir", str(mirror), "--out", str(tmp_path)]
    result = CliRunner().invoke(main, [*command, "--push-to-hub", "x/y"])
    assert result.exit_code == 1 and "--push-to-hub refuses it" in result.output
    assert "plain text" in result.output
    assert not (tmp_path / BENCH).exists()


@pytest.fixture
def served(mirror: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[StaticServer]:
    """The mirror folder served as raw.githubusercontent.com serves the pinned commit; no
    mirror configured, a fresh cache, nothing may leave 127.0.0.1."""
    monkeypatch.delenv("MATHJUDGE_MIRROR", raising=False)
    monkeypatch.setenv("MATHJUDGE_CACHE", str(tmp_path / "cache"))
    guard = NetworkGuard(monkeypatch)
    with StaticServer(mirror / "realmistake", f"/psunlpgroup/ReaLMistake/{COMMIT}/") as server:
        yield server
    assert guard.attempts == [], f"tried to reach {guard.attempts}"


def test_the_pinned_archive_downloads_and_builds_as_the_mirror(
    served: StaticServer, built: Build
) -> None:
    files = tuple(replace(f, url=served.url_for(f.path)) for f in build.SOURCE.files)
    downloaded = build.build(None, source=replace(build.SOURCE, files=files))
    assert [(r.method, r.path) for r in served.requests] == [
        ("GET", f"/psunlpgroup/ReaLMistake/{COMMIT}/data.zip")
    ]
    assert content_hash(downloaded.tables) == content_hash(built.tables)


# ---- invented archives in the upstream layout ---------------------------------------------------


def invented(item: str, label: str = "error", **changes: object) -> dict:
    """A response in the upstream schema, every text invented."""
    number, _, model = item.removeprefix("math_problem_generation_").partition("_")
    row = {
        "input": f"Invented task {number}.",
        "llm_response": "Question: invented. Solution: invented.",
        "error_label": label,
        "human_explanation": "Invented explanation." if label == "error" else "",
        "error_categories": ["Reasoning Correctness"] if label == "error" else [],
        "metadata": {
            "id": item,
            "task_name": "math_problem_generation",
            "task_source": "aqua",
            "llm_response_model": model,
            "dataset": "realmistake",
            "difficulty": "easy",
        },
    }
    for key, value in changes.items():
        if key.startswith("metadata."):
            row["metadata"][key.removeprefix("metadata.")] = value
        else:
            row[key] = value
    return row


def archive(path: Path, files: dict[str, list[dict | str]]) -> Path:
    """A data.zip holding `files` (response model -> lines). Python writes no encrypted zips;
    the password is only needed by encrypted members, as upstream's are."""
    with zipfile.ZipFile(path, "w") as out:
        out.writestr("data/README.md", "Invented.")
        for model, lines in files.items():
            text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
            out.writestr(build.member(model), text)
    return path


G = "math_problem_generation_{}_gpt-4-0613".format
L = "math_problem_generation_{}_meta-llama/Llama-2-70b-chat-hf".format


def test_an_invented_archive_builds(tmp_path: Path) -> None:
    path = archive(
        tmp_path / "data.zip",
        {GPT4: [invented(G(1)), invented(G(2), "no_error")], LLAMA: [invented(L(1))]},
    )
    rows = build.responses(path)
    assert [(r["item_id"], r["task_id"], r["responses_of"], r["label"]) for r in rows] == [
        (G(1), 1, GPT4, True),
        (G(2), 2, GPT4, False),
        (L(1), 1, LLAMA, True),
    ]


def test_bad_rows_are_refused_with_file_line_and_field(tmp_path: Path) -> None:
    path = archive(
        tmp_path / "data.zip",
        {
            GPT4: [
                invented(G(1), label="maybe"),
                invented(G(2), **{"metadata.difficulty": "hard"}),
                invented(G(3), error_categories=["Spelling"]),
                invented(L(4)),  # Llama-2's response in GPT-4's file
                "{not json",
                invented(G(1), "no_error", error_categories=[]),
            ],
            LLAMA: [invented(L(1), input="Another invented task.")],
        },
    )
    with pytest.raises(ValidationFailed) as err:
        build.responses(path)
    text = str(err.value)
    where = f"{path}!data/math_word_problem_generation/gpt-4-0613.jsonl"
    assert f"{where}:1 [error_label]: 'maybe' is not 'error' or 'no_error'" in text
    assert f"{where}:2 [metadata.difficulty]: 'hard' is not easy or difficult" in text
    assert f"{where}:3 [error_categories]" in text
    assert f"{where}:4 [metadata.llm_response_model]" in text and f"{where}:4 [metadata.id]" in text
    assert f"{where}:5" in text
    assert f"{where}:6 [metadata.id]: repeats {where}:1" not in text  # line 1 was refused
    llama = f"{path}!data/math_word_problem_generation/Llama-2-70b-chat-hf.jsonl"
    assert f"{llama}:1 [input]: task 1 has another input in {G(1)}" in text


def test_a_repeated_id_names_its_first_line(tmp_path: Path) -> None:
    path = archive(tmp_path / "data.zip", {GPT4: [invented(G(1)), invented(G(1))], LLAMA: []})
    with pytest.raises(ValidationFailed, match=r"gpt-4-0613\.jsonl:2 \[metadata\.id\]: repeats"):
        build.responses(path)


def test_an_archive_that_is_not_theirs_is_named(tmp_path: Path) -> None:
    missing = archive(tmp_path / "data.zip", {GPT4: [invented(G(1))]})
    with pytest.raises(MathJudgeError, match="no data/math_word_problem_generation/Llama-2"):
        build.responses(missing)
    (tmp_path / "plain.zip").write_bytes(b"not a zip")
    with pytest.raises(MathJudgeError, match=r"plain\.zip: not ReaLMistake's data\.zip"):
        build.responses(tmp_path / "plain.zip")


# ---- the authors' rule by hand ------------------------------------------------------------------


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six invented responses: g1, g2 (error), g3, g4 (no error) of GPT-4 on tasks 1-4; l1
    (error) and l5 (no error) of Llama-2 on tasks 1 and 5."""
    spec = [
        (G(1), 1, GPT4, True),
        (G(2), 2, GPT4, True),
        (G(3), 3, GPT4, False),
        (G(4), 4, GPT4, False),
        (L(1), 1, LLAMA, True),
        (L(5), 5, LLAMA, False),
    ]
    rows = [
        {
            "item_id": item,
            "task_id": task,
            "responses_of": model,
            "response_model": build.RESPONSE_MODELS[model],
            "difficulty": "easy",
            "task_source": "aqua",
            "label": label,
            "label_name": "error" if label else "no_error",
            "error_categories": [],
            "input": "invented",
            "llm_response": "invented",
            "human_explanation": "",
        }
        for item, task, model, label in spec
    ]
    folder = tmp_path_factory.mktemp("small-realmistake")
    write_dataset(
        Build(
            benchmark=BENCH,
            version="test",
            tables=(Table(build.CONFIG, "test", build.FEATURES, rows),),
            card_info=CardInfo("ReaLMistake test", "cc-by-sa-4.0", ("en",), ()),
            card_body="test",
            sources=(),
        ),
        folder,
    )
    return folder


def _scored(rows: list[dict], datasets: Path, tmp_path: Path, **settings) -> dict:
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    return scores(evaluate_file(BENCH, path, "j", datasets_dir=datasets, n_boot=20, **settings))


def test_one_run_by_hand(small: Path, tmp_path: Path) -> None:
    """Calls error, no error, error, null on g1..g4 and error, no error on l1, l5. GPT-4: 2
    responses with an error, 2 error calls, 1 right: precision, recall and F1 1/2; only g1's
    call equals its label (g4's null is wrong): accuracy 1/4. Llama-2: both right, all 1.
    Overall: 3 with an error, 3 error calls, 2 right: precision, recall, F1 2/3; right g1, l1,
    l5: accuracy 3/6; one null in six calls: unparsed 1/6."""
    calls = [True, False, True, None, True, False]
    items = [G(1), G(2), G(3), G(4), L(1), L(5)]
    rows = [{"item_id": i, "error": c} for i, c in zip(items, calls, strict=True)]
    got = _scored(rows, small, tmp_path)
    assert [got[("responses_of", GPT4, m)] for m in METRICS] == [0.5, 0.5, 0.5, 0.25]
    assert [got[("responses_of", LLAMA, m)] for m in METRICS] == [1, 1, 1, 1]
    assert [got[("overall", "all", m)] for m in METRICS] == pytest.approx([2 / 3] * 3 + [0.5])
    assert got[("overall", "all", "unparsed_rate")] == pytest.approx(1 / 6)


def test_label_is_the_same_call(small: Path, tmp_path: Path) -> None:
    """`label` says what `error` says; where a row gives both, a null in one defers to the
    other: the calls of `test_one_run_by_hand` in four spellings score the same."""
    items = [G(1), G(2), G(3), G(4), L(1), L(5)]
    calls = [True, False, True, None, True, False]
    words = {True: "error", False: "no_error", None: None}
    spellings = [
        [{"item_id": i, "error": c} for i, c in zip(items, calls, strict=True)],
        [{"item_id": i, "label": words[c]} for i, c in zip(items, calls, strict=True)],
        [{"item_id": i, "error": c, "label": None} for i, c in zip(items, calls, strict=True)],
        [
            {"item_id": i, "error": None, "label": words[c]}
            for i, c in zip(items, calls, strict=True)
        ],
    ]
    got = [_scored(rows, small, tmp_path) for rows in spellings]
    assert all(g == got[0] for g in got[1:])
    assert got[0][("overall", "all", "unparsed_rate")] == pytest.approx(1 / 6)


def test_runs_are_scored_one_by_one_then_averaged(small: Path, tmp_path: Path) -> None:
    """In the authors' words (`label`). Run 1 calls every response `error`: precision 3/6,
    recall 1, F1 2*3/(6+3) = 2/3, accuracy 3/6. Run 2 calls every response `no_error`: no
    error call, so precision and F1 are 0 (the authors' zero division), recall 0, accuracy 3/6.
    Mean: F1 1/3, precision 1/4, recall 1/2, accuracy 1/2 -- not the scores of the two runs'
    vote (a tie, no call, on every response: F1 0). GPT-4 alone: run 1 F1 2*2/(4+2) = 2/3,
    run 2 0: 1/3."""
    items = [G(1), G(2), G(3), G(4), L(1), L(5)]
    rows = [{"item_id": i, "run": 1, "label": "error"} for i in items]
    rows += [{"item_id": i, "run": 2, "label": "no_error"} for i in items]
    got = _scored(rows, small, tmp_path)
    assert [got[("overall", "all", m)] for m in METRICS] == pytest.approx(
        [1 / 3, 1 / 4, 1 / 2, 1 / 2]
    )
    assert got[("responses_of", GPT4, "f1")] == pytest.approx(1 / 3)
    # Each run alone, as the run spread shows it, and their mean.
    assert got[("run", "run=1", "f1")] == pytest.approx(2 / 3)
    assert got[("run", "run=2", "f1")] == 0
    assert got[("run_spread", "mean", "f1")] == pytest.approx(1 / 3)


def test_a_run_is_scored_on_the_responses_it_answered(small: Path, tmp_path: Path) -> None:
    """Run 0 answers all six rightly (every metric 1); run 3 answers g3 and g4 only, both
    `error`: precision 0 of 2, recall 0 (no response with an error among them), F1 0, accuracy
    0. Mean: 1/2 for each; Llama-2's responses were answered by run 0 only: 1."""
    items = [G(1), G(2), G(3), G(4), L(1), L(5)]
    gold = [True, True, False, False, True, False]
    rows = [{"item_id": i, "run": 0, "error": g} for i, g in zip(items, gold, strict=True)]
    rows += [{"item_id": i, "run": 3, "error": True} for i in (G(3), G(4))]
    got = _scored(rows, small, tmp_path)
    assert [got[("overall", "all", m)] for m in METRICS] == [0.5] * 4
    assert [got[("responses_of", LLAMA, m)] for m in METRICS] == [1] * 4


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"item_id": G(1), "error": True, "label": "no_error"}, "`label` says 'no_error': one call"),
        ({"item_id": G(1), "label": "maybe"}, r"p\.jsonl:1 \[label\]"),
        ({"item_id": G(1), "error": "yes"}, r"p\.jsonl:1 \[error\]"),
        ({"item_id": G(1), "run": 10, "error": True}, r"p\.jsonl:1 \[run\]: .*less than or equal to 9"),
        ({"item_id": G(1)}, "give at least one of: error, label"),
    ],
)  # fmt: skip
def test_bad_predictions_are_refused_with_their_line(
    small: Path, tmp_path: Path, row: dict, message: str
) -> None:
    with pytest.raises(ValidationFailed, match=message):
        _scored([row], small, tmp_path, allow_partial=True)


# ---- the published judges ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def imported(mirror: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    converted = outputs.import_outputs(BENCH, mirror)
    done = write_all(converted, tmp_path_factory.mktemp("realmistake-outputs"))
    return {c.slug: (c, d) for c, d in zip(converted, done, strict=True)}


def test_28_judges_imported(imported: dict) -> None:
    assert len(imported) == 28
    kinds = Counter(slug.rsplit("-", 1)[-1] for slug in imported)
    assert kinds == {"simple": 12, "cot": 12, "consistency": 3, "vote": 1}
    gpt4, _ = imported["gpt-4-0613-simple"]
    assert len(gpt4.rows) == 4 * 300 and {r["run"] for r in gpt4.rows} == {1, 2, 3, 4}
    assert gpt4.judge == "gpt-4-0613 (simple prompts 1-4)" and not gpt4.partial
    cot, _ = imported["gemma-7b-it-cot"]
    assert len(cot.rows) == 300 and "run" not in cot.rows[0]
    # Null calls are kept as null: gemma's CoT replies the authors could not read.
    assert cot.meta["null_calls"] == sum(r["error"] is None for r in cot.rows) == 6 + 7
    consistency, done = imported["mixtral-8x7b-instruct-v0.1-self-consistency"]
    assert consistency.partial and done.partial and len(consistency.rows) == 50
    assert all(r["item_id"].endswith("gpt-4-0613") for r in consistency.rows)
    assert len(consistency.details[0]["sampled calls"]) == 5
    vote, _ = imported["majority-vote"]
    assert (
        len(vote.rows) == 300 and sum(sum(d["votes"].values()) == 12 for d in vote.details) == 300
    )
    # No reply of a judge is carried (they quote the responses): only calls and tallies.
    for c, _ in imported.values():
        assert {k for d in c.details for k in d} <= {"item_id", "votes", "sampled calls"}
        assert c.meta["source"]["commit"] == COMMIT and c.kind == "llm_judge"


def test_the_published_majority_needs_more_than_half_of_twelve(imported: dict) -> None:
    """The authors' vote says `error` only with 7 or more of the 12 calls; 6 error calls against
    5 no-error calls and a null is `no_error`."""
    vote, _ = imported["majority-vote"]
    call = {r["item_id"]: r["error"] for r in vote.rows}
    assert all(call[d["item_id"]] == (d["votes"].get("error", 0) > 6) for d in vote.details)
    assert sum(d["votes"] == {"error": 6, "no_error": 5, "null": 1} for d in vote.details) == 7


def _output_line(item: str, prediction: str | None, label: str | None = "error") -> str:
    line: dict = {"response": "Invented reply.", "prediction": prediction, "metadata": {"id": item}}
    if label is not None:
        line |= {"label": label, "correct": prediction == label}
    return json.dumps(line)


def test_the_importer_checks_each_line(tmp_path: Path) -> None:
    file = outputs.File("simple_prompt_baseline", GPT4, "invented-judge", "p1", 1)
    gold = {G(1): "error", G(2): "no_error", G(3): "error"}
    path = tmp_path / "p1.jsonl"
    path.write_text(
        "\n".join(
            [
                _output_line(G(1), "error"),
                _output_line(G(9), "error"),
                _output_line(G(1), "no_error"),
                _output_line(G(2), "maybe", "no_error"),
                _output_line(G(3), "no_error", "no_error"),
            ]
        )
        + "\n"
    )
    with pytest.raises(ValidationFailed) as err:
        outputs.read_calls(path, file, gold, partial=False)
    text = str(err.value)
    assert f"p1.jsonl:2 [metadata.id]: '{G(9)}' is no response of gpt-4-0613" in text
    assert "p1.jsonl:3 [metadata.id]: repeats line 1" in text
    assert "p1.jsonl:4 [prediction]: 'maybe' is not error, no_error or null" in text
    assert "p1.jsonl:5 [label]: 'no_error', but the dataset's label is 'error'" in text
    good = [_output_line(G(1), "error"), _output_line(G(2), None, "no_error")]
    path.write_text("\n".join(good) + "\n")
    with pytest.raises(ValidationFailed, match=r"p1\.jsonl \[metadata\.id\]: no line for .*_3_"):
        outputs.read_calls(path, file, gold, partial=False)
    rows, _ = outputs.read_calls(path, file, gold, partial=True)
    assert rows == [
        {"item_id": G(1), "run": 1, "error": True},
        {"item_id": G(2), "run": 1, "error": None},
    ]


# ---- the paper's numbers ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def evaluated(imported: dict, real_datasets: Path) -> dict:
    return {
        slug: evaluate_file(
            BENCH, done.predictions, c.judge, datasets_dir=real_datasets, n_boot=200,
            allow_partial=c.partial, meta={"kind": c.kind, "converted_from": c.converted_from},
        )
        for slug, (c, done) in imported.items()
    }  # fmt: skip


def test_every_cell_of_the_papers_table_is_reproduced(mirror: Path, evaluated: dict) -> None:
    """F1, accuracy, precision and recall of the 12 judges on both response models: 96 cells,
    each ours rounded to the table's one decimal."""
    path = mirror / "reported" / "realmistake_mathgen_simple_prompt.csv"
    rows = [
        r
        for r in csv.DictReader(io.StringIO(path.read_text()))
        if r["judge"] in outputs.JUDGE_MODELS
    ]
    matched = Counter()
    for row in rows:
        got = scores(evaluated[f"{row['judge'].lower()}-simple"])
        ours = got[("responses_of", row["responses_of"], row["metric"])]
        matched[row["metric"]] += f"{ours * 100:.1f}" == row["value"]
    assert matched == {m: 24 for m in METRICS}


def _authors_figures(mirror: Path) -> Iterator[tuple[str, str, str, dict]]:
    """(method folder, judge folder, response model, {metric: the authors' mean over prompts})
    for every math judge of the authors' performance files."""
    root = mirror / "realmistake" / "error_detection_performance" / "performance"
    initial = {
        GPT4: "initial_model=gpt-4-0613",
        LLAMA: "initial_model=meta-llama/Llama-2-70b-chat-hf",
    }
    for method in (
        "simple_prompt_baseline",
        "advanced_prompt_baseline",
        "self_consistency",
        "majority_vote",
    ):
        task = json.loads((root / method / "performance.json").read_text())[
            "math_word_problem_generation"
        ]
        for responses_of, key in initial.items():
            for judge, figures in task.get(key, {}).items():
                folder = judge.removeprefix("baseline_model=").rsplit("/", 1)[-1]
                average = {m: figures["average"]["metrics"][m]["average"] for m in METRICS}
                yield method, folder, responses_of, average  # fmt: skip


def test_the_authors_own_figures_for_every_method(mirror: Path, evaluated: dict) -> None:
    """The authors' computed values (their performance.json files, full precision): the simple
    prompts, the CoT prompt, self-consistency and the majority vote, per response model."""
    judges = {(f.method, f.folder): j.slug for j in outputs.JUDGES for f in j.files}
    cells = 0
    for method, folder, responses_of, average in _authors_figures(mirror):
        got = scores(evaluated[judges[(method, folder)]])
        for metric, value in average.items():
            assert got[("responses_of", responses_of, metric)] == pytest.approx(value, abs=1e-12)
            cells += 1
    assert cells == 4 * (12 * 2 + 12 * 2 + 3 + 2)


def test_published_document_pairs_the_paper_with_our_values(
    mirror: Path, evaluated: dict, tmp_path: Path
) -> None:
    from mathjudge.document.publish import assemble
    from mathjudge.document.reported import import_reported

    store = tmp_path / "results.duckdb"
    results_store.save_many(store, list(evaluated.values()))
    import_reported(mirror / "reported", store)
    document = assemble(store)
    bench = next(b for b in document.benchmarks if b.name == BENCH)
    assert len([s for s in bench.submissions if s.provenance != "paper"]) == 28
    judge = {s.id: s.judge for s in bench.submissions}
    pairs = {judge[c.reproduced]: c for c in bench.comparisons}
    assert len(pairs) == 12
    for comparison in pairs.values():
        assert comparison.verdict == "exact"
        assert [r.verdict for r in comparison.rows] == ["exact"] * 8
    assert bench.ranks.status == "ranked"
    # The three self-consistency judges answered 50 responses: shown, never ranked.
    partial = [sid for sid, why in bench.ranks.excluded.items() if why.kind == "partial"]
    assert sorted(judge[s] for s in partial) == sorted(
        f"{m} (self-consistency, 5 samples)" for m in outputs.SELF_CONSISTENCY
    )


# ---- the store: ranks and comparisons recompute the mean of per-run metrics ----------------------


def test_store_ranks_and_compare(
    imported: dict, evaluated: dict, real_datasets: Path, tmp_path: Path
) -> None:
    store = tmp_path / "results.duckdb"
    keys = ("gpt-4-0613-simple", "gpt-4-0613-cot", "gemma-7b-it-simple")
    ids = results_store.save_many(store, [evaluated[k] for k in keys])
    with duckdb.connect(str(store), read_only=True) as con:
        stored = read.stored_predictions(con, ids[0])
        assert sorted(stored) == sorted(("error", *metrics.RUN_COLUMNS))
        subs = [s for s in read.latest_submissions(con) if s.benchmark == BENCH]
        ranked = rank_benchmark(registry.get(BENCH), subs, con)
    assert ranked.status == "ranked" and ranked.metric == "f1"
    for sid, key in zip(ids, keys, strict=True):
        assert ranked.judges[sid].value == pytest.approx(
            scores(evaluated[key])[("overall", "all", "f1")]
        )
    names = [evaluated[k].judge for k in keys]
    from_store = compare(
        BENCH, names[0], names[1], store=store, datasets_dir=real_datasets, n_boot=200
    )
    (_, a), (_, b) = imported[keys[0]], imported[keys[1]]
    from_files = compare(
        BENCH, a.predictions, b.predictions, store=store, datasets_dir=real_datasets, n_boot=200
    )
    row_store = next(r for r in from_store.rows if (r.scope, r.metric) == ("overall", "f1"))
    row_files = next(r for r in from_files.rows if (r.scope, r.metric) == ("overall", "f1"))
    want = (
        scores(evaluated[keys[0]])[("overall", "all", "f1")]
        - scores(evaluated[keys[1]])[("overall", "all", "f1")]
    )
    assert row_store.diff == pytest.approx(want) and row_files.diff == pytest.approx(want)


# ---- a published site ------------------------------------------------------------------------------


def test_a_published_site_carries_ids_labels_and_calls_only(
    mirror: Path, evaluated: dict, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    store = tmp_path / "results.duckdb"
    results_store.save(store, evaluated["gpt-4-0613-simple"])

    def site_build(out: Path, *flags: str) -> Path:
        command = ["site", "build", "--store", str(store), "--out", str(out), *flags]
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0, result.output
        return out

    site = site_build(tmp_path / "site")
    doc = json.loads((site / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    (bench,) = doc["benchmarks"]
    items = bench["items"]
    assert items["withheld"] == registry.get(BENCH).local_only and items["texts"] == []
    columns = set(pq.read_table(site / "data" / items["items"]).column_names)
    assert {"item_id", "label", "responses_of", "difficulty"} <= columns
    assert not {"input", "llm_response", "human_explanation"} & columns
    # No byte of any input, response or explanation anywhere on the site.
    upstream = build.read_archive(mirror / "realmistake" / build.ARCHIVE)
    needles = set()
    for data in upstream.values():
        for line in data.decode("utf-8").splitlines()[:20]:
            row = json.loads(line)
            for key in ("input", "llm_response", "human_explanation"):
                text = row[key].strip()[:50]
                if len(text) >= 30:
                    needles |= {text.encode(), json.dumps(text)[1:-1].encode()}
    assert len(needles) > 40

    def leaked(site: Path) -> list[str]:
        return [
            p.relative_to(site).as_posix()
            for p in site.rglob("*")
            if p.is_file() and p.suffix != ".parquet" and any(n in p.read_bytes() for n in needles)
        ]

    assert leaked(site) == []
    # The same search finds them on a site meant to stay on this machine.
    assert leaked(site_build(tmp_path / "local", "--include-local-texts")) != []
