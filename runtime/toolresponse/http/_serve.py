"""Serving an ASGI application with uvicorn, in the foreground (``serve``) or in a thread.

``listen`` opens the socket first, so that the URL is known before the server runs. What the
server refuses before the application sees a request (``ConnectionLimits``) is a transport error,
which the binding document allows.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .._suggest import is_finite_number

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_BODY_TIMEOUT_S = 30.0  # create_app's; here, for --help without the extra


@dataclass(frozen=True, kw_only=True)
class ConnectionLimits:
    """What one client may hold of the server, before its request reaches the application."""

    head_timeout_s: float = 10.0
    """The longest a request head may take, from the connection or the previous answer (the rest of
    an answered request's body included); then close."""
    keep_alive_s: int = 5
    """How long an idle connection is kept open after an answer (uvicorn's ``timeout_keep_alive``)."""
    max_connections: int = 100
    """The most connections served at once (uvicorn's ``limit_concurrency``; beyond: 503)."""
    max_head_bytes: int = 16 * 1024
    """The largest request head (h11's ``max_incomplete_event_size``; beyond: 400)."""

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not is_finite_number(value) or value <= 0:
                raise ValueError(f"{name} must be a finite number > 0, not {value!r}")
            if name != "head_timeout_s" and not isinstance(value, int):
                raise ValueError(f"{name} must be a whole number, not {value!r}")


def _protocol_class(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline on each request head (uvicorn has none), and an answer
    to a complete request whose client then half-closes (uvicorn's own closes at once)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class BoundedH11Protocol(H11Protocol):
        _head_deadline: asyncio.TimerHandle | None = None

        def _arm_head_deadline(self) -> None:
            """The next request head has ``head_timeout_s`` from now: if the connection still waits
            for one then (h11's IDLE), it is closed; a request under way is left alone."""
            self._disarm_head_deadline()
            self._head_deadline = self.loop.call_later(limits.head_timeout_s, self._head_too_late)

        def _disarm_head_deadline(self) -> None:
            if self._head_deadline is not None:
                self._head_deadline.cancel()

        def _head_too_late(self) -> None:
            # No head yet, or the rest of a request already answered (a 404 sent before its body
            # arrived) still not in: either holds the connection with nothing left to answer.
            waiting = self.conn.their_state is h11.IDLE or self.conn.our_state is h11.DONE
            if waiting and not self.transport.is_closing():
                self.logger.debug(
                    "closing a connection whose request head took over %gs", limits.head_timeout_s
                )
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm_head_deadline()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm_head_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_head_deadline()
            super().connection_lost(exc)

        def eof_received(self) -> bool | None:  # type: ignore[override]
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete and not cycle.more_body:
                cycle.keep_alive = False  # answer the complete request, then close
                return True
            return None

    return BoundedH11Protocol


def _server(app: Any, limits: ConnectionLimits | None, **options: Any) -> Any:
    """A uvicorn server of ``app`` within ``limits`` (default: ``ConnectionLimits()``)."""
    import uvicorn

    limits = limits or ConnectionLimits()
    config = uvicorn.Config(
        app,
        http=_protocol_class(limits),
        timeout_keep_alive=limits.keep_alive_s,
        limit_concurrency=limits.max_connections,
        h11_max_incomplete_event_size=limits.max_head_bytes,
        server_header=False,
        **options,
    )
    return uvicorn.Server(config)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port``; raises ``OSError``."""
    # Its protocol is IPPROTO_TCP (from getaddrinfo), not 0: asyncio turns Nagle's algorithm off
    # only for such a socket, and without that each answer waits ~40 ms for an ACK.
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        if os.name != "nt":  # on Windows the option would let another process take the port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def serve(
    app: Any,
    sock: socket.socket,
    *,
    log_level: str = "info",
    access_log: bool = True,
    limits: ConnectionLimits | None = None,
) -> None:
    """Run uvicorn with ``app`` on the listening ``sock`` until SIGINT or SIGTERM (then return)."""
    server = _server(app, limits, log_level=log_level, access_log=access_log)
    previous = signal.signal(signal.SIGTERM, lambda *_: None)
    try:
        with sock:
            server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


class _Hangup:
    """The ASGI ``app`` whose open requests hear ``http.disconnect`` once ``hang_up`` is called: a
    server in a thread gets no signal, and a stream a client holds open (MCP's GET) would keep it
    from stopping. A response the application leaves open then is ended here."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop: asyncio.AbstractEventLoop | None = None
        self.hung_up = asyncio.Event()

    def hang_up(self) -> None:
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.hung_up.set)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.loop = asyncio.get_running_loop()
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        open_body = False  # a response started and not ended

        async def sent(message: Any) -> None:
            nonlocal open_body
            open_body = message["type"] == "http.response.start" or bool(message.get("more_body"))
            await send(message)

        async def received() -> Any:
            message = asyncio.ensure_future(receive())
            hung_up = asyncio.ensure_future(self.hung_up.wait())
            await asyncio.wait((message, hung_up), return_when=asyncio.FIRST_COMPLETED)
            hung_up.cancel()
            if message.done():
                return message.result()
            message.cancel()
            return {"type": "http.disconnect"}

        await self.app(scope, received, sent)
        if self.hung_up.is_set() and open_body:  # a stream the application left open: end it
            await send({"type": "http.response.body", "body": b"", "more_body": False})


@contextlib.contextmanager
def serve_in_background(
    app: Any, *, host: str = DEFAULT_HOST, port: int = 0, limits: ConnectionLimits | None = None
) -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn in a thread; yields the base URL, already listening.
    The server stops, and the thread is joined, when the block ends."""
    hangup = _Hangup(app)
    server = _server(hangup, limits, log_level="error", access_log=False)
    sock = listen(host, port)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="toolresponse-http", daemon=True
    )
    with sock:
        thread.start()
        try:
            yield url_of(sock)
        finally:
            server.should_exit = True
            hangup.hang_up()
            thread.join()
