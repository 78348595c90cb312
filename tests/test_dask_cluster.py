"""A real ``distributed`` cluster on 127.0.0.1: a scheduler and two worker processes started here.

``toolresponse validate --scheduler ADDRESS`` gives the report of one process on a 200,000-line corpus;
a worker killed in the middle of a run loses and doubles nothing; compressed files; a local cluster.
"""

from __future__ import annotations

import gzip
import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard
from dask.base import compute
from distributed import Client, LocalCluster, WorkerPlugin
from test_jobs_ranges import cli, corpus, write_corpus

from toolresponse.dask import check_on, validate_paths
from toolresponse.dask._partition import TASK_RECORDS
from toolresponse.validation import Options, Record, check, expand


def start_cluster() -> LocalCluster:
    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.ERROR,
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with start_cluster() as running:
        yield running


@pytest.fixture(scope="module")
def client(cluster: LocalCluster) -> Iterator[Client]:
    with Client(cluster) as connected:
        yield connected


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200,000 responses, valid and invalid mixed (about 25 MB)."""
    return write_corpus(tmp_path_factory.mktemp("dask") / "large.jsonl", 200_000)


def one_process_records(paths: list[str], options: Options) -> list[Record]:
    batches = check(expand(paths), options, stdin=io.BytesIO())
    return [record for batch in batches for record in batch.records]


def test_the_cli_on_a_scheduler_gives_the_report_of_one_process(
    capsys: pytest.CaptureFixture[str], cluster: LocalCluster, large: Path
) -> None:
    """200,000 lines, cut into ranges checked by two worker processes: the same bytes and exit status."""
    address = cluster.scheduler_address
    assert address.startswith("tcp://127.0.0.1:")
    expected = cli(capsys, str(large))
    assert 1 == expected[0]
    assert expected == cli(capsys, "--scheduler", address, str(large))


@pytest.mark.parametrize("output_format", ["json", "jsonl"])
def test_every_format_is_the_same_on_a_scheduler(
    capsys: pytest.CaptureFixture[str], cluster: LocalCluster, tmp_path: Path, output_format: str
) -> None:
    """JSON and JSON lines (every response a record) from the cluster are those of one process."""
    logs = write_corpus(tmp_path / "logs.jsonl", 5000)
    args = ["--format", output_format, str(logs), str(tmp_path / "missing.jsonl")]
    expected = cli(capsys, *args)
    assert 2 == expected[0]
    assert expected == cli(capsys, "--scheduler", cluster.scheduler_address, *args)


def test_compressed_files_on_a_scheduler(
    capsys: pytest.CaptureFixture[str], cluster: LocalCluster, tmp_path: Path
) -> None:
    """``.gz`` and ``.zst`` files, each read whole by a worker: the report of the plain files."""
    data = corpus(20_000, seed=4)
    (tmp_path / "a.jsonl").write_bytes(data)
    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(data))
    (tmp_path / "a.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(data))
    plain = cli(capsys, str(tmp_path / "a.jsonl"))
    address = cluster.scheduler_address
    for suffix in (".gz", ".zst"):
        packed = str(tmp_path / f"a.jsonl{suffix}")
        status, out, _ = cli(capsys, "--scheduler", address, packed)
        assert (plain[0], plain[1].replace(str(tmp_path / "a.jsonl"), packed)) == (status, out)


def test_the_python_api_on_the_cluster(client: Client, tmp_path: Path) -> None:
    """``validate_paths`` computed by the distributed scheduler: the records and summary of one process."""
    logs = write_corpus(tmp_path / "logs.jsonl", 30_000, seed=6)
    validation = validate_paths([str(logs)], block_bytes=256 << 10)
    records, summary = compute(validation.records, validation.summary, scheduler=client)
    assert one_process_records([str(logs)], Options()) == records
    assert (len(records), summary.exit_status) == (summary.invalid, 1)


class KillOnce(WorkerPlugin):
    """Ends the first worker process that starts its ``after``-th task (once in the whole cluster)."""

    name = "kill-once"

    def __init__(self, marker: str, after: int) -> None:
        self.marker = marker
        self.after = after
        self.started = 0

    def setup(self, worker: Any) -> None:
        self.started = 0

    def transition(self, key: Any, start: str, finish: str, **kwargs: Any) -> None:
        if finish != "executing":
            return
        self.started += 1
        if self.started != self.after:
            return
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return
        os._exit(1)  # the process dies in the middle of the run, its tasks with it


def test_a_worker_killed_mid_run_loses_and_doubles_no_line(tmp_path: Path) -> None:
    """Every response a record; a worker dies at its 4th of some 40 tasks; each line is reported once."""
    logs = write_corpus(tmp_path / "logs.jsonl", 20_000, seed=8)
    options = Options(keep_valid=True)
    marker = tmp_path / "killed"
    with start_cluster() as cluster, Client(cluster) as client:
        client.register_plugin(KillOnce(str(marker), after=4))
        batches = list(check_on(client, expand([str(logs)]), options, block_bytes=64 << 10))
    assert marker.exists()
    records = [record for batch in batches for record in batch.records]
    assert one_process_records([str(logs)], options) == records
    assert sum(batch.valid + batch.invalid for batch in batches) == len(records)


INVALID = b'{"status": "sucess", "text": "typo in the status"}\n'
VALID = b'{"status": "success", "text": "ok"}\n'


def many_invalid(path: Path, invalid: int) -> Path:
    """``invalid`` invalid responses, a valid one after every fifth, compressed when the name says so."""
    data = b"".join(INVALID + (VALID if index % 5 == 4 else b"") for index in range(invalid))
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def counting_opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the bulk API opens from now on (in this process), in order."""
    from toolresponse.validation import _inputs
    from toolresponse.validation._open import open_input

    opened: list[str] = []

    def counting(path: str) -> Any:
        opened.append(path)
        return open_input(path)

    monkeypatch.setattr(_inputs, "open_input", counting)
    return opened


