"""Serving an ASGI application of the HTTP binding with uvicorn, in the foreground or in a thread.

``listen(host, port)`` opens the socket first, so that the URL (``url_of``) can
be told before the server runs; ``serve(app, sock)`` runs uvicorn on it until
SIGINT or SIGTERM; ``serve_in_background(app)`` runs it in a thread for tests
and demos. ``toolresponse serve`` (``toolresponse.cli.serve``) puts these together.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "listen", "serve", "serve_in_background", "url_of"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port``; raises ``OSError``.

    The socket's protocol is ``IPPROTO_TCP`` (from ``getaddrinfo``), not 0: asyncio turns
    Nagle's algorithm off only on connections of such a socket, and without that every
    answer (head and body written apart) waits some 40 ms for a delayed ACK.
    """
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


def serve(app: Any, sock: socket.socket, *, log_level: str = "info", access_log: bool = True) -> None:
    """Run uvicorn with ``app`` on the listening ``sock`` until SIGINT or SIGTERM (then return)."""
    import uvicorn

    config = uvicorn.Config(app, log_level=log_level, access_log=access_log, server_header=False)
    server = uvicorn.Server(config)
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        with sock:
            server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def serve_in_background(app: Any, *, host: str = DEFAULT_HOST, port: int = 0) -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn in a background thread; yields the base URL.

    The socket listens before the URL is yielded, so requests can be sent at once
    (they wait in the backlog until the server takes them). The server stops, and
    the thread is joined, when the block ends.
    """
    import uvicorn

    sock = listen(host, port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", access_log=False, server_header=False))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="toolresponse-http", daemon=True
    )
    with sock:
        thread.start()
        try:
            yield url_of(sock)
        finally:
            server.should_exit = True
            thread.join()
