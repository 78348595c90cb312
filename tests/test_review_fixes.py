"""Regression tests for the defects the adversarial review of every face found (one test per finding)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolresponse import ToolRegistry, ToolResponse, validate_json
from toolresponse._errors import JsonValueError

PROGRAM = [sys.executable, "-m", "toolresponse"]


@pytest.mark.parametrize("text", ["ok\ufffe", "a\U0010ffff", "b\ufdd0"])
def test_a_response_never_holds_a_noncharacter(text: str) -> None:
    """Never built: what the text validator rejects (noncharacters, as lone surrogates)."""
    with pytest.raises(JsonValueError, match="noncharacter"):
        ToolResponse.success(text)
    with pytest.raises(JsonValueError, match="noncharacter"):
        ToolResponse.success("ok", {f"k{text}": 1})


def test_a_tool_returning_a_noncharacter_gets_an_error_response_that_is_valid_text() -> None:
    registry = ToolRegistry()
    registry.register(lambda: {"value": "\ufffe"}, name="odd")
    response = registry.execute("odd")
    assert response.is_error
    assert validate_json(response.to_json()).valid


def _run(arguments: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*PROGRAM, *arguments], input=stdin, capture_output=True, timeout=60, check=False)


def test_validate_from_a_dialect_rejects_noncharacters_and_vertical_tabs() -> None:
    lines = b'{"content":[{"type":"text","text":"a\\uFFFE"}],"isError":false}\n\x0b\n'
    result = _run(["validate", "--from", "mcp", "-"], lines)
    assert 1 == result.returncode
    assert b"0 valid, 2 invalid" in result.stderr + result.stdout
    assert b"[encoding]" in result.stdout


def test_convert_never_writes_a_noncharacter(tmp_path: Path) -> None:
    result = _run(
        ["convert", "--from", "toolresponse", "--to", "mcp", "-"], b'{"status":"success","text":"a\\uFFFE"}\n'
    )
    assert b"\xef\xbf\xbe" not in result.stdout
    assert b"noncharacter" in result.stderr


def test_a_timeout_no_thread_can_wait_is_refused_at_definition() -> None:
    """Above threading.TIMEOUT_MAX every call failed with OverflowError; now the definition is refused."""
    import threading

    from toolresponse import ToolDefinitionError

    with pytest.raises(ToolDefinitionError, match="up to"):
        ToolRegistry(default_timeout_s=threading.TIMEOUT_MAX * 2)
    ToolRegistry(default_timeout_s=threading.TIMEOUT_MAX)


COLLIDING_SERVER = '''
from mcp.server.mcpserver import MCPServer
server = MCPServer("collide")

@server.tool(name="get.time")
def dotted() -> str:
    """The dotted one."""
    return "dotted"

@server.tool(name="get_time")
def underscored() -> str:
    """The underscored one."""
    return "underscored"

server.run()
'''


def test_two_remote_names_that_read_the_same_here_register_the_first_and_skip_the_other(
    tmp_path: Path,
) -> None:
    """get.time and get_time both become get_time: attach registers the first, warns, and goes on."""
    script = tmp_path / "collide.py"
    script.write_text(COLLIDING_SERVER, encoding="utf-8")
    result = subprocess.run(
        [*PROGRAM, "mcp", "call", "--stdio", f"{sys.executable} {script}", "get_time", "{}"],
        capture_output=True,
        timeout=120,
        check=False,
        text=True,
    )
    assert "Traceback" not in result.stderr
    assert 0 == result.returncode, result.stderr
    assert "dotted" in result.stdout
    assert "skipped" in result.stderr


def _many_unknown_members(count: int) -> bytes:
    members = ",".join(f'"stat{index}":1' for index in range(count))
    return ('{"status":"success","text":"x",' + members + "}").encode()


def test_only_the_violations_a_report_can_show_get_a_suggestion(monkeypatch: pytest.MonkeyPatch) -> None:
    """Suggesting costs an edit distance per member: 1,000 unknown members get at most 100 suggestions,
    and every violation is still counted."""
    from toolresponse.validation import _validate

    calls = 0
    real = _validate.nearest  # type: ignore[attr-defined]

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_validate, "nearest", counted)
    result = validate_json(_many_unknown_members(1000))
    assert 1000 == len(result.errors) + result.more
    assert 0 < calls <= _validate.MAX_VIOLATIONS


def test_quiet_checks_a_document_without_explaining_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolresponse.validation import Options, _checks

    def no_explaining(*args: object, **kwargs: object) -> object:
        raise AssertionError("a verdict alone was asked for")

    monkeypatch.setattr(_checks, "validate_json", no_explaining)
    batch = _checks.check_document(
        "doc.json", _many_unknown_members(50), Options(explain=False, keep_valid=False)
    )
    assert (0, 1) == (batch.valid, batch.invalid)
    assert (1, 0) == (
        _checks.check_document(
            "ok.json", b'{"status":"success","text":"x"}', Options(explain=False, keep_valid=False)
        ).valid,
        0,
    )


def test_a_binary_file_gets_one_report_whoever_checks_it(tmp_path: Path) -> None:
    """A NUL byte in a JSON-lines file's first bytes: one process, --jobs 2 and a Dask cluster all
    report the file as binary data, once (the cluster used to check its lines one by one)."""
    log = tmp_path / "log.jsonl"
    log.write_bytes(
        b'{"status":"success","text":"ok"}\n{"status":"success","text":"a\x00b"}\n{"status":"sucess"}\n'
    )
    reports = [
        _run(["validate", *extra, str(log)], b"")
        for extra in ([], ["--jobs", "2"], ["--scheduler", "local", "--jobs", "1"])
    ]
    assert [1, 1, 1] == [report.returncode for report in reports], [report.stderr for report in reports]
    assert b"binary data" in reports[0].stdout
    assert b"0 valid, 1 invalid" in reports[0].stdout
    assert len({report.stdout for report in reports}) == 1


def test_an_mcp_result_whose_is_error_contradicts_its_carried_response_is_refused() -> None:
    """isError true over a carried success (or false over an error) is not taken as the success."""
    from toolresponse import DialectError
    from toolresponse.interop import from_mcp, to_mcp

    forged = to_mcp(ToolResponse.success("rm -rf failed: permission denied"))
    forged["isError"] = True
    with pytest.raises(DialectError, match="isError"):
        from_mcp(forged)
    hidden = to_mcp(ToolResponse.error("NOT_FOUND", "gone"))
    hidden["isError"] = False
    with pytest.raises(DialectError, match="isError"):
        from_mcp(hidden)


BROKEN_PEER = Path(__file__).resolve().parent / "mcp" / "broken_peer.py"


def _call_broken(tmp_path: Path, mode: str) -> ToolResponse:
    from toolresponse.mcp import attach

    registry = ToolRegistry()
    with attach(registry, [sys.executable, str(BROKEN_PEER), mode], timeout_s=60):
        return registry.execute("t", {})


def test_a_result_the_sdk_rejects_is_an_api_error_not_a_lost_connection(tmp_path: Path) -> None:
    response = _call_broken(tmp_path, "junk_result")
    assert "API_ERROR" == (response.code and response.code.value)
    assert not response.is_retryable


def test_a_server_error_with_the_code_of_a_closed_connection_is_its_error_not_a_lost_connection(
    tmp_path: Path,
) -> None:
    """A JSON-RPC error -32000 the server sends is any other JSON-RPC error (EXECUTION_ERROR), and
    the connection stays (the same server process answers the next call): the code is also the
    SDK's for a connection that ended."""
    from toolresponse.mcp import attach

    registry = ToolRegistry()
    with attach(registry, [sys.executable, str(BROKEN_PEER), "error_server_defined"], timeout_s=60):
        answers = [registry.execute("t", {}) for _ in range(2)]
    for calls, response in enumerate(answers, start=1):
        assert ("EXECUTION_ERROR", False) == (response.code and response.code.value, response.is_retryable)
        assert f"the disk is full (call {calls})" in response.text
        assert -32000 == response.to_dict()["error_info"]["details"]["jsonrpc_code"]


