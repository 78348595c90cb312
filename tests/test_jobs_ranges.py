"""``--jobs``: workers read their own byte ranges; the report is that of one process, whatever the input.

Also: URLs (``memory://``, through fsspec) and compressed files (``.gz``, ``.zst``) in every mode, a
clear error naming the extra where fsspec or zstandard is missing, and a damaged or truncated
compressed file reported as unreadable, the other inputs still checked.
"""

from __future__ import annotations

import gzip
import io
import random
import sys
from pathlib import Path
from typing import IO

import orjson
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from toolresponse.cli import main
from toolresponse.validation import Options, Record, Source, _bulk, check, expand
from toolresponse.validation._bulk import (
    LineRange,
    _line_start,
    check_range,
    range_tasks,
    split_ranges,
    stream_parts,
)
from toolresponse.validation._checks import renumber
from toolresponse.validation._inputs import LinesTask
from toolresponse.validation._open import open_input

VALID = {"status": "success", "text": "Read config.py (5 bytes).", "data": {"content": "Hello"}}
RESPONSES: tuple[bytes, ...] = (
    orjson.dumps(VALID),
    orjson.dumps({"status": "sucess", "text": "typo in the status"}),
    b'{"status": "success", "status": "error", "text": "twice"}',
    b'{"status": "success", "text": "unterminated',
    orjson.dumps({"status": "error", "text": "x", "error": {"code": "NOT_FOUND", "message": "x"}}),
    b"",
    b"   ",
    orjson.dumps({"status": "partial", "text": "caf\u00e9 \u2603 " * 40, "data": {"n": list(range(50))}}),
    orjson.dumps({"status": "success", "text": "ok", "stats": {"time_ms": "12ms"}}),
)


def corpus(lines: int, seed: int = 15) -> bytes:
    """``lines`` JSON lines, valid and invalid mixed (malformed, duplicate names, blank, non-ASCII)."""
    rng = random.Random(seed)
    weights = (60, 6, 3, 3, 6, 2, 1, 10, 9)
    return b"".join(line + b"\n" for line in rng.choices(RESPONSES, weights, k=lines))


def write_corpus(path: Path, lines: int, seed: int = 15) -> Path:
    path.write_bytes(corpus(lines, seed))
    return path


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``toolresponse validate ARGS`` in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    status = main(["validate", *args])
    out, err = capsys.readouterr()
    return status, out, err


# -- the ranges themselves -------------------------------------------------------------------


def range_lines(stream: IO[bytes], work: LineRange, piece: int) -> list[bytes]:
    """The lines of one range, as its units of work hold them (without their line feeds)."""
    units = range_tasks("f", stream, _line_start(stream, work.start), work.end, piece)
    return [line for unit in units if isinstance(unit, LinesTask) for line in unit.lines]


def all_range_lines(data: bytes, block: int, piece: int) -> list[bytes]:
    stream = io.BufferedReader(io.BytesIO(data))
    return [
        line for work in split_ranges("f", "f", len(data), block) for line in range_lines(stream, work, piece)
    ]


@given(
    st.lists(st.sampled_from([b"", b"a", b"{}", b"\r", b"xyz" * 20, b"\xff\xfe"]), max_size=40),
    st.booleans(),
    st.integers(1, 90),
    st.integers(1, 50),
)
def test_every_line_is_in_exactly_one_range(
    contents: list[bytes], trailing: bool, block: int, piece: int
) -> None:
    """Ranges cut anywhere give back the file's lines, each once, in order, as ``readlines`` splits them."""
    data = b"\n".join(contents) + (b"\n" if trailing and contents else b"")
    assert [line.removesuffix(b"\n") for line in io.BytesIO(data).readlines()] == all_range_lines(
        data, block, piece
    )


def test_a_line_longer_than_a_range_belongs_to_the_range_it_starts_in() -> None:
    """A range in the middle of a long line holds nothing; the line is read whole by its own range."""
    first, long, last = b"0123456789ab\n", b"x" * 100 + b"\n", b"end\n"  # starting at 0, 13 and 114
    stream = io.BufferedReader(io.BytesIO(first + long + last))
    per_range = [
        range_lines(stream, work, 7) for work in split_ranges("f", "f", len(first + long + last), 10)
    ]
    assert [[first[:-1]], [long[:-1]], *([[]] * 9), [last[:-1]]] == per_range


