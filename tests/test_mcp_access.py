"""The registry's access policies on our MCP server, met by the official SDK's client: over stdio
the caller is "stdio", over streamable HTTP "anonymous" (no token) or "bearer" (the token);
``tools/list`` shows only the tools the caller may call, ``tools/call`` of a hidden one is
refused with ACCESS_DENIED or PERMISSION_DENIED, an allowed one runs. And the one set of access
rules the MCP endpoint shares with the HTTP binding."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters

from toolresponse import (
    AccessControl,
    AllowList,
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
from toolresponse.mcp import STDIO_CALLER, http_app, serve_http_in_background

HERE = Path(__file__).resolve().parent
TOKEN = "m2Vq-8xT_4nLp0RsWk6jYc3HdF9gB1aZ"


def build_guarded_registry() -> ToolRegistry:
    """The calculator; ``secret``, which only a caller with the token may use; ``wipe``, which
    writes, behind read-only mode for everyone; ``peek``, which stdio callers may not use."""
    registry = ToolRegistry(
        access=AccessControl(
            AllowList(["calculator", "wipe", "peek"], callers=["anonymous", STDIO_CALLER]),
            DenyList("peek", callers=STDIO_CALLER, code=ErrorCode.PERMISSION_DENIED),
            ReadOnly(),
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


async def _session(where: Any, token: str | None = None) -> tuple[list[str], dict[str, ToolResponse]]:
    """The names ``tools/list`` shows, and the answer to a call of every tool of the registry."""
    if token is not None:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
        from mcp.client.streamable_http import streamable_http_client

        where = streamable_http_client(where, http_client=http)
    answers: dict[str, ToolResponse] = {}
    async with Client(where, read_timeout_seconds=30) as client:
        listed = [tool.name for tool in (await client.list_tools()).tools]
        for name, arguments in (
            ("calculator", {"expression": "6 * 7"}),
            ("secret", {}),
            ("wipe", {}),
            ("peek", {}),
        ):
            answers[name] = _response(await client.call_tool(name, arguments))
    return listed, answers


def _denial(response: ToolResponse) -> tuple[ErrorCode | None, str, str]:
    assert response.error_info is not None
    details = response.error_info.details or {}
    return response.code, details["policy"], details["caller"]


async def test_over_stdio_the_caller_is_stdio() -> None:
    """Over stdio: the allow-list hides ``secret``, the deny-list ``peek``, read-only ``wipe``;
    each is refused with its code, naming the caller; the calculator runs."""
    listed, answers = await _session(_STDIO)
    assert ["calculator"] == listed
    assert ToolStatus.SUCCESS is answers["calculator"].status
    assert (ErrorCode.ACCESS_DENIED, "allow_list", "stdio") == _denial(answers["secret"])
    assert (ErrorCode.PERMISSION_DENIED, "read_only", "stdio") == _denial(answers["wipe"])
    assert (ErrorCode.PERMISSION_DENIED, "deny_list", "stdio") == _denial(answers["peek"])


async def test_over_http_without_a_token_the_caller_is_anonymous(open_url: str) -> None:
    listed, answers = await _session(open_url)
    assert ["calculator", "peek"] == listed
    assert ToolStatus.SUCCESS is answers["calculator"].status
    assert ToolStatus.SUCCESS is answers["peek"].status
    assert (ErrorCode.ACCESS_DENIED, "allow_list", "anonymous") == _denial(answers["secret"])
    assert (ErrorCode.PERMISSION_DENIED, "read_only", "anonymous") == _denial(answers["wipe"])


async def test_over_http_with_the_token_the_caller_is_bearer(token_url: str) -> None:
    """The allow-list does not concern the token's subject: ``secret`` is listed and runs."""
    listed, answers = await _session(token_url, token=TOKEN)
    assert ["calculator", "secret", "peek"] == listed
    assert "42" == answers["secret"].text
    assert (ErrorCode.PERMISSION_DENIED, "read_only", "bearer") == _denial(answers["wipe"])
