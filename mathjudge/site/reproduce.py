"""The reproduce line of a row: everything that recomputes a reproduced result, and the exact
command that does it from the site's own downloads.

A result is a function of the predictions file, the dataset build (name, version, content hash),
the scorer (mathjudge's version) and the scoring options (bootstrap B and seed, the reduction of
runs, a partial submission, the scorer's options such as a matcher). The site publishes the
predictions file as submitted (`data/predictions/<submission id>.<format>`, whose sha256 is the
recorded one), so `mathjudge build` of that dataset version followed by the command below,
run where the file was saved, gives the same numbers. A paper's row has no line: we hold no
predictions of it; a result scored from rows in memory has no file to publish.
"""

from __future__ import annotations

import shlex
from pathlib import PurePosixPath

from mathjudge.site.views import View
from mathjudge.spec.document import BoardSubmission

RUN_REDUCERS = ("mean", "median", "majority")  # what `--runs-agg` takes


class Reproduce(View):
    dataset: str
    version: str
    content_hash: str
    mathjudge_version: str
    bootstrap: int | None
    seed: int | None
    runs_agg: str
    options: tuple[tuple[str, str], ...]  # the scorer's options (matcher, match model)
    predictions_file: str  # under the site's data/ folder
    build: str  # the command building the dataset
    command: str  # the command that scores the file again


def reproduce(sub: BoardSubmission, dataset: str) -> Reproduce | None:
    """The reproduce line of `sub`, a result scored on `dataset` (the built dataset's name);
    None for a paper's row or a result without a published predictions file."""
    if sub.provenance == "paper" or not sub.predictions_file:
        return None
    boot = sub.bootstrap
    n_boot, seed = boot.get("B"), boot.get("seed")
    given = boot.get("options")
    options = tuple(
        (str(k), str(v)) for k, v in sorted((given or {}).items()) if isinstance(v, str | int)
    )
    words = [
        "mathjudge",
        "evaluate",
        sub.benchmark,
        PurePosixPath(sub.predictions_file).name,
        "--judge",
        sub.judge,
        "--revision",
        sub.dataset_version,
    ]
    if isinstance(n_boot, int):
        words += ["--bootstrap", str(n_boot)]
    if isinstance(seed, int):
        words += ["--seed", str(seed)]
    if sub.runs_agg in RUN_REDUCERS:
        words += ["--runs-agg", sub.runs_agg]
    if sub.partial:
        words.append("--allow-partial")
    for key, value in options:
        words += [f"--{key.replace('_', '-')}", value]
    return Reproduce(
        dataset=dataset,
        version=sub.dataset_version,
        content_hash=sub.content_hash,
        mathjudge_version=sub.mathjudge_version,
        bootstrap=n_boot if isinstance(n_boot, int) else None,
        seed=seed if isinstance(seed, int) else None,
        runs_agg=sub.runs_agg,
        options=options,
        predictions_file=sub.predictions_file,
        build=shlex.join(["mathjudge", "build", dataset]),
        command=shlex.join(words),
    )