def test_a_block_below_one_byte_is_refused() -> None:
    """``split_ranges`` with a block of 0 bytes is a programming mistake, said so."""
    with pytest.raises(ValueError, match="at least one byte"):
        split_ranges("f", "f", 10, 0)


# -- work that stops at a number of records and goes on ---------------------------------------


def one_pass(path: Path, options: Options) -> tuple[list[Record], int, int]:
    """The records, valid and invalid counts of one process reading ``path``."""
    batches = list(check(expand([str(path)]), options, stdin=io.BytesIO()))
    records = [record for batch in batches for record in batch.records]
    return records, sum(batch.valid for batch in batches), sum(batch.invalid for batch in batches)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 50), st.integers(1, 60), st.booleans(), st.integers(0, 2**32))
def test_a_range_stopped_at_max_records_goes_on_with_its_rest(
    tmp_path_factory: pytest.TempPathFactory, max_records: int, lines: int, keep_valid: bool, seed: int
) -> None:
    """``check_range(max_records=N)`` holds at most N records and gives the range left; following the
    rests, every line is read once: the records and counts of one process."""
    path = write_corpus(tmp_path_factory.mktemp("rest") / "logs.jsonl", lines, seed)
    options = Options(keep_valid=keep_valid)
    records: list[Record] = []
    valid = invalid = offset = 0
    for whole in split_ranges(str(path), str(path), path.stat().st_size, 200):
        work: LineRange | None = whole
        while work is not None:
            part = check_range(work, options, max_records=max_records)
            batch = part.batch
            assert len(batch.records) <= max_records
            records.extend(renumber(batch, offset).records)
            valid, invalid, offset = valid + batch.valid, invalid + batch.invalid, offset + part.lines
            work = part.rest
    assert one_pass(path, options) == (records, valid, invalid)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 50), st.integers(1, 3000), st.sampled_from(["logs.jsonl", "logs.jsonl.gz", "logs.log"]))
def test_stream_parts_hold_at_most_max_records_and_start_again_at_any_line(
    tmp_path_factory: pytest.TempPathFactory, max_records: int, lines: int, name: str
) -> None:
    """``stream_parts(max_records=N)`` gives parts of at most N records, in order; parts started
    at the line where one stopped (as a worker that did not keep the stream open starts) give
    what the first would have given next."""
    data = corpus(lines, seed=lines)
    path = tmp_path_factory.mktemp("reader") / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    [source] = expand([str(path)])
    assert isinstance(source, Source)
    options = Options(keep_valid=True)
    parts = list(stream_parts(source, options, max_records=max_records))
    assert max(len(part.batch.records) for part in parts) <= max_records
    assert [None] == [part.rest for part in parts[-1:]]
    if len(parts) > 1:
        again = stream_parts(source, options, max_records=max_records, from_line=parts[0].rest)
        assert parts[1] == next(again)
        again.close()
    records = [record for part in parts for record in part.batch.records]
    counts = sum(part.batch.valid for part in parts), sum(part.batch.invalid for part in parts)
    assert one_pass(path, options) == (records, *counts)


# -- the command: --jobs 2 against one process ----------------------------------------------


