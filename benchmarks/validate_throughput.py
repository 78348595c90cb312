"""Throughput and memory of ``toolresponse validate`` on a large JSON-lines corpus.

Builds a corpus of ``--lines`` responses (default 200,000; about 80% valid and
20% invalid, sizes from a one-line calculator answer to a file of a few KiB),
then times whole processes on it, each started with a fixed argument list
(no shell), stdout discarded:

- ``toolresponse validate CORPUS`` (one process, the default text report);
- the reference, ``benchmarks/reference_validate.py`` (stdlib ``json.loads`` and a
  reused jsonschema ``Draft202012Validator``);
- parse-only, ``orjson.loads`` of every line: the floor;
- for context, ``toolresponse validate --quiet`` (verdicts only, no messages),
  ``--jobs 2`` (two worker processes; the targets are for one), and the
  command on an empty file (its start-up time, included in every run).

The fast ones run ``--repeats`` times, interleaved, and the best time counts
(a load spike elsewhere on the machine only ever slows a run down); the
reference runs once (``--no-reference`` skips it: it takes most of the time). Every process
runs with its bytecode cached (in the work directory, through ``PYTHONPYCACHEPREFIX``), as an
installed package has it, even where ``PYTHONDONTWRITEBYTECODE`` is set: otherwise each start
would compile the package's modules again. It prints lines per second and CPU seconds, the two
ratios against the targets (>= 10x the reference, >= 0.5x parse-only), in wall time and in CPU time
(on a machine shared with other work, the CPU time varies less), and the peak resident
memory of the validate process (``ru_maxrss`` from ``os.wait4``) on the corpus
and on one five times longer (1,000,000 lines by default), which must stay
under 150 MB and not grow with the input. The figures are printed, never
asserted.

    python benchmarks/validate_throughput.py [--lines N] [--repeats R] [--keep DIR] [--corpus FILE]
                                             [--no-million] [--no-reference] [--no-jobs]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "reference_validate.py"
PARSE_ONLY = """\
import sys
import orjson
loads = orjson.loads
failed = 0
with open(sys.argv[1], "rb") as lines:
    for line in lines:
        try:
            loads(line)
        except orjson.JSONDecodeError:
            failed += 1
