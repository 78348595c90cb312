"""One convention for an error in text alone: a response's error text begins ``ERROR <CODE>: `` in
every dialect with no member for the code (MCP's text block included), and every reader finds the
code there; third-party text without it gets the same inferred code from every dialect, and where a
record has an error flag, the flag decides error or not."""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson
import pytest
from hypothesis import assume, given, settings
from interop_cases import responses
from test_validate_cli import _Stdin

from toolresponse import ErrorCode, ToolResponse, ToolStatus
from toolresponse.agent._feedback import feedback_text
from toolresponse.cli import main
from toolresponse.interop import (
    DIALECTS,
    dialect,
    from_openai_chat,
    from_openai_responses,
    model_text,
    to_mcp,
)

FLAGLESS = ("openai-chat", "openai-responses", "autogen-unknown")
"""Dialects without an error flag; ``autogen-unknown`` is AutoGen's record whose ``is_error`` is null."""
FLAGGED = tuple(name for name in DIALECTS if name not in ("toolresponse", "helloagents", *FLAGLESS))
"""Every dialect whose record flags an error (HelloAgents' text is the response's own, not read)."""


def written_elsewhere(name: str, text: str, *, is_error: bool) -> tuple[str, dict[str, Any]]:
    """A record of dialect ``name`` (and the dialect's name) holding ``text`` as another framework
    writes it (no response carried); ``is_error`` is the record's own flag, where it has one."""
    records: dict[str, dict[str, Any]] = {
        "mcp": {"content": [{"type": "text", "text": text}], "isError": is_error},
        "anthropic": {"type": "tool_result", "tool_use_id": "t1", "is_error": is_error, "content": text},
        "langchain": {"content": text, "tool_call_id": "c1", "status": "error" if is_error else "success"},
        "bedrock": {
            "toolUseId": "t1",
            "content": [{"text": text}],
            "status": "error" if is_error else "success",
        },
        "gemini": {"id": "c1", "name": "t", "response": {"error" if is_error else "output": text}},
        "gemini-interactions": {
            "type": "function_result",
            "call_id": "c1",
            "result": text,
            "is_error": is_error,
        },
        "vercel": {
            "type": "tool-result",
            "toolCallId": "c1",
            "toolName": "t",
            "output": {"type": "error-text" if is_error else "text", "value": text},
        },
        "pydantic-ai": {
            "part_kind": "tool-return",
            "tool_name": "t",
            "tool_call_id": "c1",
            "content": text,
            "outcome": "failed" if is_error else "success",
        },
        "llamaindex": {
            "blocks": [{"block_type": "text", "text": text}],
            "tool_name": "t",
            "is_error": is_error,
        },
        "autogen": {"content": text, "name": "t", "call_id": "c1", "is_error": is_error},
        "autogen-unknown": {"content": text, "name": "t", "call_id": "c1", "is_error": None},
        "openai-chat": {"role": "tool", "tool_call_id": "c1", "content": text},
        # What openai-agents writes for a tool's (or an MCP result's) text: one input_text part.
        "openai-responses": {
            "type": "function_call_output",
            "call_id": "c1",
            "output": [{"type": "input_text", "text": text}],
        },
    }
    if name == "langchain-dict":
        return name, {"type": "tool", "data": records["langchain"]}
    return name.removesuffix("-unknown"), records[name]


def read_elsewhere(name: str, text: str, *, is_error: bool) -> ToolResponse:
    """The response dialect ``name`` reads of ``text`` written as another framework writes it."""
    dialect_name, record = written_elsewhere(name, text, is_error=is_error)
    response: ToolResponse = dialect(dialect_name).from_(record)
    return response


ERROR_TEXTS = [
    ("FileNotFoundError: [Errno 2] No such file or directory: 'notes.txt'", ErrorCode.NOT_FOUND),
    ("PermissionError: [Errno 13] Permission denied: '/etc/shadow'", ErrorCode.PERMISSION_DENIED),
    (
        "An error occurred while running the tool. Please try again. Error: Request timed out.",
        ErrorCode.TIMEOUT,
    ),
    ("Error: HTTP 429 Too Many Requests", ErrorCode.RATE_LIMIT),
    ("Error executing tool read_file: ENOENT: no such file or directory", ErrorCode.NOT_FOUND),
    ("ValueError: the moon is not a cheese", ErrorCode.EXECUTION_ERROR),
    ("Exception: boom", ErrorCode.EXECUTION_ERROR),
    ("Exception(boom)", ErrorCode.EXECUTION_ERROR),
    ("ERROR CONFLICT: the file changed since it was read", ErrorCode.CONFLICT),
    ("[CONFLICT]: the file changed since it was read", ErrorCode.CONFLICT),
]


