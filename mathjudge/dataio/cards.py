"""Data cards: `card.md` in each benchmark's folder, rendered with build facts, plus the sections
every card shares, generated here so they are the same everywhere: how to load it (one config
at a time, pinned to the release on the Hub) and the citation (the folder's `citation.bib`).

The usage section names the local build (`datasets/<name>`) and sits between markers, so a push
can replace it with the Hub repo's own (`for_repo`): no pushed card shows a placeholder.
"""

from __future__ import annotations

import re
from importlib import resources
from typing import Any

import jinja2

CITATION_FILE = "citation.bib"
USAGE_START, USAGE_END = "<!-- usage -->", "<!-- /usage -->"
_EPRINT = re.compile(r"eprint\s*=\s*[{\"]\s*(\d{4}\.\d{4,5})\s*[}\"]", re.I)

_ENV = jinja2.Environment(
    loader=jinja2.FunctionLoader(
        lambda name: (
            resources.files(f"mathjudge.benchmarks.{name}").joinpath("card.md").read_text("utf-8")
        )
    ),
    autoescape=False,  # Markdown, not HTML; values are our own build facts
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)


def render_card_body(benchmark: str, **facts: Any) -> str:
    return _ENV.get_template(benchmark).render(**facts)


def citation(benchmark: str) -> str:
    """The BibTeX of the papers behind `benchmark` ("" when its folder has none)."""
    try:
        path = resources.files(f"mathjudge.benchmarks.{benchmark}").joinpath(CITATION_FILE)
        return path.read_text("utf-8").strip() if path.is_file() else ""
    except ModuleNotFoundError:  # a dataset built outside a benchmark folder (tests, splits)
        return ""


def arxiv_ids(bibtex: str) -> list[str]:
    """The arXiv ids (`eprint`) of the entries, in order: what the card tags and links."""
    return list(dict.fromkeys(_EPRINT.findall(bibtex)))


def citation_section(bibtex: str) -> str:
    if not bibtex:
        return ""
    links = ", ".join(f"[arXiv:{i}](https://arxiv.org/abs/{i})" for i in arxiv_ids(bibtex))
    return (
        "## Citation\n\n"
        f"If you use this dataset, cite the paper that introduced it ({links}):\n\n"
        f"```bibtex\n{bibtex}\n```\n"
    )


def local_ref(benchmark: str) -> str:
    return f"datasets/{benchmark}"


def usage_section(
    benchmark: str, version: str, files: list[tuple[str, str]], repo: str | None = None
) -> str:
    """How to load the dataset: `files` are (config, Parquet path) pairs. Without `repo`, the
    local build under `datasets/`; with it, the Hub repo pinned to `version` (its tag)."""
    configs = list(dict.fromkeys(config for config, _ in files))
    if repo is None:
        ref, pin, root = local_ref(benchmark), "", f"{local_ref(benchmark)}/"
        where = f"the build in `{local_ref(benchmark)}` (`mathjudge build {benchmark}`)"
    else:
        ref, pin, root = repo, f', revision="{version}"', f"hf://datasets/{repo}@{version}/"
        where = f"this repository at release `{version}` (the tag every upload carries)"
    loads = "\n".join(
        f'{_name(c)} = load_dataset("{ref}", "{c}", split="test"{pin})' for c in configs
    )
    first_path = files[0][1]
    several = (
        f"\nThe configs ({', '.join(f'`{c}`' for c in configs)}) have different columns: read "
        "each from its own file.\nA glob over `data/*/*.parquet` stacks the rows of every config "
        "under the columns of whichever\nfile comes first, without an error.\n"
        if len(configs) > 1
        else ""
    )
    per_config = ", one config at a time" if len(configs) > 1 else ""
    return f"""{USAGE_START}
## Use it

With `datasets`, from {where}{per_config}:

```python
from datasets import load_dataset

{loads}
```

With DuckDB (or pandas, `pd.read_parquet`), over the Parquet file of a config:

```python
import duckdb

duckdb.sql("SELECT * FROM '{root}{first_path}' LIMIT 5").show()
```
{several}{USAGE_END}
"""


def _name(config: str) -> str:
    name = re.sub(r"\W", "_", config)
    return name if name.isidentifier() and not name[0].isdigit() else f"ds_{name}"


def with_usage(body: str, usage: str) -> str:
    """`usage` inserted after the card's introduction (before its first `## ` section)."""
    head, sep, rest = body.partition("\n## ")
    return f"{head.rstrip()}\n\n{usage}\n{sep.lstrip()}{rest}" if sep else f"{body}\n\n{usage}"


def label_note(name_columns: list[str]) -> str:
    """What pandas and DuckDB readers see of the labels (they do not apply `datasets` features)."""
    if not name_columns:
        return ""
    listed = ", ".join(f"`{c}`" for c in name_columns)
    return (
        "\nLabels are stored as codes (booleans, integers or `ClassLabel`s, which `datasets` "
        f"shows by name)\nwith their names beside them ({listed}), so pandas and DuckDB show "
        "names too.\n"
    )


def for_repo(
    card: str, benchmark: str, version: str, files: list[tuple[str, str]], repo: str
) -> str:
    """The card as pushed to `repo`: its usage section names the repo and pins the release."""
    start, end = card.find(USAGE_START), card.find(USAGE_END)
    if start < 0 or end < start:
        return card
    usage = usage_section(benchmark, version, files, repo).rstrip("\n")
    return card[:start] + usage + card[end + len(USAGE_END) :]