print(failed)
"""
VALIDATE = "toolresponse validate"
REFERENCE_NAME = "reference (json + jsonschema)"
TARGET_REFERENCE_RATIO = 10.0
TARGET_FLOOR_RATIO = 0.5
TARGET_MEMORY_MB = 150.0
LONG_FACTOR = 5

WORDS = [
    *("config", "parser", "request", "token", "cache", "value", "module", "result", "stream", "buffer"),
    *("socket", "index", "query", "table", "record", "schema", "client", "server", "session", "worker"),
    *("thread", "latency", "upstream", "retry", "limit", "window", "field"),
]
SENTENCES = 4096
CODES = (
    "NOT_FOUND",
    "INVALID_PARAM",
    "TIMEOUT",
    "RATE_LIMIT",
    "EXECUTION_ERROR",
    "API_ERROR",
    "NETWORK_ERROR",
)
TOOLS = ("read_file", "search", "calculator", "http_get", "list_dir", "run_sql", "weather")


_POOL: dict[int, list[str]] = {}


def sentence(rng: random.Random, words: int) -> str:
    """A sentence of about ``words`` words (drawn from a fixed pool, so building stays fast)."""
    pool = _POOL.get(words)
    if pool is None:
        maker = random.Random(words)
        pool = [
            " ".join(maker.choice(WORDS) for _ in range(words)).capitalize() + "." for _ in range(SENTENCES)
        ]
        _POOL[words] = pool
    return pool[rng.randrange(SENTENCES)]


def context(rng: random.Random, tool: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"tool_name": tool, "params_input": params, "call_id": f"call_{rng.getrandbits(48):012x}"}


def stats(rng: random.Random) -> dict[str, Any]:
    out: dict[str, Any] = {"time_ms": round(rng.lognormvariate(2.0, 1.2), 3)}
    if rng.random() < 0.5:
        out["tokens"] = rng.randint(10, 4000)
    return out


def small(rng: random.Random) -> dict[str, Any]:
    """A calculator or status answer: about 200 bytes."""
    a, b = rng.randint(1, 10**6), rng.randint(1, 10**6)
    return {
        "status": "success",
        "text": f"{a} * {b} = {a * b}",
        "data": {"result": a * b},
        "stats": stats(rng),
        "context": context(rng, "calculator", {"expression": f"{a} * {b}"}),
    }


def listing(rng: random.Random) -> dict[str, Any]:
    """Search results or a directory listing: 0.5 to 3 KB; sometimes partial (truncated)."""
    items = [
        {
            "title": sentence(rng, rng.randint(3, 8)),
            "url": f"https://example.org/{rng.choice(WORDS)}/{rng.randint(1, 99999)}",
            "score": round(rng.random(), 4),
        }
        for _ in range(rng.randint(2, 18))
    ]
    total = len(items) + (rng.randint(1, 500) if rng.random() < 0.3 else 0)
    response: dict[str, Any] = {
        "status": "partial" if total > len(items) else "success",
        "text": f"{len(items)} of {total} results for {rng.choice(WORDS)!r}.",
        "data": {"items": items, "returned": len(items), "total": total, "truncated": total > len(items)},
        "stats": stats(rng),
        "context": context(rng, "search", {"query": rng.choice(WORDS), "limit": len(items)}),
    }
    return response


def file_read(rng: random.Random) -> dict[str, Any]:
    """A file's content, for the model and in data: 0.3 to 8 KB."""
    lines = [sentence(rng, rng.randint(2, 12)) for _ in range(max(1, int(rng.lognormvariate(2.3, 0.9))))]
    content = "\n".join(lines)
    path = f"src/{rng.choice(WORDS)}_{rng.randint(1, 999)}.py"
    return {
        "status": "success",
        "text": f"Read {path} ({len(content)} bytes).",
        "data": {"path": path, "content": content, "size": len(content), "encoding": "utf-8"},
        "stats": stats(rng),
        "context": context(rng, "read_file", {"path": path}),
    }


def failure(rng: random.Random) -> dict[str, Any]:
    """A well-formed error response: about 400 bytes."""
    code = rng.choice(CODES)
    message = sentence(rng, rng.randint(4, 10))
    info: dict[str, Any] = {"code": code, "message": message, "details": {"reason": rng.choice(WORDS)}}
    if code in ("TIMEOUT", "RATE_LIMIT"):
        info["retryable"] = True
        info["retry_after_ms"] = rng.randint(100, 60_000)
    return {
        "status": "error",
        "text": message,
        "error_info": info,
        "stats": stats(rng),
        "context": context(rng, rng.choice(TOOLS), {"arg": rng.choice(WORDS)}),
    }


def valid_response(rng: random.Random) -> dict[str, Any]:
    kind = rng.random()
    if kind < 0.30:
        return small(rng)
    if kind < 0.60:
        return listing(rng)
    if kind < 0.85:
        return file_read(rng)
    return failure(rng)


