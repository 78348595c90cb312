"""A cluster started as users start one: ``dask scheduler`` and ``dask worker``, each its own process.

``toolresponse validate --scheduler`` (itself a separate process, run from another directory than the
workers) gives the report of one process; a file the workers cannot reach is one line naming it and
exit 2; a scheduler whose worker command failed to start, and workers that finish nothing, end the
command after ``--cluster-timeout`` with a line saying which, never a wait without end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from distributed import Client, Event
from test_http_conformance import free_port
from test_jobs_ranges import cli, write_corpus

DASK = str(Path(sys.executable).with_name("dask"))
STARTED_WITHIN_S = 60
"""How long a scheduler or its workers may take to start before the fixture gives up (a bound
on a hang, not on speed)."""
ENDED_WITHIN_S = 120
"""How long a command run against the cluster may take before the test calls it a hang."""


def start(command: list[str], cwd: Path, log: Path) -> subprocess.Popen[bytes]:
    """``command`` in its own process group (a worker command's processes end with it), output to ``log``."""
    with log.open("wb") as output:
        return subprocess.Popen(
            command, cwd=cwd, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    """End ``process`` and every process it started (its group), waiting for it."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=STARTED_WITHIN_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # a worker process left behind by its nanny


def start_scheduler(directory: Path) -> tuple[subprocess.Popen[bytes], str]:
    address = f"tcp://127.0.0.1:{free_port()}"
    port = address.rsplit(":", 1)[1]
    command = [DASK, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"]
    return start(command, directory, directory / "scheduler.log"), address


def workers_joined(address: str, count: int) -> int:
    """How many workers the scheduler at ``address`` has, once it answers and (``count`` above 0)
    once ``count`` of them have joined it."""
    with Client(address, timeout=STARTED_WITHIN_S) as client:
        if count:
            client.wait_for_workers(count, timeout=STARTED_WITHIN_S)
        return len(client.nthreads())


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A scheduler and a worker command of two processes of one thread, started in their own directory."""
    directory = tmp_path_factory.mktemp("cluster")
    scheduler, address = start_scheduler(directory)
    worker_command = [DASK, "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"]
    workers = start([*worker_command, "--host", "127.0.0.1"], directory, directory / "workers.log")
    try:
        assert 2 == workers_joined(address, 2)
        yield address
    finally:
        stop(workers)
        stop(scheduler)


def command(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``toolresponse validate ARGS`` as its own process, run in ``cwd``."""
    argv = [sys.executable, "-m", "toolresponse", "validate", *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=ENDED_WITHIN_S, check=False)


def test_the_command_on_a_cluster_of_dask_commands_gives_the_report_of_one_process(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cluster: str, tmp_path: Path
) -> None:
    """A relative path, from a directory the workers were not started in: every record, in order."""
    write_corpus(tmp_path / "corpus.jsonl", 20_000)
    monkeypatch.chdir(tmp_path)
    expected = cli(capsys, "--format", "jsonl", "corpus.jsonl")
    assert 1 == expected[0]
    done = command("--format", "jsonl", "--scheduler", cluster, "corpus.jsonl", cwd=tmp_path)
    assert expected == (done.returncode, done.stdout, done.stderr)


def test_a_file_the_workers_cannot_reach_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], cluster: str
) -> None:
    """An object only this process holds (``memory://`` storage is the process's own): exit 2, the
    file named, the worker that could not read it said, no traceback."""
    import fsspec

    memory = fsspec.filesystem("memory")
    name = f"memory://only-here-{uuid.uuid4().hex}/logs.jsonl"
    memory.pipe(name, b'{"status": "success", "text": "ok"}\n')
    try:
        status, out, err = cli(capsys, "--scheduler", cluster, name)
    finally:
        memory.rm(name)
    assert (2, "0 valid, 0 invalid, 1 input unreadable\n") == (status, out)
    [error] = err.splitlines()
    assert error.startswith(f"toolresponse validate: cannot read {name}: No such file or directory (read on")
    assert "the Dask worker at tcp://127.0.0.1:" in error


def test_a_worker_command_that_failed_to_start_ends_the_command_after_its_timeout(tmp_path: Path) -> None:
    """The workers of the report: ``--nworkers 2`` with ``--listen-address`` makes the worker command
    refuse to start, so the scheduler has no worker; the command says so after ``--cluster-timeout``."""
    scheduler, address = start_scheduler(tmp_path)
    refused = [DASK, "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard"]
    workers = start([*refused, "--listen-address", "tcp://127.0.0.1:0"], tmp_path, tmp_path / "workers.log")
    try:
        workers.wait(timeout=STARTED_WITHIN_S)
        assert b"You cannot specify --listen-address" in (tmp_path / "workers.log").read_bytes()
        assert 0 == workers_joined(address, 0)
        logs = write_corpus(tmp_path / "corpus.jsonl", 1000)
        done = command("--scheduler", address, "--cluster-timeout", "1", str(logs), cwd=tmp_path)
    finally:
        stop(workers)
        stop(scheduler)
    assert (2, "") == (done.returncode, done.stdout)
    assert done.stderr == (
        f"toolresponse validate: the Dask cluster at {address}: no worker joined the scheduler in 1 s (start"
        f" some with 'dask worker {address}'; one that failed to start says why in its output);"
        " --cluster-timeout sets the wait\n"
    )


def holding(started: Event, release: Event) -> Callable[[], bool]:
    """A task that says it started, then holds its worker's thread until ``release`` is set (a
    function made here: the workers get it by value, not by a module they cannot import)."""

    def hold() -> bool:
        started.set()
        held: bool = release.wait()
        return held

    return hold


def test_workers_that_finish_nothing_end_the_command_after_its_timeout(cluster: str, tmp_path: Path) -> None:
    """Both workers held by other work until an event: no task of the command finishes; it ends after
    ``--cluster-timeout`` saying so, and the cluster runs on once the event is set."""
    logs = write_corpus(tmp_path / "corpus.jsonl", 1000)
    with Client(cluster, timeout=STARTED_WITHIN_S) as client:
        release = Event(f"release-{uuid.uuid4().hex}", client=client)
        holds = []
        for worker in client.nthreads():
            started = Event(f"started-{uuid.uuid4().hex}", client=client)
            holds.append(client.submit(holding(started, release), pure=False, workers=[worker]))
            assert started.wait(timeout=STARTED_WITHIN_S)
        try:
            done = command("--scheduler", cluster, "--cluster-timeout", "1", str(logs), cwd=tmp_path)
        finally:
            release.set()
            client.gather(holds)
    assert (2, "") == (done.returncode, done.stdout)
    assert done.stderr == (
        f"toolresponse validate: the Dask cluster at {cluster}: no task finished in 1 s (2 workers connected:"
        " gone, stuck, or busy with other work); --cluster-timeout sets the wait\n"
    )