@pytest.mark.parametrize(("text", "code"), ERROR_TEXTS, ids=[text[:30] for text, _ in ERROR_TEXTS])
def test_the_same_error_text_gets_the_same_code_in_every_dialect(text: str, code: ErrorCode) -> None:
    """Flagged as an error, or (no flag) opening as failures do: one code, whichever dialect."""
    got = {}
    for name in FLAGGED + FLAGLESS:
        response = read_elsewhere(name, text, is_error=True)
        got[name] = (response.status, response.code)
    assert dict.fromkeys(FLAGGED + FLAGLESS, (ToolStatus.ERROR, code)) == got


def test_an_inferred_code_says_so_in_every_dialect() -> None:
    """``details`` names the signal the code was inferred from (MCP also names its source)."""
    text = ERROR_TEXTS[0][0]
    for name in FLAGGED + FLAGLESS:
        info = read_elsewhere(name, text, is_error=True).error_info
        assert info is not None
        assert {"code_from": "text", "inferred": True, "signal": "not found"}.items() <= (
            info.details or {}
        ).items(), name


SUCCESS_TEXTS = [
    "ERROR NOT_FOUND: is what the tool answers for a missing file",
    "FileNotFoundError: raised by open() for a missing file",
]


@pytest.mark.parametrize("text", SUCCESS_TEXTS)
@pytest.mark.parametrize("name", FLAGGED)
def test_the_flag_wins_over_the_text(name: str, text: str) -> None:
    """A success whose text starts like an error stays a success where the record has a flag."""
    response = read_elsewhere(name, text, is_error=False)
    assert (ToolStatus.SUCCESS, text) == (response.status, response.text)


@pytest.mark.parametrize(
    "text",
    [
        "3 files found, 1 not found.",
        "No errors found.",
        "The error rate is 2%.",
        "Errors: none",
        "Exceptions: 3 handled",
        "Exception handling (try/except) is described below.",
        "Failed to fetch https://example.com: 503 Service Unavailable",
    ],
)
@pytest.mark.parametrize("name", FLAGLESS)
def test_without_a_flag_only_a_failure_opening_makes_an_error(name: str, text: str) -> None:
    """Text that mentions errors or missing things, but does not open as a failure, is a success."""
    response = read_elsewhere(name, text, is_error=False)
    assert ToolStatus.SUCCESS is response.status


def test_an_mcp_error_result_states_its_code_in_its_text() -> None:
    """The text block of an error is the model text: ``ERROR <CODE>: message``."""
    response = ToolResponse.error("NOT_FOUND", "notes.txt does not exist")
    assert [{"type": "text", "text": "ERROR NOT_FOUND: notes.txt does not exist"}] == to_mcp(response)[
        "content"
    ]
    assert model_text(response) == to_mcp(response)["content"][0]["text"]


@settings(max_examples=150, deadline=None)
@given(response=responses())
def test_a_client_that_reads_only_the_mcp_text_keeps_status_and_code(response: ToolResponse) -> None:
    """What a text-only MCP client (openai-agents) logs of our error or partial result reads back
    with its status, code and message's first line: as a Responses function_call_output, and as a
    Chat Completions message. (A success's text is the tool's own: it is read as it opens.)"""
    assume(not response.is_success)
    text = to_mcp(response)["content"][0]["text"]
    for read in (
        from_openai_responses(written_elsewhere("openai-responses", text, is_error=False)[1]),
        from_openai_chat(written_elsewhere("openai-chat", text, is_error=False)[1]),
    ):
        assert (response.status, response.code) == (read.status, read.code)
        first_line = response.error_info.message.split("\n", 1)[0].strip() if response.error_info else ""
        if first_line:
            assert read.error_info is not None
            assert first_line == read.error_info.message


def test_convert_keeps_our_mcp_errors_logged_by_a_text_only_client(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``convert --from openai-responses`` of such a log gives the errors back, coded."""
    results = [
        ToolResponse.error("NOT_FOUND", "notes.txt does not exist"),
        ToolResponse.error("RATE_LIMIT", "slow down", retry_after_ms=500),
        ToolResponse.partial("First 2 of 9.", data={"returned": 2}),
        ToolResponse.success("done"),
    ]
    log = b"".join(
        orjson.dumps(
            written_elsewhere("openai-responses", to_mcp(r)["content"][0]["text"], is_error=False)[1]
        )
        + b"\n"
        for r in results
    )

    monkeypatch.setattr(sys, "stdin", _Stdin(log))
    status = main(["convert", "--from", "openai-responses", "--to", "toolresponse", "-q"])
    read = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert 0 == status
    assert [("error", "NOT_FOUND"), ("error", "RATE_LIMIT"), ("partial", None), ("success", None)] == [
        (record["status"], record.get("error_info", {}).get("code")) for record in read
    ]


def test_the_agent_writes_the_same_convention() -> None:
    """The agent's feedback for an error begins with the model text every dialect writes."""
    response = ToolResponse.error("TIMEOUT", "no answer in 5 s")
    feedback = feedback_text(response, tool="fetch", available_tools=["fetch"])
    assert feedback.startswith(model_text(response) + "\n")
