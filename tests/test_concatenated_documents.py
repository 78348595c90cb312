"""A file of JSON documents one after another (HelloAgents' pretty-printed ``to_json()`` output
appended to a log, say) is read document by document, whatever its name says: each document is a
record, reported at its own lines and columns, under the same strict I-JSON rules as any document;
``--jobs`` and Dask read it as one stream, as one process does; the lines after a pretty-printed
document are read as lines, and no bad document loses those after it."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from interop_cases import HelloAgentsResponse, HelloAgentsStatus
from test_validate_cli import _Stdin

from toolresponse.cli import main
from toolresponse.validation import Options, Source, _bulk, check, expand

HELLOAGENTS_LOG = [
    HelloAgentsResponse(HelloAgentsStatus.SUCCESS, "4", data={"output": 4}, stats={"time_ms": 1}),
    HelloAgentsResponse(
        HelloAgentsStatus.ERROR,
        "文件 'config.py' 不存在",
        error_info={"code": "NOT_FOUND", "message": "文件 'config.py' 不存在"},
        context={"tool_name": "read_file", "params_input": {"path": "config.py"}},
    ),
    HelloAgentsResponse(HelloAgentsStatus.PARTIAL, "First 2 of 9.", data={"returned": 2, "total": 9}),
]
PRETTY_LOG = "".join(response.to_json() + "\n" for response in HELLOAGENTS_LOG)


def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str, stdin: bytes = b""
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", _Stdin(stdin))
    capsys.readouterr()
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def invalid_report(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, path: Path
) -> list[str]:
    """The lines ``validate PATH`` prints for input found invalid (exit status 1)."""
    status, out, _ = run(capsys, monkeypatch, "validate", str(path))
    assert 1 == status
    return out.splitlines()


def where_and_rule(line: str) -> tuple[str, str]:
    """``FILE:LINE:COLUMN: POINTER`` and the rule of one report line."""
    return line.split(": ", 2)[0] + ": " + line.split(": ", 2)[1], line.rsplit("[", 1)[1].rstrip("]")


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """The 1-based line of the ``occurrence``-th ``needle`` in ``text``."""
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    return text.count("\n", 0, at) + 1


@pytest.mark.parametrize("name", ["log.jsonl", "log.json", "-"])
def test_pretty_printed_helloagents_responses_are_converted_one_record_each(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``to_json()`` output appended to a file: three records, whether named .jsonl, .json or piped."""
    path = tmp_path / name
    if name != "-":
        path.write_text(PRETTY_LOG, encoding="utf-8")
    source = "-" if name == "-" else str(path)
    stdin = PRETTY_LOG.encode()
    status, out, err = run(
        capsys, monkeypatch, "convert", "--from", "helloagents", "--to", "toolresponse", source, stdin=stdin
    )
    assert (0, "3 converted, 0 invalid\n") == (status, err)
    assert ["success", "error", "partial"] == [json.loads(line)["status"] for line in out.splitlines()]
    status, out, _ = run(capsys, monkeypatch, "validate", "--from", "helloagents", source, stdin=stdin)
    assert (0, "3 valid, 0 invalid\n") == (status, out)


