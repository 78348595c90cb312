"""The validator's hardening: cost linear in violations, a cap on what is reported, escaped
terminal output, bounded memory on any input, noncharacters rejected by every engine, and the
input routes (blank lines, FIFOs, broken links, empty directories) each with a stated answer."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from toolresponse._errors import IJsonError
from toolresponse.cli import main
from toolresponse.validation import (
    Options,
    Record,
    Source,
    _inputs,
    _open,
    check,
    check_lines,
    expand,
    parse_ijson,
    validate_json,
)
from toolresponse.validation._validate import MAX_VIOLATIONS

TOOLRESPONSE = Path(sys.executable).with_name("toolresponse")


def _with_unknown_members(count: int, prefix: str = "member") -> bytes:
    document: dict[str, Any] = {"status": "success", "text": "ok"}
    document.update({f"{prefix}_{index}": index for index in range(count)})
    return orjson.dumps(document, option=orjson.OPT_INDENT_2)


def _operations(call: Callable[[], object]) -> int:
    """How many function calls (Python and built-in) ``call`` makes: a measure of work that no
    load on the machine changes."""
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count


def run(capsys: pytest.CaptureFixture[str], *args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """``toolresponse validate ARGS`` in this process: (exit status, stdout, stderr)."""
    status = main(["validate", *args]) if args else main(["validate"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- 1. cost linear in violations, and a cap on what a response reports


def _explained_lines(count: int, prefix: str, options: Options) -> Record:
    line = orjson.dumps(orjson.loads(_with_unknown_members(count, prefix)))
    (record,) = check_lines("log.jsonl", [line], 1, options).records
    return record


@pytest.mark.parametrize("how", ["validate_json", "lines", "lines --first"])
def test_the_work_of_explaining_is_bounded_by_the_violations_kept(how: str) -> None:
    """One response with ten times the unknown members (a line can hold millions) costs about the
    same counted function calls, in validate_json and in the bulk API, with or without --first:
    only the MAX_VIOLATIONS kept are made, the others are counted (``more``)."""

    def explained(count: int, prefix: str) -> tuple[int, int]:
        if how == "validate_json":
            result = validate_json(_with_unknown_members(count, prefix))
            return len(result.errors), result.more
        record = _explained_lines(count, prefix, Options(first=how.endswith("--first")))
        return len(record.errors), record.more

    explained(10, "warm")  # engines and caches built outside the count
    # Names of their own, so that neither run meets explanations the other cached.
    small = _operations(lambda: explained(500, f"{how} small"))
    large = _operations(lambda: explained(5000, f"{how} large"))
    assert large <= 1.2 * small, (small, large)
    kept = 1 if how == "lines --first" else MAX_VIOLATIONS
    assert (kept, 0 if kept == 1 else 4900) == explained(5000, "counted")


def test_every_violation_kept_is_located_by_the_one_pass_scan() -> None:
    """Each of many unknown members kept gets the line and column of its own name; the rest are counted."""
    result = validate_json(_with_unknown_members(300))
    assert (MAX_VIOLATIONS, 200) == (len(result.errors), result.more)
    assert [(index + 4, 3) for index in range(MAX_VIOLATIONS)] == [(e.line, e.column) for e in result.errors]


def test_the_text_report_shows_at_most_the_cap_then_and_n_more(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A response with 250 violations shows MAX_VIOLATIONS of them and one "... and N more" line."""
    path = tmp_path / "many.json"
    path.write_bytes(_with_unknown_members(250))
    status, out, _ = run(capsys, str(path))
    lines = out.splitlines()
    assert (1, MAX_VIOLATIONS + 2) == (status, len(lines))
    expected = f"{path}:4: ... and 150 more violations (at most {MAX_VIOLATIONS} are shown per response)"
    assert (expected, "0 valid, 1 invalid") == (lines[-2], lines[-1])


