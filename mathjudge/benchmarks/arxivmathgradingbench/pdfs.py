"""`--with-pdfs` for ArxivMathGradingBench: the PDF of each paper's erroneous version, fetched
from arXiv politely and stored beside the dataset only where the paper's license allows it.

Politeness: one request at a time, `delay_s` between the end of one response and the next
request (arXiv asks automated clients for about one request every three seconds), a User-Agent
saying who is asking and why, and nothing fetched twice: PDFs go into a cache keyed by item id,
each written atomically after it is verified, so a killed run leaves no partial file and the
next run resumes with only the missing ones. Only redistributable papers are fetched at all;
for the others `pdfs.json` records where to get them.

The PDFs join the dataset folder inside the same atomic swap that publishes it: the folder
never holds a build with half its PDFs, or PDFs of another build. They are attachments, not
data: `manifest.json` (its file list and `content_hash`) is exactly what `write_dataset` writes
without them, and `pdfs.json` names that `content_hash` and each PDF's sha256.
"""

from __future__ import annotations

import http.client
import json
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mathjudge import __version__
from mathjudge.base.atomic import atomic_dir, atomic_path
from mathjudge.base.config import cache_dir
from mathjudge.base.errors import MathJudgeError
from mathjudge.benchmarks.arxivmathgradingbench.build import CONFIG, is_permissive
from mathjudge.dataio.sources import sha256_file
from mathjudge.dataio.writer import Build, write_dataset

ARXIV_PDF_URL = "https://arxiv.org/pdf"
DEFAULT_DELAY_S = 3.0
TIMEOUT_S = 60
USER_AGENT = (
    f"mathjudge/{__version__} (ArxivMathGradingBench dataset builder; fetches each benchmark "
    "paper's PDF once, one request at a time)"
)
PDF_DIR = "pdfs"
PDF_MANIFEST = "pdfs.json"
PDF_MAGIC = b"%PDF-"
PDF_TRAILER = b"%%EOF"
TRAILER_WINDOW = 1024  # readers look for %%EOF in the last 1024 bytes; so does the check


def pdf_url(item_id: str, base_url: str = ARXIV_PDF_URL) -> str:
    return f"{base_url.rstrip('/')}/{item_id}"