@pytest.mark.parametrize("name", ["many.jsonl", "many.jsonl.gz"], ids=["range", "compressed"])
def test_no_task_holds_more_than_task_records_and_every_record_comes_back(
    capsys: pytest.CaptureFixture[str], cluster: LocalCluster, client: Client, tmp_path: Path, name: str
) -> None:
    """2.5 x TASK_RECORDS invalid responses in one range, or one compressed file: each task's batch
    holds at most TASK_RECORDS records (the task stopped and its rest went on), and the records,
    in order, and the report are those of one process."""
    logs = many_invalid(tmp_path / name, TASK_RECORDS * 5 // 2)
    batches = list(check_on(client, expand([str(logs)]), Options()))
    assert TASK_RECORDS >= max(len(batch.records) for batch in batches)
    assert 3 <= len(batches)
    assert one_process_records([str(logs)], Options()) == [r for batch in batches for r in batch.records]
    expected = cli(capsys, "--format", "jsonl", str(logs))
    assert expected == cli(capsys, "--format", "jsonl", "--scheduler", cluster.scheduler_address, str(logs))


def test_a_task_reads_about_block_bytes_of_a_compressed_file(client: Client, tmp_path: Path) -> None:
    """A compressed file of valid responses (no record to bound the task): each task reads about
    ``block_bytes`` of it decompressed (a batch of 64 KiB past it at most), as a range holds, so
    that no task runs for long and ``--cluster-timeout`` bounds a stuck one, not a large file."""
    logs = tmp_path / "valid.jsonl.gz"
    data = VALID * 30_000
    logs.write_bytes(gzip.compress(data))
    block = 128 << 10
    batches = list(check_on(client, expand([str(logs)]), Options(), block_bytes=block))
    assert block + (64 << 10) >= max(batch.size for batch in batches)
    assert len(data) == sum(batch.size for batch in batches)
    assert (30_000, []) == (sum(batch.valid for batch in batches), [r for b in batches for r in b.records])


def test_a_window_of_one_task_in_flight_gives_the_same_batches(client: Client, tmp_path: Path) -> None:
    """``check_on(window=1)`` sends one task at a time and gives the batches the default window gives."""
    logs = many_invalid(tmp_path / "many.jsonl", 2000)
    default = list(check_on(client, expand([str(logs)]), Options(), block_bytes=16 << 10))
    one_at_a_time = list(check_on(client, expand([str(logs)]), Options(), block_bytes=16 << 10, window=1))
    assert len(default) > 1
    assert default == one_at_a_time


def test_a_compressed_file_is_read_once_however_many_tasks_check_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A cluster in this process (its worker a thread, so that opening can be counted): the tasks after
    the first go on with the stream the one before left open, so the file is opened (and
    decompressed) once, not once a task."""
    logs = many_invalid(tmp_path / "many.jsonl.gz", 4000)
    opened = counting_opens(monkeypatch)
    local = LocalCluster(n_workers=1, processes=False, dashboard_address="127.0.0.1:0")
    with local as cluster, Client(cluster) as c:
        batches = list(check_on(c, expand([str(logs)]), Options(), task_records=500))
    assert [str(logs)] == opened
    assert 4000 == sum(len(batch.records) for batch in batches)
    assert 8 <= len(batches)


def test_a_worker_killed_while_it_holds_a_stream_open_loses_and_doubles_no_line(tmp_path: Path) -> None:
    """The worker that reads a compressed file dies at its 3rd task: the task goes to the other
    worker, which opens the file again and passes over the lines read before; every line once."""
    logs = many_invalid(tmp_path / "many.jsonl.gz", 3000)
    options = Options(keep_valid=True)
    marker = tmp_path / "killed"
    with start_cluster() as cluster, Client(cluster) as client:
        client.register_plugin(KillOnce(str(marker), after=3))
        batches = list(check_on(client, expand([str(logs)]), options, task_records=250))
    assert marker.exists()
    records = [record for batch in batches for record in batch.records]
    assert one_process_records([str(logs)], options) == records
    assert 250 >= max(len(batch.records) for batch in batches)


def test_a_local_cluster_from_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``--scheduler local --jobs 2``: a cluster of two workers started and closed by the command."""
    logs = write_corpus(tmp_path / "logs.jsonl", 3000)
    assert cli(capsys, str(logs)) == cli(capsys, "--scheduler", "local", "--jobs", "2", str(logs))


def test_an_unreachable_scheduler_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Nobody listening at the address: exit 2 and one line naming it, no traceback."""
    logs = write_corpus(tmp_path / "logs.jsonl", 10)
    status, out, err = cli(capsys, "--scheduler", "tcp://127.0.0.1:9", "--cluster-timeout", "1", str(logs))
    assert (2, "") == (status, out)
    assert err.startswith("toolresponse validate: cannot use the Dask scheduler at tcp://127.0.0.1:9: ")
    assert 1 == err.count("\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cluster-timeout", "0"], "--cluster-timeout: must be a positive number of seconds, not 0"),
        (["--cluster-timeout", "nan"], "--cluster-timeout: must be a positive number of seconds, not nan"),
        (["--cluster-timeout", "soon"], "--cluster-timeout: 'soon' is not a number of seconds"),
        (["--cluster-timeout", "5"], "--cluster-timeout bounds the waits of --scheduler, which is not given"),
    ],
)
def test_a_cluster_timeout_is_a_positive_number_for_a_scheduler(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    """A wait that is no number, not positive, or without ``--scheduler`` to bound: exit 2, the reason."""
    logs = write_corpus(tmp_path / "logs.jsonl", 10)
    try:
        status, _, err = cli(capsys, *args, str(logs))
    except SystemExit as usage:  # argparse refuses the value itself
        status, err = int(str(usage.code)), capsys.readouterr().err
    assert 2 == status
    assert message in err


@pytest.mark.parametrize("timeout_s", [0, -1, float("inf"), float("nan")])
def test_check_on_refuses_a_timeout_that_bounds_nothing(client: Client, timeout_s: float) -> None:
    """``check_on(timeout_s=...)`` is a positive, finite number of seconds."""
    with pytest.raises(ValueError, match="a cluster timeout is a positive number of seconds"):
        next(check_on(client, [], Options(), timeout_s=timeout_s))


def test_standard_input_on_a_scheduler_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """``--scheduler`` with ``-``: exit 2 and the reason, before any cluster is contacted."""
    status, _, err = cli(capsys, "--scheduler", "tcp://127.0.0.1:9", "-")
    assert 2 == status
    assert "not standard input" in err


def test_a_task_failing_on_the_cluster_is_one_line_not_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cluster: LocalCluster, tmp_path: Path
) -> None:
    """Whatever a task raised on the cluster (as a worker without toolresponse would): exit 2, one line."""
    import toolresponse.dask

    def failing(*args: Any, **kwargs: Any) -> Iterator[Any]:
        raise ModuleNotFoundError("No module named 'toolresponse'")
        yield

    monkeypatch.setattr(toolresponse.dask, "check_on", failing)
    logs = write_corpus(tmp_path / "logs.jsonl", 10)
    status, _, err = cli(capsys, "--scheduler", cluster.scheduler_address, str(logs))
    assert 2 == status
    assert "toolresponse validate: the Dask cluster failed: ModuleNotFoundError: No module named" in err
    assert "Traceback" not in err


def test_records_of_a_dialect_on_a_scheduler(
    capsys: pytest.CaptureFixture[str], cluster: LocalCluster, tmp_path: Path
) -> None:
    """``validate --from mcp`` on the cluster: the workers judge each record as one process does."""
    from test_dialect_modes import mcp_log

    log = mcp_log(tmp_path / "mcp.jsonl", 20_000)
    args = ["--from", "mcp", "--format", "jsonl", str(log)]
    expected = cli(capsys, *args)
    assert 1 == expected[0]
    assert expected == cli(capsys, "--scheduler", cluster.scheduler_address, *args)


def test_a_file_the_workers_cannot_read_is_reported_once_not_once_per_range(client: Client) -> None:
    """A file this process sees and the workers do not (``memory://`` lives in the process that
    wrote it) is cut into ten ranges, each failing on its worker: one I/O error, naming a worker,
    as one process reports one unreadable input."""
    import fsspec

    data = corpus(2000, seed=9)
    with fsspec.open("memory://only-here/logs.jsonl", "wb") as stream:
        stream.write(data)
    batches = list(
        check_on(client, expand(["memory://only-here/logs.jsonl"]), Options(), block_bytes=len(data) // 10)
    )
    records = [record for batch in batches for record in batch.records]
    assert 10 <= len(batches)
    assert 1 == len(records)
    assert "(read on the Dask worker at tcp://127.0.0.1:" in str(records[0].io_error)


# Ctrl-C while the local cluster starts: sent when its worker begins to start (which then never
# gets further), not at a guessed time. SIGINT is handled even where the test runner ignores it.
_INTERRUPTED_START = """
import asyncio, os, signal, sys
from distributed import Nanny
from toolresponse.cli import main

signal.signal(signal.SIGINT, signal.default_int_handler)

async def interrupted(self):
    os.kill(os.getpid(), signal.SIGINT)
    await asyncio.Event().wait()

Nanny.start_unsafe = interrupted
sys.exit(main(["validate", "--scheduler", "local", "--jobs", "1", sys.argv[1]]))
"""


def test_ctrl_c_while_the_local_cluster_starts_is_one_line_and_130(tmp_path: Path) -> None:
    """Interrupted while its worker starts, the command says so in one line, with no traceback of
    distributed's own (from closing, at exit, a cluster whose worker never started)."""
    path = tmp_path / "one.jsonl"
    path.write_text('{"status": "success", "text": "ok"}\n', encoding="utf-8")
    finished = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED_START, str(path)], capture_output=True, timeout=120, cwd=tmp_path
    )
    assert (130, "toolresponse: interrupted\n") == (finished.returncode, finished.stderr.decode())
