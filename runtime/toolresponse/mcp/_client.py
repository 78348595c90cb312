"""An MCP server (a stdio command or a streamable-HTTP URL) attached to a ToolRegistry.

``attach(registry, target)`` connects through the official SDK's ``Client``,
lists the server's tools and registers each as an ``McpTool``: a ``Tool`` whose
parameters schema is the remote ``inputSchema``, so the registry checks the
arguments, applies the timeout and the breaker, tells the listeners and
answers with a ToolResponse, sync (``execute``) and async (``aexecute``) alike,
and the ``Agent`` uses it like any other tool. Each answer is
``from_mcp(result)`` (``toolresponse.interop``); a JSON-RPC error is
``from_mcp_error``; a connection that cannot be made or that breaks (the server
exits, a broken pipe, a refused connection) is NETWORK_ERROR (retryable), but for
what no retry mends: a command that does not exist is NOT_FOUND, one that may not
be run PERMISSION_DENIED, a server that answers HTTP 401 or 403 ACCESS_DENIED
(it needs a token). Each answer names the server with its secrets masked
(``mask_secrets``: a URL's password or ``access_token=``, a command's
``--api-key VALUE``).

Every wait is bounded, connecting included: ``attach`` (connecting and listing
the tools, together) by ``connect_timeout_s`` (``timeout_s`` unless given), each
call by ``timeout_s``, and a call's reconnecting, when it must reconnect first,
by ``connect_timeout_s``. Past it the answer is TIMEOUT, and a server process
started for a connection that timed out is stopped.

A stdio server gets the SDK's minimal environment (``HOME``, ``PATH``, ...)
with ``env`` over it, and writes its stderr to ``stderr`` (the caller's own by
default).

The connection (``McpConnection``) lives on an event loop of its own, so it
serves any caller: a thread, the registry's background loop, or an
application's event loop. A thread that calls synchronously runs that loop
itself while nobody else does (no hop to another thread and back); a call from
another event loop is run by the loop's daemon thread (``SharedLoop``). It
lives until ``close()`` (or the end of a ``with`` block, or the interpreter's
exit). When the server dies, the call in flight (or, when it died between
calls, the next call) answers NETWORK_ERROR and the connection is marked
broken; the call after reconnects (starts the command again, or opens the URL
again) once, and answers NETWORK_ERROR if that fails too. The tools stay registered either way,
so a model sees a retryable error, never a vanished tool. After ``close()`` no
reconnection is tried: the calls in flight then, and all calls after, answer NETWORK_ERROR saying
the connection is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shlex
import sys
import weakref
from collections.abc import Awaitable, Coroutine, Mapping, Sequence
from typing import Any, Final, TextIO, TypeVar

from toolresponse_generated import ErrorCode

from .._errors import DialectError, McpConnectError, ToolDefinitionError
from .._response import ToolResponse
from ..interop import from_mcp, from_mcp_error
from ..tools._registry import ToolRegistry
from ..tools._tool import Tool
from ..tools._trace import mask_secrets
from ._loop import LoopShutDown, ReentrantWait, SharedLoop

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MCP_EXTRA_HINT",
    "McpConnectError",
    "McpConnection",
    "McpTool",
    "aattach",
    "attach",
    "connect",
    "require_sdk",
]

_log = logging.getLogger("toolresponse.mcp")

DEFAULT_TIMEOUT_S: Final = 30.0
"""A request's timeout when none is given: a call, or ``attach``'s connecting and listing."""
MCP_EXTRA_HINT: Final = "pip install 'toolresponse[mcp]'"
_CLOSE_TIMEOUT_S: Final = 10.0
_REFUSALS: Final = frozenset({401, 403})
_CONNECTION_CLOSED: Final = -32000
_REQUEST_TIMEOUT: Final = -32001
"""The SDK's code for a request it stopped waiting for (its read timeout, ours per call)."""
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")
_PERMISSIVE: Final[dict[str, Any]] = {"type": "object"}

