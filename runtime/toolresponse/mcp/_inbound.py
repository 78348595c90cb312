"""What the MCP client reads from the SDK: the transport's read stream, watched (``Inbound``), and
a ``CallToolResult`` as the wire JSON ``from_mcp`` reads (``record``).
"""

from __future__ import annotations

from typing import Any, Final

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
            {"type": "text", "text": block.text}
            if block.type == "text"
            else block.model_dump(by_alias=True, exclude_none=True, mode="json")
            for block in result.content
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


class Inbound:
    """The transport's read stream as the SDK reads it, watched: whether it has ended or the SDK has
    closed it (no answer can come: the SDK says so with the code a server may send as its own
    error), and each result's ``resultType`` copied into its ``_meta`` (``RESULT_TYPE_KEY``)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.ended = False

    @property
    def last_context(self) -> Any:  # the SDK reads the sender's context from the stream it is given
        return getattr(self._stream, "last_context", None)

    async def receive(self) -> Any:
        import anyio
        from mcp.shared.message import SessionMessage
        from mcp_types import JSONRPCResponse

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
        return item

    def __aiter__(self) -> Inbound:
        return self

    async def __anext__(self) -> Any:
        import anyio

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
