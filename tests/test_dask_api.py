"""``toolresponse.dask`` in this process (Dask's synchronous scheduler): the same records as one process.

Paths (cut into byte ranges or read whole), bags of lines, the dataframe, ``memory://`` storage, and the
per-partition function called the way Spark's ``mapPartitions`` calls it.
"""

from __future__ import annotations

import gzip
import io
from collections.abc import Iterator
from pathlib import Path

import dask
import dask.bag
import fsspec
import pytest
from dask.base import compute
from test_jobs_ranges import corpus, write_corpus

from toolresponse.dask import COLUMNS, Summary, check_partition, validate_bag, validate_paths
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
