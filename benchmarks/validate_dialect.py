"""``toolresponse validate --from DIALECT`` against plain ``validate`` on the same number of lines.

Builds two JSON-lines corpora of ``--lines`` records each (default 100,000) from
the same responses (successes, partial results and errors with data, stats and
context): ToolResponses, and the same responses as records of ``--dialect``
(default ``mcp``; ``openai-chat`` until the MCP mapping is there, which this
script says when it falls back). Each record of the dialect is checked in two
layers (its shape, then the mapped ToolResponse), so the target is that it runs
at >= 0.5x the speed of ``validate``. Whole processes are timed (no shell,
stdout discarded), ``--repeats`` times interleaved, the best time counting; the
figures are printed, never asserted.

    python benchmarks/validate_dialect.py [--lines N] [--repeats R] [--dialect NAME]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from toolresponse import ErrorCode, ToolResponse
from toolresponse.interop import dialect

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = [sys.executable, "-m", "toolresponse"]


def responses(count: int, seed: int = 7) -> list[ToolResponse]:
    """``count`` varied valid responses, the same for a given seed."""
    rng = random.Random(seed)
    codes = list(ErrorCode)
    made = []
    for index in range(count):
        context = {"tool_name": rng.choice(["read_file", "search", "calc"]), "call_id": f"call_{index}"}
        stats = {"time_ms": round(rng.random() * 50, 3)}
        kind = rng.random()
        if kind < 0.6:
            data = {"content": "x" * rng.randrange(0, 200), "size": rng.randrange(10_000)}
            made.append(ToolResponse.success(f"Read {index}.", data=data, stats=stats, context=context))
        elif kind < 0.8:
            data = {"returned": 10, "total": 100, "truncated": True}
            made.append(ToolResponse.partial("First 10 of 100.", data=data, stats=stats, context=context))
        else:
            code = rng.choice(codes)
            message = f"failed: {code.value}"
            made.append(ToolResponse.error(code, message, details={"n": index}, stats=stats, context=context))
    return made


def timed(arguments: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(arguments, check=False, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dialect", default="mcp")
    args = parser.parse_args()
    name = args.dialect
    if name == "mcp" and importlib.util.find_spec("toolresponse.interop._mcp") is None:
        print("the MCP mapping (interop/_mcp.py) is not there yet: measuring openai-chat instead")
        name = "openai-chat"
    chosen = dialect(name)
    made = responses(args.lines)
    with tempfile.TemporaryDirectory() as work:
        plain = Path(work) / "toolresponse.jsonl"
        foreign = Path(work) / f"{name}.jsonl"
        plain.write_bytes(b"".join(orjson.dumps(response.to_dict()) + b"\n" for response in made))
        foreign.write_bytes(b"".join(orjson.dumps(chosen.to(response)) + b"\n" for response in made))
        runs = {
            "validate": [*PROGRAM, "validate", str(plain)],
            f"validate --from {name}": [*PROGRAM, "validate", "--from", name, str(foreign)],
        }
        best = dict.fromkeys(runs, float("inf"))
        for _ in range(args.repeats):
            for label, arguments in runs.items():
                best[label] = min(best[label], timed(arguments))
        sizes = {"validate": plain.stat().st_size, f"validate --from {name}": foreign.stat().st_size}
    print(f"{args.lines:,} lines each, best of {args.repeats}, {os.cpu_count()} cores")
    for label, seconds in best.items():
        rate = args.lines / seconds
        print(f"  {label:<32} {seconds:7.2f} s  {rate:>10,.0f} lines/s  {sizes[label] / 1e6:.1f} MB")
    ratio = best["validate"] / best[f"validate --from {name}"]
    print(f"  --from {name} / validate: {ratio:.2f}x (target >= 0.5x)")


if __name__ == "__main__":
    main()
