"""``toolresponse.dask`` in this process (Dask's synchronous scheduler): the same records as one process.

Paths (cut into byte ranges or read whole), bags of lines, the dataframe, ``memory://`` storage, and the
per-partition function called the way Spark's ``mapPartitions`` calls it.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dask
import dask.bag
import fsspec
import pytest
from dask.base import compute
from test_jobs_ranges import corpus, write_corpus

from toolresponse.dask import Summary, check_partition, validate_bag, validate_paths
from toolresponse.dask._cluster import COLUMNS
from toolresponse.dask._partition import TASK_RECORDS
from toolresponse.validation import Options, Record, check, expand


@pytest.fixture(autouse=True)
def synchronous() -> Iterator[None]:
    with dask.config.set(scheduler="synchronous"):
        yield


def one_process(paths: list[str], options: Options = Options()) -> tuple[list[Record], Summary]:  # noqa: B008
    """What the bulk API gives in this process: the records and the counts."""
    batches = list(check(expand(paths), options, stdin=io.BytesIO()))
    records = [record for batch in batches for record in batch.records]
    unreadable = sum(record.io_error is not None for record in records)
    summary = Summary(sum(b.valid for b in batches), sum(b.invalid for b in batches), unreadable)
    return records, summary


@pytest.mark.parametrize("block_bytes", [1 << 10, 1 << 14, 1 << 30])
def test_paths_give_the_records_of_one_process(tmp_path: Path, block_bytes: int) -> None:
    """Files cut into ranges of any size, a document, a compressed file and a missing one, in order."""
    logs = write_corpus(tmp_path / "a.jsonl", 2000)
    (tmp_path / "b.json").write_bytes(b'{"status": "success", "text": 1}')
    (tmp_path / "c.jsonl.gz").write_bytes(gzip.compress(corpus(300, seed=3)))
    paths = [str(logs), str(tmp_path / "b.json"), str(tmp_path / "c.jsonl.gz"), str(tmp_path / "none.jsonl")]
    validation = validate_paths(paths, block_bytes=block_bytes)
    records, summary = compute(validation.records, validation.summary)
    assert one_process(paths) == (records, summary)
    assert 2 == summary.exit_status


def test_every_response_gets_a_record_when_valid_ones_are_kept(tmp_path: Path) -> None:
    """``keep_valid``: one record per response, lines numbered across ranges exactly once."""
    logs = write_corpus(tmp_path / "a.jsonl", 3000)
    options = Options(keep_valid=True)
    records = validate_paths([str(logs)], options=options, block_bytes=4096).records.compute()
    assert one_process([str(logs)], options)[0] == records
    assert len({record.line for record in records}) == len(records)


def test_a_bag_of_lines_is_numbered_through_its_partitions(tmp_path: Path) -> None:
    """``read_text`` in several blocks: records name the bag and the line's place in it."""
    logs = write_corpus(tmp_path / "a.jsonl", 2000)
    bag = dask.bag.read_text(str(logs), blocksize=50_000)
    assert bag.npartitions > 3
    validation = validate_bag(bag, name=str(logs))
    records, summary = compute(validation.records, validation.summary)
    assert one_process([str(logs)]) == (records, summary)


def test_the_dataframe_has_a_row_per_violation(tmp_path: Path) -> None:
    """``to_dataframe``: the named columns; as many rows as violations; keywords as the records say."""
    logs = write_corpus(tmp_path / "a.jsonl", 500)
    validation = validate_paths([str(logs)], block_bytes=8192)
    frame = validation.to_dataframe().compute()
    records = validation.records.compute()
    assert list(COLUMNS) == list(frame.columns)
    assert sum(len(record.errors) for record in records) == len(frame)
    keywords = [violation.keyword for record in records for violation in record.errors]
    assert keywords == list(frame["keyword"])
    assert [record.line for record in records for _ in record.errors] == list(frame["line"])


