"""Scaling out: one process, ``--jobs 2``, and a local Dask cluster on the same corpus, as ratios.

Builds the corpus of ``validate_throughput.py`` (``--lines``, default 200,000;
80% valid), then measures, best of ``--repeats`` interleaved runs (a load
spike elsewhere on the machine only ever slows a run down):

- whole processes, each with a fixed argument list (no shell), stdout discarded:
  ``toolresponse validate [--quiet] CORPUS`` with ``--jobs 1`` and ``--jobs 2``
  (targets on two cores: ``--quiet`` at least 1.6x, full reports at least 1.3x);
- the Dask path (``toolresponse.dask.check_on``, what ``--scheduler`` runs) on a
  local cluster of worker processes on 127.0.0.1, started once and timed per run,
  with 1 worker and with 2; its overhead at one worker is its time over the
  command's at one process (target at most 1.3x), the command's start-up included
  in the command's time as a user sees it;
- the peak resident memory of each Dask worker (``ru_maxrss``, fresh workers for
  each run) on the corpus and on the corpus three times over: flat when it does not
  grow with the input.

Figures are printed, never asserted. The machine's load is printed with them:
on shared cores the ratios say as much about the neighbours as about the code.

    python benchmarks/scale_throughput.py [--lines N] [--repeats R] [--keep DIR] [--corpus FILE]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from validate_throughput import (
    Run,
    build_corpus,
    cached_bytecode_environment,
    interleaved,
    repeat_file,
    run_process,
)

import toolresponse.validation
from toolresponse.validation import Options, expand

TARGET_QUIET = 1.6
TARGET_FULL = 1.3
TARGET_DASK_OVERHEAD = 1.3
TIMES_LONGER = 3
JOBS_LONGER = 5


def peak_rss_mb() -> float:
    """This process's peak resident memory (run on each worker)."""
    return float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024


def dask_seconds(client: object, paths: list[str], options: Options, repeats: int) -> float:
    from toolresponse.dask import check_on

    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for _batch in check_on(client, expand(paths), options):  # type: ignore[arg-type]
            pass
        best = min(best, time.perf_counter() - started)
    return best


def process_runs(corpus: Path, workdir: Path, repeats: int) -> dict[str, Run]:
    """The command on the corpus and on it repeated, ``--jobs 1`` and ``2``, quiet or not."""
    validate = [sys.executable, "-m", "toolresponse", "validate"]
    long_corpus = workdir / "corpus-long.jsonl"
    repeat_file(corpus, long_corpus, JOBS_LONGER)
    cases: dict[str, list[str]] = {}
    for path, suffix in ((corpus, ""), (long_corpus, f" (x{JOBS_LONGER})")):
        for jobs in ("1", "2"):
            cases[f"--jobs {jobs} --quiet{suffix}"] = [*validate, "--quiet", "--jobs", jobs, str(path)]
            cases[f"--jobs {jobs}{suffix}"] = [*validate, "--jobs", jobs, str(path)]
    run_process(cases["--jobs 1 --quiet"])  # page cache and bytecode cache
    best = interleaved(cases, repeats)
    long_corpus.unlink()
    return best


