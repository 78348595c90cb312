"""``toolresponse serve MODULE:REGISTRY``: serve a ToolRegistry over the HTTP binding with uvicorn.

``MODULE`` is imported (the current directory first on the path, as for
``python -m``) and ``REGISTRY`` is looked up in it, a dotted path if need be:
a ``ToolRegistry``, or a function of no arguments that returns one, such as
``toolresponse.demo.calculator:build_registry``.

The server listens on ``127.0.0.1`` unless ``--host`` says otherwise; with
``--port 0`` (the default is 8000) the system picks a free port. Once the
socket listens, the server's base URL is printed on stdout, alone on one line,
so that a parent process can read it and connect at once; the logs go to
stderr. SIGINT or SIGTERM stops it gracefully (exit status 0 for SIGTERM, 130
for Ctrl+C).

Exit status 2: a bad ``MODULE:REGISTRY`` or a missing extra (``toolresponse[http]``);
1: the address cannot be listened on.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import os
import re
import signal
import socket
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._registry import ToolRegistry

__all__ = ["RegistryLoadError", "load_registry", "serve_in_background"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
_SPEC = re.compile(
    r"^(?P<module>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):(?P<attribute>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)$"
)
_EXAMPLE = "toolresponse.demo.calculator:build_registry"


class RegistryLoadError(Exception):
    """``MODULE:REGISTRY`` does not name a ToolRegistry; the message says why, in one line."""


def load_registry(spec: str, *, app_dir: str | None = None) -> ToolRegistry:
    """The ToolRegistry that ``spec`` (``MODULE:REGISTRY``) names; raises ``RegistryLoadError``.

    ``app_dir`` (if given) goes first on ``sys.path`` before the import.
    """
    match = _SPEC.match(spec.strip())
    if match is None:
        raise RegistryLoadError(f"{spec!r} is not MODULE:REGISTRY (for example {_EXAMPLE})")
    module_name, attribute = match["module"], match["attribute"]
    if app_dir is not None:
        directory = os.path.abspath(app_dir)
        if directory not in sys.path:
            sys.path.insert(0, directory)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name is not None and (module_name == error.name or module_name.startswith(error.name + ".")):
            raise RegistryLoadError(f"there is no module {module_name!r} to import") from None
        raise RegistryLoadError(f"importing {module_name!r} failed: {error}") from None
    except Exception as error:
        raise RegistryLoadError(
            f"importing {module_name!r} failed: {type(error).__name__}: {error}"
        ) from None
    target: Any = module
    for part in attribute.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise RegistryLoadError(f"{module_name!r} has no attribute {attribute!r}") from None
    from .._registry import ToolRegistry

    if isinstance(target, ToolRegistry):
        return target
    if not callable(target):
        raise RegistryLoadError(
            f"{spec} is a {type(target).__name__}, not a ToolRegistry or a function that returns one"
        )
    try:
        inspect.signature(target).bind()
    except TypeError:
        raise RegistryLoadError(
            f"{spec} needs arguments; give a ToolRegistry, or a function of no arguments that returns one"
        ) from None
    except ValueError:
        pass  # no signature to inspect (a builtin): just call it
    try:
        made = target()
    except Exception as error:
        raise RegistryLoadError(f"calling {spec}() failed: {type(error).__name__}: {error}") from None
    if not isinstance(made, ToolRegistry):
        raise RegistryLoadError(f"{spec}() returned a {type(made).__name__}, not a ToolRegistry")
    return made


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "registry",
        metavar="MODULE:REGISTRY",
        help=f"a ToolRegistry, or a function of no arguments returning one, to serve ({_EXAMPLE})",
    )
    parser.add_argument(
        "--host", default=DEFAULT_HOST, help=f"the address to listen on (default {DEFAULT_HOST})"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"the port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--app-dir",
        default=".",
        metavar="DIR",
        help="the directory put first on the import path for MODULE (default: the current directory)",
    )
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="the server's log level, on stderr (default info)",
    )
    parser.add_argument("--no-access-log", action="store_true", help="do not log each request")


def _error(message: str) -> None:
    print(f"toolresponse serve: {message}", file=sys.stderr)


def _listen(host: str, port: int) -> socket.socket:
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


def _url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        _error(f"--port must be from 0 to 65535, not {args.port}")
        return 2
    try:
        import uvicorn

        from ._app import create_app
    except ImportError as missing:
        _error(
            f"serving needs the optional extra 'http' ({getattr(missing, 'name', None) or missing}):"
            " pip install 'toolresponse[http]'"
        )
        return 2
    try:
        registry = load_registry(args.registry, app_dir=args.app_dir)
    except RegistryLoadError as error:
        _error(str(error))
        return 2
    try:
        sock = _listen(args.host, args.port)
    except (OSError, UnicodeError) as error:
        _error(f"cannot listen on {args.host} port {args.port}: {error}")
        return 1
    url = _url(sock)
    config = uvicorn.Config(
        create_app(registry),
        log_level=args.log_level,
        access_log=not args.no_access_log,
        server_header=False,
    )
    server = uvicorn.Server(config)
    names = ", ".join(registry.names())
    print(url, flush=True)
    print(
        f"toolresponse serve: {args.registry} ({names or 'no tools'}) at {url}; Ctrl+C stops", file=sys.stderr
    )
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        with sock:
            server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


@contextlib.contextmanager
def serve_in_background(app: Any, *, host: str = DEFAULT_HOST, port: int = 0) -> Iterator[str]:
    """Serve the ASGI ``app`` with uvicorn in a background thread; yields the base URL.

    The socket listens before the URL is yielded, so requests can be sent at once
    (they wait in the backlog until the server takes them). The server stops, and
    the thread is joined, when the block ends.
    """
    import uvicorn

    sock = _listen(host, port)
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", access_log=False, server_header=False))
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="toolresponse-http", daemon=True
    )
    with sock:
        thread.start()
        try:
            yield _url(sock)
        finally:
            server.should_exit = True
            thread.join()