def test_the_json_reports_count_the_violations_past_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON and JSON-lines records keep MAX_VIOLATIONS errors and say how many more in more_errors."""
    path = tmp_path / "many.jsonl"
    path.write_bytes(
        orjson.loads(_with_unknown_members(250))
        and orjson.dumps(orjson.loads(_with_unknown_members(250))) + b"\n"
    )
    _, out, _ = run(capsys, "--format", "json", str(path))
    (record,) = json.loads(out)["responses"]
    assert (MAX_VIOLATIONS, 150) == (len(record["errors"]), record["more_errors"])
    _, out, _ = run(capsys, "--format", "jsonl", str(path))
    (record,) = [json.loads(line) for line in out.splitlines()]
    assert (MAX_VIOLATIONS, 150) == (len(record["errors"]), record["more_errors"])


# --- 2. no raw control character on a terminal stream

HOSTILE_NAME = "\x1b]0;pwned\x07\u202e\x9b"
HOSTILE_JSON = "\\u001b]0;pwned\\u0007\u202e\x9b"
"""The name as JSON text writes it: C0 controls must be escapes there, C1 and bidi may be raw."""


@pytest.mark.parametrize(
    ("text", "keyword"),
    [
        (
            f'{{"status": "success", "text": "x", "data": {{"{HOSTILE_JSON}": 1, "{HOSTILE_JSON}": 2}}}}',
            "duplicate-name",
        ),
        (f'{{"status": "success", "text": "x", "data": {{"{HOSTILE_JSON}": NaN}}}}', "non-finite-number"),
        (f'{{"status": "success", "text": "x", "data": {{"{HOSTILE_JSON}": tru}}}}', "syntax"),
        (f'{{"status": "success", "text": "x", "{HOSTILE_JSON}": 1}}', "additionalProperties"),
    ],
)
def test_control_and_bidi_characters_never_reach_the_text_output(
    text: str, keyword: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Member names from the input reach text output escaped (ESC, BEL, C1, bidi), in pointers
    and messages, as a .json document and as a JSON line."""
    for name in ("doc.json", "lines.jsonl"):
        path = tmp_path / name
        path.write_text(text + "\n", encoding="utf-8")
        status, out, err = run(capsys, str(path))
        assert (1, f"[{keyword}]") == (status, out.splitlines()[0].rsplit(" ", 1)[-1])
        assert not any(char in out + err for char in "\x1b\x07\u202e\x9b"), out
        assert "\\x1b]0;pwned\\x07" in out or "\\u001b]0;pwned\\u0007" in out


def test_the_json_output_keeps_names_exact_and_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON output is left to the JSON writer: the pointer holds the name exactly, escaped as JSON."""
    path = tmp_path / "doc.json"
    path.write_text(
        f'{{"status": "success", "text": "x", "data": {{"{HOSTILE_JSON}": NaN}}}}', encoding="utf-8"
    )
    _, out, _ = run(capsys, "--format", "json", str(path))
    assert "\x1b" not in out
    (record,) = json.loads(out)["responses"]
    assert "/data/" + HOSTILE_NAME == record["errors"][0]["pointer"]


# --- 3. bounded memory on standard input and in long lines


class _Endless(io.RawIOBase):
    """A stream that never ends: ``line`` over and over (``yes`` as a Python object)."""

    def __init__(self, line: bytes) -> None:
        super().__init__()
        self._line = line
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        block = (self._line * (len(buffer) // len(self._line) + 1))[: len(buffer)]
        buffer[: len(block)] = block
        self.served += len(block)
        return len(block)


def test_endless_input_that_is_not_json_lines_stops_at_the_document_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Input that is not JSON lines is read only up to MAX_DOCUMENT_BYTES, then reported with the limit."""
    monkeypatch.setattr(_inputs, "MAX_DOCUMENT_BYTES", 1 << 20)
    endless = _Endless(b"not json\n")
    (batch,) = check([Source("-", "<stdin>", "sniff", None)], Options(), stdin=io.BufferedReader(endless))
    (record,) = batch.records
    assert (None, True) == (
        record.line,
        "more than 1 MiB in one JSON document (MAX_DOCUMENT_BYTES" in (record.io_error or ""),
    )
    assert endless.served < 2 << 20


def test_yes_not_json_into_validate_exits_2_naming_the_limit() -> None:
    """`yes 'not json' | toolresponse validate -` ends by itself, exit 2, naming the 64 MiB limit."""
    yes = shutil.which("yes")
    if yes is None:
        pytest.skip("no yes command on this machine")
    producer = subprocess.Popen([yes, "not json"], stdout=subprocess.PIPE)
    assert producer.stdout is not None
    try:
        finished = subprocess.run(
            [str(TOOLRESPONSE), "validate", "-"], stdin=producer.stdout, capture_output=True, timeout=120
        )
    finally:
        producer.kill()
        producer.wait()
    assert 2 == finished.returncode
    assert b"more than 64 MiB in one JSON document (MAX_DOCUMENT_BYTES" in finished.stderr


