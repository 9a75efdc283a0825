"""The `mathjudge` command. Thin on purpose: parse arguments, call the library, print.

Each command group lives in its own module and is imported only when it runs, so `--help`
and every command pay only for what they use (`mathjudge --help` loads no scoring, model or
plotting library). A benchmark may add a command group of its own (`BenchmarkSpec.command`).

Exit codes: 0 ok, 1 invalid input or unreachable source (the message says what and where),
2 usage error (click's default).
"""

from __future__ import annotations

import errno
import importlib
import sys
from typing import Any

import click

from mathjudge import __version__, registry
from mathjudge.base.display import neutral_lines
from mathjudge.base.errors import MathJudgeError, UsageError, os_problem

# name -> (module in mathjudge.cli, attribute, one-line help shown by `mathjudge --help`)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "build": (
        "datasets",
        "build",
        "Build BENCHMARK into OUT/BENCHMARK (Parquet, data card, manifest).",
    ),
    "validate": (
        "scoring",
        "validate",
        "Check a predictions FILE against BENCHMARK without scoring it.",
    ),
    "evaluate": (
        "scoring",
        "evaluate",
        "Validate and score a predictions FILE for BENCHMARK; save to the store.",
    ),
    "import-outputs": (
        "outputs",
        "import_outputs",
        "Turn the judge outputs a paper publishes into submissions.",
    ),
    "compare": (
        "scoring",
        "compare",
        "Paired comparison A - B: judge names or submission ids in the store, or files.",
    ),
    "reported": (
        "reported",
        "reported",
        "Results transcribed from the source papers (stored with source = reported).",
    ),
    "judge": (
        "judge",
        "judge",
        "Reference judges (LLM judges through litellm, and rule-based ones).",
    ),
    "submit": (
        "submit",
        "submit",
        "Validate predictions, meta and details, then write submissions/BENCH/SLUG/",
    ),
    "site": ("site", "site", "The static leaderboard site, rendered from the results store."),
    "repo": (
        "repo",
        "repo",
        "The leaderboard as a git repository: init, check and sync submission folders.",
    ),
    "results": ("results", "results", "The results store: repair it from the command line."),
    "demo": (
        "demo",
        "demo",
        "Build what is reachable, run the baselines, evaluate, render the site.",
    ),
}


class MainGroup(click.Group):
    """Loads a command's module on first use; turns MathJudgeError into an `error:` message on
    stderr and exit code 1 (2 for an unusable setting, as for a usage error)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *_benchmark_commands()]

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in COMMANDS:
            module, attr, _ = COMMANDS[name]
            return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        return _benchmark_commands().get(name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the table above, without importing any of those commands."""
        rows = [(name, short) for name, (_, _, short) in COMMANDS.items()]
        rows += [(name, cmd.get_short_help_str()) for name, cmd in _benchmark_commands().items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:  # an unusable setting: exit 2, as for a usage error
            click.echo(f"error: {neutral_lines(str(exc))}", err=True)
            sys.exit(2)
        except MathJudgeError as exc:
            click.echo(f"error: {neutral_lines(str(exc))}", err=True)
            sys.exit(1)
        except OSError as exc:  # a full disk, a vanished folder: said, never a traceback
            if exc.errno == errno.EPIPE:
                raise  # click ends quietly when the reader of stdout goes away
            click.echo(f"error: {neutral_lines(os_problem(exc))}", err=True)
            sys.exit(1)


def _benchmark_commands() -> dict[str, click.Command]:
    """The command groups benchmarks contribute (their modules import click only)."""
    out: dict[str, click.Command] = {}
    for spec in registry.specs():
        if spec.command is not None:
            command = registry.resolve(spec.name, spec.command)
            if not isinstance(command, click.Command):
                raise TypeError(f"mathjudge/benchmarks/{spec.name}: command is no click command")
            out[command.name or spec.name] = command
    return out


@click.group(cls=MainGroup)
@click.version_option(__version__, prog_name="mathjudge")
def main() -> None:
    """Benchmarks, evaluator and leaderboard for judges of mathematical work."""