def helloagents(response: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """HelloAgents 1.0 output: error_info written as "error", with a free-string code."""
    out = {key: value for key, value in response.items() if key != "error_info"}
    out["status"] = "error"
    out["error"] = {
        "code": rng.choice(("FILE_NOT_FOUND", "NOT_FOUND", "TOOL_NOT_FOUND", "CALCULATION_ERROR")),
        "message": out["text"] or "failed",
    }
    return out


def mutate(response: dict[str, Any], rng: random.Random) -> bytes | dict[str, Any]:
    """One of the mistakes third-party output makes, with a realistic weight."""
    kind = rng.random()
    out = dict(response)
    if kind < 0.25:
        return helloagents(out, rng)
    if kind < 0.40:
        out.update(failure(rng))
        out["error_info"] = {
            **out["error_info"],
            "code": rng.choice(("NOT_FOUD", "TIMEOUT_ERROR", "not_found")),
        }
        return out
    if kind < 0.50:
        out["status"] = rng.choice(("ok", "failed", "sucess", "SUCCESS"))
        return out
    if kind < 0.60:
        if rng.random() < 0.5:
            del out["text"]
        else:
            out.update(failure(rng))
            out["text"] = ""
        return out
    if kind < 0.70:
        out["stats"] = {"time_ms": rng.choice(("12ms", -3, "fast"))}
        return out
    if kind < 0.75:
        out["error_info"] = {"code": "NOT_FOUND", "message": "left over"}
        return out
    if kind < 0.85:
        out[rng.choice(("result", "metadata", "stauts"))] = rng.choice(WORDS)
        return out
    text = orjson.dumps(out)
    if kind < 0.90:
        return json.dumps({**out, "stats": {"time_ms": float("nan")}}).encode()
    if kind < 0.95:
        return b'{"status": "error", ' + text[1:]
    return text[: rng.randint(10, max(11, len(text) - 1))]


def build_corpus(path: Path, lines: int, seed: int = 20261201) -> tuple[int, int]:
    """Write the corpus; returns (lines, bytes)."""
    rng = random.Random(seed)
    size = 0
    with open(path, "wb") as out:
        for _ in range(lines):
            response: bytes | dict[str, Any] = valid_response(rng)
            if rng.random() < 0.2:
                response = mutate(response, rng)  # type: ignore[arg-type]
            if isinstance(response, bytes):
                line = response
            elif rng.random() < 0.5:
                line = orjson.dumps(response)
            else:
                line = json.dumps(response).encode()
            out.write(line + b"\n")
            size += len(line) + 1
    return lines, size


def repeat_file(source: Path, target: Path, times: int) -> None:
    with open(target, "wb") as out:
        for _ in range(times):
            with open(source, "rb") as part:
                shutil.copyfileobj(part, out, 1 << 22)


@dataclass
class Run:
    seconds: float
    max_rss_kb: int
    status: int
    cpu_seconds: float = 0.0
    """User and system time of the process (and of the worker processes it waited for)."""


_ENVIRONMENT: dict[str, str] = {}
"""The environment of the measured processes (empty: this one's)."""


def cached_bytecode_environment(cache: Path) -> dict[str, str]:
    """This environment, with bytecode written to and read from ``cache``."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    environment["PYTHONPYCACHEPREFIX"] = str(cache)
    return environment


def run_process(argv: Sequence[str]) -> Run:
    """Run ``argv`` to completion (stdout discarded): wall time, peak memory, exit status, CPU time."""
    start = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=_ENVIRONMENT or None)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return Run(seconds, usage.ru_maxrss, process.returncode, usage.ru_utime + usage.ru_stime)


def best_of(argv: Sequence[str], repeats: int) -> Run:
    runs = [run_process(argv) for _ in range(repeats)]
    return min(runs, key=lambda run: run.seconds)


def interleaved(cases: Mapping[str, Sequence[str]], repeats: int) -> dict[str, Run]:
    best: dict[str, Run] = {}
    for _ in range(repeats):
        for name, argv in cases.items():
            run = run_process(argv)
            if name not in best or run.seconds < best[name].seconds:
                best[name] = run
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--lines", type=int, default=200_000, help="corpus size (default 200,000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the fast processes (default 3)")
    parser.add_argument("--keep", type=Path, help="build the corpus in this directory and keep it")
    parser.add_argument("--no-million", action="store_true", help="skip the memory run on a 5x corpus")
    parser.add_argument("--corpus", type=Path, help="use this JSON-lines file instead of building one")
    parser.add_argument(
        "--no-reference", action="store_true", help="skip the (slow) reference run and its ratio"
    )
    parser.add_argument("--no-jobs", action="store_true", help="skip the --jobs 2 run")
    args = parser.parse_args(argv)

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="toolresponse-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    corpus = args.corpus or workdir / "corpus.jsonl"
    empty = workdir / "empty.jsonl"
    empty.write_bytes(b"")
    _ENVIRONMENT.update(cached_bytecode_environment(workdir / "bytecode"))
    try:
        started = time.perf_counter()
        if args.corpus is None:
            lines, size = build_corpus(corpus, args.lines)
        else:
            with open(corpus, "rb") as counted:
                lines = sum(1 for _ in counted)
            size = corpus.stat().st_size
        print(
            f"corpus: {lines:,} lines, {size / 1e6:,.1f} MB (mean {size / lines:,.0f} B/line), "
            f"ready in {time.perf_counter() - started:.1f} s"
        )
        print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
        python = sys.executable
        validate = [python, "-m", "toolresponse", "validate"]
        cases = {
            VALIDATE: [*validate, str(corpus)],
            "parse-only (orjson)": [python, "-c", PARSE_ONLY, str(corpus)],
            "validate --quiet (verdicts only)": [*validate, "--quiet", str(corpus)],
            "validate --jobs 2": [*validate, "--jobs", "2", str(corpus)],
            "validate, startup only": [*validate, str(empty)],
        }
        if args.no_jobs:
            del cases["validate --jobs 2"]
        run_process(cases["parse-only (orjson)"])  # warm the page cache
        run_process(cases["validate, startup only"])  # write the bytecode cache
        best = interleaved(cases, args.repeats)
        if not args.no_reference:
            best[REFERENCE_NAME] = run_process([python, str(REFERENCE), str(corpus)])
        print()
        print(f"{'process':34} {'seconds':>8} {'lines/s':>12} {'peak MB':>8} {'CPU s':>7}")
        for name, run in best.items():
            rate = f"{lines / run.seconds:12,.0f}" if name != "validate, startup only" else f"{'-':>12}"
            print(f"{name:34} {run.seconds:8.2f} {rate} {run.max_rss_kb / 1024:8.1f} {run.cpu_seconds:7.2f}")
        seconds = {name: run.seconds for name, run in best.items()}
        cpu = {name: run.cpu_seconds for name, run in best.items()}
        versus_floor = seconds["parse-only (orjson)"] / seconds[VALIDATE]
        quiet_floor = seconds["parse-only (orjson)"] / seconds["validate --quiet (verdicts only)"]
        print()
        if REFERENCE_NAME in seconds:
            versus_reference = seconds[REFERENCE_NAME] / seconds[VALIDATE]
            print(
                f"validate / reference:  {versus_reference:6.1f}x  (target >= {TARGET_REFERENCE_RATIO:.0f}x; "
                f"in CPU time {cpu[REFERENCE_NAME] / cpu[VALIDATE]:.1f}x)"
            )
        print(
            f"validate / parse-only: {versus_floor:6.2f}x  (target >= {TARGET_FLOOR_RATIO}x; "
            f"in CPU time {cpu['parse-only (orjson)'] / cpu[VALIDATE]:.2f}x)"
        )
        print(f"validate --quiet / parse-only: {quiet_floor:.2f}x")
        print(f"exit status of validate: {best[VALIDATE].status} (1: the corpus has invalid lines)")
        if not args.no_million:
            long_corpus = workdir / "corpus-long.jsonl"
            repeat_file(corpus, long_corpus, LONG_FACTOR)
            long_run = run_process([*validate, str(long_corpus)])
            long_corpus.unlink()
            long_lines = lines * LONG_FACTOR
            print()
            print(f"peak memory of validate (target < {TARGET_MEMORY_MB:.0f} MB, flat):")
            print(f"  {lines:>9,} lines: {best[VALIDATE].max_rss_kb / 1024:6.1f} MB")
            print(
                f"  {long_lines:>9,} lines: {long_run.max_rss_kb / 1024:6.1f} MB "
                f"({long_run.seconds:.1f} s, {long_lines / long_run.seconds:,.0f} lines/s)"
            )
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