def test_a_line_past_the_line_limit_is_reported_and_the_next_lines_are_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A JSON line longer than MAX_LINE_BYTES is an I/O error with its line number; the lines
    after it still get their verdicts, with the right numbers."""
    monkeypatch.setattr(_inputs, "MAX_LINE_BYTES", 1000)
    valid = b'{"status": "success", "text": "ok"}\n'
    data = (
        valid
        + b'{"status": "success", "text": "'
        + b"x" * 5000
        + b'"}\n'
        + valid
        + b'{"status": "sucess", "text": "x"}\n'
    )
    batches = list(
        check(
            [Source("-", "<stdin>", "lines", None)],
            Options(),
            stdin=io.BufferedReader(io.BytesIO(data)),
            jobs=1,
        )
    )
    records = [record for batch in batches for record in batch.records]
    assert [(2, True), (4, False)] == [(record.line, record.io_error is not None) for record in records]
    assert "the line is longer than 1,000 bytes (MAX_LINE_BYTES" in (records[0].io_error or "")
    assert 2 == sum(batch.valid for batch in batches)


# --- 4. noncharacters, raw and escaped, in every engine

NONCHARACTERS = [
    ("\ufffe", "raw U+FFFE"),
    ("\uffff", "raw U+FFFF"),
    ("\ufdd0", "raw U+FDD0"),
    ("\ufdef", "raw U+FDEF"),
    ("\U0001fffe", "raw U+1FFFE"),
    ("\U0010ffff", "raw U+10FFFF"),
    ("\\uFFFE", "escaped U+FFFE"),
    ("\\uffff", "escaped U+FFFF (lower case)"),
    ("\\uFDD0", "escaped U+FDD0"),
    ("\\ufdef", "escaped U+FDEF"),
    ("\\uD83F\\uDFFE", "escaped U+1FFFE (a surrogate pair)"),
    ("\\uDBFF\\uDFFF", "escaped U+10FFFF (a surrogate pair)"),
]
NOT_NONCHARACTERS = ["\ufffd", "\ufdcf", "\ufdf0", "\\\\uFFFE", "\\uFDCF", "\\uD83D\\uDE00", "\U0001fffd"]


def _response_with(text: str) -> bytes:
    return (f'{{"status": "success", "text": "ok", "data": {{"k": "a{text}b"}}}}').encode()


@pytest.mark.parametrize(("text", "label"), NONCHARACTERS, ids=[label for _, label in NONCHARACTERS])
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_a_noncharacter_is_rejected_by_validate_json(text: str, label: str, engine: Any) -> None:
    """validate_json rejects every noncharacter form (rule encoding, at /data/k) with either engine."""
    (violation,) = validate_json(_response_with(text), engine=engine).errors
    assert ("/data/k", "encoding", 1, 53) == (
        violation.pointer,
        violation.keyword,
        violation.line,
        violation.column,
    )
    assert "noncharacter" in violation.message


@pytest.mark.parametrize(("text", "label"), NONCHARACTERS, ids=[label for _, label in NONCHARACTERS])
def test_a_noncharacter_is_rejected_in_json_lines(text: str, label: str) -> None:
    """The bulk path rejects the line, at the noncharacter's column, counting it invalid when quiet."""
    line = _response_with(text)
    batch = check_lines("<stdin>", [line + b"\n"], 1, Options())
    assert (0, 1, "encoding") == (batch.valid, batch.invalid, batch.records[0].errors[0].keyword)
    assert len(line[: line.index(b'"a') + 2].decode()) + 1 == batch.records[0].errors[0].column
    assert 0 == check_lines("<stdin>", [line], 1, Options(explain=False)).valid


@pytest.mark.parametrize("text", NOT_NONCHARACTERS)
def test_neighbours_of_noncharacters_are_accepted(text: str) -> None:
    """U+FFFD, U+FDCF, U+FDF0, an escaped backslash before "uFFFE", an emoji pair are characters."""
    line = _response_with(text)
    assert validate_json(line).valid
    assert 1 == check_lines("-", [line], 1, Options()).valid


def test_a_noncharacter_in_a_member_name_points_at_its_object() -> None:
    """A noncharacter in a member name: the pointer is the object holding it."""
    with pytest.raises(IJsonError) as raised:
        parse_ijson('{"status": "success", "text": "ok", "data": {"\ufdd0": 1}}')
    assert ("encoding", "/data") == (str(raised.value.rule), raised.value.pointer)


