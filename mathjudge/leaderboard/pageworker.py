"""The program of the page process (see `pageprocess`): one JSON request per line on stdin
(`{"site": ..., "pages": [...], "items": [...]}`), "done" on stdout once its pages are
written; a failure is one line on stderr and a non-zero exit."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from mathjudge.errors import MathJudgeError
from mathjudge.leaderboard.pageprocess import DONE
from mathjudge.leaderboard.render import environment, render_benchmark_parts


def main() -> int:
    import mathjudge.leaderboard.plots  # noqa: F401 - imported while the caller publishes

    for name in ("benchmark.html", "item.html", "item_index.html"):
        environment().get_template(name)
    for line in sys.stdin:
        try:
            request = json.loads(line)
            render_benchmark_parts(
                Path(request["site"]), list(request["pages"]), list(request["items"])
            )
        except MathJudgeError as exc:
            print(exc, file=sys.stderr)
            return 1
        except Exception as exc:  # reported to the parent as one line
            print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
        print(DONE, flush=True)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Every page is written and reported; tearing down the interpreter's objects would only
    # keep the caller waiting.
    os._exit(code)