@pytest.fixture(autouse=True)
def units_of_one_mib(monkeypatch: pytest.MonkeyPatch) -> None:
    """Units of work of 1 MiB (the default is 4 MiB), so that the test files are cut in several."""
    monkeypatch.setattr(_bulk, "BATCH_BYTES", 1 << 20)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JSON-lines file of about 2 MB: cut into ranges (of about 1 MiB) by --jobs."""
    path = write_corpus(tmp_path_factory.mktemp("jobs") / "big.jsonl", 12_000)
    assert 1 < len(split_ranges(str(path), "big", path.stat().st_size, 1 << 20))
    return path


@pytest.mark.parametrize("output_format", ["text", "json", "jsonl"])
def test_jobs_two_gives_the_report_of_one_process(
    capsys: pytest.CaptureFixture[str], big: Path, output_format: str
) -> None:
    """Every format: the same bytes on stdout and stderr, the same exit status, with 2 workers."""
    one = cli(capsys, "--format", output_format, str(big))
    two = cli(capsys, "--format", output_format, "--jobs", "2", str(big))
    assert 1 == one[0]
    assert one == two


def test_jobs_two_quiet_gives_the_exit_status_of_one_process(
    capsys: pytest.CaptureFixture[str], big: Path, tmp_path: Path
) -> None:
    """Quiet: nothing printed, the same verdict; an all-valid ranged file exits 0."""
    assert (1, "", "") == cli(capsys, "--quiet", "--jobs", "2", str(big))
    valid = tmp_path / "valid.jsonl"
    valid.write_bytes((orjson.dumps(VALID) + b"\n") * 30_000)
    assert (0, "", "") == cli(capsys, "--quiet", "--jobs", "2", str(valid))


def test_jobs_two_numbers_lines_across_files_and_ranges(
    capsys: pytest.CaptureFixture[str], big: Path, tmp_path: Path
) -> None:
    """Two ranged files and a small one between them: each file numbered from its own line 1."""
    small = tmp_path / "small.jsonl"
    small.write_bytes(b'{"status": "nope"}\n')
    args = [str(big), str(small), str(big)]
    assert cli(capsys, *args) == cli(capsys, "--jobs", "2", *args)


@pytest.mark.parametrize("keep_valid", [False, True], ids=["invalid", "every-response"])
def test_no_unit_of_jobs_holds_more_than_unit_records(
    monkeypatch: pytest.MonkeyPatch, big: Path, tmp_path: Path, keep_valid: bool
) -> None:
    """With 300 records a unit at most: a ranged file (its ranges stop there and go on in units of
    their own) and a compressed one (read in batches of no more lines) give batches of at most 300
    records, and the records of one process, in order."""
    monkeypatch.setattr(_bulk, "UNIT_RECORDS", 300, raising=False)
    packed = tmp_path / "big.jsonl.gz"
    packed.write_bytes(gzip.compress(big.read_bytes()))
    options = Options(keep_valid=keep_valid)
    for path in (big, packed):
        batches = list(check(expand([str(path)]), options, stdin=io.BytesIO(), jobs=2))
        assert 300 >= max(len(batch.records) for batch in batches)
        assert one_pass(path, options) == (
            [record for batch in batches for record in batch.records],
            sum(batch.valid for batch in batches),
            sum(batch.invalid for batch in batches),
        )


def test_a_binary_file_is_one_invalid_response_with_jobs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A large .jsonl with a NUL byte at its start is not cut: one binary verdict, as in one process."""
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\x00" + corpus(5000))
    one = cli(capsys, str(binary))
    assert "[binary]" in one[1]
    assert one == cli(capsys, "--jobs", "2", str(binary))


# -- compressed files and URLs --------------------------------------------------------------


@pytest.mark.parametrize(
    ("suffix", "compress"),
    [(".gz", gzip.compress), (".zst", lambda data: zstandard.ZstdCompressor().compress(data))],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_compressed_files_give_the_report_of_the_plain_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str, compress: object, jobs: str
) -> None:
    """``logs.jsonl.gz`` / ``.zst`` read as ``logs.jsonl``: the same lines reported, under their own name."""
    data = corpus(3000)
    plain = tmp_path / "logs.jsonl"
    plain.write_bytes(data)
    packed = tmp_path / f"logs.jsonl{suffix}"
    assert callable(compress)
    packed.write_bytes(compress(data))
    status, out, _err = cli(capsys, "--jobs", jobs, str(packed))
    expected = cli(capsys, str(plain))
    assert expected[0] == status
    assert expected[1].replace(str(plain), str(packed)) == out


def test_a_directory_lists_compressed_response_files(tmp_path: Path) -> None:
    """A directory walk takes ``.jsonl.gz`` and ``.json.zst`` as what they hold, and skips ``.txt.gz``."""
    for name in ("a.jsonl.gz", "b.json.zst", "c.txt.gz"):
        (tmp_path / name).write_bytes(b"")
    listed = [
        (source.name.rsplit("/", 1)[-1], source.mode)
        for source in expand([str(tmp_path)])
        if isinstance(source, Source)
    ]
    assert [("a.jsonl.gz", "lines"), ("b.json.zst", "document")] == listed


