"""Local stand-ins for the network services mathjudge talks to, served on 127.0.0.1 only.

Tests never reach the internet: a static file server plays raw.githubusercontent.com, a minimal
Hub API plays huggingface.co, and `NetworkGuard` records any attempt to reach another host. Every
server records the requests it receives so tests can count them and inspect the exact bytes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import unquote, urlsplit

import pytest
import yaml

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


class NetworkGuard:
    """Refuses, and records, any DNS lookup or connection to a host that is not loopback.

    Recording matters because some libraries swallow connection errors (huggingface_hub's
    agent detection does), so a refused call alone would go unnoticed.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.attempts: list[str] = []
        real_getaddrinfo = socket.getaddrinfo
        real_connect = socket.socket.connect

        def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            self._check(host)
            return real_getaddrinfo(host, *args, **kwargs)

        def connect(sock: socket.socket, address: Any) -> None:
            if sock.family in (socket.AF_INET, socket.AF_INET6):
                self._check(address[0])
            real_connect(sock, address)

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
        monkeypatch.setattr(socket.socket, "connect", connect)

    def _check(self, host: Any) -> None:
        name = host.decode() if isinstance(host, bytes) else str(host)
        if name not in LOOPBACK:
            self.attempts.append(name)
            raise OSError(f"test tried to reach {name!r}; only 127.0.0.1 is allowed")


def closed_port_url() -> str:
    """A loopback URL nothing listens on: connections are refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@dataclass(frozen=True)
class Seen:
    """One request as the server received it (header names lower-cased)."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes


Reply = tuple[int, dict[str, str], bytes]


def json_reply(status: int, payload: Any, headers: dict[str, str] | None = None) -> Reply:
    return (
        status,
        {"Content-Type": "application/json", **(headers or {})},
        json.dumps(payload).encode(),
    )


class LocalServer:
    """A ThreadingHTTPServer on a free 127.0.0.1 port, run in a background thread while the
    object is used as a context manager; subclasses implement `respond`."""

    def __init__(self) -> None:
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        # A short poll interval keeps `shutdown` (which waits for the next poll) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def handle(self, seen: Seen) -> Reply:
        with self._lock:
            self.requests.append(seen)
            return self.respond(seen)

    def respond(self, seen: Seen) -> Reply:
        raise NotImplementedError


def _handler_for(server: LocalServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # A server with `keep_alive` serves like production ones: persistent connections (every
        # reply has a length) and no Nagle delay on small writes.
        if getattr(server, "keep_alive", False):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            parts = urlsplit(self.path)
            seen = Seen(
                method=self.command,
                path=unquote(parts.path),
                query=parts.query,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length),
            )
            status, headers, body = server.handle(seen)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            """Silenced: failures are asserted on `server.requests`, not read from stderr."""

    return Handler


class StaticServer(LocalServer):
    """Serves the files of `root` under the URL path `prefix` (e.g. a raw.githubusercontent.com
    layout `/<owner>/<repo>/<commit>/data/`); anything else is a 404."""

    def __init__(self, root: Path, prefix: str) -> None:
        super().__init__()
        self.root = root
        self.prefix = "/" + prefix.strip("/") + "/"

    def url_for(self, name: str) -> str:
        return f"{self.url}{self.prefix}{name}"

    def respond(self, seen: Seen) -> Reply:
        if seen.method in ("GET", "HEAD") and seen.path.startswith(self.prefix):
            target = (self.root / seen.path.removeprefix(self.prefix)).resolve()
            if target.is_relative_to(self.root.resolve()) and target.is_file():
                return 200, {"Content-Type": "application/octet-stream"}, target.read_bytes()
        return 404, {"Content-Type": "text/plain"}, b"not found"


