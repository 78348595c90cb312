"""A dialect is a ``Judge`` of the bulk API: ``validate --from D`` reads as ``validate`` reads, and runs
in every mode (``--jobs``, partitions called as Spark calls them), with the report of one process."""

from __future__ import annotations

import io
import os
import pickle
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_jobs_ranges import cli

from toolresponse import ErrorCode, ToolResponse
from toolresponse.interop import DialectJudge, dialect, to_mcp
from toolresponse.interop._logs import judge_of
from toolresponse.validation import Options, Record, _bulk, check, check_lines, expand
from toolresponse.validation._checks import RESPONSE_JUDGE, ResponseJudge, decoded_records


def mcp_line(rng: random.Random, index: int) -> bytes:
    """One MCP record: mostly valid, else wrong in each layer, or not I-JSON at all."""
    kind = rng.random()
    if kind < 0.7:
        response = ToolResponse.success(f"read {index}", data={"n": index}, context={"call_id": f"c{index}"})
        return orjson.dumps(to_mcp(response))
    if kind < 0.75:
        response = ToolResponse.error(ErrorCode.NOT_FOUND, f"no {index}")
        return orjson.dumps(to_mcp(response))
    if kind < 0.8:
        return b'{"content": "not a list of blocks"}'  # the dialect's own shape
    if kind < 0.85:
        meta = {"dev.toolresponse/response": {"status": "error", "error_info": {"code": "NOPE"}}}
        record = {"content": [{"type": "text", "text": "x"}], "isError": True, "_meta": meta}
        return orjson.dumps(record)  # the mapped ToolResponse
    if kind < 0.9:
        return b'{"content": [], "isError": false, "isError": true}'  # a repeated name
    if kind < 0.95:
        return b'{"content": [{"type": "text", "text": "'  # cut short
    return b""  # blank


def mcp_log(path: Path, lines: int, seed: int = 3) -> Path:
    rng = random.Random(seed)
    path.write_bytes(b"".join(mcp_line(rng, index) + b"\n" for index in range(lines)))
    return path


@pytest.mark.parametrize("output_format", ["text", "jsonl"])
def test_two_processes_give_the_report_of_one(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, output_format: str
) -> None:
    """A log of several byte ranges, checked by two worker processes: the same bytes and exit status."""
    log = mcp_log(tmp_path / "mcp.jsonl", 30_000)
    assert log.stat().st_size > 2 << 20  # more than two ranges
    args = ["--from", "mcp", "--format", output_format, str(log)]
    expected = cli(capsys, *args)
    assert 1 == expected[0]
    assert "mapped ToolResponse: " in expected[1]
    assert "mcp record: " in expected[1]
    assert expected == cli(capsys, "--jobs", "2", *args)