T = TypeVar("T")


def require_sdk() -> None:
    """Import the MCP SDK, or raise ``ImportError`` with one line naming the extra to install."""
    try:
        import mcp  # noqa: F401
    except ImportError as missing:
        raise ImportError(
            f"MCP needs the optional extra 'mcp' ({missing.name or 'mcp'} is not installed): {MCP_EXTRA_HINT}"
        ) from None


def _is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))


def _describe_target(target: str | Sequence[str]) -> str:
    """The target as a person reads it, secrets masked (it goes into answers and logs)."""
    text: str = mask_secrets(target if isinstance(target, str) else shlex.join(target))
    return text


def leaf_error(error: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups: the one worth naming."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _record(result: Any) -> dict[str, Any]:
    """The SDK's ``CallToolResult`` model as the wire JSON ``from_mcp`` reads: what
    ``model_dump(by_alias=True, exclude_none=True, mode="json")`` gives of the members it
    reads, built directly for text blocks (nearly every result), dumped for the other blocks,
    which are kept as the server sent them."""
    record: dict[str, Any] = {
        "content": [
            {"type": "text", "text": block.text}
            if block.type == "text"
            else block.model_dump(by_alias=True, exclude_none=True, mode="json")
            for block in result.content
        ],
        "isError": result.is_error is True,
    }
    if result.structured_content is not None:
        record["structuredContent"] = result.structured_content
    if result.meta is not None:
        record["_meta"] = result.meta
    return record


def _masked(response: ToolResponse) -> ToolResponse:
    """An error with secrets masked in its text, message and details, as the registry masks a local
    tool's exception text (a server's error may quote a key or a token, a connection's failure the
    URL it was given)."""
    if not response.is_error:
        return response
    return ToolResponse.from_dict(mask_secrets(response.to_dict()))


def _network_error(message: str, *, target: str, cause: BaseException | None = None) -> ToolResponse:
    return _failure(ErrorCode.NETWORK_ERROR, message, target=target, cause=cause)


def _failure(
    code: ErrorCode,
    message: str,
    *,
    target: str,
    cause: BaseException | None = None,
    **details: Any,
) -> ToolResponse:
    """An error about the server ``target``, its cause's type and text in ``details``, masked."""
    found: dict[str, Any] = {"server": target, **details}
    if cause is not None:
        found["exception"] = type(cause).__name__
        text = str(cause)
        if text:
            found["message"] = text[:500]
    return _masked(ToolResponse.error(code, message, details=found))


class McpConnection:
    """One MCP server, connected through the SDK on a background event loop.

    ``target`` is a URL (``http://...``: streamable HTTP) or a command (a string, split
    like a shell would, or a list of arguments: stdio). ``token`` is sent as a bearer token
    to a URL. ``env``, ``cwd`` and ``stderr`` apply to a command: ``env`` goes over the SDK's
    minimal environment (``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``; pass
    ``os.environ`` for the caller's whole environment), and the server's stderr is written to
    ``stderr`` (a file with a descriptor; default ``sys.stderr``). ``call_timeout_s`` bounds each
    call; ``connect_timeout_s`` (default: ``call_timeout_s``) bounds connecting and the listing
    of the tools together, and a call's reconnecting.
    """

    def __init__(
        self,
        target: str | Sequence[str],
        *,
        token: str | None = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        call_timeout_s: float = DEFAULT_TIMEOUT_S,
        connect_timeout_s: float | None = None,
        stderr: TextIO | None = None,
    ) -> None:
        if isinstance(target, str) and not _is_url(target):
            target = shlex.split(target)
        if not isinstance(target, str) and not target:
            raise ValueError("an MCP server target is a URL or a non-empty command")
        self.target = target
        self.description = _describe_target(target)
        self._token = token
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._call_timeout_s = call_timeout_s
        self._connect_timeout_s = call_timeout_s if connect_timeout_s is None else connect_timeout_s
        self._stderr = stderr
        self._refused: int | None = None
        """The status of the last HTTP answer that refused access (401, 403), until one succeeds."""
        self._shared = SharedLoop("toolresponse-mcp-client")
        self._loop = self._shared.loop
        self._client: Any = None
        self._session_task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._closed = False
        self._finalizer = weakref.finalize(self, self._shared.shutdown)

    # -- the loop -------------------------------------------------------------------------

    def run(self, coroutine: Awaitable[T], timeout_s: float | None = None) -> T:
        """Run ``coroutine`` on the connection's loop and wait for it (from a thread: this one
        runs the loop when no other does)."""
        return self._shared.wait(_as_coroutine(coroutine), timeout_s)

    async def arun(self, coroutine: Awaitable[T]) -> T:
        """Run ``coroutine`` on the connection's loop and await it from any event loop;
        cancelling the await cancels the coroutine."""
        return await self._shared.wait_async(_as_coroutine(coroutine))

    # -- connecting -----------------------------------------------------------------------

    def _sdk_client(self, exit_stack: contextlib.AsyncExitStack) -> Any:
        require_sdk()
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        target = self.target
        if isinstance(target, str):
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {self._token}"} if self._token else {}
            http = httpx2.AsyncClient(
                headers=headers,
                timeout=httpx2.Timeout(self._call_timeout_s, read=self._call_timeout_s + 5.0),
                event_hooks={"response": [self._seen]},
            )
            exit_stack.push_async_callback(http.aclose)
            transport = streamable_http_client(target, http_client=http)
            return Client(transport, read_timeout_seconds=self._call_timeout_s + 5.0, cache=None)
        parameters = StdioServerParameters(
            command=target[0], args=list(target[1:]), env=self._env, cwd=self._cwd
        )
        errlog = self._stderr if self._stderr is not None else sys.stderr
        transport = stdio_client(parameters, errlog=errlog)
        return Client(transport, read_timeout_seconds=self._call_timeout_s + 5.0, cache=None)

    async def _seen(self, response: Any) -> None:
        """Note an HTTP answer that refused access (the SDK reports it as a JSON-RPC error that
        no longer says so), and forget it once one succeeds."""
        status = response.status_code
        if status in _REFUSALS:
            self._refused = status
        elif status < 300:
            self._refused = None

    async def _session(self, ready: asyncio.Future[None]) -> None:
        """Own the SDK client's context for the connection's life (its task groups must be
        entered and left by one task): connect, tell ``ready``, wait for ``close``."""
        stop = asyncio.Event()
        self._stop = stop
        self._refused = None
        try:
            async with contextlib.AsyncExitStack() as exit_stack:
                client = self._sdk_client(exit_stack)
                await exit_stack.enter_async_context(client)
                self._client = client
                ready.set_result(None)
                await stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            elif not isinstance(error, asyncio.CancelledError):
                _log.info("MCP connection to %s ended: %s", self.description, mask_secrets(str(error)))
            if isinstance(error, KeyboardInterrupt | SystemExit):
                raise
        finally:
            self._client = None

    async def _connected(self) -> Any:
        """The SDK client, connecting (again) when there is none; raises on failure, and
        ``McpConnectError`` once the connection is closed (a call that waited here while it was
        closed must not start the server again)."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._closed:
                raise McpConnectError(self._closed_error())
            task = self._session_task
            if self._client is not None and task is not None and not task.done():
                return self._client
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            ready: asyncio.Future[None] = self._loop.create_future()
            self._session_task = self._loop.create_task(self._session(ready))
            try:
                async with asyncio.timeout(self._connect_timeout_s):
                    await ready
            except TimeoutError as error:
                self._session_task.cancel()
                timed_out = self.timeout_error(self._connect_timeout_s, "the connection")
                raise McpConnectError(timed_out) from error
            except BaseException:
                self._session_task.cancel()
                raise
            return self._client

    def _connect_failure(
        self, error: BaseException, timeout_s: float, what: str = "the connection"
    ) -> ToolResponse:
        """The answer to ``what`` (a connection, or a listing with its connecting) that failed with
        ``error``: TIMEOUT (past ``timeout_s``), ACCESS_DENIED (HTTP 401, 403), NOT_FOUND (no such
        command), PERMISSION_DENIED (a command that may not be run), else NETWORK_ERROR."""
        error = leaf_error(error)
        if isinstance(error, ImportError):
            return _failure(ErrorCode.EXECUTION_ERROR, str(error), target=self.description)
        if isinstance(error, TimeoutError) or _is_request_timeout(error):
            return self.timeout_error(timeout_s, what)
        refusal = self._refusal()
        if refusal is not None:
            return refusal
        command = None if isinstance(self.target, str) else self.target[0]
        if isinstance(error, FileNotFoundError) and command is not None:
            if error.filename not in (None, command):
                reason = f"its working directory {error.filename!r} does not exist"
            else:
                reason = "there is no such file" if "/" in command else "there is no such command on PATH"
            return _failure(
                ErrorCode.NOT_FOUND,
                f"The MCP server command {command!r} could not be started: {reason}.",
                target=self.description,
                cause=error,
                command=command,
            )
        if isinstance(error, PermissionError) and command is not None:
            return _failure(
                ErrorCode.PERMISSION_DENIED,
                f"The MCP server command {command!r} could not be started: permission denied.",
                target=self.description,
                cause=error,
                command=command,
            )
        return _network_error(
            f"Could not connect to the MCP server {self.description}: {type(error).__name__}: {error}",
            target=self.description,
            cause=error,
        )

    def _refusal(self) -> ToolResponse | None:
        """ACCESS_DENIED when the last HTTP answer refused access (the failure being the SDK's
        report of it), else None."""
        status = self._refused
        if status is None:
            return None
        given = self._token is not None
        reason = "it does not accept the token sent" if given else "it needs a token"
        return _failure(
            ErrorCode.ACCESS_DENIED,
            f"The MCP server {self.description} refused access (HTTP {status}): {reason}.",
            target=self.description,
            http_status=status,
            token_sent=given,
        )

    def timeout_error(self, timeout_s: float, what: str) -> ToolResponse:
        """The TIMEOUT answer for ``what`` (a phrase: "the connection", "tool 'x'") not answered by
        this connection's server within ``timeout_s`` seconds."""
        return ToolResponse.error(
            ErrorCode.TIMEOUT,
            f"The MCP server {self.description} did not answer {what} within {timeout_s:g} s.",
            details={"server": self.description, "timeout_s": timeout_s},
        )

    # -- what the server offers ----------------------------------------------------------

    async def alist_tools(self) -> list[dict[str, Any]]:
        """The server's tools as ``tools/list`` gives them (wire JSON); raises ``McpConnectError``."""
        if self.closed:
            raise McpConnectError(self._closed_error())
        return await self.arun(self._list_tools())

    def list_tools(self) -> list[dict[str, Any]]:
        """The synchronous form of ``alist_tools``."""
        if self.closed:
            raise McpConnectError(self._closed_error())
        return self.run(self._list_tools())

    async def _list_tools(self) -> list[dict[str, Any]]:
        """The listing, connecting (when not connected) and every page under one deadline."""
        if self._closed:
            raise McpConnectError(self._closed_error())
        try:
            async with asyncio.timeout(self._connect_timeout_s):
                client = await self._connected()
                tools: list[dict[str, Any]] = []
                cursor: str | None = None
                for _ in range(100):  # a paginator that never ends cannot hang the listing
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(
                        tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in page.tools
                    )
                    cursor = page.next_cursor
                    if cursor is None:
                        break
        except McpConnectError:
            raise
        except Exception as error:
            if isinstance(leaf_error(error), ImportError):
                raise leaf_error(error) from None
            listing = "the listing of its tools (connecting included)"
            raise McpConnectError(self._connect_failure(error, self._connect_timeout_s, listing)) from error
        return tools

    # -- calling ---------------------------------------------------------------------------

    async def acall(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResponse:
        """Call the remote ``tool`` from any event loop; always a ToolResponse."""
        if self.closed:
            return self._closed_error()
        try:
            return await self.arun(self._call(tool, dict(arguments or {})))
        except LoopShutDown:  # closed while the call was being made
            return self._closed_error()

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResponse:
        """Call the remote ``tool`` from a thread; always a ToolResponse."""
        if self.closed:
            return self._closed_error()
        try:
            return self.run(self._call(tool, dict(arguments or {})))
        except LoopShutDown:  # closed while the call was being made
            return self._closed_error()
        except ReentrantWait:
            return ToolResponse.error(
                ErrorCode.EXECUTION_ERROR,
                f"The MCP tool {tool!r} was called synchronously from a coroutine on its own connection's"
                " loop, where the call could never end; await it there (acall, aexecute) instead.",
                details={"server": self.description},
            )

    def _closed_error(self) -> ToolResponse:
        return _network_error(
            f"The connection to the MCP server {self.description} is closed.", target=self.description
        )

    async def _call(self, tool: str, arguments: dict[str, Any]) -> ToolResponse:
        if self._closed:
            return self._closed_error()
        client = self._client
        session = self._session_task
        if client is None or session is None or session.done():
            try:
                client = await self._connected()  # bounded by connect_timeout_s
            except McpConnectError as error:
                return error.response
            except Exception as error:
                return self._connect_failure(error, self._connect_timeout_s)
            session = self._session_task
        try:
            async with asyncio.timeout(self._call_timeout_s):
                result = await client.call_tool(tool, arguments, read_timeout_seconds=self._call_timeout_s)
        except TimeoutError:
            self._check_alive(session)
            return self._timed_out(tool)
        except Exception as error:
            return self._call_failure(tool, error, session)
        try:
            # The SDK has checked the result's shape (its CallToolResult model, from JSON).
            response: ToolResponse = from_mcp(_record(result), shape_known=True)
        except DialectError as error:
            return ToolResponse.error(
                ErrorCode.API_ERROR,
                f"The MCP server {self.description} answered tool {tool!r} with an invalid result: {error}",
                details={"server": self.description, "violations": [v.to_dict() for v in error.errors[:20]]},
            )
        return _masked(response)

    def _timed_out(self, tool: str) -> ToolResponse:
        return self.timeout_error(self._call_timeout_s, f"tool {tool!r}")

    def _call_failure(self, tool: str, error: Exception, session: asyncio.Task[None] | None) -> ToolResponse:
        from mcp import MCPError
        from pydantic import ValidationError

        error = leaf_error(error)  # type: ignore[assignment]
        if isinstance(error, MCPError) and error.code == _REQUEST_TIMEOUT:
            self._check_alive(session)
            return self._timed_out(tool)
        refusal = self._refusal()
        if refusal is not None:
            self._check_alive(session)
            return refusal
        if isinstance(error, MCPError) and error.code != _CONNECTION_CLOSED:
            self._check_alive(session)
            coded: ToolResponse = from_mcp_error(
                error.error.model_dump(mode="json", exclude_none=True), tool=tool
            )
            return _masked(coded)
        if isinstance(error, ValidationError):  # the server answered, with a result the SDK rejects
            self._check_alive(session)
            return ToolResponse.error(
                ErrorCode.API_ERROR,
                f"The MCP server {self.description} answered tool {tool!r} with an invalid result"
                f" ({error.error_count()} violations of the MCP result shape).",
                details={
                    "server": self.description,
                    "violations": [
                        {
                            "at": "/".join(map(str, found["loc"])),
                            "type": found["type"],
                            "message": found["msg"],
                        }
                        for found in error.errors(include_input=False)[:20]
                    ],
                },
            )
        self._broken(session)
        if self._closed:  # the connection was closed under the call: it is not coming back
            return self._closed_error()
        return _network_error(
            f"The MCP server {self.description} went away during the call of tool {tool!r}: "
            f"{type(error).__name__}: {error}. The next call reconnects.",
            target=self.description,
            cause=error,
        )

    def _check_alive(self, session: asyncio.Task[None] | None) -> None:
        if session is not None and session.done():
            self._client = None

    def _broken(self, session: asyncio.Task[None] | None) -> None:
        """Forget a connection that broke, so that the next call makes a new one."""
        self._client = None
        if session is not None and not session.done():
            session.cancel()

    # -- the end ---------------------------------------------------------------------------

    async def _aclose(self) -> None:
        """Stop the session and wait for its end (the server process stopped), whatever way it
        ends: normally, cancelled (a connection given up on), or failed."""
        self._closed = True
        task = self._session_task
        if task is None:
            return
        if self._stop is not None:
            self._stop.set()
        _, running = await asyncio.wait({task}, timeout=_CLOSE_TIMEOUT_S)
        if running:
            task.cancel()
            await asyncio.wait({task}, timeout=_CLOSE_TIMEOUT_S)

    def close(self) -> None:
        """Close the connection (the server process ends) and stop its loop; idempotent."""
        if self._finalizer.alive:
            if self._shared.alive:
                with contextlib.suppress(Exception):
                    self.run(self._aclose(), _CLOSE_TIMEOUT_S + 5.0)
            self._finalizer()

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    def __enter__(self) -> McpConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<McpConnection {self.description!r}{' closed' if self.closed else ''}>"


def _is_request_timeout(error: BaseException) -> bool:
    """The SDK's own timeout of a request (its read timeout), as a JSON-RPC error."""
    from mcp import MCPError

    return isinstance(error, MCPError) and error.code == _REQUEST_TIMEOUT


def _as_coroutine(awaitable: Awaitable[T]) -> Coroutine[Any, Any, T]:
    if isinstance(awaitable, Coroutine):
        return awaitable

    async def run() -> T:
        return await awaitable

    return run()


class McpTool(Tool):
    """One tool of an MCP server, called through its ``McpConnection``."""

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

    # The call runs on the connection's own loop, under the connection's timeout: nothing here
    # blocks the thread or loop it is called on, so the registry need not hop to a thread.
    cooperative = True

    def run(self, params: dict[str, Any]) -> ToolResponse:
        return self.connection.call(self.remote_name, params)

    async def arun(self, params: dict[str, Any]) -> ToolResponse:
        return await self.connection.acall(self.remote_name, params)


def local_name(remote: str, prefix: str = "") -> str:
    """A remote tool's name as a registry name: characters other than letters, digits, ``_`` and
    ``-`` become ``_``, ``prefix`` goes first, and the whole is cut to 64 characters."""
    return (prefix + _NAME_CHARS.sub("_", remote))[:64] or "_"


def connect(
    target: str | Sequence[str],
    *,
    token: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    connect_timeout_s: float | None = None,
    stderr: TextIO | None = None,
) -> McpConnection:
    """A connection to the MCP server ``target`` (made on first use); ``timeout_s`` bounds each
    call, ``connect_timeout_s`` (default ``timeout_s``) connecting and listing."""
    return McpConnection(
        target,
        token=token,
        env=env,
        cwd=cwd,
        call_timeout_s=timeout_s,
        connect_timeout_s=connect_timeout_s,
        stderr=stderr,
    )


def attach(
    registry: ToolRegistry,
    target: str | Sequence[str] | McpConnection,
    *,
    prefix: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
    token: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    connect_timeout_s: float | None = None,
    stderr: TextIO | None = None,
) -> McpConnection:
    """Connect to the MCP server ``target`` and register each of its tools in ``registry`` (names
    made registry names by ``local_name``, ``prefix`` first); returns the connection, which the
    tools keep open until it is closed. ``connect_timeout_s`` (default ``timeout_s``) bounds
    connecting and listing together, ``timeout_s`` each call; ``token``, ``env``, ``cwd`` and
    ``stderr`` are ``McpConnection``'s.

    Raises ``McpConnectError`` when the server cannot be reached or listed in time, and
    ``ToolDefinitionError`` when a name is already taken in ``registry`` by a tool registered
    before; either way nothing is registered, and a connection made here is closed. Two remote
    tools whose registry names are the same (``get.time`` and ``get_time``, names alike in their
    first 64 characters, a name listed twice): the first is registered, the others are skipped
    with a warning.
    """
    connection = _connection(target, token, env, cwd, timeout_s, connect_timeout_s, stderr)
    if connection.closed:  # its loop has ended: nothing can run on it
        raise McpConnectError(connection._closed_error())
    try:
        connection.run(aattach(registry, connection, prefix=prefix, timeout_s=timeout_s))
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
    token: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    connect_timeout_s: float | None = None,
    stderr: TextIO | None = None,
) -> McpConnection:
    """The asynchronous form of ``attach``, for a caller on an event loop (which it never blocks)."""
    connection = _connection(target, token, env, cwd, timeout_s, connect_timeout_s, stderr)
    try:
        listing = await connection.alist_tools()
        _register_all(registry, connection, listing, prefix=prefix, timeout_s=timeout_s)
    except BaseException:  # the connection made here, closed in a thread: closing waits for the server
        if connection is not target:
            await asyncio.to_thread(connection.close)
        raise
    return connection


def _connection(
    target: str | Sequence[str] | McpConnection,
    token: str | None,
    env: Mapping[str, str] | None,
    cwd: str | None,
    timeout_s: float,
    connect_timeout_s: float | None,
    stderr: TextIO | None,
) -> McpConnection:
    """``target`` itself when it is a connection, else a new connection to it."""
    if isinstance(target, McpConnection):
        return target
    return connect(
        target,
        token=token,
        env=env,
        cwd=cwd,
        timeout_s=timeout_s,
        connect_timeout_s=connect_timeout_s,
        stderr=stderr,
    )


def _register_all(
    registry: ToolRegistry,
    connection: McpConnection,
    listing: Sequence[Mapping[str, Any]],
    *,
    prefix: str,
    timeout_s: float,
) -> None:
    """Register each listed tool, or none: a name already taken is found before any is registered,
    and a registration that fails takes back those made before it."""
    chosen: dict[str, Mapping[str, Any]] = {}  # local name -> the listed tool registered under it
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
    registered: list[str] = []
    try:
        for name, entry in chosen.items():
            register_remote(registry, connection, entry, prefix=prefix, timeout_s=timeout_s)
            registered.append(name)
    except BaseException:
        for name in registered:
            registry.unregister(name)
        raise


def register_remote(
    registry: ToolRegistry,
    connection: McpConnection,
    entry: Mapping[str, Any],
    *,
    prefix: str = "",
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> Tool:
    """Register one listed remote tool; an ``inputSchema`` the registry cannot compile (a remote
    ``$ref``, an unknown draft) is replaced by ``{"type": "object"}`` and the server checks the
    arguments itself."""
    name = local_name(str(entry["name"]), prefix)
    try:
        return registry.register(McpTool(connection, entry, name=name, timeout_s=timeout_s))
    except ToolDefinitionError as error:
        if name in registry:
            raise
        _log.warning(
            "MCP tool %r: its input schema is not usable here (%s); arguments unchecked", name, error
        )
        permissive = {**entry, "inputSchema": _PERMISSIVE}
        return registry.register(McpTool(connection, permissive, name=name, timeout_s=timeout_s))