# --- 5. input routes


def test_a_line_of_only_a_vertical_tab_or_form_feed_is_not_blank(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """\\x0b and \\x0c are not JSON white space: such a line is an invalid response, not skipped."""
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b'{"status": "success", "text": "ok"}\n\x0b\n\x0c\n \t\r\n')
    status, out, _ = run(capsys, str(path))
    assert (1, [f"{path}:2:1", f"{path}:3:1"], "1 valid, 2 invalid") == (
        status,
        [line.split(": ")[0] for line in out.splitlines()[:-1]],
        out.splitlines()[-1],
    )


@pytest.mark.parametrize("name", ["blank.jsonl.gz", "blank.log.gz"], ids=["json-lines", "sniffed"])
def test_blank_lines_of_a_compressed_file_are_skipped_without_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """200,000 blank lines (LF, CRLF, white space) around two responses, in a file that expands a
    thousandfold: the decoder is given the two responses, each once (the first once more where it
    tells JSON lines from a document), and never a blank line (the explanation cache may decode its
    key too)."""
    import gzip

    blanks = (b"\n" + b"\r\n" + b" \t \r\n" + b"\n") * 50_000
    valid, invalid = b'{"status": "success", "text": "ok"}\n', b'{"status": "sucess", "text": "ok"}\n'
    path = tmp_path / name
    path.write_bytes(gzip.compress(blanks + valid + blanks + invalid + blanks, 9))
    decoded: list[bytes] = []
    loads = orjson.loads

    def counting(data: bytes) -> object:
        decoded.append(bytes(data))
        return loads(data)

    monkeypatch.setattr(orjson, "loads", counting)
    batches = list(check(expand([str(path)]), Options(), stdin=io.BytesIO()))
    [record] = [record for batch in batches for record in batch.records]
    responses = [data.strip() for data in decoded if data.strip() in (valid.strip(), invalid.strip())]
    sniffed = [valid.strip()] if name.endswith(".log.gz") else []
    assert ([*sniffed, valid.strip(), invalid.strip()], []) == (
        responses,
        [data for data in decoded if not data.strip()],
    )
    assert (1, 1, 400_002) == (sum(b.valid for b in batches), sum(b.invalid for b in batches), record.line)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_with_no_writer_is_an_io_error_not_a_wait(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO that no process writes to is reported at once (exit 2), never waited on."""
    fifo = tmp_path / "responses.jsonl"
    os.mkfifo(fifo)
    status, _, err = run(capsys, str(fifo))
    assert (2, f"toolresponse validate: cannot read {fifo}: {_open.NO_WRITER}\n") == (status, err)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_in_a_directory_is_reported_as_a_named_one_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A FIFO with a response file's name found in a directory is not passed over: with no writer it
    is reported (exit 2) and the files beside it are checked."""
    fifo = tmp_path / "p.jsonl"
    os.mkfifo(fifo)
    (tmp_path / "q.jsonl").write_bytes(b'{"status": "success", "text": "ok"}\n')
    status, out, err = run(capsys, str(tmp_path))
    expected = f"toolresponse validate: cannot read {fifo}: {_open.NO_WRITER}\n"
    assert (2, "1 valid, 0 invalid, 1 input unreadable\n", expected) == (status, out, err)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize(
    ("verb", "status", "told"),
    [
        (["report"], 1, "toolresponse report: {fifo}: cannot read the trace: {reason}"),
        (["schema", "diff"], 2, "toolresponse schema diff: {fifo}: cannot read: {reason}"),
    ],
)
def test_the_other_readers_of_files_answer_a_fifo_with_no_writer_as_validate_does(
    tmp_path: Path, verb: list[str], status: int, told: str
) -> None:
    """report and schema diff, given a FIFO no process writes to, say so at once, never wait."""
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    # A process, so that a wait is a failed test rather than a hung run (60 s: only a hang).
    finished = subprocess.run(
        [str(TOOLRESPONSE), *verb, *[str(fifo)] * (len(verb))], capture_output=True, timeout=60
    )
    expected = told.format(fifo=fifo, reason=_open.NO_WRITER_OF_FILE) + "\n"
    assert (status, expected) == (finished.returncode, finished.stderr.decode())


def test_a_pipe_with_a_writer_is_read(tmp_path: Path) -> None:
    """A pipe named by a path (as a shell's process substitution gives) is read as it comes."""
    read_end, write_end = os.pipe()
    os.write(write_end, b'{"status": "success", "text": "ok"}\n{"status": "sucess", "text": "x"}\n')
    os.close(write_end)
    try:
        finished = subprocess.run(
            [str(TOOLRESPONSE), "validate", f"/dev/fd/{read_end}"],
            pass_fds=[read_end],
            capture_output=True,
            timeout=60,
        )
    finally:
        os.close(read_end)
    assert (1, b"1 valid, 1 invalid\n") == (
        finished.returncode,
        finished.stdout.splitlines(keepends=True)[-1],
    )


def test_dangling_and_looping_links_in_a_directory_are_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A link to nothing and a loop of links are I/O errors (exit 2); the real files are checked."""
    (tmp_path / "a.jsonl").write_bytes(b'{"status": "success", "text": "ok"}\n')
    (tmp_path / "b.json").symlink_to(tmp_path / "missing.json")
    (tmp_path / "c.jsonl").symlink_to(tmp_path / "d.jsonl")
    (tmp_path / "d.jsonl").symlink_to(tmp_path / "c.jsonl")
    (tmp_path / "notes.txt").symlink_to(tmp_path / "missing.txt")
    status, out, err = run(capsys, str(tmp_path))
    assert (2, "1 valid, 0 invalid, 3 inputs unreadable\n") == (status, out)
    assert [f"{tmp_path}/b.json", f"{tmp_path}/c.jsonl", f"{tmp_path}/d.jsonl"] == [
        line.split(": ")[1].removeprefix("cannot read ") for line in err.splitlines()
    ]
    assert "a dangling symbolic link" in err.splitlines()[0]


def test_links_to_files_are_followed_and_links_to_directories_are_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """In a directory a link to a response file is checked; a link to a directory is not walked
    (no loop, no tree read twice), and naming it checks it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "bad.jsonl").write_bytes(b'{"status": "ok", "text": "x"}\n')
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "good.jsonl").write_bytes(b'{"status": "success", "text": "ok"}\n')
    (tree / "linked.jsonl").symlink_to(tree / "good.jsonl")
    (tree / "more").symlink_to(elsewhere, target_is_directory=True)
    (tree / "loop").symlink_to(tree, target_is_directory=True)
    assert (0, "2 valid, 0 invalid\n") == run(capsys, str(tree))[:2]
    assert 1 == run(capsys, str(tree / "more"))[0]


