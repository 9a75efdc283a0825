"""Throughput of the model client (`mathjudge.llm.client.LlmClient`, the judge runner's transport)
against a local OpenAI-compatible stub that answers every call after a fixed latency.

With latency L and concurrency C no client can exceed C / L calls per second (the bound;
32 / 0.2 s = 160 calls/s). The script prints calls/s against that bound (target: at least
85%) and the client's CPU time per call, and, as a baseline measured in the same run, the
calls/s of a bare httpx client posting the same requests (what the stub and the machine allow
without litellm). The stub runs in a child process so its CPU is not counted. Run from the
repository root:

    python bench/runner_throughput.py                 # 1,600 calls, latency 0.2 s, C = 32
    python bench/runner_throughput.py --calls 3200 --profile 30
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout, not an installed copy
TARGET = 0.85

_STUB = """
import sys, time
sys.path.insert(0, {tests!r})
from standins import OpenAIStub, StubReply
delay = float(sys.argv[1])
with OpenAIStub(script=lambda body: StubReply(content="SCORE: 5", delay=delay)) as stub:
    print(stub.api_base, flush=True)
    sys.stdin.read()  # serve until the parent closes stdin
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1600)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--cache", action="store_true", help="also write the disk cache")
    parser.add_argument("--profile", type=int, default=0, help="print the top N of a cProfile")
    parser.add_argument("--quick", action="store_true", help="CI: 64 calls at 0.01 s")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.latency = 64, 0.01

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    from mathjudge.llm.client import LlmClient
    from mathjudge.llm.request import LlmRequest
    from mathjudge.llm.retry import RetryPolicy

    stub = subprocess.Popen(
        [sys.executable, "-c", _STUB.format(tests=str(ROOT / "tests")), str(args.latency)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert stub.stdout is not None
        api_base = stub.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            client = LlmClient(
                "openai/bench-model",
                cache_dir=Path(tmp) if args.cache else None,
                api_base=api_base,
                api_key="bench",
                concurrency=args.concurrency,
                timeout=30,
                retry=RetryPolicy(attempts=1),
            )
            baseline = asyncio.run(_bare_httpx(api_base, args.calls, args.concurrency))
            warm = [LlmRequest(f"warm-{i}", _messages(f"warm {i}")) for i in range(64)]
            client.run_batch(warm)  # litellm's one-time set-up and connection pool
            requests = [LlmRequest(f"item-{i}", _messages(f"q {i}")) for i in range(args.calls)]
            profiler = cProfile.Profile() if args.profile else None
            cpu0, wall0 = time.process_time(), time.perf_counter()
            if profiler:
                profiler.enable()
            replies = client.run_batch(requests)
            if profiler:
                profiler.disable()
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    finally:
        if stub.stdin:
            stub.stdin.close()
        stub.wait(timeout=10)

    failed = sum(not r.ok for r in replies)
    bound = args.concurrency / args.latency
    rate = args.calls / wall
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"{args.calls} calls, latency {args.latency * 1000:.0f} ms, concurrency "
        f"{args.concurrency}, cache {'on' if args.cache else 'off'}: {wall:.2f} s, {failed} failed"
    )
    print(f"bound C/L: {bound:.1f} calls/s")
    print(f"baseline, bare httpx: {baseline:.1f} calls/s = {baseline / bound:.1%} of the bound")
    verdict = "OK" if rate >= TARGET * bound else "MISSED"
    print(
        f"mathjudge: {rate:.1f} calls/s = {rate / bound:.1%} of the bound "
        f"(target >= {TARGET:.0%}: {verdict})"
    )
    print(f"client CPU: {cpu / args.calls * 1000:.2f} ms per call ({cpu / wall:.0%} of one core)")
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.profile)
        print(out.getvalue())
    return 0 if failed == 0 else 1


async def _bare_httpx(api_base: str, calls: int, concurrency: int) -> float:
    """Calls/s of plain httpx posts (no litellm, no retries, no cache) at the same concurrency."""
    import httpx

    slots = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=api_base, limits=limits, timeout=30) as http:

        async def one(i: int) -> None:
            async with slots:
                body = {"model": "bench-model", "messages": _messages(f"b {i}")}
                response = await http.post("/chat/completions", json=body)
                response.raise_for_status()

        await asyncio.gather(*(one(i) for i in range(concurrency)))  # connections up
        started = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(calls)))
        return calls / (time.perf_counter() - started)


def _messages(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


if __name__ == "__main__":
    sys.exit(main())
