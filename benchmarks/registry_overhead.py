"""The registry's per-call overhead over a direct call of a no-op tool, sync and async.

Each case runs ``--calls`` calls per round, timed with ``time.perf_counter_ns``
(``--timer cpu``: ``time.thread_time_ns``, for a machine busy with other work);
after a warm-up round, ``--repeats`` rounds run every case in turn (so a load
spike on the machine hits every case alike), and each case's median round is
reported as microseconds per call, as the overhead over the direct call and as
a ratio to it. The "+ timeout (thread)" case and the async cases include the hop
to one of the tool's threads (an async tool runs on that thread's own event
loop, so that one which blocks its loop blocks no one else); with ``--timer cpu``
the time spent on the tool's thread is not counted, so measure them in wall time.
Parameter validation is on in every registry case (the no-op tool takes one
integer parameter, checked against its schema on every call); the no-op
returns nothing, so it declares no output schema, except in the "+ output
schema" case, whose ``dict[str, int]`` return is checked too. The figures are
printed, never asserted; ``--profile`` adds a cProfile of the sync path with
the breaker.

    python benchmarks/registry_overhead.py [--calls N] [--repeats R] [--timer wall|cpu] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import platform
import pstats
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from toolresponse import CircuitBreaker, ToolRegistry

TARGET_US = 10.0
PARAMS: dict[str, Any] = {"value": 1}


def noop(value: int) -> None:
    """The no-op tool: takes one integer, returns nothing (so it declares no output schema)."""


async def anoop(value: int) -> None:
    """The no-op tool, async."""


def noop_dict(value: int) -> dict[str, int]:
    """A no-op tool whose return annotation declares an output schema, checked on every call."""
    return {}


def registry(*, breaker: bool) -> ToolRegistry:
    tools = ToolRegistry(breaker=CircuitBreaker() if breaker else None)
    tools.register(noop, name="noop")
    tools.register(anoop, name="anoop")
    tools.register(noop_dict, name="noop_dict")
    # Under a timeout a sync tool runs on one of its own threads: the thread hop every async
    # tool pays too (it runs on its thread's own event loop, never on the caller's).
    tools.register(noop, name="noop_timed", timeout_s=60)
    return tools


@dataclass(frozen=True)
class Case:
    name: str
    per_call_ns: float
    """The median round."""
    best_ns: float
    """The fastest round (the least disturbed by other work on the machine)."""


TIMERS: dict[str, Callable[[], int]] = {"wall": time.perf_counter_ns, "cpu": time.thread_time_ns}


def sync_run(call: Callable[[], object], calls: int, timer: Callable[[], int]) -> Callable[[], float]:
    """One timed run of ``calls`` calls of ``call``: nanoseconds per call."""

    def timed() -> float:
        start = timer()
        for _ in range(calls):
            call()
        return (timer() - start) / calls

    return timed


def async_run(
    call: Callable[[], Awaitable[object]], calls: int, timer: Callable[[], int]
) -> Callable[[], float]:
    """As ``sync_run`` for a coroutine function, awaited in a fresh event loop (not timed)."""

    async def loop() -> float:
        start = timer()
        for _ in range(calls):
            await call()
        return (timer() - start) / calls

    return lambda: asyncio.run(loop())


def measure(runs: dict[str, Callable[[], float]], repeats: int) -> list[Case]:
    """Warm every case up, then time the cases in turn, ``repeats`` rounds (so that a load spike
    on the machine hits every case alike); the median round of each case."""
    for timed in runs.values():
        timed()
    rounds: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, timed in runs.items():
            rounds[name].append(timed())
    return [Case(name, statistics.median(times), min(times)) for name, times in rounds.items()]


def check_answers() -> None:
    """Every registry case answers success, so that the figures time the real path."""
    for with_breaker in (False, True):
        tools = registry(breaker=with_breaker)
        answers = [
            tools.execute("noop", PARAMS),
            tools.execute("noop_dict", PARAMS),
            asyncio.run(tools.aexecute("anoop", PARAMS)),
        ]
        refused = tools.execute("noop", {"value": "one"})
        if not all(answer.is_success for answer in answers) or refused.code != "INVALID_PARAM":
            raise SystemExit(f"unexpected answers: {[*answers, refused]}")


def run(calls: int, repeats: int, timer: Callable[[], int] = time.perf_counter_ns) -> list[Case]:
    plain, guarded = registry(breaker=False), registry(breaker=True)
    return measure(
        {
            "direct call (sync)": sync_run(lambda: noop(**PARAMS), calls, timer),
            "execute, no breaker": sync_run(lambda: plain.execute("noop", PARAMS), calls, timer),
            "execute, breaker": sync_run(lambda: guarded.execute("noop", PARAMS), calls, timer),
            "  + output schema": sync_run(lambda: guarded.execute("noop_dict", PARAMS), calls, timer),
            "  + timeout (thread)": sync_run(lambda: guarded.execute("noop_timed", PARAMS), calls, timer),
            "direct call (async)": async_run(lambda: anoop(**PARAMS), calls, timer),
            "aexecute, no breaker": async_run(lambda: plain.aexecute("anoop", PARAMS), calls, timer),
            "aexecute, breaker": async_run(lambda: guarded.aexecute("anoop", PARAMS), calls, timer),
        },
        repeats,
    )


def report(cases: list[Case], calls: int, repeats: int, timer: str = "wall") -> str:
    lines = [
        f"ToolRegistry overhead per call: median of {repeats} rounds x {calls:,} calls, {timer} time "
        f"(Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs)",
        f"  {'case':<24}{'per call':>12}{'overhead':>12}{'ratio':>10}{'best round':>14}",
    ]
    baseline = 0.0
    for case in cases:
        if case.name.startswith("direct"):
            baseline = case.per_call_ns
            overhead, ratio = "-", "1.0x"
        else:
            overhead = f"{(case.per_call_ns - baseline) / 1000:.2f} us"
            ratio = f"{case.per_call_ns / baseline:.1f}x"
        lines.append(
            f"  {case.name:<24}{case.per_call_ns / 1000:>9.2f} us{overhead:>12}{ratio:>10}"
            f"{case.best_ns / 1000:>11.2f} us"
        )
    sync_breaker = next(case for case in cases if case.name == "execute, breaker")
    verdict = "within" if sync_breaker.per_call_ns / 1000 < TARGET_US else "OVER"
    lines.append(
        f"  sync execute with breaker and parameter validation: {sync_breaker.per_call_ns / 1000:.2f} us "
        f"per call, {verdict} the {TARGET_US:g} us target"
    )
    return "\n".join(lines)


def profile(calls: int) -> str:
    tools = registry(breaker=True)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        tools.execute("noop", PARAMS)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=20_000, help="calls per run (default 20,000)")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per case (default 7)")
    parser.add_argument(
        "--timer",
        choices=TIMERS,
        default="wall",
        help="wall: time.perf_counter_ns (default); cpu: time.thread_time_ns, this thread's CPU time, "
        "which leaves out the time other processes hold the CPU (for a busy machine)",
    )
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of sync execute")
    args = parser.parse_args(argv)
    if args.calls < 1 or args.repeats < 1:
        parser.error("--calls and --repeats must be at least 1")
    check_answers()
    print(report(run(args.calls, args.repeats, TIMERS[args.timer]), args.calls, args.repeats, args.timer))
    if args.profile:
        print(profile(args.calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