def test_each_document_is_judged_at_its_own_lines_under_the_strict_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A schema violation and a repeated member name are reported at their line and column in the
    file; the documents around them are still read."""
    text = (
        json.dumps({"status": "success", "text": "a"}, indent=2)
        + "\n"
        + json.dumps({"status": "done", "text": "b"}, indent=2)
        + "\n"
        + '{\n  "status": "success",\n  "text": "c",\n  "text": "d"\n}\n'
        + json.dumps({"status": "partial", "text": "e"}, indent=2)
        + "\n"
    )
    log = tmp_path / "pretty.jsonl"
    log.write_text(text)
    enum, duplicate, summary = invalid_report(capsys, monkeypatch, log)
    done, repeated = line_of(text, '"done"'), line_of(text, '"text"', 4)
    assert (f"{log}:{done}:13: /status", "enum") == where_and_rule(enum)
    assert (f"{log}:{repeated}:3: /text", "duplicate-name") == where_and_rule(duplicate)
    assert "2 valid, 2 invalid" == summary


def test_documents_on_one_line_keep_their_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two documents with nothing between them: the second's violation is at its column in the line."""
    text = '{"status": "success", "text": "a"}{"status": "success", "text": "b", "data": NaN}\n'
    log = tmp_path / "two.json"
    log.write_text(text)
    problem, summary = invalid_report(capsys, monkeypatch, log)
    assert (f"{log}:1:{text.index('NaN') + 1}: /data", "non-finite-number") == where_and_rule(problem)
    assert "1 valid, 1 invalid" == summary


def test_a_pretty_printed_lines_file_is_not_cut_into_ranges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--jobs reads it as one stream, as one process does (a range would start inside a document)."""
    monkeypatch.setattr(_bulk, "BATCH_BYTES", 1 << 10)
    log = tmp_path / "big.jsonl"
    log.write_text(PRETTY_LOG * 20, encoding="utf-8")
    assert log.stat().st_size > 4 << 10
    listed = next(iter(expand([str(log)])))
    assert isinstance(listed, Source)
    assert listed == _bulk.ranges_of(listed, listed.size, 1 << 10)
    one = run(capsys, monkeypatch, "validate", "--from", "helloagents", str(log))
    assert (0, "60 valid, 0 invalid\n", "") == one
    assert one == run(capsys, monkeypatch, "validate", "--from", "helloagents", "--jobs", "2", str(log))


def test_dask_reads_a_pretty_printed_lines_file_whole(tmp_path: Path) -> None:
    """On Dask too the file is one task, with the records of one process."""
    import dask

    from toolresponse.dask import validate_paths
    from toolresponse.interop._logs import judge_of

    log = tmp_path / "big.jsonl"
    log.write_text(PRETTY_LOG * 20, encoding="utf-8")
    options = Options(keep_valid=True, judge=judge_of("helloagents"))
    with dask.config.set(scheduler="synchronous"):
        validation = validate_paths([str(log)], options=options, block_bytes=1 << 10)
        records = validation.records.compute()  # type: ignore[no-untyped-call]
    expected = [
        record for batch in check(expand([str(log)]), options, stdin=io.BytesIO()) for record in batch.records
    ]
    assert expected == records
    # Each document begins on the line before its "status" member.
    assert [line_of(PRETTY_LOG * 20, '"status"', n) - 1 for n in range(1, 61)] == [
        record.line for record in records
    ]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_pretty_printed_document_among_json_lines_is_read_as_one(
    jobs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log of compact lines with a ``to_json()`` document (one response over several lines) in
    the middle: that document is one record, judged whole and reported at its own line, not one
    syntax error per physical line."""
    compact = json.dumps(json.loads(HELLOAGENTS_LOG[0].to_json()))
    path = tmp_path / "mixed.jsonl"
    path.write_text(f"{compact}\n{HELLOAGENTS_LOG[1].to_json()}\n{compact}\n", encoding="utf-8")
    status, out, _ = run(capsys, monkeypatch, "validate", "--jobs", jobs, "--from", "helloagents", str(path))
    assert (0, "3 valid, 0 invalid\n") == (status, out)
    broken = json.loads(HELLOAGENTS_LOG[1].to_json()) | {"status": "eror"}
    path.write_text(f"{compact}\n{json.dumps(broken, indent=2)}\n{compact}\n", encoding="utf-8")
    status, out, _ = run(capsys, monkeypatch, "validate", "--jobs", jobs, "--from", "helloagents", str(path))
    lines = out.splitlines()
    assert (1, "2 valid, 1 invalid") == (status, lines[-1])
    assert all(line.startswith(f"{path}:2: ") for line in lines[:-1]), lines  # the record of the document
    assert '"eror"' in lines[0]


