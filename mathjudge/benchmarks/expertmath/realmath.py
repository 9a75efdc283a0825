"""Draft an ExpertMath-style problem package from RealMath theorem statements with models.

The CBU paper derives verifiable questions from arXiv theorems: a model turns each theorem into
a question with a short exact answer plus easier neighbourhood variants, and only questions
whose answer several independent models reach are kept. Here:

1. the generator model answers `prompts/expertmath_realmath_question.md` with a JSON object
   (question, answer, solution, variants) or a reasoned skip;
2. every solver model answers `prompts/expertmath_realmath_solve.md` for every question
   (original and variants), ending with `ANSWER: ...`;
3. a question's agreement is the share of solvers whose answer is equivalent to the generated
   one (math-verify, as RuleEM checks answers); questions below `min_agreement` are dropped, and
   an original is kept only if it and at least one variant pass.

The output is a package draft (docs/expertmath-package.md) without candidate solutions, which
the authors add before it can be built, and `generation.json` recording the models, the prompt
hashes, every answer and every agreement. All calls go through `LlmClient`, so a re-run replays
from the disk cache.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Unpack

import yaml

from mathjudge.answers.normalised import answers_match
from mathjudge.base.atomic import atomic_dir
from mathjudge.base.errors import MathJudgeError
from mathjudge.dataio.jsonfiles import read_json
from mathjudge.llm.answers import AnswerError, final_field
from mathjudge.llm.client import ClientOptions, LlmClient
from mathjudge.llm.params import DETERMINISTIC
from mathjudge.llm.request import LlmRequest
from mathjudge.prompts import load_prompt

QUESTION_PROMPT = "expertmath_realmath_question"
SOLVE_PROMPT = "expertmath_realmath_solve"
DEFAULT_PARAMS = DETERMINISTIC
_JSON_BLOCK = re.compile(r"```json\s*(\{.*?\})\s*```", re.DOTALL)
_ARXIV_ID = re.compile(r"abs/([^/\s]+?)/?$")


@dataclass(frozen=True)
class Question:
    question: str
    answer: str
    solution: str


@dataclass(frozen=True)
class Generated:
    """A generator's answer: the original and its variants, or why it skipped the theorem."""

    original: Question | None
    variants: tuple[Question, ...] = ()
    skip: str | None = None


def _question(value: Any, where: str) -> Question:
    if not isinstance(value, dict):
        raise AnswerError(f"{where} must be a JSON object")
    texts = {}
    for key in ("question", "answer", "solution"):
        text = value.get(key)
        if not isinstance(text, str) or not text.strip():
            raise AnswerError(f"{where} needs a non-empty '{key}' text")
        texts[key] = text.strip()
    return Question(**texts)


def parse_generation(answer: str) -> Generated:
    """The last ```json block of the answer, checked field by field."""
    blocks = _JSON_BLOCK.findall(answer)
    if not blocks:
        raise AnswerError("the reply does not end with a ```json block")
    try:
        data = json.loads(blocks[-1])
    except json.JSONDecodeError as exc:
        raise AnswerError(f"the ```json block is not valid JSON ({exc.msg})") from exc
    if isinstance(data, dict) and isinstance(data.get("skip"), str):
        return Generated(None, skip=data["skip"].strip() or "no reason given")
    original = _question(data, "the object")
    variants = data.get("variants")
    if not isinstance(variants, list) or not variants:
        raise AnswerError("'variants' must be a non-empty list")
    return Generated(
        original, tuple(_question(v, f"variants[{i}]") for i, v in enumerate(variants))
    )


def parse_solution(answer: str) -> str:
    return final_field(answer, "ANSWER")


@dataclass
class Theorem:
    item_id: str
    link: str
    title: str
    theorem: str


def read_theorems(path: Path, limit: int | None = None) -> list[Theorem]:
    """RealMath rows (link, title, theorem, ...) with ids `<arxiv id>-t<k>`, k counting the
    theorems taken from the same paper."""
    rows = read_json(path)
    if not isinstance(rows, list):
        raise MathJudgeError(f"{path}: expected a JSON list of theorem records")
    seen: Counter[str] = Counter()
    out = []
    for index, row in enumerate(rows[:limit] if limit else rows):
        missing = [
            k for k in ("link", "title", "theorem") if not isinstance(row.get(k), str) or not row[k]
        ]
        if missing:
            raise MathJudgeError(f"{path} row {index}: missing {', '.join(missing)}")
        match = _ARXIV_ID.search(row["link"])
        if match is None:
            raise MathJudgeError(f"{path} row {index} [link]: not an arXiv abs URL")
        paper = match.group(1).replace("/", "_")
        out.append(Theorem(f"{paper}-t{seen[paper]}", row["link"], row["title"], row["theorem"]))
        seen[paper] += 1
    return out


@dataclass
class GenerationReport:
    out_dir: Path
    funnel: dict[str, int]
    record: dict[str, Any] = field(repr=False)


