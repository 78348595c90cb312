"""Per-call round trip of a no-op tool over MCP stdio: our server and client against the SDK's own.

"ours": a ToolRegistry served by ``toolresponse.mcp`` (the SDK's low-level
server, every result a ToolResponse) and called through ``attach`` (the
registry's ``execute`` and ``aexecute``: parameter checks, timeout, listeners,
``from_mcp``). "SDK": the official SDK's high-level ``MCPServer`` with a no-op
``@tool`` and its ``Client.call_tool``. Both servers are this file run as a
child process; each case makes ``--calls`` calls after a warm-up, ``--repeats``
rounds in turn (every case once per round, so that a load spike hits them
alike), and the median round is reported in microseconds per call, with our
ratio to the SDK: the median of the rounds' own ratios (each ours over the SDK's
in the same round) and their range. Figures are printed, never asserted.

    python benchmarks/mcp_roundtrip.py [--calls N] [--repeats R]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Awaitable, Callable


def serve_sdk() -> None:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("sdk-noop")

    @server.tool()
    def noop() -> str:
        """Do nothing."""
        return "ok"

    server.run()


def serve_ours() -> None:
    from toolresponse import ToolRegistry
    from toolresponse.mcp import serve_stdio

    registry = ToolRegistry()

    @registry.tool
    def noop() -> str:
        """Do nothing."""
        return "ok"

    serve_stdio(registry)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--serve", choices=["sdk", "ours"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve == "sdk":
        serve_sdk()
        return 0
    if args.serve == "ours":
        serve_ours()
        return 0

    from mcp import Client, StdioServerParameters

    from toolresponse import ToolRegistry
    from toolresponse.mcp import attach

    registry = ToolRegistry()
    connection = attach(registry, [sys.executable, __file__, "--serve", "ours"])
    parameters = StdioServerParameters(command=sys.executable, args=[__file__, "--serve", "sdk"])

    def ours_sync(calls: int) -> float:
        start = time.perf_counter_ns()
        for _ in range(calls):
            registry.execute("noop")
        return (time.perf_counter_ns() - start) / calls / 1000

    async def ours_async(calls: int) -> float:
        start = time.perf_counter_ns()
        for _ in range(calls):
            await registry.aexecute("noop")
        return (time.perf_counter_ns() - start) / calls / 1000

    async def measure() -> dict[str, list[float]]:
        # One task enters and leaves the SDK client (its task groups require it).
        async with Client(parameters, cache=None) as client:

            async def sdk(calls: int) -> float:
                start = time.perf_counter_ns()
                for _ in range(calls):
                    await client.call_tool("noop", {})
                return (time.perf_counter_ns() - start) / calls / 1000

            cases: dict[str, Callable[[int], Awaitable[float]]] = {
                "SDK MCPServer + Client.call_tool": sdk,
                "ours, registry.execute (sync)": lambda calls: asyncio.to_thread(ours_sync, calls),
                "ours, registry.aexecute (async)": ours_async,
            }
            for case in cases.values():  # warm-up
                await case(max(args.calls // 5, 10))
            rounds: dict[str, list[float]] = {name: [] for name in cases}
            for _ in range(args.repeats):  # every case in turn, so a load spike hits them alike
                for name, case in cases.items():
                    rounds[name].append(await case(args.calls))
        return rounds

    try:
        rounds = asyncio.run(measure())
    finally:
        connection.close()
    baseline = rounds["SDK MCPServer + Client.call_tool"]
    print(f"MCP stdio round trip of a no-op tool ({args.calls} calls x {args.repeats} rounds, median)")
    for name, micros in rounds.items():
        ratios = [mine / theirs for mine, theirs in zip(micros, baseline, strict=True)]
        ratio = statistics.median(ratios)
        print(
            f"  {name:36} {statistics.median(micros):9.1f} us/call   {ratio:5.2f}x the SDK"
            f"   (rounds {min(ratios):.2f}-{max(ratios):.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
