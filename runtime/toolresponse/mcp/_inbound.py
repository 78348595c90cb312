"""What the MCP client reads from the SDK: the transport's read stream, watched (``Inbound``), each
event stream that may carry an answer over HTTP, watched for its end (``watch_answer_stream``), and
a ``CallToolResult`` as the wire JSON ``from_mcp`` reads (``record``). Imported once the SDK is known
to be installed.
"""

from __future__ import annotations

import contextvars
from collections.abc import AsyncIterator
from typing import Any, Final

import anyio
import httpx2
from mcp.shared.message import SessionMessage
from mcp_types import CONNECTION_CLOSED, JSONRPCError, JSONRPCResponse

RESULT_TYPE_KEY: Final = "dev.toolresponse/resultType"
"""Where ``Inbound`` keeps a result's ``resultType``, which the SDK drops on a session older than
MCP 2026-07-28 (``ClientSession.send_request`` removes a later revision's fields) but ``_meta`` keeps."""


def record(result: Any) -> dict[str, Any]:
    """The SDK's ``CallToolResult`` as the wire JSON ``from_mcp`` reads (its ``resultType`` the
    server's, as ``Inbound`` kept it)."""
    meta = None if result.meta is None else dict(result.meta)
    result_type = result.result_type if meta is None else meta.pop(RESULT_TYPE_KEY, result.result_type)
    record: dict[str, Any] = {
        "content": [
            block.model_dump(by_alias=True, exclude_none=True, mode="json") for block in result.content
        ],
        "isError": result.is_error is True,
    }
    if result.structured_content is not None:
        record["structuredContent"] = result.structured_content
    if meta:
        record["_meta"] = meta
    if result_type != "complete":  # the SDK drives input rounds; one it gave up on stays refused
        record["resultType"] = result_type
    return record


class _AnswerLost(str):
    """The type of ``ANSWER_LOST``: no JSON a server sends is one."""


ANSWER_LOST: Final = _AnswerLost("its event stream ended without the answer")
"""``data`` of the SDK's own -32000 for a call whose event stream ended (or broke) without its
answer while the session lives on (``Inbound`` sets it): a server's -32000 never has it."""

_STREAM_ENDED: Final = contextvars.ContextVar[bool]("toolresponse_mcp_stream_ended", default=False)
"""In the SDK's task that posts a request over HTTP and reads its answer: whether the event stream
that may carry the answer has ended or broken. The task sends what it read, or the error it makes
when no answer came, into the read stream, which keeps a copy of the sender's context with each
message (``last_context``): an error sent once the stream had ended was not read from it."""


async def watch_answer_stream(response: httpx2.Response) -> None:
    """An ``httpx2`` response hook: an event stream that may carry an answer (a 2xx; a request's, or
    one resumed), its end noted in the task reading it (``_STREAM_ENDED``)."""
    kind = response.headers.get("content-type", "").lower()
    body = response.stream
    if (
        response.status_code < 300
        and kind.startswith("text/event-stream")
        and isinstance(body, httpx2.AsyncByteStream)
    ):
        _STREAM_ENDED.set(False)
        response.stream = _EndWatched(body)


class _EndWatched(httpx2.AsyncByteStream):
    """A response body whose end (or failure) is noted in the task reading it; closing it early (the
    SDK does once it has the answer) is no end."""

    def __init__(self, stream: httpx2.AsyncByteStream) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._stream:
                yield chunk
        except Exception:
            _STREAM_ENDED.set(True)
            raise
        _STREAM_ENDED.set(True)

    async def aclose(self) -> None:
        await self._stream.aclose()


class Inbound:
    """The transport's read stream as the SDK reads it, watched: whether it has ended or the SDK has
    closed it (no answer can come: the SDK says so with the code a server may send as its own
    error), the SDK's own -32000 for an answer its event stream lost marked (``ANSWER_LOST``), and
    each result's ``resultType`` copied into its ``_meta`` (``RESULT_TYPE_KEY``)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.ended = False

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's context from the stream it is given
        return getattr(self._stream, "last_context", None)

    async def receive(self) -> Any:
        try:
            item = await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self.ended = True
            raise
        if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCResponse):
            result = item.message.result
            said = result.get("resultType")
            meta = result.get("_meta")
            if isinstance(meta, dict) and RESULT_TYPE_KEY in meta:  # a server's own: never read as the wire's
                meta = result["_meta"] = {
                    name: value for name, value in meta.items() if name != RESULT_TYPE_KEY
                }
            if isinstance(said, str) and said != "complete" and (meta is None or isinstance(meta, dict)):
                result["_meta"] = {**(meta or {}), RESULT_TYPE_KEY: said}
        elif isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCError):
            sender = self.last_context
            if (
                item.message.error.code == CONNECTION_CLOSED
                and sender is not None
                and sender.get(_STREAM_ENDED)
            ):
                item.message.error.data = ANSWER_LOST
        return item

    def __aiter__(self) -> Inbound:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        self.ended = True
        await self._stream.aclose()

    async def __aenter__(self) -> Inbound:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()
