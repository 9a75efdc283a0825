"""ReaLMistake (arXiv:2404.03602), math word problem generation: does an LLM's response to a
task with explicit requirements contain an error? The responses of GPT-4-0613 and
Llama-2-70B-chat, labelled by experts."""

from __future__ import annotations

from mathjudge.benchmarks import shortcuts
from mathjudge.spec.benchmark import BenchmarkSpec, Paper
from mathjudge.spec.presentation import (
    Direction,
    ItemField,
    ItemNote,
    MetricGroup,
    MetricSpec,
    ScopeSpec,
)

# A judge's runs are numbered 0 to MAX_RUN, each scored on its own (metrics.py).
MAX_RUN = 9

PAPER = Paper("Evaluating LLMs at Detecting Errors in LLM Responses", "2404.03602")
# The models whose responses are judged, as the paper's tables name them.
RESPONSES_OF = ("gpt-4-0613", "Llama-2-70b-chat-hf")
# The twelve LLM judges of the paper, in the order of its tables (their folder names upstream).
JUDGE_MODELS = (
    "gemma-7b-it",
    "Llama-2-13b-chat-hf",
    "Llama-2-70b-chat-hf",
    "Mistral-7B-Instruct-v0.1",
    "Mixtral-8x7B-Instruct-v0.1",
    "Qwen1.5-14B-Chat",
    "Qwen1.5-72B-Chat",
    "gpt-3.5-turbo-0125",
    "gemini-1.0-pro-001",
    "claude-3-opus-20240229",
    "gpt-4-0613",
    "gpt-4-0125-preview",
)
LOCAL_ONLY = (
    "the ReaLMistake authors ask that examples of their dataset not be published online in "
    "plain text (to keep them out of training corpora), so the build stays local and a "
    "published site shows ids, labels and the judges' calls only"
)


def _pct(key: str, label: str, description: str, direction: Direction = "higher") -> MetricSpec:
    return MetricSpec(
        key,
        label,
        f"{description}, ×100; each run's value, then the mean over the judge's runs.",
        scale=100,
        decimals=1,
        direction=direction,
    )


SPEC = BenchmarkSpec(
    name="realmistake",
    title="ReaLMistake (math word problem generation)",
    summary=(
        "Error detection in LLM responses (arXiv:2404.03602): 300 responses of GPT-4-0613 and "
        "Llama-2-70B to 160 tasks asking for a math word problem with a step-by-step solution "
        "under explicit requirements, labelled error / no error by experts (215 with an error). "
        "A judge says whether each response has an error. Headline: F1 with 'error' the "
        "positive class; a judge run with several prompts is scored per prompt, then averaged, "
        "as the paper does."
    ),
    paper=PAPER,
    dataset="realmistake",
    items_config="responses",
    seed=11,
    headline="f1",
    overview_extra=("accuracy",),
    groups=(
        MetricGroup(
            "Detecting errors (positive = the response has an error)",
            (
                _pct("f1", "F1", "Harmonic mean of precision and recall (0 when undefined)"),
                _pct("precision", "Precision", "Share of 'error' calls that are right"),
                _pct("recall", "Recall", "Share of responses with an error called 'error'"),
                _pct("accuracy", "Accuracy", "Share of calls equal to the gold label"),
                _pct(
                    "unparsed_rate",
                    "Unparsed",
                    "Share of null calls (no error for precision, recall and F1; wrong for "
                    "accuracy)",
                    "lower",
                ),
            ),
        ),
    ),
    scopes=(
        ScopeSpec(
            "responses_of",
            "By the model whose responses are judged",
            "Responses of {}",
            order=RESPONSES_OF,
        ),
        ScopeSpec("difficulty", "By task difficulty", "{} tasks", order=("easy", "difficult")),
    ),
    cluster_label="task inputs",
    items=(
        ItemField(
            "error",
            "label",
            "Says error (vote of its runs)",
            "verdict",
            description="Whether the judge finds a mistake in the model's response: the sign "
            "of its runs' votes (each run +1 for a mistake, -1 for none), beside the human "
            "annotators' label.",
            words=("a mistake", "no mistake", "runs split or unread"),
        ),
    ),
    item_notes=tuple(
        ItemNote(
            f"error_r{run}",
            f"Run {run}",
            f"The call of the judge's run {run} on this response: +1 a mistake found, -1 none, "
            "0 a reply the authors could not read; empty where that run did not answer. The "
            "metrics are computed per run, then averaged over runs.",
        )
        for run in range(MAX_RUN + 1)
    ),
    item_text=("input", "llm_response", "human_explanation"),
    outputs=".outputs:import_outputs",
    baselines=(
        shortcuts.constant(
            "always-error",
            "Constant (always finds a mistake)",
            {"error": True},
            "Says every response has a mistake.",
            "The share of responses with a mistake alone: recall 1 and precision the base rate; "
            "a judge whose F1 is not clearly above it has not shown it finds mistakes.",
        ),
        shortcuts.constant(
            "never-error",
            "Constant (never finds a mistake)",
            {"error": False},
            "Says no response has a mistake.",
            "Accuracy from the share of responses without a mistake; F1 0 by the authors' rule.",
        ),
    ),
    reported=".reported",
    local_only=LOCAL_ONLY,
    notes=(
        "Only the math word problem generation task of ReaLMistake is here (the other two "
        "tasks are not math). The published judges' calls are the authors' own readings of "
        "their replies (null where unreadable).",
    ),
)