def generate_package(
    realmath: Path,
    out_dir: Path,
    *,
    generator: str,
    solvers: list[str],
    cache_dir: Path,
    n_variants: int = 2,
    min_agreement: float = 1.0,
    limit: int | None = None,
    **options: Unpack[ClientOptions],
) -> GenerationReport:
    """Generate, filter by solver agreement and write the package draft to `out_dir`."""
    if not solvers:
        raise MathJudgeError("give at least one solver model")
    theorems = read_theorems(realmath, limit)
    question_prompt, solve_prompt = load_prompt(QUESTION_PROMPT), load_prompt(SOLVE_PROMPT)
    options.setdefault("params", DEFAULT_PARAMS)
    gen_client = LlmClient(generator, cache_dir=cache_dir, **options)
    jobs = [
        (
            LlmRequest(
                t.item_id,
                [
                    {
                        "role": "user",
                        "content": question_prompt.fill(
                            title=t.title,
                            link=t.link,
                            theorem=t.theorem,
                            n_variants=str(n_variants),
                        ),
                    }
                ],
            ),
            parse_generation,
        )
        for t in theorems
    ]
    generated = gen_client.run_parsed_batch(jobs)

    questions: dict[str, Question] = {}  # question id -> question
    groups: dict[str, list[str]] = {}  # theorem id -> [original id, variant ids...]
    for theorem, reply in zip(theorems, generated, strict=True):
        if reply.value is None or reply.value.original is None:
            continue
        ids = [theorem.item_id] + [
            f"{theorem.item_id}-v{i + 1}" for i in range(len(reply.value.variants))
        ]
        groups[theorem.item_id] = ids
        questions |= dict(zip(ids, (reply.value.original, *reply.value.variants), strict=True))

    answers: dict[str, dict[str, str | None]] = {qid: {} for qid in questions}
    for solver in solvers:
        client = LlmClient(solver, cache_dir=cache_dir, **options)
        solve_jobs = [
            (
                LlmRequest(
                    qid, [{"role": "user", "content": solve_prompt.fill(question=q.question)}]
                ),
                parse_solution,
            )
            for qid, q in questions.items()
        ]
        for solved in client.run_parsed_batch(solve_jobs):
            answers[solved.item_id][solver] = solved.value
    agreement = {
        qid: sum(
            a is not None and answers_match(a, [questions[qid].answer])
            for a in answers[qid].values()
        )
        / len(solvers)
        for qid in questions
    }

    items, kept = [], {}
    for theorem, reply in zip(theorems, generated, strict=True):
        entry: dict[str, Any] = {"id": theorem.item_id, "link": theorem.link}
        if reply.value is None:
            entry |= {"kept": False, "reason": f"generation failed: {reply.failure}"}
        elif reply.value.original is None:
            entry |= {"kept": False, "reason": f"skipped by the generator: {reply.value.skip}"}
        else:
            ids = groups[theorem.item_id]
            passing = [q for q in ids[1:] if agreement[q] >= min_agreement]
            ok = agreement[ids[0]] >= min_agreement and bool(passing)
            entry |= {
                "kept": ok,
                "reason": None if ok else "solver agreement below the threshold",
                "kept_variants": passing if ok else [],
                "agreement": {q: agreement[q] for q in ids},
                "answers": {q: {"generated": questions[q].answer, **answers[q]} for q in ids},
            }
            if ok:
                kept[theorem.item_id] = (theorem, passing)
        items.append(entry)

    funnel = {
        "theorems": len(theorems),
        "generated": len(groups),
        "skipped": sum(1 for r in generated if r.value is not None and r.value.original is None),
        "failed": sum(1 for r in generated if r.value is None),
        "kept": len(kept),
        "variants_kept": sum(len(v) for _, v in kept.values()),
    }
    record = {
        "source": str(realmath),
        "generator": generator,
        "solvers": solvers,
        "prompt_sha256": {
            QUESTION_PROMPT: question_prompt.sha256,
            SOLVE_PROMPT: solve_prompt.sha256,
        },
        "params": dict(options["params"]),
        "n_variants": n_variants,
        "min_agreement": min_agreement,
        "funnel": funnel,
        "items": items,
    }
    _write(out_dir, kept, questions, record)
    return GenerationReport(out_dir, funnel, record)


def _write(
    out_dir: Path,
    kept: dict[str, tuple[Theorem, list[str]]],
    questions: dict[str, Question],
    record: dict[str, Any],
) -> None:
    """The package draft, written in one piece (an existing folder is replaced only on
    success)."""

    def dump(path: Path, data: Any) -> None:
        path.write_text(
            yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
        )

    with atomic_dir(out_dir) as tmp:
        dump(
            tmp / "package.yaml",
            {
                "name": "realmath-derived",
                "version": "draft",
                "license": "unknown",
                "title": "ExpertMath-style questions derived from RealMath theorems",
                "description": "Questions and neighbourhood variants generated by "
                f"{record['generator']} from arXiv theorem statements and kept where the solver "
                "models agreed on the answer; see generation.json. Candidate solutions are "
                "still to be added.",
            },
        )
        for original_id, (theorem, variant_ids) in kept.items():
            folder = tmp / original_id
            (folder / "candidates").mkdir(parents=True)
            q = questions[original_id]
            dump(
                folder / "problem.yaml",
                {
                    "title": theorem.title,
                    "statement": q.question,
                    "answer": q.answer,
                    "solution": q.solution,
                    "notes": f"Derived from {theorem.link}; provenance in generation.json.",
                    "variants": [
                        {
                            "id": v,
                            "statement": questions[v].question,
                            "answer": questions[v].answer,
                            "solution": questions[v].solution,
                        }
                        for v in variant_ids
                    ],
                },
            )
        (tmp / "generation.json").write_text(
            json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
