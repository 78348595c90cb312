"""``toolresponse convert --from D --to D``: streamed JSON lines or a JSON array, each record that
cannot be converted reported by file, line and pointer, the rest converted."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from interop_cases import dialect_params

from toolresponse import ToolResponse
from toolresponse.cli import main
from toolresponse.interop import dialect
from toolresponse.interop._mcp import TOOL_FAILURE_KEY

RESPONSES = [
    ToolResponse.success("2 + 3 = 5", data={"sum": 5}, context={"call_id": "c1", "tool_name": "add"}),
    ToolResponse.partial(
        "First 2 of 9.", data={"returned": 2, "total": 9}, context={"call_id": "c2", "tool_name": "notes"}
    ),
    ToolResponse.error(
        "RATE_LIMIT", "slow down", retry_after_ms=1500, context={"call_id": "c3", "tool_name": "fetch"}
    ),
]


class _Stdin:
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
    monkeypatch.setattr(sys, "stdin", _Stdin(stdin, tty=tty))
    status = main(["convert", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def timeless(record: Any) -> Any:
    """``record`` without the time an MCP error's ToolFailure member says a retry may come (now +
    retry_after_ms when it was written: a record written again later says a later time)."""
    failure = record.get("_meta", {}).get(TOOL_FAILURE_KEY) if isinstance(record, dict) else None
    if failure is None:
        return record
    failure = {name: value for name, value in failure.items() if name != "retryNotBefore"}
    return {**record, "_meta": {**record["_meta"], TOOL_FAILURE_KEY: failure}}


def jsonl(records: list[Any]) -> bytes:
    return b"".join(orjson.dumps(record) + b"\n" for record in records)


@pytest.mark.parametrize("target", dialect_params())
@pytest.mark.parametrize("source", dialect_params(exclude=("helloagents",)))
def test_a_log_goes_there_and_back(
    source: str, target: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Converting to a dialect and back gives the same records (HelloAgents: its view of them)."""
    records = [dialect(source).to(response) for response in RESPONSES]
    status, there, err = run(
        capsys, monkeypatch, "--from", source, "--to", target, "-q", stdin=jsonl(records)
    )
    assert (0, "") == (status, err)
    status, back, _ = run(capsys, monkeypatch, "--from", target, "--to", source, "-q", stdin=there.encode())
    assert 0 == status
    got = [json.loads(line) for line in back.splitlines()]
    if target == "helloagents":
        assert len(records) == len(got)
    else:
        assert [timeless(record) for record in records] == [timeless(record) for record in got]


def test_bad_records_are_reported_and_the_rest_converted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each bad record is one report line per violation (file:line: pointer: message [keyword])."""
    log = tmp_path / "ha.jsonl"
    log.write_bytes(
        jsonl(
            [
                {"status": "success", "text": "4", "data": {"output": 4}},
                {"status": "error", "text": "x", "error": {"code": "FILE_NOT_FOUND", "message": "x"}},
                {"status": "success", "text": "4", "extra": 1},
            ]
        )
        + b"{oops\n"
        + jsonl([{"status": "partial", "text": "1e+30"}])
    )
    status, out, err = run(capsys, monkeypatch, "--from", "helloagents", "--to", "toolresponse", str(log))
    assert 1 == status
    assert [
        {"status": "success", "text": "4", "data": {"output": 4}},
        {"status": "partial", "text": "1e+30"},
    ] == [json.loads(line) for line in out.splitlines()]
    lines = err.splitlines()
    assert lines[0].startswith(f"{log}:2: /error_info/code: mapped ToolResponse: ")
    assert lines[0].endswith("[enum]")
    assert lines[1].startswith(f"{log}:3: (root): helloagents record: Additional properties")
    assert lines[2].startswith(f"{log}:4:2: ")
    assert lines[2].endswith("[syntax]")
    assert "2 converted, 3 invalid" == lines[-1]


def test_a_problem_line_is_the_line_validate_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record that is no JSON is reported in the line ``validate`` writes for it, its file name
    escaped once (a backslash, a control character)."""
    log = tmp_path / "odd\\name\x1b.jsonl"
    log.write_bytes(b"{oops\n")
    _, _, err = run(capsys, monkeypatch, "--from", "toolresponse", "--to", "helloagents", str(log))
    assert 1 == main(["validate", str(log)])
    reported = capsys.readouterr().out.splitlines()[0]
    assert reported.startswith(f"{tmp_path}/odd\\\\name\\x1b.jsonl:1:2: (root): ")
    assert reported == err.splitlines()[0]


