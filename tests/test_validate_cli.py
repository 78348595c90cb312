"""``toolresponse validate``: inputs, reports, exit statuses, hostile input, jobs and progress."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from toolresponse.cli import main
from toolresponse.demo import validation as demo
from toolresponse.validation import Record, Source, _bulk, expand, report
from toolresponse.validation._report import Progress

VALID = {"status": "success", "text": "Read config.py (5 bytes).", "data": {"content": "Hello"}}
VALID_LINE = orjson.dumps(VALID) + b"\n"
HELLOAGENTS = {"status": "error", "text": "x", "error": {"code": "NOT_FOUND", "message": "x"}}
MISSPELLED = {"status": "error", "text": "x", "error_info": {"code": "NOT_FOUD", "message": "x"}}


def write(path: Path, content: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def lines(*responses: Any) -> bytes:
    return b"".join(
        (response if isinstance(response, bytes) else orjson.dumps(response)) + b"\n"
        for response in responses
    )


class _Stdin:
    """A stand-in for sys.stdin: ``buffer`` holds the bytes, ``isatty`` says whether it is a terminal."""

    def __init__(self, data: bytes, *, tty: bool = False) -> None:
        self.buffer = io.BufferedReader(io.BytesIO(data))
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
    stdin: bytes = b"",
    tty: bool = False,
) -> tuple[int, str, str]:
    """Run ``toolresponse validate ARGS``: (exit status, stdout, stderr)."""
    fake = _Stdin(stdin, tty=tty)
    monkeypatch.setattr(sys, "stdin", fake)
    monkeypatch.setattr(
        "toolresponse.validation._report.is_terminal", lambda stream: bool(getattr(stream, "_tty", False))
    )
    try:
        status = main(["validate", *args])
    except SystemExit as exit_:
        status = int(exit_.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A directory of mixed inputs: valid and invalid .json and .jsonl files, and files to ignore."""
    write(tmp_path / "a-valid.json", json.dumps(VALID, indent=2))
    write(tmp_path / "b-stream.jsonl", lines(VALID, HELLOAGENTS, VALID))
    write(tmp_path / "nested" / "c-misspelled.json", json.dumps(MISSPELLED, indent=2))
    write(tmp_path / "nested" / "d.ndjson", lines(VALID))
    write(tmp_path / ".hidden" / "e.json", "not even JSON")
    write(tmp_path / ".f.json", "not even JSON")
    write(tmp_path / "notes.txt", "not a response file")
    return tmp_path


def test_all_valid_exits_0_with_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Valid responses only: exit 0, nothing but the summary."""
    path = write(tmp_path / "ok.jsonl", lines(VALID, VALID))
    assert (0, "2 valid, 0 invalid\n", "") == run(capsys, monkeypatch, str(path))


def test_a_directory_is_walked_in_name_order(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory gives its .json/.jsonl/.ndjson files, depth first in name order, hidden names skipped;
    each invalid response gets a line per violation (file:line, pointer, message, keyword)."""
    status, out, err = run(capsys, monkeypatch, str(tree))
    expected = [
        f'{tree}/b-stream.jsonl:2: (root): unknown member "error"; HelloAgents 1.0 writes error_info under '
        "that name [additionalProperties]",
        f'{tree}/b-stream.jsonl:2: (root): missing member "error_info", required when status is "error"; '
        'HelloAgents 1.0 writes it as "error" [required]',
        f"{tree}/nested/c-misspelled.json:5:13: /error_info/code: 'NOT_FOUD' is not a standard error code; "
        "did you mean NOT_FOUND? [enum]",
        "4 valid, 2 invalid",
    ]
    assert (1, expected, "") == (status, out.splitlines(), err)


