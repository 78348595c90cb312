"""``attach(registry, target)``: each tool of an MCP server registered in a ToolRegistry.

Each remote tool becomes an ``McpTool`` whose parameters schema is the remote ``inputSchema`` and
whose call is the connection's; the tools stay registered when the server dies, so a model meets
a retryable error, never a vanished tool.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final, TextIO, TypedDict, Unpack

from .._errors import ToolDefinitionError
from .._response import ToolResponse
from ..tools._registry import ToolRegistry
from ..tools._tool import Tool
from ._client import DEFAULT_TIMEOUT_S, McpConnection

_log = logging.getLogger("toolresponse.mcp")

_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_PERMISSIVE: Final[dict[str, Any]] = {"type": "object"}


class ConnectOptions(TypedDict, total=False):
    """``McpConnection``'s options, which ``connect``, ``attach`` and ``aattach`` pass on."""

    token: str | None
    env: Mapping[str, str] | None
    cwd: str | None
    connect_timeout_s: float | None
    stderr: TextIO | None


class McpTool(Tool):
    """One tool of an MCP server, called through its ``McpConnection``."""

    # The call runs on the connection's own loop, under the connection's timeout: nothing here
    # blocks the thread or loop it is called on, so the registry need not hop to a thread.
    cooperative = True

    def __init__(
        self,
        connection: McpConnection,
        listing: Mapping[str, Any],
        *,
        name: str | None = None,
        timeout_s: float | None = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.connection = connection
        self.remote_name: str = listing["name"]
        schema = listing.get("inputSchema")
        super().__init__(
            name=name if name is not None else local_name(self.remote_name),
            description=str(listing.get("description") or ""),
            parameters=schema if isinstance(schema, Mapping) else _PERMISSIVE,
            timeout_s=timeout_s,
        )

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return self.connection.execute(self.remote_name, params)

    async def arun(self, params: dict[str, Any]) -> ToolResponse:
        return await self.connection.aexecute(self.remote_name, params)


def local_name(remote: str, prefix: str = "") -> str:
    """A remote tool's name as a registry name: characters other than letters, digits, ``_`` and
    ``-`` become ``_``, ``prefix`` goes first, and the whole is cut to 64 characters."""
    return (prefix + _NAME_CHARS.sub("_", remote))[:64] or "_"


def connect(
    target: str | Sequence[str], *, timeout_s: float = DEFAULT_TIMEOUT_S, **options: Unpack[ConnectOptions]
) -> McpConnection:
    """A connection to the MCP server ``target`` (made on first use); ``timeout_s`` bounds each
    call, the ``options`` are ``McpConnection``'s."""
    return McpConnection(target, call_timeout_s=timeout_s, **options)


def attach(
    registry: ToolRegistry,
    target: str | Sequence[str] | McpConnection,
    *,
    prefix: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    **options: Unpack[ConnectOptions],
) -> McpConnection:
    """Connect to the MCP server ``target`` and register each of its tools in ``registry`` (named
    by ``local_name``, ``prefix`` first); returns the connection. ``timeout_s`` bounds each call,
    the ``options`` are ``McpConnection``'s.

    Raises ``McpConnectError`` (the server cannot be reached or listed in time) or
    ``ToolDefinitionError`` (a name already taken); then nothing is registered.
    """
    connection = (
        target if isinstance(target, McpConnection) else connect(target, timeout_s=timeout_s, **options)
    )
    try:
        connection.wait_on_loop(aattach(registry, connection, prefix=prefix, timeout_s=timeout_s))
    except BaseException:
        if connection is not target:
            connection.close()
        raise
    return connection


async def aattach(
    registry: ToolRegistry,
    target: str | Sequence[str] | McpConnection,
    *,
    prefix: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    **options: Unpack[ConnectOptions],
) -> McpConnection:
    """The asynchronous form of ``attach``, for a caller on an event loop (never blocked)."""
    connection = (
        target if isinstance(target, McpConnection) else connect(target, timeout_s=timeout_s, **options)
    )
    try:
        _register_all(registry, connection, await connection.alist_tools(), prefix, timeout_s)
    except BaseException:  # closed in a thread: closing waits for the server to end
        if connection is not target:
            await asyncio.to_thread(connection.close)
        raise
    return connection


def _register_all(
    registry: ToolRegistry,
    connection: McpConnection,
    listing: Sequence[Mapping[str, Any]],
    prefix: str,
    timeout_s: float,
) -> None:
    """Register each listed tool, or none. An ``inputSchema`` the registry cannot compile (a remote
    ``$ref``, an unknown draft) is replaced by ``{"type": "object"}``: the server checks the
    arguments itself."""
    chosen: dict[str, Mapping[str, Any]] = {}
    for entry in listing:
        remote = str(entry["name"])
        name = local_name(remote, prefix)
        if name in chosen:  # two remote names that read the same here (or one listed twice)
            _log.warning(
                "MCP tool %r skipped: its registry name %r is already %r's",
                remote,
                name,
                chosen[name]["name"],
            )
            continue
        if name in registry:
            raise ToolDefinitionError(
                f"the MCP tool {remote!r} of {connection.description} would be registered as {name!r},"
                " a name the registry already has; nothing was registered (attach with a prefix,"
                " e.g. prefix='remote_')"
            )
        chosen[name] = entry
    with contextlib.ExitStack() as undo:  # what was registered is unregistered if one fails
        for name, entry in chosen.items():
            try:
                registry.register(McpTool(connection, entry, name=name, timeout_s=timeout_s))
            except ToolDefinitionError as error:
                if name in registry:
                    raise
                _log.warning(
                    "MCP tool %r: its input schema is not usable here (%s); arguments unchecked", name, error
                )
                permissive = {**entry, "inputSchema": _PERMISSIVE}
                registry.register(McpTool(connection, permissive, name=name, timeout_s=timeout_s))
            undo.callback(registry.unregister, name)
        undo.pop_all()