@pytest.mark.parametrize("bad", [b'"str"', b"\xff"])
def test_a_bad_document_loses_none_of_those_after_it(
    bad: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A .json file of three documents, the second a string or not UTF-8: it is reported at its own
    line, the first is counted valid and the third is judged."""
    log = tmp_path / "three.json"
    log.write_bytes(b'{"status":"success","text":"p"}\n' + bad + b'\n{"status":"succes","text":"a"}\n')
    second, third, summary = invalid_report(capsys, monkeypatch, log)
    assert second.startswith(f"{log}:2:1: (root): ")
    assert (f"{log}:3:11: /status", "enum") == where_and_rule(third)
    assert "1 valid, 2 invalid" == summary


PRETTY_THEN_LINES = (
    b'{\n "status": "success",\n "text": "p"\n}\n"str"\n'
    b'{"status":"succes","text":"a"}\n{"status":"succes","text":"b"}\n'
)


@pytest.mark.parametrize("args", [["p.jsonl"], ["--jobs", "2", "p.jsonl"], ["p.txt"], ["-"]])
def test_the_lines_after_a_pretty_printed_first_record_are_read_as_lines(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A JSON-lines input whose first record is pretty-printed: that record is one response, and
    each line after it is one more, reported at its line."""
    monkeypatch.chdir(tmp_path)
    for name in ("p.jsonl", "p.txt"):
        (tmp_path / name).write_bytes(PRETTY_THEN_LINES)
    status, out, err = run(capsys, monkeypatch, "validate", *args, stdin=PRETTY_THEN_LINES)
    shown = "<stdin>" if args == ["-"] else args[-1]
    assert (1, "") == (status, err)
    assert [f"{shown}:{line}" for line in (5, 6, 7)] + ["1 valid, 3 invalid"] == [
        line.split(": ")[0] for line in out.splitlines()
    ]


def test_json_lines_after_a_pretty_printed_record_have_no_document_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines after a pretty-printed first record are not one document: however many bytes they
    hold, the document limit does not apply to them, and every line is checked."""
    from toolresponse.validation import _inputs

    monkeypatch.setattr(_inputs, "MAX_DOCUMENT_BYTES", 1 << 10)
    log = tmp_path / "prettybig.jsonl"
    log.write_bytes(
        b'{\n "status": "success",\n "text": "p"\n}\n' + b'{"status":"success","text":"x"}\n' * 200
    )
    assert log.stat().st_size > 4 << 10
    assert (0, "201 valid, 0 invalid\n", "") == run(capsys, monkeypatch, "validate", str(log))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_pretty_printed_document_across_batches_is_one_response(
    jobs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pretty-printed document of many lines after compact lines, longer than a batch of lines
    read at once (and than a piece of a range that ``--jobs`` reads): it is one response, and the
    invalid line after it is reported at its line."""
    from toolresponse.validation import _inputs

    monkeypatch.setattr(_bulk, "BATCH_BYTES", 200 << 10)
    compact = b'{"status":"success","text":"x"}\n'
    document = json.dumps(
        {"status": "success", "text": "big", "data": {"rows": list(range(12_000))}}, indent=1
    )
    assert _inputs.LOCAL_BATCH_BYTES == _bulk._PIECE_BYTES < len(document) < 150 << 10
    text = compact * 3 + document.encode() + b"\n" + b'{"status":"succes","text":"a"}\n'
    line = text.count(b"\n")
    log = tmp_path / "across.jsonl"
    log.write_bytes(text + compact * 4000)
    assert log.stat().st_size > 200 << 10  # cut into ranges with --jobs, the document in the first
    status, out, err = run(capsys, monkeypatch, "validate", "--jobs", jobs, str(log))
    assert (1, "") == (status, err)
    assert [f"{log}:{line}", "4,004 valid, 1 invalid"] == [row.split(": ")[0] for row in out.splitlines()]