def test_an_empty_directory_is_reported_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory with no file to check (even with other files) is an I/O error, not "all valid"."""
    (tmp_path / "notes.txt").write_text("nothing here")
    (tmp_path / "empty").mkdir()
    status, out, err = run(capsys, str(tmp_path))
    reason = "nothing to check: no .json, .jsonl or .ndjson file under it"
    expected = f"toolresponse validate: cannot read {tmp_path}: {reason}\n"
    assert (2, "0 valid, 0 invalid, 1 input unreadable\n", expected) == (status, out, err)


def test_the_exit_statuses_are_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    """--help states every exit status and the routes that give 2."""
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    out = capsys.readouterr().out
    assert all(phrase in out for phrase in ("exit status:", "FIFO", "symbolic", "64 MiB", "... and N more"))


def test_expand_names_an_empty_directory(tmp_path: Path) -> None:
    """The bulk API gives the empty directory's record as well."""
    (record,) = list(expand([str(tmp_path)]))
    assert isinstance(record, Record)
    assert record.io_error is not None


def test_the_text_output_escapes_each_control_once_and_no_escape_can_be_faked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A control or bidi character of a value or a member name is shown as one escape (``\\x1b``,
    ``\\u202e``, as README shows them), and a backslash typed in a value is shown doubled, so the
    text ``\\x1b`` in the input never reads as an escape character."""
    path = tmp_path / "ctrl.jsonl"
    path.write_bytes(
        b'{"status":"succes\\u001b[31m\\u202e","text":"x"}\n'
        b'{"status":"success","text":"x","\\u001b[31mbad":1}\n'
        b'{"status":"succes\\\\x1b","text":"x"}\n'
    )
    _, out, _ = run(capsys, str(path))
    shown = [line.split(": ", 2)[2].split(" is not")[0].split(";")[0] for line in out.splitlines()[:3]]
    assert ["'succes\\x1b[31m\\u202e'", 'unknown member "\\u001b[31mbad"', "'succes\\\\x1b'"] == shown