def test_a_result_asking_for_input_on_an_older_session_is_refused_not_read_as_a_success(
    tmp_path: Path,
) -> None:
    """The SDK drops resultType from a result on a session older than MCP 2026-07-28; the client
    still sees it and refuses the result as from_mcp does."""
    response = _call_broken(tmp_path, "input_required")
    assert ("error", "API_ERROR") == (response.status, response.code and response.code.value)
    assert "input_required" in response.text


def test_a_result_asking_for_input_with_a_null_meta_is_refused_too(tmp_path: Path) -> None:
    """``_meta: null`` does not hide the result type the SDK drops."""
    response = _call_broken(tmp_path, "input_required_meta_null")
    assert ("error", "API_ERROR") == (response.status, response.code and response.code.value)
    assert "input_required" in response.text


def test_a_server_cannot_forge_the_result_type_the_client_keeps(tmp_path: Path) -> None:
    """A complete result whose ``_meta`` holds the client's own key for the dropped result type is
    read as the complete result its wire says it is."""
    response = _call_broken(tmp_path, "forged_result_type")
    assert ("success", "hi") == (response.status, response.text)


@pytest.mark.parametrize("mode", ["error_rpc", "secret_text"])
def test_a_remote_error_is_masked_as_a_local_one_is(tmp_path: Path, mode: str) -> None:
    response = _call_broken(tmp_path, mode)
    assert response.is_error
    assert "sk-live-abcdefghijklmnop0123" not in response.to_json()


def test_a_cooperative_tool_runs_on_the_callers_thread_and_loop() -> None:
    """A tool that only waits on work done elsewhere (an MCP tool) is called where the caller is,
    without the hop to a thread of its own; any other tool runs on its own threads."""
    import asyncio
    import threading

    from toolresponse import Tool

    class Elsewhere(Tool):
        cooperative = True

        def run(self, params: dict[str, object]) -> ToolResponse:
            return ToolResponse.success(threading.current_thread().name)

        async def arun(self, params: dict[str, object]) -> ToolResponse:
            return ToolResponse.success(threading.current_thread().name)

    class Blocking(Elsewhere):
        cooperative = False

    registry = ToolRegistry(default_timeout_s=30)
    registry.register(Elsewhere(name="elsewhere"))
    registry.register(Blocking(name="blocking"))
    here = threading.current_thread().name
    assert here == registry.execute("elsewhere").text
    assert here == asyncio.run(registry.aexecute("elsewhere")).text
    assert registry.execute("blocking").text.startswith("toolresponse-blocking-")