def test_first_keeps_the_most_relevant_violation(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--first prints one violation per invalid response."""
    _, out, _ = run(capsys, monkeypatch, "--first", str(tree / "b-stream.jsonl"))
    assert [("b-stream.jsonl:2", "[additionalProperties]")] == [
        (line.split(": ")[0].rsplit("/", 1)[-1], line.rsplit(" ", 1)[-1]) for line in out.splitlines()[:-1]
    ]


def test_a_missing_file_exits_2_and_the_rest_is_checked(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing input gets a one-line reason on stderr, the others are still checked, and 2 wins over 1."""
    missing = tree / "missing.json"
    status, out, err = run(capsys, monkeypatch, str(missing), str(tree / "b-stream.jsonl"))
    expected_err = f"toolresponse validate: cannot read {missing}: No such file or directory\n"
    assert (2, expected_err, "2 valid, 1 invalid, 1 input unreadable") == (status, err, out.splitlines()[-1])


def test_a_file_gone_between_listing_and_reading_is_an_io_error(tree: Path) -> None:
    """A file listed, then deleted before it is read, is reported; the run goes on."""
    sources = list(expand([str(tree)]))
    (tree / "a-valid.json").unlink()
    out, err = io.StringIO(), io.StringIO()
    status = report(sources, out=out, err=err, stdin=io.BytesIO())
    expected = (2, f"toolresponse validate: cannot read {tree}/a-valid.json: No such file or directory\n")
    assert expected == (status, err.getvalue())
    assert "3 valid, 2 invalid, 1 input unreadable\n" == out.getvalue().splitlines(keepends=True)[-1]


def test_a_directory_where_a_file_was_listed_is_an_io_error(tree: Path) -> None:
    """A file replaced by a directory between listing and reading is reported as one."""
    sources = list(expand([str(tree)]))
    (tree / "a-valid.json").unlink()
    (tree / "a-valid.json").mkdir()
    err = io.StringIO()
    status = report(sources, out=io.StringIO(), err=err, stdin=io.BytesIO())
    expected = (2, f"toolresponse validate: cannot read {tree}/a-valid.json: Is a directory\n")
    assert expected == (status, err.getvalue())


def test_an_unreadable_directory_is_an_io_error(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory that cannot be listed is reported; its siblings are still checked."""
    real_scandir = os.scandir
    locked = str(tree / "nested")

    def scandir(path: Any) -> Any:
        if str(path) == locked:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    status, out, err = run(capsys, monkeypatch, str(tree))
    expected = (2, f"toolresponse validate: cannot read {locked}: Permission denied\n")
    assert expected == (status, err)
    assert "3 valid, 1 invalid, 1 input unreadable" == out.splitlines()[-1]


HOSTILE_LINES = [
    (
        b'{"status": "success", "text": "ok"',
        "1:35: /text: unexpected end of data (the text ends too early) [syntax]",
    ),
    (
        b'{"status": "success", "text": "ok", "stats": {"time_ms": NaN}}',
        "1:58: /stats/time_ms: NaN is not a JSON number; I-JSON numbers are finite (write null or a string) "
        "[non-finite-number]",
    ),
    (
        b'{"status": "success", "text": "ok", "data": {"a": Infinity}}',
        "1:51: /data/a: Infinity is not a JSON number; I-JSON numbers are finite (write null or a string) "
        "[non-finite-number]",
    ),
    (
        b'{"status": "success", "text": "ok", "data": {"a": [{"b": 1, "b": 2}]}}',
        '1:61: /data/a/0/b: the member name "b" occurs twice in one object (/data/a/0); '
        "readers would disagree on its value [duplicate-name]",
    ),
    (
        b'{"status": "success", "text": "caf\xe9"}',
        "1:35: (root): not UTF-8: byte 0xe9 at byte 34 (invalid continuation byte) [encoding]",
    ),
    (
        b'["status", "success"]',
        "1: (root): a ToolResponse is a JSON object, not an array; several responses go one per line in JSON "
        "lines [type]",
    ),
    (b"[" * 100_000, "1:1026: (root): arrays and objects nested deeper than 1024 levels [depth]"),
]


@pytest.mark.parametrize(("line", "expected"), HOSTILE_LINES, ids=[str(n) for n in range(len(HOSTILE_LINES))])
def test_hostile_lines_get_a_verdict_and_the_run_goes_on(
    line: bytes,
    expected: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each hostile line is invalid with its position and rule; the valid line after it still counts."""
    path = write(tmp_path / "hostile.jsonl", line + b"\n" + VALID_LINE)
    status, out, err = run(capsys, monkeypatch, str(path))
    assert (1, [f"{path}:{expected}", "1 valid, 1 invalid"], "") == (status, out.splitlines(), err)


def test_a_binary_file_is_one_invalid_response(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file with a NUL byte in its first 8 KiB is binary: one verdict, whatever its extension."""
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40
    first = write(tmp_path / "image.jsonl", png)
    second = write(tmp_path / "image.json", png)
    status, out, _ = run(capsys, monkeypatch, str(first), str(second))
    expected = [
        f"{first}: (root): binary data (a NUL byte at byte 8), not JSON text [binary]",
        f"{second}:3:1: (root): binary data (a NUL byte at byte 8), not JSON text [binary]",
        "0 valid, 2 invalid",
    ]
    assert (1, expected) == (status, out.splitlines())


def test_a_50_mb_line_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 50 MB line is one response like any other, valid or not."""
    big = "x" * 50_000_000
    path = write(
        tmp_path / "big.jsonl",
        lines({"status": "success", "text": big}, {"status": "sucess", "text": big}),
    )
    status, out, _ = run(capsys, monkeypatch, str(path))
    expected = [
        f"{path}:2: /status: 'sucess' is not a status (success, partial or error); "
        "did you mean success? [enum]",
        "1 valid, 1 invalid",
    ]
    assert (1, expected) == (status, out.splitlines())


def test_blank_lines_and_crlf_endings_are_fine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blank lines are skipped and CRLF endings accepted; line numbers count every line."""
    path = write(
        tmp_path / "crlf.jsonl", b"\r\n" + VALID_LINE.replace(b"\n", b"\r\n") + b"  \n" + lines(MISSPELLED)
    )
    status, out, _ = run(capsys, monkeypatch, "--first", str(path))
    assert (1, f"{path}:4: /error_info/code") == (status, out.splitlines()[0].split(": '")[0])


def test_a_json_file_holds_documents_one_after_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Objects one after another in a .json file (JSON lines included) are each a response; text
    after a lone document that begins no other is content after its end."""
    path = write(tmp_path / "two.json", lines(VALID, MISSPELLED))
    status, out, _ = run(capsys, monkeypatch, str(path))
    column = orjson.dumps(MISSPELLED).index(b'"NOT_FOUD"') + 1
    assert (1, f"{path}:2:{column}: /error_info/code") == (status, out.splitlines()[0].split(": '")[0])
    assert "1 valid, 1 invalid" == out.splitlines()[-1]
    path = write(tmp_path / "one.json", VALID_LINE + b"x\n")
    status, out, _ = run(capsys, monkeypatch, str(path))
    assert (1, f"{path}:2:1: (root): unexpected content after document (found 'x') [syntax]") == (
        status,
        out.splitlines()[0],
    )


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (lines(VALID, MISSPELLED), ["<stdin>:2: /error_info/code", "1 valid, 1 invalid"]),
        (json.dumps(MISSPELLED, indent=2).encode(), ["<stdin>:5:13: /error_info/code", "0 valid, 1 invalid"]),
        (b"\n\n" + lines(VALID), ["1 valid, 0 invalid"]),
        (b"", ["0 valid, 0 invalid"]),
    ],
)
def test_standard_input_is_json_lines_or_one_document(
    data: bytes, expected: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "-" reads standard input: JSON lines when its first line is a whole value, else one document."""
    _, out, _ = run(capsys, monkeypatch, "-", stdin=data)
    assert expected == [line.split(": '")[0] for line in out.splitlines()]


def test_no_path_reads_standard_input_unless_it_is_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without PATH a pipe is read; a terminal gets a one-line reason and exit 2."""
    assert (0, "1 valid, 0 invalid\n") == run(capsys, monkeypatch, stdin=VALID_LINE)[:2]
    status, out, err = run(capsys, monkeypatch, tty=True)
    expected_err = (
        "toolresponse validate: no input: name a file or directory, or pipe responses to standard input\n"
    )
    assert (2, "", expected_err) == (status, out, err)


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["--jobs", "0"], "argument -j/--jobs: must be at least 1, not 0"),
        (["--jobs", "two"], "argument -j/--jobs: 'two' is not a whole number"),
        (["--format", "xml"], "argument --format: invalid choice: 'xml'"),
    ],
)
def test_usage_errors_exit_2_with_a_reason(
    args: list[str], reason: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bad option is a usage error: exit 2, the reason on stderr."""
    status, _, err = run(capsys, monkeypatch, *args, "x.json")
    assert (2, True) == (status, reason in err.splitlines()[-1])


def test_json_format_is_one_report(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--format json gives one object: invalid responses, I/O errors and the counts."""
    status, out, _ = run(capsys, monkeypatch, "--format", "json", str(tree), str(tree / "missing.json"))
    report_ = json.loads(out)
    assert (2, 4, 2, 1) == (status, report_["valid"], report_["invalid"], report_["unreadable"])
    assert [(f"{tree}/b-stream.jsonl", 2), (f"{tree}/nested/c-misspelled.json", 5)] == [
        (record["source"], record["line"]) for record in report_["responses"]
    ]
    assert {
        "pointer": "/error_info/code",
        "keyword": "enum",
        "suggestion": "NOT_FOUND",
        "line": 5,
        "column": 13,
        "schema_path": "/$defs/ErrorCode/enum",
    } == {key: value for key, value in report_["responses"][1]["errors"][0].items() if key != "message"}
    assert [{"source": f"{tree}/missing.json", "io_error": "No such file or directory"}] == report_[
        "io_errors"
    ]


def test_json_format_of_nothing_is_an_empty_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An empty JSON-lines file gives an empty, well-formed report and exit 0."""
    empty = write(tmp_path / "empty.jsonl", b"")
    status, out, _ = run(capsys, monkeypatch, "--format", "json", str(empty))
    assert (0, {"responses": [], "io_errors": [], "valid": 0, "invalid": 0, "unreadable": 0}) == (
        status,
        json.loads(out),
    )


def test_jsonl_format_has_a_record_per_response(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--format jsonl gives one record per response, valid ones included, in input order; the summary
    goes to stderr."""
    status, out, err = run(capsys, monkeypatch, "--format", "jsonl", str(tree))
    records = [json.loads(line) for line in out.splitlines()]
    expected = [
        ("a-valid.json", None, True),
        ("b-stream.jsonl", 1, True),
        ("b-stream.jsonl", 2, False),
        ("b-stream.jsonl", 3, True),
        ("c-misspelled.json", 5, False),
        ("d.ndjson", 1, True),
    ]
    actual = [(Path(record["source"]).name, record["line"], record["valid"]) for record in records]
    assert (1, expected, "4 valid, 2 invalid\n") == (status, actual, err)


def test_quiet_prints_nothing_and_tells_by_exit_status(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--quiet prints nothing on stdout; I/O errors still get their reason."""
    assert (1, "", "") == run(capsys, monkeypatch, "--quiet", str(tree))
    status, out, err = run(capsys, monkeypatch, "-q", str(tree / "missing.json"))
    assert (2, "", True) == (status, out, err.startswith("toolresponse validate: cannot read"))


@pytest.mark.parametrize("output_format", ["text", "jsonl"])
def test_jobs_give_the_same_output_in_the_same_order(
    output_format: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--jobs 2 checks batches in two processes and prints exactly what --jobs 1 prints."""
    monkeypatch.setattr(_bulk, "BATCH_BYTES", 512)
    for number in range(3):
        write(tmp_path / f"part-{number}.jsonl", lines(*([VALID, HELLOAGENTS, MISSPELLED, b"[NaN]"] * 10)))
        write(tmp_path / f"single-{number}.json", json.dumps(MISSPELLED))
    one = run(capsys, monkeypatch, "--format", output_format, str(tmp_path))
    two = run(capsys, monkeypatch, "--format", output_format, "--jobs", "2", str(tmp_path))
    assert one == two
    assert (1, 123 if output_format == "jsonl" else 124) == (one[0], len(one[1].splitlines()))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Clock:
    """A fake monotonic clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _sources(tmp_path: Path, files: int) -> list[Source | Record]:
    for number in range(files):
        write(tmp_path / f"{number:02}.jsonl", lines(VALID, VALID))
    return list(expand([str(tmp_path)]))


def test_the_progress_bar_is_drawn_on_a_terminal_for_a_long_run(tmp_path: Path) -> None:
    """On a terminal, after half a second, a bar is redrawn in place on stderr and cleared at the end."""
    err = _Terminal()
    out = io.StringIO()
    status = report(_sources(tmp_path, 4), out=out, err=err, stdin=io.BytesIO(), clock=_Clock(0.3))
    drawn = err.getvalue()
    assert (0, "8 valid, 0 invalid\n") == (status, out.getvalue())
    assert drawn.startswith("\r[######")
    assert "50%  4 responses" in drawn
    assert drawn.endswith("\r")
    assert "" == drawn.split("\r")[-1]


@pytest.mark.parametrize(
    ("terminal", "quiet", "step"),
    [(False, False, 0.3), (True, True, 0.3), (True, False, 0.001)],
    ids=["not-a-terminal", "quiet", "short-run"],
)
def test_no_progress_bar_off_a_terminal_with_quiet_or_for_a_short_run(
    terminal: bool, quiet: bool, step: float, tmp_path: Path
) -> None:
    """Nothing is drawn when stderr is not a terminal, with --quiet, or for a run under half a second."""
    err = _Terminal() if terminal else io.StringIO()
    report(
        _sources(tmp_path, 4), out=io.StringIO(), err=err, stdin=io.BytesIO(), quiet=quiet, clock=_Clock(step)
    )
    assert "" == err.getvalue()


def test_progress_without_a_known_size_counts_responses() -> None:
    """For standard input (no size) the bar shows a count and the megabytes read."""
    err = _Terminal()
    bar = Progress(err, None, clock=_Clock(1.0))
    bar.advance(2_000_000, 1500)
    bar.close()
    assert err.getvalue().startswith("\r1,500 responses, 2.0 MB")


def test_the_demo_section_shows_the_report_and_exits_0() -> None:
    """The validation demo reports the bundled samples (HelloAgents output among them) and exits 0."""
    out = io.StringIO()
    status = demo.main(out)
    text = out.getvalue()
    assert 0 == status
    assert 'samples/helloagents-1.0.jsonl:1: (root): unknown member "error"' in text
    assert "samples/agent-trace.jsonl:5: /error_info/code: 'NOT_FOUD' is not a standard error code" in text
    assert "4 valid, 12 invalid" in text


def _command(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "toolresponse", "validate", *args],
        input=stdin,
        capture_output=True,
        check=False,
        timeout=60,
    )


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    """A directory of a 100,000-deep line and a binary file."""
    write(tmp_path / "deep.jsonl", b'{"data": ' * 100_000 + b"\n")
    write(tmp_path / "binary.json", b"\x00\xff" * 100)
    return tmp_path


def test_the_command_never_prints_a_traceback(hostile_dir: Path) -> None:
    """As a process: hostile input and a missing file give verdicts and one-line reasons, exit 2."""
    result = _command(str(hostile_dir), str(hostile_dir / "missing.jsonl"))
    err = result.stderr.decode()
    assert (2, "Traceback" in err, len(err.splitlines())) == (result.returncode, False, 1)
    assert result.stdout.decode().endswith("0 valid, 2 invalid, 1 input unreadable\n")


def test_undecodable_and_control_characters_in_names_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file name that is not UTF-8, or holds a line break, is shown escaped on one line."""
    write(Path(os.fsdecode(bytes(tmp_path) + b"/\xff.json")), json.dumps({"status": "sucess", "text": "x"}))
    write(tmp_path / "a\nb.jsonl", lines({"status": "sucess", "text": "x"}))
    status, out, _ = run(capsys, monkeypatch, "--first", str(tmp_path))
    expected = [f"{tmp_path}/a\\x0ab.jsonl:1", f"{tmp_path}/\\xff.json:1:12", "0 valid, 2 invalid"]
    assert (1, expected) == (status, [line.split(": ")[0] for line in out.splitlines()])


HEAVY_MODULES = [
    "jsonschema",
    "openai",
    "asyncio",
    "multiprocessing",
    "toolresponse.agent",
    "toolresponse.tools",
    "toolresponse.tools._tool",
    "toolresponse._response",
    "toolresponse.tools._breaker",
]


@pytest.mark.parametrize("statement", ["import toolresponse", "import toolresponse.cli.validate"])
def test_the_validator_starts_without_the_rest_of_the_package(statement: str) -> None:
    """The package imports its public names on first use, so neither the package nor the
    validate command loads jsonschema, openai, asyncio, the registry or the agent."""
    code = (
        f"import json, sys; {statement}; print(json.dumps(sorted(set({HEAVY_MODULES!r}) & set(sys.modules))))"
    )
    result = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert [] == json.loads(result.stdout)


def test_every_public_name_is_there_on_first_use() -> None:
    """Each name of __all__ is an attribute of the package and dir() lists them all; an unknown
    name is an AttributeError that names it."""
    import toolresponse

    assert [] == [name for name in toolresponse.__all__ if not hasattr(toolresponse, name)]
    assert set(toolresponse.__all__) <= set(dir(toolresponse))
    with pytest.raises(AttributeError, match="NoSuchName"):
        toolresponse.NoSuchName  # type: ignore[attr-defined]  # noqa: B018


@pytest.mark.parametrize("first", [b" " * 3000, orjson.dumps({"status": "succes", "text": "a" * 3000})])
def test_input_of_no_known_kind_is_read_past_a_long_first_line_as_json_lines_are(
    first: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Standard input and a file of another extension whose first line is longer than
    ``MAX_LINE_BYTES`` (blank or a JSON value): that line is skipped and reported and the lines after
    it are checked, as in a ``.jsonl`` file, not the end of the input nor one document too large."""
    from toolresponse.validation import _inputs

    monkeypatch.setattr(_inputs, "MAX_LINE_BYTES", 1 << 10)
    data = first + b"\n" + orjson.dumps(MISSPELLED) + b"\n"
    reports = []
    for name in ("logs.jsonl", "logs.txt", "-"):
        shown = str(write(tmp_path / name, data)) if name != "-" else "<stdin>"
        status, out, err = run(capsys, monkeypatch, "-" if name == "-" else shown, stdin=data)
        reports.append((status, out.replace(shown, "F"), err.replace(shown, "F")))
    status, out, err = reports[0]
    assert (2, "0 valid, 1 invalid, 1 input unreadable") == (status, out.splitlines()[-1])
    assert err.startswith("toolresponse validate: cannot read F:1: the line is longer than 1,024 bytes")
    assert out.startswith("F:2: /error_info/code: ")
    assert [reports[0]] * 2 == reports[1:]


@pytest.mark.parametrize("output_format", ["json", "jsonl"])
def test_machine_output_carries_the_real_file_name(
    output_format: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--format json``/``jsonl`` name each file exactly (a control character, a line break and a
    backslash as JSON escapes them), not as the text report shows it; only bytes that are not
    UTF-8, which no JSON string holds, are written ``\\xNN``."""
    odd = write(tmp_path / "ev\x1b[31mil\nfake\\x.jsonl", lines({"status": "sucess", "text": "x"}))
    write(Path(os.fsdecode(bytes(tmp_path) + b"/\xff.json")), json.dumps({"status": "sucess", "text": "x"}))
    status, out, _ = run(capsys, monkeypatch, "--format", output_format, str(tmp_path))
    records = (
        json.loads(out)["responses"] if output_format == "json" else list(map(json.loads, out.splitlines()))
    )
    assert (1, [str(odd), f"{tmp_path}/\\xff.json"]) == (status, [record["source"] for record in records])