def test_quiet_counts_what_the_full_report_counts(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """``--quiet`` reaches the verdicts of the full report without explaining them."""
    log = mcp_log(tmp_path / "mcp.jsonl", 2000)
    records = [
        record
        for batch in check(expand([str(log)]), Options(judge=DialectJudge("mcp")), stdin=io.BytesIO())
        for record in batch.records
    ]
    quiet = list(
        check(expand([str(log)]), Options(explain=False, judge=DialectJudge("mcp")), stdin=io.BytesIO())
    )
    assert len(records) == sum(batch.invalid for batch in quiet)
    assert 0 == sum(len(batch.records) for batch in quiet)


def test_a_dialect_judge_travels_by_name() -> None:
    """Pickled for a worker, a judge is its dialect's name: nothing compiled goes with it."""
    judge = DialectJudge("anthropic")
    judge.verdict()  # compiled here
    copy = pickle.loads(pickle.dumps(judge))
    assert judge == copy
    assert len(pickle.dumps(judge)) < 200


def test_toolresponse_records_are_judged_by_the_response_judge() -> None:
    """The ``toolresponse`` dialect is ToolResponse itself: the bulk API's own judge."""
    assert RESPONSE_JUDGE is judge_of("toolresponse")
    with pytest.raises(ValueError, match="RESPONSE_JUDGE"):
        DialectJudge("toolresponse")
    with pytest.raises(ValueError, match="openai-chat"):
        judge_of("no-such-dialect")


def test_a_partition_of_dialect_records_the_way_spark_calls_it() -> None:
    """An iterator of lines in, records out: the per-partition function with a dialect's judge."""
    rng = random.Random(8)
    lines = [mcp_line(rng, index) for index in range(400)]
    batch = check_lines("part-0", lines, 1, Options(judge=DialectJudge("mcp")))
    expected_invalid = sum(1 for line in lines if line.strip()) - batch.valid
    assert expected_invalid == batch.invalid == len(batch.records)
    assert [record.line for record in batch.records] == sorted(record.line or 0 for record in batch.records)
    assert all(isinstance(record, Record) and record.errors for record in batch.records)


def test_decoded_records_read_what_check_reads(tmp_path: Path) -> None:
    """The reader ``convert`` uses: each value with its line, each line that is not I-JSON located."""
    (tmp_path / "a.jsonl").write_bytes(b'{"a": 1}\n\n{"a": 2, "a": 3}\n[1, 2]\n{"b": \n')
    (tmp_path / "b.json").write_bytes(b'{"whole": true}')
    chunks = list(decoded_records(expand([str(tmp_path)]), stdin=io.BytesIO()))
    values: list[tuple[str, int | None, Any]] = [
        (chunk.source, line, value)
        for chunk in chunks
        for line, value in zip(chunk.lines, chunk.values, strict=True)
    ]
    problems = [
        (record.source, record.line, record.errors[0].keyword)
        for chunk in chunks
        for record in chunk.problems
    ]
    a, b = str(tmp_path / "a.jsonl"), str(tmp_path / "b.json")
    assert [(a, 1, {"a": 1}), (a, 4, [1, 2]), (b, None, {"whole": True})] == values
    assert [(a, 3, "duplicate-name"), (a, 5, "syntax")] == [(s, line, k) for s, line, k in problems]


def test_the_verdict_is_that_of_the_mapping_convert_uses() -> None:
    """The verdict of ``validate --from`` and of ``convert`` on the same records agree."""
    rng = random.Random(5)
    lines = [mcp_line(rng, index) for index in range(300)]
    verdict = DialectJudge("mcp").verdict()
    chosen = dialect("mcp")
    for line in lines:
        if not line.strip():
            continue
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        try:
            chosen.from_(value)
            converts = True
        except ValueError:
            converts = False
        assert converts == verdict(value), line


class _KillsItsWorker(ResponseJudge):
    """The response judge, but a worker process (not the one that made it) that meets a response
    whose text is ``kill`` dies on the spot, as one killed by the system would."""

    def __init__(self) -> None:
        self.parent = os.getpid()

    def verdict(self) -> Callable[[Any], bool]:
        inner, parent = super().verdict(), self.parent

        def verdict(value: Any) -> bool:
            if os.getpid() != parent and isinstance(value, dict) and value.get("text") == "kill":
                os._exit(9)
            return inner(value)

        return verdict


def test_a_worker_that_dies_loses_no_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its work, and all the work after it, is checked by the process that started it: the records
    of one process, nothing lost, nothing doubled, no wait."""
    rng = random.Random(2)
    lines = [
        orjson.dumps({"status": "success", "text": "x" * rng.randrange(100, 300)})
        if rng.random() < 0.9
        else b'{"status": "succes", "text": "y"}'
        for _ in range(20_000)
    ]
    lines[100] = b'{"status": "success", "text": "kill"}'  # in the first range: the first a worker gets
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(_bulk, "BATCH_BYTES", 1 << 20)  # ranges of 1 MiB: the file is cut in four
    assert log.stat().st_size > 3 << 20
    options = Options(judge=_KillsItsWorker())
    one = list(check(expand([str(log)]), options, stdin=io.BytesIO()))
    two = list(check(expand([str(log)]), options, stdin=io.BytesIO(), jobs=2))
    assert [record for batch in one for record in batch.records] == [
        record for batch in two for record in batch.records
    ]
    counts = [(sum(batch.valid for batch in run), sum(batch.invalid for batch in run)) for run in (one, two)]
    assert counts[0] == counts[1]
    assert 20_000 == sum(counts[1])
