"""The MCP binding across languages: the TypeScript package (``packages/typescript``, npm
``toolresponse``) and the Python runtime, each with the official SDK of its language, over real
MCP connections.

- A server written with the TypeScript SDK and the package (``tests/mcp/ts_package_server.mjs``:
  ``toCallToolResult``) returns errors of several codes, one retryable after a time; our Python
  client (``attach`` and ``toolresponse mcp call``) reads each with its code, its retryability and
  the time to wait, from our own ``_meta`` member and, when the server sends nothing else, from the
  MCP ToolFailure member alone.
- Our Python server (``toolresponse mcp serve``, stdio and streamable HTTP) is called by the
  TypeScript SDK's client, which reads each result with the package's ``fromCallToolResult``
  (``tests/mcp/ts_client.mjs``): the same codes, the very response the Python mapping reads from
  the same result, and the same codes again from the ToolFailure member alone.

Skipped only when Node.js is missing; without ``make node-modules`` or ``make ts-build`` they fail
and say which to run.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp_peers import serve_http_in_background
from node_json import node_json
from test_mcp_tool_failure import CALLS, CODES, FACTORY, HERE, SERVE
from test_mcp_typescript import SDK, _run

from toolresponse import ErrorCode, ToolRegistry, ToolResponse, ToolStatus, validate
from toolresponse.interop import from_mcp
from toolresponse.interop._mcp import MCP_META_KEY, TOOL_FAILURE_KEY
from toolresponse.interop._text import text_error
from toolresponse.mcp import attach, http_app
from toolresponse.tools import load_registry
from toolresponse_generated import INFERENCE_RULES

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_BUILD = ROOT / "packages" / "typescript" / "dist" / "mcp.js"
SERVER = HERE / "ts_package_server.mjs"
SEARCH_WAIT_MS = 30_000
"""The ``retry_after_ms`` of the TypeScript server's ``search``."""


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("Node.js is not installed")
    if not SDK.exists():
        pytest.fail("the cross-language MCP tests need the npm packages: run `make node-modules`")
    if not PACKAGE_BUILD.exists():
        pytest.fail("the cross-language MCP tests need the TypeScript package built: run `make ts-build`")
    return found


# -- a TypeScript server (the SDK and the package), our Python client -----------------------


@pytest.fixture(scope="module", params=["whole", "tool_failure_only"])
def ts_server(request: pytest.FixtureRequest, node: str) -> Iterator[tuple[ToolRegistry, bool]]:
    """Our registry attached to the TypeScript server, and whether its errors carry only the
    ToolFailure member (no response of ours, no code in the text)."""
    alone = request.param == "tool_failure_only"
    command = [node, str(SERVER), *(["--tool-failure-only"] if alone else [])]
    registry = ToolRegistry()
    with attach(registry, command, timeout_s=60.0):
        yield registry, alone


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "retryable"),
    [
        ("read_file", {"path": "notes.txt"}, ErrorCode.NOT_FOUND, False),
        ("search", {"query": "weather"}, ErrorCode.RATE_LIMIT, True),
        ("delete_file", {"path": "notes.txt"}, ErrorCode.PERMISSION_DENIED, False),
        ("fetch_page", {"url": "https://example.com"}, ErrorCode.TIMEOUT, False),
    ],
)
def test_our_client_reads_each_code_a_typescript_server_sends(
    ts_server: tuple[ToolRegistry, bool],
    tool: str,
    arguments: dict[str, Any],
    code: ErrorCode,
    retryable: bool,
) -> None:
    registry, alone = ts_server
    response = registry.execute(tool, arguments)
    assert validate(response.to_dict()).valid
    assert (code, retryable) == (response.code, response.is_retryable)
    assert response.error_info is not None
    details = response.error_info.details or {}
    if alone:
        assert "tool_failure.code" == details["code_from"]
        assert details["tool_failure"]["correlationId"]
    elif tool == "read_file":
        assert {"path": "notes.txt"} == details  # the package's own details, carried as they are


def test_our_client_reads_when_to_retry_from_a_ts_server(
    ts_server: tuple[ToolRegistry, bool],
) -> None:
    registry, alone = ts_server
    wait = registry.execute("search", {"query": "weather"}).retry_after_ms
    assert wait is not None
    if alone:  # counted down from the ToolFailure member's retryNotBefore
        assert 0 < wait <= SEARCH_WAIT_MS
    else:
        assert SEARCH_WAIT_MS == wait


def test_our_client_reads_a_typescript_servers_success_and_partial_result(
    ts_server: tuple[ToolRegistry, bool],
) -> None:
    registry, _ = ts_server
    done, part = registry.execute("count", {}), registry.execute("sample", {})
    assert (ToolStatus.SUCCESS, "3 rows.", {"rows": 3}) == (done.status, done.text, done.data)
    assert (ToolStatus.PARTIAL, "First 2 of 5 rows.") == (part.status, part.text)