def test_the_json_format_is_one_array(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """--format json writes one JSON array of the converted records (an empty one for none)."""
    records = [response.to_dict() for response in RESPONSES]
    status, out, _ = run(
        capsys,
        monkeypatch,
        "--from",
        "toolresponse",
        "--to",
        "anthropic",
        "--format",
        "json",
        stdin=jsonl(records),
    )
    assert 0 == status
    assert [False, False, True] == [block["is_error"] for block in json.loads(out)]
    status, out, _ = run(
        capsys, monkeypatch, "--from", "toolresponse", "--to", "anthropic", "--format", "json", stdin=b"\n"
    )
    assert (0, []) == (status, json.loads(out))


def test_a_document_is_one_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A .json file holding one pretty-printed record is converted to one line."""
    document = tmp_path / "one.json"
    document.write_text(json.dumps(RESPONSES[2].to_dict(), indent=2))
    status, out, _ = run(
        capsys, monkeypatch, "--from", "toolresponse", "--to", "openai-responses", str(document)
    )
    assert 0 == status
    [item] = [json.loads(line) for line in out.splitlines()]
    assert ("function_call_output", "c3") == (item["type"], item["call_id"])
    assert item["output"].startswith("ERROR RATE_LIMIT: slow down\n\n<toolresponse>")


def test_unreadable_inputs_and_no_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing file is exit status 2 with its reason; a terminal on standard input is a usage error."""
    missing = str(tmp_path / "none.jsonl")
    status, _, err = run(capsys, monkeypatch, "--from", "anthropic", "--to", "toolresponse", missing)
    assert 2 == status
    assert "cannot read" in err
    status, _, err = run(capsys, monkeypatch, "--from", "anthropic", "--to", "toolresponse", tty=True)
    assert 2 == status
    assert "no input" in err


def test_an_unreadable_input_is_named_as_validate_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing file whose name holds a backslash is named with it escaped once, as validate does."""
    missing = str(tmp_path / "back\\slash.jsonl")
    status, _, err = run(capsys, monkeypatch, "--from", "anthropic", "--to", "toolresponse", missing)
    shown = missing.replace("\\", "\\\\")
    expected = f"toolresponse convert: cannot read {shown}: No such file or directory"
    assert (2, expected) == (status, err.splitlines()[0])


@pytest.mark.parametrize(
    ("target", "member", "key"),
    [
        ("anthropic", "tool_use_id", "call_id"),
        ("openai-chat", "tool_call_id", "call_id"),
        ("openai-responses", "call_id", "call_id"),
        ("bedrock", "toolUseId", "call_id"),
        ("gemini-interactions", "call_id", "call_id"),
        ("vercel", "toolCallId", "call_id"),
        ("gemini", "name", "tool_name"),
        ("vercel", "toolName", "tool_name"),
    ],
)
def test_a_response_without_a_call_id_or_tool_name_is_not_written_with_an_empty_one(
    target: str, member: str, key: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record that answers a tool call needs its id, one that names the tool its name: without
    context.call_id (context.tool_name) the record is left out with one line naming the member and
    how to give it; the others are converted."""
    lacking = {"status": "success", "text": "x", "context": {"call_id": "c9"} if key == "tool_name" else {}}
    records = [lacking, RESPONSES[0].to_dict()]
    status, out, err = run(
        capsys, monkeypatch, "--from", "toolresponse", "--to", target, stdin=jsonl(records)
    )
    assert 1 == status
    [written] = [json.loads(line) for line in out.splitlines()]
    assert {"call_id": "c1", "tool_name": "add"}[key] == written[member]
    problem, summary = err.splitlines()
    assert problem.startswith(f"<stdin>:1: /context/{key}: {target} record: no {member}: ")
    assert f"context.{key}" in problem.split(": ", 3)[3]
    assert problem.endswith("[required]")
    assert "1 converted, 1 invalid" == summary
