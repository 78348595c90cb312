"""``McpConnection``: one MCP server (a stdio command or a streamable-HTTP URL), through the SDK.

Every answer is a ToolResponse with the server's secrets masked (docs/mcp-binding.md,
"Protocol-level failures"; the connection's lifetime: "Tools and calls (the client)"). The SDK's
client lives on an anyio ``BlockingPortal``'s loop; calls are handed to it with
``asyncio.run_coroutine_threadsafe`` (one round trip; the portal's ``start_task_soon`` takes two).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import shlex
import sys
import threading
import time
import weakref
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TextIO, TypeVar

import orjson

from toolresponse_generated import ErrorCode

from .._errors import DialectError, McpConnectError, warn_renamed
from .._response import ToolResponse
from ..interop import from_mcp, from_mcp_error
from ..tools._trace import mask_secrets

if TYPE_CHECKING:
    from ._inbound import Inbound

T = TypeVar("T")

_log = logging.getLogger("toolresponse.mcp")

DEFAULT_TIMEOUT_S: Final = 30.0
_CLOSE_TIMEOUT_S: Final = 10.0
_POLL_S: Final = 0.25
"""The longest a thread blocks at once on a call: a Ctrl-C landing just before is acted on then."""
_REFUSALS: Final = frozenset({401, 403, 404, 405})
"""HTTP answers read at any time (once connected, a 404 is a session the server ended)."""
_STATUS_CODES: Final = {429: ErrorCode.RATE_LIMIT} | dict.fromkeys((502, 503, 504), ErrorCode.NETWORK_ERROR)
"""The code of an HTTP failure while connecting, but for API_ERROR (502-504: down for now)."""


def require_sdk() -> None:
    """Import the MCP SDK, or raise ``ImportError`` naming the extra to install."""
    try:
        import mcp  # noqa: F401
    except ImportError as missing:
        raise ImportError(
            f"MCP needs the optional extra 'mcp' ({missing.name or 'mcp'} is not installed):"
            " pip install 'toolresponse[mcp]'"
        ) from None


def leaf_error(error: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def _masked(response: ToolResponse) -> ToolResponse:
    """An error with secrets masked (a server's error may quote a key)."""
    return ToolResponse.from_dict(mask_secrets(response.to_dict())) if response.is_error else response


def running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


class _Loop:
    """The connection's event loop: a ``BlockingPortal``'s, taking work until ``stop``."""

    def __init__(self) -> None:
        from anyio.from_thread import start_blocking_portal

        self._portal_cm = start_blocking_portal(name="toolresponse-mcp-client")
        self._portal = self._portal_cm.__enter__()
        self.loop: asyncio.AbstractEventLoop = self._portal.call(asyncio.get_running_loop)
        self._lock = threading.Lock()
        self.stopped = False

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Run ``coroutine`` on the loop; ``RuntimeError`` once stopped (the lock: nothing is handed
        over after what ``stop`` cancels)."""
        with self._lock:
            if not self.stopped:
                return asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        coroutine.close()
        raise RuntimeError("the MCP connection's loop has stopped")

    def stop(self) -> None:
        """Cancel what runs on the loop and end it, waiting for that unless called on the loop."""
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
        if running_loop() is self.loop:  # the loop ends once the coroutine calling this returns
            self.loop.create_task(self._portal.stop(cancel_remaining=True))
            return
        self._portal.call(self._portal.stop, True)
        self._portal_cm.__exit__(None, None, None)


def _result(future: concurrent.futures.Future[T], timeout_s: float | None) -> T:
    """``future.result(timeout_s)``, blocking ``_POLL_S`` at most at a time; the future is cancelled
    when the wait ends without its result (a timeout, an interrupt)."""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    try:
        while True:
            left = _POLL_S if deadline is None else min(_POLL_S, deadline - time.monotonic())
            try:
                return future.result(max(left, 0.0))
            except TimeoutError:
                if future.done() or (deadline is not None and time.monotonic() >= deadline):
                    raise  # the work's own TimeoutError, or this wait's
    except BaseException:
        future.cancel()
        raise


class McpConnection(contextlib.AbstractContextManager["McpConnection"]):
    """One MCP server, connected through the SDK on a loop of its own.

    ``target`` is a URL (streamable HTTP, ``token`` sent as a bearer token; alone in a list too) or
    a command (a string split like a shell would, or a list: stdio) run in ``cwd`` with the SDK's
    minimal environment and ``env`` over it, its stderr to ``stderr`` (a file with a descriptor).
    ``call_timeout_s`` bounds each call, ``connect_timeout_s`` (default ``call_timeout_s``)
    connecting and listing.
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
        require_sdk()
        if not isinstance(target, str) and len(target) == 1 and _is_url(target[0]):
            target = target[0]  # a URL in the list a command goes in: no command is named so
        if isinstance(target, str) and not _is_url(target):
            target = shlex.split(target)
        if not isinstance(target, str) and not target:
            raise ValueError("an MCP server target is a URL or a non-empty command")
        self.target = target
        self.description: str = mask_secrets(target if isinstance(target, str) else shlex.join(target))
        self._token = token
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._call_timeout_s = call_timeout_s
        self._connect_timeout_s = call_timeout_s if connect_timeout_s is None else connect_timeout_s
        self._stderr = stderr
        self._http_failure: tuple[int, str | None] | None = None  # the last failed POST, what it said
        self._client: Any = None
        self._inbound: Inbound | None = None
        self._session_task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()  # set by close: the session ends
        self._lock = asyncio.Lock()
        self._closed = False
        self._loop = _Loop()
        self._finalizer = weakref.finalize(self, self._loop.stop)

    def wait_on_loop(self, coroutine: Coroutine[Any, Any, T], timeout_s: float | None = None) -> T:
        """Run ``coroutine`` on the connection's loop and wait for it from this thread (at most
        ``timeout_s``: then ``TimeoutError``); ``McpConnectError`` once the connection is closed.
        An interrupt (Ctrl-C) or the timeout cancels it."""
        if running_loop() is self._loop.loop:
            coroutine.close()
            raise RuntimeError("a synchronous wait on the MCP connection's own loop would never end")
        try:
            return _result(self._loop.submit(coroutine), timeout_s)
        except (RuntimeError, concurrent.futures.CancelledError):
            if not self._loop.stopped:
                raise
            raise McpConnectError(self._closed_error()) from None

    async def await_on_loop(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the connection's loop and await it from any event loop; cancelling
        the await cancels it; ``McpConnectError`` once the connection is closed."""
        if running_loop() is self._loop.loop:
            return await coroutine
        try:
            return await asyncio.wrap_future(self._loop.submit(coroutine))
        except (RuntimeError, asyncio.CancelledError):
            task = asyncio.current_task()
            if not self._loop.stopped or (task is not None and task.cancelling()):
                raise
            raise McpConnectError(self._closed_error()) from None

    def _sdk_client(self, exit_stack: contextlib.AsyncExitStack) -> Any:
        from mcp import Client, StdioServerParameters
        from mcp.client.stdio import stdio_client

        read_timeout = self._call_timeout_s + 5.0
        if isinstance(self.target, str):
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            from ._inbound import watch_answer_stream

            http = httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {self._token}"} if self._token else {},
                timeout=httpx2.Timeout(self._call_timeout_s, read=read_timeout),
                event_hooks={"response": [self._seen, watch_answer_stream]},
            )
            exit_stack.push_async_callback(http.aclose)
            transport = streamable_http_client(self.target, http_client=http)
        else:
            command, *args = self.target
            parameters = StdioServerParameters(command=command, args=args, env=self._env, cwd=self._cwd)
            transport = stdio_client(
                parameters, errlog=self._stderr if self._stderr is not None else sys.stderr
            )
        return Client(self._watched(transport), read_timeout_seconds=read_timeout, cache=None)

    @contextlib.asynccontextmanager
    async def _watched(self, transport: Any) -> AsyncIterator[tuple[Inbound, Any]]:
        """``transport`` with its read stream watched (``Inbound``), which ``_inbound`` holds."""
        from ._inbound import Inbound

        async with transport as (read_stream, write_stream):
            self._inbound = Inbound(read_stream)
            yield self._inbound, write_stream

    async def _seen(self, response: Any) -> None:
        """Note a failed POST (the SDK's error no longer says its status) and what the server said,
        until one succeeds: one of ``_REFUSALS``, or any failure while connecting (once connected,
        another failure's body is the SDK's, to read a JSON-RPC error from)."""
        status = response.status_code
        noted = status in _REFUSALS or (status >= 400 and self._client is None)
        if noted and response.request.method == "POST":  # a GET may be 405: a stream is optional
            body = b""
            async for chunk in response.aiter_bytes():  # a message, not whatever the server sends
                body += chunk
                if len(body) >= _SAID_BYTES:
                    break
            await response.aclose()
            self._http_failure = (status, _said(body[:_SAID_BYTES]))
        elif status < 300:
            self._http_failure = None

    async def _session(self, ready: asyncio.Future[None]) -> None:
        """Own the SDK client's context (entered and left by one task) until ``close``."""
        self._http_failure = None
        try:
            async with contextlib.AsyncExitStack() as exit_stack:
                self._client = await exit_stack.enter_async_context(self._sdk_client(exit_stack))
                ready.set_result(None)
                await self._stop.wait()
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
        """The SDK client, connecting (again) when there is none, unbounded (its callers bound it by
        ``connect_timeout_s``); ``McpConnectError`` once closed (a call that waited here must not
        start the server again)."""
        async with self._lock:
            if self._closed:
                raise McpConnectError(self._closed_error())
            task = self._session_task
            if task is not None and not task.done():
                if self._client is not None:
                    return self._client
                if not task.cancelling():  # a second cancel would cut short the server's end
                    task.cancel()
                await asyncio.wait({task})  # its end, whatever it raised; the caller's timeout bounds this
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._session_task = task = asyncio.create_task(self._session(ready))
            try:
                await ready
            except BaseException:  # the caller's timeout (it bounds this), an interrupt
                task.cancel()
                raise
            return self._client

    def _failure(
        self,
        code: ErrorCode,
        message: str,
        cause: BaseException | None = None,
        retryable: bool | None = None,
        **details: Any,
    ) -> ToolResponse:
        """An error about this server, its cause in ``details``, masked."""
        found: dict[str, Any] = {"server": self.description, **details}
        if cause is not None:
            found["exception"] = type(cause).__name__
            if str(cause):
                found["message"] = str(cause)[:500]
        return _masked(ToolResponse.error(code, message, details=found, retryable=retryable))

    def _closed_error(self) -> ToolResponse:
        message = f"The connection to the MCP server {self.description} is closed: nothing reconnects it."
        return self._failure(ErrorCode.NETWORK_ERROR, message, retryable=False)

    def timeout_error(self, timeout_s: float, what: str) -> ToolResponse:
        """TIMEOUT: ``what`` ("the connection", "tool 'x'") not answered within ``timeout_s``."""
        message = f"The MCP server {self.description} did not answer {what} within {timeout_s:g} s."
        return self._failure(ErrorCode.TIMEOUT, message, timeout_s=timeout_s)

    def _timeout_or_refusal(
        self, error: BaseException, timeout_s: float, what: str, connecting: bool
    ) -> ToolResponse | None:
        """TIMEOUT for ``error`` a wait that ended (this client's, or the SDK's ``REQUEST_TIMEOUT``)
        on ``what``; else the answer to the last failed POST, else None: ACCESS_DENIED for 401 and
        403; another status only while connecting (once connected, a 404 is a session the server
        ended)."""
        from mcp import MCPError
        from mcp_types import REQUEST_TIMEOUT

        if isinstance(error, TimeoutError) or (isinstance(error, MCPError) and error.code == REQUEST_TIMEOUT):
            return self.timeout_error(timeout_s, what)
        if self._http_failure is None:
            return None
        status, said = self._http_failure
        if status in (401, 403):
            given = self._token is not None
            reason = "it does not accept the token sent" if given else "it needs a token"
            if status == 403 and said:
                reason = f"it says: {said}"
            message = (
                f"The MCP server {self.description} refused access (HTTP {status}): {reason.rstrip('.')}."
            )
            return self._failure(ErrorCode.ACCESS_DENIED, message, http_status=status, token_sent=given)
        if not connecting:
            return None
        if status in (404, 405, 410):
            message = (
                f"The URL {self.description} is not an MCP endpoint (HTTP {status}): check its path"
                " (the streamable-HTTP endpoint, often /mcp)."
            )
            return self._failure(ErrorCode.NOT_FOUND, message, http_status=status)
        code = _STATUS_CODES.get(status, ErrorCode.API_ERROR)
        told = f": {said.rstrip('.')}" if said else ""
        message = f"The MCP server {self.description} answered HTTP {status} while connecting{told}."
        return self._failure(code, message, http_status=status)

    def _connect_failure(self, error: BaseException, what: str = "the connection") -> ToolResponse:
        """The answer to ``what`` (connecting, or listing) failing with ``error``."""
        error = leaf_error(error)
        known = self._timeout_or_refusal(error, self._connect_timeout_s, what, connecting=True)
        if known is not None:
            return known
        command = None if isinstance(self.target, str) else self.target[0]
        if isinstance(error, FileNotFoundError | PermissionError) and command is not None:
            code, reason = ErrorCode.NOT_FOUND, "there is no such command on PATH"
            if isinstance(error, PermissionError):
                code, reason = ErrorCode.PERMISSION_DENIED, "permission denied"
            elif error.filename not in (None, command):
                reason = f"its working directory {error.filename!r} does not exist"
            elif "/" in command:
                reason = "there is no such file"
            message = f"The MCP server command {command!r} could not be started: {reason}."
            return self._failure(code, message, error, command=command)
        message = f"Could not connect to the MCP server {self.description}: {type(error).__name__}: {error}"
        return self._failure(ErrorCode.NETWORK_ERROR, message, error)

    async def alist_tools(self) -> list[dict[str, Any]]:
        """The server's tools as ``tools/list`` gives them (wire JSON); raises ``McpConnectError``."""
        return await self.await_on_loop(self._list_tools())

    def list_tools(self) -> list[dict[str, Any]]:
        """The synchronous form of ``alist_tools``."""
        return self.wait_on_loop(self._list_tools())

    async def _list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        try:
            async with asyncio.timeout(self._connect_timeout_s):
                client = await self._connected()
                cursor: str | None = None
                for _ in range(100):  # a paginator that never ends cannot hang the listing
                    page = await client.list_tools(cursor=cursor)
                    tools += (
                        tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in page.tools
                    )
                    cursor = page.next_cursor
                    if cursor is None:
                        break
        except McpConnectError:
            raise
        except Exception as error:
            listing = "the listing of its tools (connecting included)"
            raise McpConnectError(self._connect_failure(error, listing)) from error
        return tools

    async def aexecute(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResponse:
        """Call the remote ``tool`` from any event loop; always a ToolResponse."""
        try:
            return await self.await_on_loop(self._execute(tool, dict(arguments or {})))
        except McpConnectError as closed:
            return closed.response

    def execute(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResponse:
        """Call the remote ``tool`` from a thread; always a ToolResponse."""
        if running_loop() is self._loop.loop:
            return ToolResponse.error(
                ErrorCode.EXECUTION_ERROR,
                f"The MCP tool {tool!r} was called synchronously from a coroutine on its own connection's"
                " loop, where the call could never end; await it there (aexecute) instead.",
                details={"server": self.description},
            )
        try:
            return self.wait_on_loop(self._execute(tool, dict(arguments or {})))
        except McpConnectError as closed:
            return closed.response

    async def acall(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResponse:
        """Deprecated (removed in 2.0): the old name of ``aexecute``."""
        warn_renamed("McpConnection.acall", "McpConnection.aexecute")
        return await self.aexecute(tool, arguments)

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResponse:
        """Deprecated (removed in 2.0): the old name of ``execute``."""
        warn_renamed("McpConnection.call", "McpConnection.execute")
        return self.execute(tool, arguments)

    async def _execute(self, tool: str, arguments: dict[str, Any]) -> ToolResponse:
        try:
            async with asyncio.timeout(self._connect_timeout_s):
                client = await self._connected()
        except McpConnectError as error:
            return error.response
        except Exception as error:
            return self._connect_failure(error)
        session, inbound = self._session_task, self._inbound
        try:
            async with asyncio.timeout(self._call_timeout_s):
                result = await client.call_tool(tool, arguments, read_timeout_seconds=self._call_timeout_s)
        except Exception as caught:
            failure = leaf_error(caught)
            response = self._call_failure(tool, failure, inbound)
            if response is None:  # the connection broke: the next call makes a new one
                self._client = None
                if session is not None and not session.done():
                    session.cancel()
                if self._closed:
                    return self._closed_error()
                message = (
                    f"The MCP server {self.description} went away during the call of tool {tool!r}: "
                    f"{type(failure).__name__}: {failure}. The next call reconnects."
                )
                return self._failure(ErrorCode.NETWORK_ERROR, message, failure)
            if session is not None and session.done():  # the server answered, then ended
                self._client = None
            return response
        from ._inbound import record

        try:  # the SDK has checked the result's shape (its CallToolResult model)
            return _masked(from_mcp(record(result), shape_known=True))
        except DialectError as error:
            violations = [violation.to_dict() for violation in error.errors[:20]]
            return self._invalid_result(tool, f": {error}", violations)

    def _invalid_result(self, tool: str, why: str, violations: list[dict[str, Any]]) -> ToolResponse:
        """API_ERROR: a result that is not a valid ``CallToolResult``."""
        message = f"The MCP server {self.description} answered tool {tool!r} with an invalid result{why}"
        return self._failure(ErrorCode.API_ERROR, message, violations=violations)

    def _call_failure(self, tool: str, error: BaseException, inbound: Inbound | None) -> ToolResponse | None:
        """The answer to a call that failed with ``error``; None when the connection broke: the SDK's
        ``CONNECTION_CLOSED`` once the server's stream has ended (``inbound``) or the request could
        not be written, not that code in an error the server sent (docs/mcp-binding.md). The SDK's
        for an answer its event stream lost is a NETWORK_ERROR too, and the connection stays."""
        import anyio
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED
        from pydantic import ValidationError

        from ._inbound import ANSWER_LOST

        known = self._timeout_or_refusal(error, self._call_timeout_s, f"tool {tool!r}", connecting=False)
        if known is not None:
            return known
        if isinstance(error, MCPError) and error.code == CONNECTION_CLOSED:
            if error.data is ANSWER_LOST:
                message = (
                    f"The MCP server {self.description} sent no answer to tool {tool!r} before the call's"
                    f" event stream ended: {error.message}."
                )
                return self._failure(ErrorCode.NETWORK_ERROR, message, error)
            unwritten = isinstance(error.__context__, anyio.BrokenResourceError | anyio.ClosedResourceError)
            if unwritten or (inbound is not None and inbound.ended):
                return None
        if isinstance(error, MCPError):
            return _masked(from_mcp_error(error.error.model_dump(mode="json", exclude_none=True), tool=tool))
        if isinstance(error, ValidationError):  # the server answered, with a result the SDK rejects
            violations = [
                {"at": "/".join(map(str, found["loc"])), "type": found["type"], "message": found["msg"]}
                for found in error.errors(include_input=False)[:20]
            ]
            why = f" ({error.error_count()} violations of the MCP result shape)."
            return self._invalid_result(tool, why, violations)
        return None

    async def _aclose(self) -> None:
        """Stop the session and wait for the server's end, cancelling it if that takes too long."""
        task = self._session_task
        if task is None:
            return
        self._stop.set()
        if (await asyncio.wait({task}, timeout=_CLOSE_TIMEOUT_S))[1]:
            task.cancel()
            await asyncio.wait({task}, timeout=_CLOSE_TIMEOUT_S)

    def close(self) -> None:
        """Close the connection (the server process ends) and stop its loop; idempotent, from anywhere."""
        self._closed = True
        if self._finalizer.alive:
            with contextlib.suppress(Exception):  # on the loop itself: the loop's end cancels the session
                self.wait_on_loop(self._aclose(), _CLOSE_TIMEOUT_S * 2 + 5.0)
            self._finalizer()

    @property
    def closed(self) -> bool:
        return self._closed or self._loop.stopped

    def __exit__(self, *_: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<McpConnection {self.description!r}{' closed' if self.closed else ''}>"


_SAID_BYTES = 64 * 1024  # the most of a failed answer's body read: a server may send gigabytes


def _said(body: bytes) -> str | None:
    """The message of an HTTP error's JSON body, cut to 300 characters; None when it has none."""
    try:
        found = orjson.loads(body)
    except orjson.JSONDecodeError:
        return None
    if isinstance(found, dict):
        for key in ("text", "message", "error", "detail"):
            if isinstance(found.get(key), str) and found[key].strip():
                return str(found[key])[:300]
    return None


def _is_url(target: str) -> bool:
    return target.startswith(("http://", "https://"))