@pytest.mark.parametrize("alone", [False, True], ids=["whole", "tool_failure_only"])
def test_mcp_call_prints_the_code_a_typescript_server_sends(node: str, alone: bool) -> None:
    server = f"{node} {SERVER}" + (" --tool-failure-only" if alone else "")
    command = [sys.executable, "-m", "toolresponse", "mcp", "call", "--stdio", server, "search"]
    done = subprocess.run(
        [*command, '{"query": "weather"}'], capture_output=True, text=True, timeout=120, check=False
    )
    assert 1 == done.returncode, done.stderr
    info = json.loads(done.stdout)["error_info"]
    assert "RATE_LIMIT" == info["code"]
    assert 0 < info["retry_after_ms"] <= SEARCH_WAIT_MS


# -- our Python server, the TypeScript SDK's client with the package ------------------------


@pytest.fixture(scope="module")
def failure_server_url() -> Iterator[str]:
    with serve_http_in_background(http_app(load_registry(FACTORY, app_dir=str(HERE)))) as url:
        yield url


@pytest.fixture(scope="module", params=["stdio", "http"])
def ts_answers(request: pytest.FixtureRequest, node: str) -> dict[str, Any]:
    """What the TypeScript client printed: each result, and the package's reading of it."""
    target = SERVE if request.param == "stdio" else [request.getfixturevalue("failure_server_url")]
    calls = {label: list(call) for label, call in CALLS.items()}
    return _run(node, request.param, *map(str, target), calls=calls, read=True)


def test_the_package_reads_each_code_our_server_sends(ts_answers: dict[str, Any]) -> None:
    responses = ts_answers["responses"]
    assert {label: code.value for label, code in CODES.items()} == {
        label: responses[label]["error_info"]["code"] for label in CODES
    }
    assert "success" == responses["echo"]["status"]
    assert _sent_wait(ts_answers) == responses["busy"]["error_info"]["retry_after_ms"]


def _sent_wait(ts_answers: dict[str, Any]) -> int:
    """The ``retry_after_ms`` of the retryable error our server sent (``busy``)."""
    wait: int = ts_answers["results"]["busy"]["_meta"][MCP_META_KEY]["error_info"]["retry_after_ms"]
    assert wait > 0
    return wait


def test_the_package_reads_each_result_as_the_python_runtime_does(ts_answers: dict[str, Any]) -> None:
    for label, result in ts_answers["results"].items():
        read_here = ToolResponse.from_dict(ts_answers["responses"][label])
        assert from_mcp(result) == read_here, label


def test_the_package_reads_each_code_from_the_tool_failure_member_alone(ts_answers: dict[str, Any]) -> None:
    """The official TypeScript SDK's client gets our server's ToolFailure member, and the package
    takes the code from it: the response of ours is left out of ``_meta``."""
    alone = ts_answers["alone"]
    assert set(CODES) == set(alone)
    for label, code in CODES.items():
        info = alone[label]["error_info"]
        assert (code.value, "tool_failure.code") == (info["code"], info["details"]["code_from"]), label
        failure = ts_answers["results"][label]["_meta"][TOOL_FAILURE_KEY]
        assert failure == info["details"]["tool_failure"], label
    busy = alone["busy"]["error_info"]
    assert ToolResponse.from_dict(alone["busy"]).is_retryable
    assert 0 <= busy["retry_after_ms"] <= _sent_wait(ts_answers)


# -- one text convention: the package reads error text as the Python runtime does -------------

_READ_TEXTS = """
import { codeSource, textError } from "toolresponse";
let input = "";
for await (const chunk of process.stdin) input += chunk;
const read = JSON.parse(input).map((text) => {
  const error = textError(text);
  return [error.code, error.text, error.message, codeSource(error)];
});
process.stdout.write(JSON.stringify(read));
"""


def _error_texts() -> list[str]:
    """Error texts of every kind: codes stated (ours, HelloAgents'), each rule's signal in its own
    words and in other cases and surroundings, none at all, and white space and letters outside
    ASCII where the two languages' defaults differ."""
    texts = [
        "ERROR NOT_FOUND: No such file: a.txt",
        "ERROR NOT_FOUND: No such file.\nLooked in /srv.",
        "ERROR NOT_A_CODE: something",
        "ERROR TIMEOUT:",
        "[RATE_LIMIT]: slow down",
        "❌ 错误 [ACCESS_DENIED]: 没有权限",
        "",
        "   ",
        "\x1c\x85 spaced \u00a0\u3000",
        "\ufeffHTTP 429",
        "Ünauthorized",
        "étimeout",
        "timeouté",
        "Status code: 503 Service Unavailable",
        "http:404",
        "request failed with status 500",
        "The value must be positive",
        "Something broke",
    ]
    for rule in INFERENCE_RULES:
        texts += [
            rule.signal,
            f"failed: {rule.signal.upper()}!",
            f"x{rule.signal.lower()}y",
            f"({rule.signal})",
        ]
    return texts


def test_the_package_reads_error_text_as_the_python_runtime_does(node: str) -> None:
    texts = _error_texts()
    read_there = node_json([node, "--input-type=module", "-e", _READ_TEXTS], texts)
    expected = []
    for text in texts:
        read = text_error(text, is_error=True)
        assert read is not None
        expected.append([read.code.value, read.text, read.message, read.source])
    assert expected == read_there