def dask_runs(corpus: Path, lines: int, repeats: int) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Seconds of the Dask path with 1 and 2 workers, and each worker's peak memory (fresh workers
    for each run) on the corpus and on it ``TIMES_LONGER`` times over."""
    import logging

    from distributed import Client, LocalCluster

    cluster_options: dict[str, Any] = {
        "threads_per_worker": 1,
        "processes": True,
        "host": "127.0.0.1",
        "dashboard_address": "127.0.0.1:0",
        "silence_logs": logging.CRITICAL,
    }
    seconds: dict[str, float] = {}
    memory: dict[str, list[float]] = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, **cluster_options) as cluster, Client(cluster) as client:
            client.run(toolresponse.validation.is_valid, {})  # import and compile on every worker
            for quiet in (True, False):
                name = f"dask, {workers} worker{'s' if workers > 1 else ''}{' --quiet' if quiet else ''}"
                seconds[name] = dask_seconds(client, [str(corpus)], Options(explain=not quiet), repeats)
    for times in (1, TIMES_LONGER):
        with LocalCluster(n_workers=2, **cluster_options) as cluster, Client(cluster) as client:
            dask_seconds(client, [str(corpus)] * times, Options(), 1)
            memory[f"{lines * times:,} lines"] = sorted(client.run(peak_rss_mb).values())
    return seconds, memory


def print_figures(
    lines: int, best: dict[str, Run], dask: dict[str, float], memory: dict[str, list[float]]
) -> None:
    seconds = {name: run.seconds for name, run in best.items()} | dask
    print(f"\n{'case':28} {'seconds':>8} {'lines/s':>12} {'CPU s':>7}")
    for name, value in seconds.items():
        count = lines * (JOBS_LONGER if name.endswith(")") else 1)
        used = f"{best[name].cpu_seconds:7.2f}" if name in best else f"{'-':>7}"
        print(f"{name:28} {value:8.2f} {count / value:12,.0f} {used}")
    print()

    def ratio(slow: str, fast: str) -> float:
        return seconds[slow] / seconds[fast]

    for suffix in ("", f" (x{JOBS_LONGER})"):
        quiet_ratio = ratio(f"--jobs 1 --quiet{suffix}", f"--jobs 2 --quiet{suffix}")
        full_ratio = ratio(f"--jobs 1{suffix}", f"--jobs 2{suffix}")
        print(f"--jobs 2 --quiet vs --jobs 1 --quiet{suffix}: {quiet_ratio:.2f}x (>= {TARGET_QUIET}x)")
        print(f"--jobs 2 vs --jobs 1 (full reports){suffix}: {full_ratio:.2f}x (>= {TARGET_FULL}x)")
    print(f"dask, 2 workers vs one process:       {ratio('--jobs 1', 'dask, 2 workers'):.2f}x")
    print(f"dask, 2 workers vs --jobs 2:          {ratio('--jobs 2', 'dask, 2 workers'):.2f}x")
    print(f"dask overhead, 1 worker vs the CLI:   {ratio('dask, 1 worker', '--jobs 1'):.2f}x "
          f"(target <= {TARGET_DASK_OVERHEAD}x)")  # fmt: skip
    print(f"  the same, --quiet:                  {ratio('dask, 1 worker --quiet', '--jobs 1 --quiet'):.2f}x")
    print("\npeak memory per Dask worker (2 workers, full reports):")
    for label, peaks in memory.items():
        print(f"  {label:>13}: " + ", ".join(f"{peak:.1f} MB" for peak in peaks))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--lines", type=int, default=200_000, help="corpus size (default 200,000)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each case (default 3)")
    parser.add_argument("--keep", type=Path, help="build the corpus in this directory and keep it")
    parser.add_argument("--corpus", type=Path, help="use this JSON-lines file instead of building one")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("distributed") is None:
        print("the Dask figures need the extra: pip install 'toolresponse[dask]'", file=sys.stderr)
        return 2
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="toolresponse-scale-"))
    workdir.mkdir(parents=True, exist_ok=True)
    corpus = args.corpus or workdir / "corpus.jsonl"
    # The processes measured, and the Dask workers (started from this process), read and write
    # their bytecode in the work directory, as an installed package has it cached; otherwise
    # every start would compile the package again (PYTHONDONTWRITEBYTECODE may be set here).
    environment = cached_bytecode_environment(workdir / "bytecode")
    os.environ.clear()
    os.environ.update(environment)
    try:
        if args.corpus is None:
            lines, size = build_corpus(corpus, args.lines)
        else:
            with open(corpus, "rb") as counted:
                lines = sum(1 for _ in counted)
            size = corpus.stat().st_size
        load = os.getloadavg()
        print(f"corpus: {lines:,} lines, {size / 1e6:,.1f} MB; {os.cpu_count()} CPUs")
        print(f"load average before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        best = process_runs(corpus, workdir, args.repeats)
        dask, memory = dask_runs(corpus, lines, args.repeats)
        print_figures(lines, best, dask, memory)
        load = os.getloadavg()
        print(f"load average after: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