def test_memory_urls_are_read_through_fsspec(capsys: pytest.CaptureFixture[str]) -> None:
    """``memory://`` objects (plain and compressed) give the report their bytes give as a file."""
    import fsspec

    memory = fsspec.filesystem("memory")
    data = corpus(500)
    memory.pipe("/scale/logs.jsonl", data)
    memory.pipe("/scale/logs.jsonl.gz", gzip.compress(data))
    try:
        plain = cli(capsys, "memory://scale/logs.jsonl")
        packed = cli(capsys, "--jobs", "2", "memory://scale/logs.jsonl.gz")
    finally:
        memory.rm("/scale", recursive=True)
    assert 1 == plain[0]
    assert "memory://scale/logs.jsonl:" in plain[1]
    assert plain[1].replace("logs.jsonl:", "logs.jsonl.gz:") == packed[1]


def test_a_missing_object_is_an_io_error(capsys: pytest.CaptureFixture[str]) -> None:
    """A URL naming nothing: exit 2 and a one-line reason, not a traceback."""
    status, _out, err = cli(capsys, "memory://scale/none.jsonl")
    assert 2 == status
    assert err == "toolresponse validate: cannot read memory://scale/none.jsonl: No such file or directory\n"


def test_an_unknown_protocol_is_an_io_error_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    """A URL whose protocol fsspec does not know: exit 2, the reason names the protocol."""
    status, _out, err = cli(capsys, "nosuchstore://bucket/logs.jsonl")
    assert 2 == status
    assert "nosuchstore" in err
    assert "Traceback" not in err


def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Where fsspec and zstandard are not installed, a URL's or a ``.zst`` file's record says which
    extra to install; a ``.gz`` file needs neither."""
    packed = tmp_path / "logs.jsonl.gz"
    packed.write_bytes(gzip.compress(corpus(10)))
    (tmp_path / "logs.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(corpus(10)))
    monkeypatch.setitem(sys.modules, "fsspec", None)
    monkeypatch.setitem(sys.modules, "zstandard", None)
    names = [str(packed), str(tmp_path / "logs.jsonl.zst"), "memory://scale/logs.jsonl"]
    batches = list(check(expand(names), Options(), stdin=io.BytesIO()))
    assert 10 == sum(batch.valid + batch.invalid for batch in batches)
    unread = [record for batch in batches for record in batch.records if record.io_error is not None]
    assert [names[1], names[2]] == [record.source for record in unread]
    assert all("toolresponse[dask]" in str(record.io_error) for record in unread)
    with pytest.raises(OSError, match=r"toolresponse\[dask\]"), open_input(names[2]):
        pass


def _cut(data: bytes, keep: float) -> bytes:
    return data[: int(len(data) * keep)]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_damaged_or_truncated_compressed_file_is_unreadable_and_the_rest_is_checked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, jobs: str
) -> None:
    """Cut short (gzip or zstd, lines or a document) or not compressed at all: each such file is
    one input that cannot be read, named with the reason, exit 2, and the other files in the
    directory are still checked; never a traceback and never a silent end of input."""
    rng = random.Random(3)
    text = b"".join(
        orjson.dumps({"status": "success", "text": rng.randbytes(60).hex()}) + b"\n" for _ in range(4000)
    )
    zstd = zstandard.ZstdCompressor().compress
    files = {
        "a.jsonl.gz": _cut(gzip.compress(text), 0.7),
        "b.jsonl.zst": _cut(zstd(text), 0.7),
        "c.json.gz": _cut(gzip.compress(orjson.dumps(VALID)), 0.5),
        "d.jsonl.zst": b"garbage\n",
        "e.jsonl.gz": b"garbage\n",
        "zz.jsonl": b'{"status": "succes", "text": "x"}\n',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    status, out, err = cli(capsys, "--jobs", jobs, str(tmp_path))
    assert 2 == status
    reasons = dict(line.split(": ", 2)[1:] for line in err.splitlines())
    assert [f"cannot read {tmp_path / name}" for name in list(files)[:5]] == list(reasons)
    assert [reason.startswith("truncated") for reason in reasons.values()] == [True] * 3 + [False] * 2
    assert out.startswith(f"{tmp_path / 'zz.jsonl'}:1: /status: ")
    assert out.endswith(" invalid, 5 inputs unreadable\n")
    assert "Traceback" not in err


def test_every_path_skips_a_line_over_the_limit_as_one_process_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A line longer than ``MAX_LINE_BYTES`` in a file cut into ranges (``--jobs``, Dask): skipped
    and reported as one process reports it, the lines after it checked, not read and judged. The
    limit is the real one: a worker process may be spawned, and would not see a patched one."""
    import dask

    from toolresponse.dask import validate_paths
    from toolresponse.validation import _inputs

    long = b'{"status": "succes", "text": "' + b"a" * _inputs.MAX_LINE_BYTES + b'"}'
    path = tmp_path / "huge.jsonl"
    path.write_bytes(orjson.dumps(VALID) + b"\n" + long + b"\n" + corpus(60))
    one = cli(capsys, str(path))
    assert (2, f"toolresponse validate: cannot read {path}:2: the line is longer than 64 MiB") == (
        one[0],
        one[2].split(" (")[0],
    )
    assert one == cli(capsys, "--jobs", "2", str(path))
    options = Options(keep_valid=True)
    expected = [
        record
        for batch in check(expand([str(path)]), options, stdin=io.BytesIO())
        for record in batch.records
    ]
    with dask.config.set(scheduler="synchronous"):
        validation = validate_paths([str(path)], options=options, block_bytes=8 << 20)
        assert expected == validation.records.compute()  # type: ignore[no-untyped-call]