@pytest.mark.parametrize("name", ["many.jsonl", "many.jsonl.gz"], ids=["range", "compressed"])
def test_a_task_keeps_task_records_and_the_summary_counts_the_rest(tmp_path: Path, name: str) -> None:
    """2.5 x TASK_RECORDS invalid responses in one task's work: its partition of the records holds
    the first TASK_RECORDS; the summary counts every response, and as unlisted those left out."""
    from test_dask_cluster import many_invalid

    logs = many_invalid(tmp_path / name, TASK_RECORDS * 5 // 2)
    validation = validate_paths([str(logs)])
    sizes = validation.records.map_partitions(lambda part: [len(part)]).compute()
    records, summary = compute(validation.records, validation.summary)
    expected, counts = one_process([str(logs)])
    assert [TASK_RECORDS] == sizes
    assert expected[:TASK_RECORDS] == records
    assert counts._replace(unlisted=len(expected) - TASK_RECORDS) == summary


def test_a_partition_of_a_bag_keeps_task_records(tmp_path: Path) -> None:
    """One partition of a bag holding 2.5 x TASK_RECORDS invalid lines: the first TASK_RECORDS
    records, every line counted."""
    from test_dask_cluster import many_invalid

    logs = many_invalid(tmp_path / "many.jsonl", TASK_RECORDS * 5 // 2)
    bag = dask.bag.read_text(str(logs), blocksize=None)
    records, summary = compute(*validate_bag(bag, name=str(logs)))
    expected, counts = one_process([str(logs)])
    assert (expected[:TASK_RECORDS], counts._replace(unlisted=len(expected) - TASK_RECORDS)) == (
        records,
        summary,
    )


def test_the_graph_reads_a_compressed_file_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A task of the graph that stops at its bound goes on with the stream it holds open: one
    opening of the file however many times it stopped."""
    from test_dask_cluster import counting_opens, many_invalid

    logs = many_invalid(tmp_path / "many.jsonl.gz", 3000)
    opened = counting_opens(monkeypatch)
    records, summary = compute(*validate_paths([str(logs)], task_records=100))
    assert ([str(logs)], 100, 2900) == (opened, len(records), summary.unlisted)


@pytest.mark.parametrize("name", ["a.jsonl", "a.jsonl.gz"])
def test_records_and_summary_computed_together_run_each_task_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    """``dask.compute(v.records, v.summary)`` runs the one task of one input once (the summary used
    to be a ``Delayed``, whose graph kept the tasks the bag's optimization had fused into its
    partitions under other names, so every task ran twice)."""
    from toolresponse.dask import _cluster

    logs = tmp_path / name
    data = corpus(300)
    logs.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    runs: list[object] = []
    run = _cluster._run

    def counting(*args: Any) -> Any:
        runs.append(args[0])
        return run(*args)

    monkeypatch.setattr(_cluster, "_run", counting)
    validation = validate_paths([str(logs)])
    records, summary = compute(validation.records, validation.summary)
    assert 1 == len(runs)
    assert one_process([str(logs)]) == (records, summary)


@pytest.mark.parametrize("task_records", [0, -1, 1.5])
def test_a_task_keeps_at_least_one_record(task_records: Any) -> None:
    """``task_records`` is a whole number of at least 1."""
    with pytest.raises(ValueError, match="a task keeps at least one record"):
        validate_paths([], task_records=task_records)


def test_memory_storage_is_read_through_fsspec() -> None:
    """``memory://`` objects, cut into ranges (their size asked of the store) or compressed."""
    memory = fsspec.filesystem("memory")
    data = corpus(1500, seed=9)
    memory.pipe("/dask-api/logs.jsonl", data)
    memory.pipe("/dask-api/logs.jsonl.gz", gzip.compress(data))
    try:
        plain = validate_paths(["memory://dask-api/logs.jsonl"], block_bytes=10_000).records.compute()
        packed = validate_paths(["memory://dask-api/logs.jsonl.gz"]).records.compute()
        expected = one_process(["memory://dask-api/logs.jsonl"])[0]
    finally:
        memory.rm("/dask-api", recursive=True)
    assert expected == plain
    assert [record._replace(source="memory://dask-api/logs.jsonl") for record in packed] == plain


def test_no_input_is_an_empty_bag_and_zero_counts() -> None:
    """Nothing to read: no record, every count zero, exit status 0."""
    validation = validate_paths([])
    assert ([], Summary(0, 0, 0)) == compute(validation.records, validation.summary)


def test_standard_input_is_refused() -> None:
    """Dask workers cannot read this process's standard input: a ValueError that says so."""
    with pytest.raises(ValueError, match="standard input"):
        validate_paths(["-"])


def test_check_partition_is_called_as_spark_calls_it(tmp_path: Path) -> None:
    """An iterator of ``str`` lines per partition in, records out, as ``rdd.mapPartitions(fn)`` does."""
    text = corpus(1200, seed=5).decode("utf-8")
    lines = text.splitlines(keepends=True)
    partitions = [lines[:500], lines[500:]]
    options = Options(keep_valid=True)

    def per_partition(index: int, iterator: Iterator[str]) -> Iterator[Record]:  # mapPartitionsWithIndex
        return check_partition(iterator, name="logs", first_line=1 + 500 * index, options=options)

    records = [record for index, part in enumerate(partitions) for record in per_partition(index, iter(part))]
    (tmp_path / "logs").write_text(text, encoding="utf-8")
    expected = [r._replace(source="logs") for r in one_process([str(tmp_path / "logs")], options)[0]]
    assert expected == records
    assert sum(not line.isspace() for line in lines) == len(records)


def test_lines_handed_over_skip_a_line_over_the_limit_as_one_process_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A line longer than ``MAX_LINE_BYTES`` handed to ``check_partition`` or in a bag: skipped and
    reported as the reader of a file reports it (an unreadable line), the lines after it checked."""
    from toolresponse.validation import _inputs

    monkeypatch.setattr(_inputs, "MAX_LINE_BYTES", 1000)
    long = '{"status": "succes", "text": "' + "a" * 1000 + '"}'
    lines = [corpus(1).decode().strip(), long, '{"status": "succes", "text": "x"}']
    path = tmp_path / "logs"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    options = Options(keep_valid=True)
    expected, summary = one_process([str(path)], options)
    assert "the line is longer than 1,000 bytes" in str(expected[1].io_error)
    assert expected == list(check_partition(lines, name=str(path), options=options))
    validation = validate_bag(dask.bag.from_sequence(lines, npartitions=2), name=str(path), options=options)
    assert (expected, summary) == compute(validation.records, validation.summary)


def test_a_pretty_printed_document_handed_over_is_one_response(tmp_path: Path) -> None:
    """A pretty-printed document among lines handed over with their line feeds (as
    ``dask.bag.read_text`` gives them): one response reported at its own line, as one process does."""
    text = '{"status": "success", "text": "x"}\n{\n  "status": "succes",\n  "text": "p"\n}\n"str"\n'
    path = tmp_path / "logs.jsonl"
    path.write_text(text, encoding="utf-8")
    options = Options(keep_valid=True)
    expected = one_process([str(path)], options)[0]
    assert [1, 3, 6] == [record.line for record in expected]  # the document's at its violation
    assert expected == list(check_partition(text.splitlines(keepends=True), name=str(path), options=options))


def test_a_pretty_printed_document_across_pieces_is_one_response(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A pretty-printed document that spans the pieces lines are checked in (``PIECE_LINES``), handed
    to ``check_partition`` or in a bag: one response, as one process reads it, not lines of bad JSON."""
    from toolresponse.dask import _partition

    monkeypatch.setattr(_partition, "PIECE_LINES", 2)
    text = '{"status": "success", "text": "x"}\n{\n  "status": "succes",\n  "text": "p"\n}\n"str"\n'
    path = tmp_path / "logs.jsonl"
    path.write_text(text, encoding="utf-8")
    options = Options(keep_valid=True)
    expected, summary = one_process([str(path)], options)
    assert [1, 3, 6] == [record.line for record in expected]
    lines = text.splitlines(keepends=True)
    assert expected == list(check_partition(lines, name=str(path), options=options))
    validation = validate_bag(dask.bag.from_sequence(lines, npartitions=1), name=str(path), options=options)
    assert (expected, summary) == compute(validation.records, validation.summary)
