"""Every wait of ``validate --scheduler`` on a cluster is bounded by ``--cluster-timeout``.

Real schedulers and ``dask worker`` processes on 127.0.0.1: workers that all die in the middle of
a run, a worker whose advertised address cannot be reached (its results cannot be fetched), a
listener that accepts and stays silent (a stopped scheduler) and one that answers junk. Each ends
with exit 2 and one line; the commands run as processes, with a generous bound that only says
they did not hang.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster, WorkerPlugin
from test_jobs_ranges import write_corpus

from toolresponse.dask import ClusterTimeout, check_on
from toolresponse.validation import Options, expand

BIN = Path(sys.executable).parent
HUNG_S = 300
"""Only a command that hung takes this long: each here gives up after a 3 s wait."""


def validate(*args: str) -> tuple[int, str, str]:
    """``toolresponse validate ARGS`` as a process: (exit status, stdout, stderr)."""
    done = subprocess.run(
        [str(BIN / "toolresponse"), "validate", *args], capture_output=True, text=True, timeout=HUNG_S
    )
    return done.returncode, done.stdout, done.stderr


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def scheduler_alone() -> Iterator[LocalCluster]:
    """A scheduler with no worker of its own: workers are started as processes of their own."""
    with LocalCluster(
        n_workers=0,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.ERROR,
    ) as cluster:
        yield cluster


@contextmanager
def workers(address: str, *extra: list[str]) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``dask worker`` processes without a nanny (one killed stays dead), one per ``extra`` list
    of arguments; the test modules importable (a worker plugin defined here is unpickled there)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    started = [
        subprocess.Popen(
            [str(BIN / "dask"), "worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard", *args],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for args in extra
    ]
    try:
        yield started
    finally:
        for process in started:
            process.kill()
            process.wait()


def test_a_worker_whose_address_cannot_be_reached_ends_the_command_with_one_line(tmp_path: Path) -> None:
    """The worker registers an address where nobody listens: its tasks finish, their results
    cannot be fetched; the command gives up after --cluster-timeout, exit 2, one line."""
    logs = write_corpus(tmp_path / "logs.jsonl", 2000)
    listen, contact = free_port(), free_port()
    with scheduler_alone() as cluster, Client(cluster) as client:
        arguments = [
            "--listen-address",
            f"tcp://127.0.0.1:{listen}",
            "--contact-address",
            f"tcp://127.0.0.1:{contact}",
        ]
        with workers(cluster.scheduler_address, arguments):
            client.wait_for_workers(1, timeout=HUNG_S)
            status, _, err = validate(
                "--scheduler", cluster.scheduler_address, "--cluster-timeout", "3", str(logs)
            )
    assert 2 == status
    assert "result could not be fetched in 3 s" in err
    assert (1, "Traceback" in err) == (err.count("\n"), False)


class KillEveryWorker(WorkerPlugin):
    """Ends each worker process once it has finished its ``after``-th task (its result held there)."""

    name = "kill-every-worker"

    def __init__(self, after: int) -> None:
        self.after = after
        self.finished = 0

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish == "memory":
            self.finished += 1
            if self.finished == self.after:
                os._exit(1)


def test_all_workers_dying_mid_run_is_a_cluster_timeout(tmp_path: Path) -> None:
    """Both workers die after their second task, results unfetched and work left: ``check_on``
    raises ``ClusterTimeout`` once nothing can finish in ``timeout_s``, never waits on."""
    logs = write_corpus(tmp_path / "logs.jsonl", 20_000)
    with (
        scheduler_alone() as cluster,
        Client(cluster) as client,
        workers(cluster.scheduler_address, [], []) as started,
    ):
        client.wait_for_workers(2, timeout=HUNG_S)
        client.register_plugin(KillEveryWorker(after=2))
        with pytest.raises(ClusterTimeout):
            list(check_on(client, expand([str(logs)]), Options(), block_bytes=64 << 10, timeout_s=3))
        assert [1, 1] == [process.wait(timeout=HUNG_S) for process in started]


@contextmanager
def listener(answer: bytes | None) -> Iterator[str]:
    """A TCP listener on 127.0.0.1 that accepts and says nothing (``answer`` None) or ``answer``."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)
            if answer is not None:
                connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for connection in accepted:
            connection.close()


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (
            None,
            "accepted the connection but did not answer in 3 s; --cluster-timeout sets the wait",
        ),
        (b"HTTP/1.1 400 Bad Request\r\n\r\n" * 8, "it does not answer as a Dask scheduler"),
    ],
    ids=["silent", "junk"],
)
def test_a_listener_that_is_no_scheduler_is_one_line(
    tmp_path: Path, answer: bytes | None, message: str
) -> None:
    """A stopped scheduler (the connection accepted, no answer) and a port that answers something
    else: exit 2, one line saying which, not a wait without end or "MemoryError: 3.07 EiB"."""
    logs = write_corpus(tmp_path / "logs.jsonl", 10)
    with listener(answer) as address:
        status, out, err = validate("--scheduler", address, "--cluster-timeout", "3", str(logs))
    assert (2, "") == (status, out)
    assert message in err
    assert (1, "EiB" in err) == (err.count("\n"), False)
