"""The registry's access policies on our MCP server, met by the official SDK's client: over stdio
the caller is "stdio", over streamable HTTP "anonymous" (no token) or "bearer" (the token);
``tools/list`` shows only the tools the caller may call, ``tools/call`` of a hidden one is
answered as a call of a tool the server does not have (whatever its arguments), an unknown
name is answered naming only the tools the caller may see, an argument rule refuses with
PERMISSION_DENIED naming the caller, an allowed call runs."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp_peers import serve_http_in_background

from toolresponse import (
    AccessControl,
    AllowList,
    ArgumentRule,
    DenyList,
    ErrorCode,
    ReadOnly,
    ToolRegistry,
    ToolResponse,
    ToolStatus,
    validate,
)
from toolresponse.demo.calculator import Calculator
from toolresponse.http import AccessRules
from toolresponse.interop import from_mcp
from toolresponse.mcp import STDIO_CALLER, McpToolService, http_app

HERE = Path(__file__).resolve().parent
TOKEN = "m2Vq-8xT_4nLp0RsWk6jYc3HdF9gB1aZ"


def _no_powers(expression: str) -> str | None:
    return "no powers" if "**" in expression else None


def build_guarded_registry() -> ToolRegistry:
    """The calculator, which may not raise to a power; ``secret``, which only a caller with the token
    may use; ``wipe``, which writes, behind read-only mode for everyone; ``peek``, which stdio
    callers may not use."""
    registry = ToolRegistry(
        access=AccessControl(
            AllowList(["calculator", "wipe", "peek"], callers=["anonymous", STDIO_CALLER]),
            DenyList("peek", callers=STDIO_CALLER, code=ErrorCode.PERMISSION_DENIED),
            ReadOnly(),
            ArgumentRule("expression", _no_powers, tools="calculator"),
        )
    )
    registry.register(Calculator())

    @registry.tool
    def secret() -> str:
        """Tell the secret."""
        return "42"

    @registry.tool(writes=True)
    def wipe() -> str:
        """Wipe everything."""
        return "wiped"

    @registry.tool
    def peek() -> str:
        """Look around."""
        return "nothing here"

    return registry


_STDIO = StdioServerParameters(
    command=sys.executable,
    args=[
        "-m",
        "toolresponse",
        "mcp",
        "serve",
        "test_mcp_access:build_guarded_registry",
        "--app-dir",
        str(HERE),
    ],
)


@pytest.fixture(scope="module")
def open_url() -> Iterator[str]:
    with serve_http_in_background(http_app(build_guarded_registry())) as url:
        yield url


@pytest.fixture(scope="module")
def token_url() -> Iterator[str]:
    app = http_app(build_guarded_registry(), access=AccessRules.of(token=TOKEN))
    with serve_http_in_background(app) as url:
        yield url


def _response(result: Any) -> ToolResponse:
    record = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    response: ToolResponse = from_mcp(record)
    assert validate(response.to_dict()).valid
    return response


def _as_seen(result: Any) -> dict[str, Any]:
    """What an MCP client reads of a ``tools/call`` result, but its timing."""
    record: dict[str, Any] = result.model_dump(by_alias=True, exclude_none=True, mode="json")
    del record["_meta"]["dev.toolresponse/response"]["stats"]["time_ms"]
    return record


TOOLS = ("calculator", "secret", "wipe", "peek")
CALLS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("calculator", "calculator", {"expression": "6 * 7"}),
    ("power", "calculator", {"expression": "2 ** 8"}),
    *((name, name, {}) for name in TOOLS[1:]),
    *((f"{name}-invalid", name, {"bogus": [1]}) for name in TOOLS[1:]),
    *((f"{name}-misspelt", name[:-1], {}) for name in TOOLS),
)
"""The calls each session makes: a key, the tool name and its arguments (each hidden tool with
arguments its schema refuses, and a misspelling of every tool, too)."""


async def _session(where: Any, token: str | None = None) -> tuple[list[str], dict[str, Any]]:
    """The names ``tools/list`` shows, and the SDK's result of each of ``CALLS``."""
    if token is not None:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
        from mcp.client.streamable_http import streamable_http_client

        where = streamable_http_client(where, http_client=http)
    answers: dict[str, Any] = {}
    async with Client(where, read_timeout_seconds=30) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        for key, name, arguments in CALLS:
            answers[key] = await client.call_tool(name, arguments)
    return listed, answers