def git_blob_oid(content: bytes) -> str:
    """The git object id the Hub reports for a regular file (what the client compares)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass(frozen=True)
class Commit:
    oid: str
    summary: str
    description: str
    files: dict[str, bytes] = field(default_factory=dict, compare=False, repr=False)


@dataclass
class Repo:
    repo_type: str
    repo_id: str
    private: bool
    files: dict[str, bytes] = field(default_factory=dict)
    commits: list[Commit] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)  # name -> commit oid

    @property
    def head(self) -> str:
        return self.commits[-1].oid if self.commits else "0" * 40

    def at(self, revision: str) -> Commit | None:
        """The commit a revision names: `main`, a tag or a commit id."""
        oid = self.head if revision == "main" else self.tags.get(revision, revision)
        return next((c for c in self.commits if c.oid == oid), None)


_REPO_ROUTE = re.compile(
    r"^/api/(?P<type>model|dataset|space)s/(?P<id>[^/]+/[^/]+)"
    r"(?:/(?P<action>preupload|commit|tag|revision|tree)/(?P<rev>[^/]+)(?:/.*)?|/(?P<refs>refs))?$"
)
_FILE_ROUTE = re.compile(
    r"^/(?:(?P<type>dataset|space)s/)?(?P<id>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$"
)
_URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}


class HubStandIn(LocalServer):
    """The slice of the Hugging Face Hub API that `create_repo`, `create_commit` /
    `upload_folder`, `create_tag`, `list_repo_refs` and the downloads (`hf_hub_download`,
    `snapshot_download`) use.

    Every file is answered with upload mode "regular", so the client sends contents base64 in
    the commit body and never needs LFS or Xet storage; every commit keeps a snapshot of the
    files, so any revision (`main`, a tag, a commit id) can be read back. `fail` maps an
    endpoint name ("validate-yaml", "create", "info", "preupload", "commit", "tag", "refs",
    "revision", "tree", "download") to a status to answer instead. Requests it does not
    implement are answered 404 and kept in `unhandled`.
    """

    def __init__(self, token: str | None = None) -> None:
        super().__init__()
        self.token = token
        self.repos: dict[tuple[str, str], Repo] = {}
        self.fail: dict[str, int] = {}
        self.unhandled: list[Seen] = []

    def repo(self, repo_id: str, repo_type: str = "dataset") -> Repo:
        return self.repos[(repo_type, repo_id)]

    def respond(self, seen: Seen) -> Reply:
        match = _REPO_ROUTE.match(seen.path) or _FILE_ROUTE.match(seen.path)
        action = match.groupdict().get("action") if match else None
        if seen.method == "POST" and seen.path == "/api/validate-yaml":
            name = "validate-yaml"
        elif seen.method == "POST" and seen.path == "/api/repos/create":
            name = "create"
        elif match and "path" in match.groupdict() and seen.method in ("GET", "HEAD"):
            name = "download"
        elif match and seen.method == "GET" and match["refs"]:
            name = "refs"
        elif match and seen.method == "GET" and action in ("revision", "tree"):
            name = action
        elif match and seen.method == "GET" and not action:
            name = "info"
        elif match and seen.method == "POST" and action in ("preupload", "commit", "tag"):
            name = action
        else:
            self.unhandled.append(seen)
            return json_reply(404, {"error": f"stand-in does not implement {seen.path}"})
        if name in self.fail:
            return json_reply(self.fail[name], {"error": f"stand-in failure injected on {name}"})
        if self.token is not None and seen.headers.get("authorization") != f"Bearer {self.token}":
            return json_reply(401, {"error": "Invalid credentials in Authorization header"})
        if name == "validate-yaml":
            return self._validate_yaml(json.loads(seen.body))
        if name == "create":
            return self._create(json.loads(seen.body))
        assert match is not None
        repo = self.repos.get((match["type"] or "model", match["id"]))
        if repo is None:
            return json_reply(
                404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"}
            )
        if name == "info":
            return json_reply(200, {"id": repo.repo_id, "sha": repo.head, "private": repo.private})
        if name == "preupload":
            return self._preupload(repo, json.loads(seen.body))
        if name == "commit":
            return self._commit(repo, seen.body)
        if name == "tag":
            return self._tag(repo, match["rev"], json.loads(seen.body))
        if name == "refs":
            tags = [
                {"name": t, "ref": f"refs/tags/{t}", "targetCommit": oid}
                for t, oid in repo.tags.items()
            ]
            main = {"name": "main", "ref": "refs/heads/main", "targetCommit": repo.head}
            return json_reply(200, {"branches": [main], "converts": [], "tags": tags})
        commit = repo.at(match["rev"])
        if commit is None:
            return json_reply(
                404,
                {"error": f"Invalid rev id: {match['rev']}"},
                {"X-Error-Code": "RevisionNotFound"},
            )
        return self._read(name, repo, commit, match)

    def _tag(self, repo: Repo, revision: str, payload: dict[str, Any]) -> Reply:
        commit = repo.at(revision)
        if commit is None:
            return json_reply(404, {"error": f"Invalid rev id: {revision}"})
        if payload["tag"] in repo.tags:
            return json_reply(409, {"error": f"Tag {payload['tag']} already exists"})
        repo.tags[payload["tag"]] = commit.oid
        return json_reply(200, {})

    def _read(self, name: str, repo: Repo, commit: Commit, match: re.Match[str]) -> Reply:
        """A revision's info, its file tree, or one of its files (as `HubSnapshotStandIn`)."""
        if name == "revision":
            siblings = [{"rfilename": path} for path in commit.files]
            info = {"id": repo.repo_id, "sha": commit.oid, "private": repo.private}
            return json_reply(200, {**info, "siblings": siblings})
        if name == "tree":
            return json_reply(
                200,
                [
                    {"type": "file", "path": path, "size": len(data), "oid": git_blob_oid(data)}
                    for path, data in commit.files.items()
                ],
            )
        content = commit.files.get(match["path"])
        if content is None:
            return json_reply(404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
        headers = {
            "Content-Type": "application/octet-stream",
            "ETag": f'"{git_blob_oid(content)}"',
            "X-Repo-Commit": commit.oid,
        }
        return 200, headers, content

    def _validate_yaml(self, payload: dict[str, Any]) -> Reply:
        front = payload["content"].split("---\n")
        try:
            yaml.safe_load(front[1] if len(front) > 2 else "")
        except yaml.YAMLError as exc:
            return json_reply(400, {"errors": [{"message": str(exc)}], "warnings": []})
        return json_reply(200, {"errors": [], "warnings": []})

    def _create(self, payload: dict[str, Any]) -> Reply:
        repo_type = payload.get("type") or "model"
        repo_id = f"{payload.get('organization') or 'stand-in-user'}/{payload['name']}"
        url = f"{self.url}/{_URL_PREFIX[repo_type]}{repo_id}"
        if (repo_type, repo_id) in self.repos:
            return json_reply(409, {"error": "You already created this repo", "url": url})
        private = payload.get("visibility") == "private"
        self.repos[(repo_type, repo_id)] = Repo(repo_type, repo_id, private)
        return json_reply(200, {"url": url, "name": repo_id})

    def _preupload(self, repo: Repo, payload: dict[str, Any]) -> Reply:
        files = [
            {
                "path": f["path"],
                "uploadMode": "regular",
                "shouldIgnore": False,
                "oid": git_blob_oid(repo.files[f["path"]]) if f["path"] in repo.files else None,
            }
            for f in payload["files"]
        ]
        return json_reply(200, {"files": files})

    def _commit(self, repo: Repo, body: bytes) -> Reply:
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        header, operations = lines[0], lines[1:]
        if header["key"] != "header":
            return json_reply(400, {"error": "the first NDJSON line must be the header"})
        files = dict(repo.files)
        for op in operations:
            key, value = op["key"], op["value"]
            if key == "file" and value.get("encoding") == "base64":
                files[value["path"]] = base64.b64decode(value["content"])
            elif key == "deletedFile":
                files.pop(value["path"], None)
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                files = {p: c for p, c in files.items() if not p.startswith(prefix)}
            else:
                return json_reply(400, {"error": f"stand-in does not support {key!r} operations"})
        summary = header["value"]["summary"]
        digest = hashlib.sha1(f"{repo.head}\n{summary}\n".encode())
        for path in sorted(files):
            digest.update(f"{path}\n{git_blob_oid(files[path])}\n".encode())
        commit = Commit(
            digest.hexdigest(), summary, header["value"].get("description", ""), dict(files)
        )
        repo.files = files
        repo.commits.append(commit)
        url = f"{self.url}/{_URL_PREFIX[repo.repo_type]}{repo.repo_id}/commit/{commit.oid}"
        return json_reply(200, {"commitUrl": url, "commitOid": commit.oid, "pullRequestUrl": None})


_READ_ROUTE = re.compile(
    r"^(?:/api/datasets/(?P<api_id>[^/]+/[^/]+)/(?P<call>revision|tree)/(?P<api_rev>[^/]+)"
    r"|/datasets/(?P<file_id>[^/]+/[^/]+)/resolve/(?P<file_rev>[^/]+)/(?P<path>.+))$"
)


class HubSnapshotStandIn(LocalServer):
    """The read-only slice of the Hub that `snapshot_download(repo_type="dataset")` uses, for
    one dataset repo whose files are those of `folder`.

    `GET /api/datasets/<id>/revision/<rev>` gives the commit (`sha`) and `siblings`;
    `GET /api/datasets/<id>/tree/<rev>` lists every file (the client asks recursively);
    `HEAD`/`GET /datasets/<id>/resolve/<rev>/<path>` serve a file with the `ETag` (its git
    blob id) and `X-Repo-Commit` headers the client requires. Files are plain git blobs, with no
    LFS or Xet headers, so the client downloads them over HTTP. Revisions are `main` and the
    commit; anything else is answered 404 and kept in `unhandled`.
    """

    def __init__(self, repo_id: str, folder: Path) -> None:
        super().__init__()
        self.repo_id = repo_id
        self.files = {
            p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file()
        }
        digest = hashlib.sha1(repo_id.encode())
        for path, content in self.files.items():
            digest.update(f"\n{path}\n{git_blob_oid(content)}".encode())
        self.commit = digest.hexdigest()
        self.unhandled: list[Seen] = []

    def respond(self, seen: Seen) -> Reply:
        match = _READ_ROUTE.match(seen.path)
        if seen.method not in ("GET", "HEAD") or match is None:
            return self._unhandled(seen)
        repo_id = match["api_id"] or match["file_id"]
        revision = match["api_rev"] or match["file_rev"]
        if repo_id != self.repo_id or revision not in ("main", self.commit):
            return self._unhandled(seen)
        if match["call"] == "revision":
            siblings = [{"rfilename": path} for path in self.files]
            info = {"id": self.repo_id, "sha": self.commit, "private": False}
            return json_reply(200, {**info, "siblings": siblings})
        if match["call"] == "tree":
            return json_reply(
                200,
                [
                    {"type": "file", "path": path, "size": len(data), "oid": git_blob_oid(data)}
                    for path, data in self.files.items()
                ],
            )
        content = self.files.get(match["path"])
        if content is None:
            return self._unhandled(seen)
        headers = {
            "Content-Type": "application/octet-stream",
            "ETag": f'"{git_blob_oid(content)}"',
            "X-Repo-Commit": self.commit,
        }
        return 200, headers, content

    def _unhandled(self, seen: Seen) -> Reply:
        self.unhandled.append(seen)
        return json_reply(404, {"error": f"stand-in does not serve {seen.path}"})


@dataclass(frozen=True)
class StubReply:
    """One scripted answer of `OpenAIStub`: a chat completion with `content`, or an error
    `status` (with `headers` such as Retry-After), or `raw` bytes sent as the body verbatim;
    `delay` seconds pass before the reply is sent."""

    content: str = "ok"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    prompt_tokens: int = 11
    completion_tokens: int = 7
    raw: bytes | None = None


Script = Callable[[dict[str, Any]], StubReply | str]


class OpenAIStub(LocalServer):
    """A local OpenAI-compatible `POST /v1/chat/completions`, scripted per test.

    Replies come from `queue` (consumed in order; a `str` is a normal answer) and, once it is
    empty, from `script(request_json)` (default: answer "ok"). The stub keeps every request's
    JSON in `bodies` and the highest number of requests it was serving at once in
    `max_in_flight`; delays are served outside the lock, so concurrent requests really overlap.
    """

    keep_alive = True

    def __init__(
        self, queue: list[StubReply | str] | None = None, script: Script | None = None
    ) -> None:
        super().__init__()
        self.queue: list[StubReply | str] = list(queue or [])
        self.script: Script = script or (lambda _body: StubReply())
        self.bodies: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._closing = threading.Event()
        # The default listen backlog (5) drops bursts of concurrent connects, which then wait
        # for a TCP retransmit (about 1 s): widen it so the stub really serves in parallel.
        self._httpd.socket.listen(256)
        self._httpd.handle_error = self._handle_error  # type: ignore[method-assign]

    def _handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about clients that hung up (a timed-out call); loud about anything else."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            ThreadingHTTPServer.handle_error(self._httpd, request, client_address)

    @property
    def api_base(self) -> str:
        return f"{self.url}/v1"

    @property
    def count(self) -> int:
        return len(self.bodies)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._closing.set()  # wake delayed replies so shutdown is quick
        super().__exit__(exc_type, exc, tb)

    def handle(self, seen: Seen) -> Reply:
        if seen.method != "POST" or not seen.path.endswith("/chat/completions"):
            with self._lock:
                self.requests.append(seen)
            return json_reply(404, {"error": {"message": f"stub does not serve {seen.path}"}})
        body = json.loads(seen.body)
        with self._lock:
            self.requests.append(seen)
            self.bodies.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            scripted = self.queue.pop(0) if self.queue else self.script(body)
        reply = StubReply(content=scripted) if isinstance(scripted, str) else scripted
        try:
            if reply.delay:
                self._closing.wait(reply.delay)
            return self._render(body, reply)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _render(self, body: dict[str, Any], reply: StubReply) -> Reply:
        if reply.raw is not None:
            return reply.status, {"Content-Type": "application/json", **reply.headers}, reply.raw
        if reply.status != 200:
            error = {"message": f"stub error {reply.status}", "type": "stub", "code": None}
            return json_reply(reply.status, {"error": error}, reply.headers)
        completion = {
            "id": f"chatcmpl-stub-{len(self.bodies)}",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": body.get("model", "stub"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }
        return json_reply(200, completion, reply.headers)