def check_pdf(path: Path) -> str | None:
    """Why `path` is not a complete PDF (it lacks the `%PDF-` header, or the `%%EOF` trailer a
    cut-off download loses), or None when it is one."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        head = handle.read(len(PDF_MAGIC))
        handle.seek(max(0, size - TRAILER_WINDOW))
        tail = handle.read()
    if head != PDF_MAGIC:
        return f"not a PDF (starts with {head!r})"
    if PDF_TRAILER not in tail:
        return "an incomplete PDF (no %%EOF trailer)"
    return None


class PoliteClient:
    """Sequential GETs, each at least `delay_s` after the previous response ended."""

    def __init__(self, delay_s: float = DEFAULT_DELAY_S, user_agent: str = USER_AGENT) -> None:
        self.delay_s = delay_s
        self.user_agent = user_agent
        self._last_end: float | None = None

    def download(self, url: str, dest: Path) -> None:
        """Fetch `url` to `dest`, which appears only once the bytes are a complete PDF."""
        if self._last_end is not None:
            time.sleep(max(0.0, self._last_end + self.delay_s - time.monotonic()))
        request = urllib.request.Request(url, headers={"User-Agent": self.user_agent})
        try:
            with atomic_path(dest) as tmp:
                with (
                    tmp.open("wb") as out,
                    urllib.request.urlopen(request, timeout=TIMEOUT_S) as response,
                ):
                    shutil.copyfileobj(response, out)
                problem = check_pdf(tmp)
                if problem is not None:
                    raise ValueError(f"the response is {problem}")
        except urllib.error.HTTPError as exc:
            retry = exc.headers.get("Retry-After") if exc.headers else None
            hint = f" (server asks to retry after {retry} s)" if retry else ""
            raise OSError(f"HTTP {exc.code} {exc.reason}{hint}") from exc
        except (urllib.error.URLError, http.client.HTTPException) as exc:
            raise OSError(str(exc)) from exc
        finally:
            self._last_end = time.monotonic()


def fetch_pdfs(
    papers: Sequence[Mapping[str, Any]],
    cache: Path,
    *,
    base_url: str = ARXIV_PDF_URL,
    client: PoliteClient | None = None,
) -> dict[str, Path]:
    """The cached PDF of every paper with a redistributable license, by item id. Complete
    files already in `cache` are used as they are; the rest are downloaded in paper order.
    The first failure stops the run (what was fetched stays cached for the next one)."""
    client = client or PoliteClient()
    wanted = [p["item_id"] for p in papers if is_permissive(p["license"])]
    fetched: dict[str, Path] = {}
    for item_id in wanted:
        path = cache / f"{item_id}.pdf"
        if not (path.is_file() and check_pdf(path) is None):
            url = pdf_url(item_id, base_url)
            try:
                client.download(url, path)
            except (OSError, ValueError) as exc:
                raise MathJudgeError(
                    f"{item_id}: could not fetch its PDF from {url}: {exc}; {len(fetched)} of "
                    f"{len(wanted)} PDFs are in {cache}, run again to resume"
                ) from exc
        fetched[item_id] = path
    return fetched


def attach_pdfs(
    folder: Path,
    papers: Sequence[Mapping[str, Any]],
    fetched: Mapping[str, Path],
    *,
    base_url: str = ARXIV_PDF_URL,
) -> dict[str, Any]:
    """Copy the fetched PDFs into `folder/pdfs/` and write `folder/pdfs.json`, which lists every
    paper: stored with its sha256, or not redistributed and where to fetch it. `folder` must hold
    the dataset's manifest.json, whose content_hash the PDF manifest names."""
    dataset = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    entries = []
    for paper in papers:
        item_id, license_id = paper["item_id"], paper["license"]
        entry: dict[str, Any] = {
            "item_id": item_id,
            "url": pdf_url(item_id, base_url),
            "license": license_id,
            "pdf": None,
            "sha256": None,
            "bytes": None,
            "status": f"not redistributed: license {license_id}",
        }
        if item_id in fetched:
            relative = f"{PDF_DIR}/{item_id}.pdf"
            target = folder / relative
            target.parent.mkdir(exist_ok=True)
            shutil.copyfile(fetched[item_id], target)
            entry |= {
                "pdf": relative,
                "sha256": sha256_file(target),
                "bytes": target.stat().st_size,
                "status": "stored",
            }
        entries.append(entry)
    manifest = {
        "benchmark": dataset["benchmark"],
        "content_hash": dataset["content_hash"],
        "policy": "PDFs are stored only for CC0, CC BY and CC BY-SA papers; fetch the others "
        "from their url under the paper's own license",
        "papers": entries,
    }
    (folder / PDF_MANIFEST).write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return manifest


def write_with_pdfs(
    build: Build,
    out_dir: Path,
    *,
    base_url: str = ARXIV_PDF_URL,
    cache: Path | None = None,
    client: PoliteClient | None = None,
) -> Path:
    """`write_dataset` plus the PDFs, published together as `out_dir/<benchmark>`.

    Every download happens before anything is written, so a failed fetch leaves the previous
    dataset untouched. The dataset is then written into the staging folder of one atomic swap
    and the PDFs are added beside it before the swap.
    """
    (table,) = (t for t in build.tables if t.config == CONFIG)
    cache = cache or cache_dir() / "arxiv-pdfs"
    fetched = fetch_pdfs(table.rows, cache, base_url=base_url, client=client)
    final = out_dir / build.benchmark
    with atomic_dir(final) as staging:
        written = write_dataset(build, staging)
        for child in written.iterdir():
            child.rename(staging / child.name)
        written.rmdir()
        attach_pdfs(staging, table.rows, fetched, base_url=base_url)
    return final