def _denial(result: Any) -> tuple[ErrorCode | None, str, str]:
    response = _response(result)
    assert response.error_info is not None
    details = response.error_info.details or {}
    return response.code, details["policy"], details["caller"]


def _checked(listed: list[str], answers: dict[str, Any], caller: str) -> None:
    """What every session shows: the calculator runs, a power is refused naming the caller; each
    tool not listed, called with valid or invalid arguments, is answered as a tool that is not
    there; and no answer to an unknown name names a tool that is not listed."""
    assert "6 * 7 = 42" == _response(answers["calculator"]).text
    assert (ErrorCode.PERMISSION_DENIED, "arguments", caller) == _denial(answers["power"])
    for name in TOOLS:
        misspelt = _response(answers[f"{name}-misspelt"])
        assert misspelt.error_info is not None
        details = misspelt.error_info.details or {}
        assert (ErrorCode.NOT_FOUND, listed) == (misspelt.code, details["available"])
        assert set(details["suggestions"]) <= set(listed)
        hidden = set(TOOLS) - set(listed)
        assert not hidden & set(re.findall(r"[\w-]+", misspelt.text))
        if name not in listed:
            for key in (name, f"{name}-invalid"):
                answer = _response(answers[key])
                assert ErrorCode.NOT_FOUND == answer.code
                assert f"No tool named '{name}'. Available tools: {', '.join(listed)}." == answer.text


async def test_over_stdio_the_caller_is_stdio() -> None:
    """Over stdio: the allow-list hides ``secret``, the deny-list ``peek``, read-only ``wipe``."""
    listed, answers = await _session(_STDIO)
    assert ["calculator"] == listed
    _checked(listed, answers, "stdio")


async def test_over_http_without_a_token_the_caller_is_anonymous(open_url: str) -> None:
    listed, answers = await _session(open_url)
    assert ["calculator", "peek"] == listed
    assert ToolStatus.SUCCESS is _response(answers["peek"]).status
    _checked(listed, answers, "anonymous")


async def test_over_http_with_the_token_the_caller_is_bearer(token_url: str) -> None:
    """The allow-list does not concern the token's subject: ``secret`` is listed and runs."""
    listed, answers = await _session(token_url, token=TOKEN)
    assert ["calculator", "secret", "peek"] == listed
    assert "42" == _response(answers["secret"]).text
    _checked(listed, answers, "bearer")


async def test_a_hidden_tool_answers_as_a_server_without_it(open_url: str) -> None:
    """To an anonymous caller, every call of ``secret`` and ``wipe`` (valid arguments or not) gets the
    very result a server without those tools gives, timing aside: no schema, no refusal."""
    registry = build_guarded_registry()
    registry.unregister("secret")
    registry.unregister("wipe")
    with serve_http_in_background(http_app(registry)) as without_url:
        _, without = await _session(without_url)
    _, answers = await _session(open_url)
    for key in ("secret", "secret-invalid", "wipe", "wipe-invalid"):
        assert _as_seen(without[key]) == _as_seen(answers[key])


def test_the_sdk_gets_no_schema_of_a_hidden_tool() -> None:
    """``get_tool_input_schema``, which the SDK asks before the call is dispatched, answers None for a
    tool hidden from the server's caller, as for a tool it does not have."""
    service = McpToolService(build_guarded_registry(), caller="anonymous", transport="tcp")
    assert (True, None, None) == (
        service.input_schema("calculator") is not None,
        service.input_schema("secret"),
        service.input_schema("nothing"),
    )