def test_a_line_over_the_limit_in_a_later_range_is_reported_as_one_process_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line over ``MAX_LINE_BYTES`` in a range after the first (Dask ranges, checked here in
    process) is reported with the same line and the same message as one process reports it: the
    message names no line of its own, which in a range would be counted from the range's start."""
    import dask

    from toolresponse.dask import validate_paths
    from toolresponse.validation import _inputs

    monkeypatch.setattr(_inputs, "MAX_LINE_BYTES", 1000)
    long = b'{"status": "succes", "text": "' + b"a" * 2000 + b'"}'
    path = tmp_path / "late.jsonl"
    path.write_bytes(corpus(300) + long + b"\n" + corpus(5))
    options = Options(keep_valid=True)
    expected = [
        record
        for batch in check(expand([str(path)]), options, stdin=io.BytesIO())
        for record in batch.records
    ]
    assert [301] == [record.line for record in expected if record.io_error]
    with dask.config.set(scheduler="synchronous"):
        validation = validate_paths([str(path)], options=options, block_bytes=4096)
        assert expected == validation.records.compute()  # type: ignore[no-untyped-call]


def test_a_zstd_bomb_is_expanded_a_bounded_piece_at_a_time(tmp_path: Path) -> None:
    """200 MiB of one byte in a zstd frame of 6 KiB, read through ``open_input``: every byte comes
    out, and no more than 24 MiB is held at any time (Python's allocations traced: a piece expands to
    8 MiB at most, held twice while zstandard joins its output; 128 MiB before the bound)."""
    import tracemalloc

    packer = zstandard.ZstdCompressor().compressobj()
    frame = b"".join(packer.compress(b"a" * (1 << 20)) for _ in range(200)) + packer.flush()
    bomb = tmp_path / "bomb.jsonl.zst"
    bomb.write_bytes(frame)
    read = 0
    tracemalloc.start()
    try:
        with open_input(str(bomb)) as stream:
            while chunk := stream.read(1 << 16):
                read += len(chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (200 << 20, True) == (read, peak < 24 << 20)


@pytest.mark.parametrize("name", ["empty.jsonl.gz", "empty.json.zst"])
def test_an_empty_compressed_file_is_unreadable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    """A 0-byte ``.gz`` or ``.zst`` file holds no member or frame (``gzip -t`` and ``zstd -t`` refuse
    it): one input that cannot be read, as a truncated one, not an empty input."""
    (tmp_path / name).write_bytes(b"")
    status, out, err = cli(capsys, str(tmp_path / name))
    assert (2, "0 valid, 0 invalid, 1 input unreadable\n") == (status, out)
    assert err.startswith(f"toolresponse validate: cannot read {tmp_path / name}: truncated: ")
