"""``toolresponse serve MODULE:FACTORY``: serve a ToolRegistry over the HTTP binding with uvicorn.

``MODULE:FACTORY`` names a ToolRegistry, or a function of no arguments that
returns one (``toolresponse.tools.load_registry``). The server listens on
``127.0.0.1`` unless ``--host`` says otherwise; with ``--port 0`` (the default
is 8000) the system picks a free port. Once the socket listens, the server's
base URL is printed on stdout, alone on one line, so that a parent process can
read it and connect at once; the logs go to stderr. SIGINT or SIGTERM stops it
gracefully (exit status 0 for SIGTERM, 130 for Ctrl+C).

Exit status 2: a bad ``MODULE:FACTORY`` or a missing extra (``toolresponse[http]``);
1: the address cannot be listened on.
"""

from __future__ import annotations

import argparse
import sys

from .._errors import RegistryLoadError
from ..http import DEFAULT_HOST, DEFAULT_PORT, listen, serve, url_of
from ..tools import REGISTRY_EXAMPLE, load_registry

__all__ = ["add_arguments", "run"]

_EXAMPLE = REGISTRY_EXAMPLE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "registry",
        metavar="MODULE:FACTORY",
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


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        _error(f"--port must be from 0 to 65535, not {args.port}")
        return 2
    try:
        import uvicorn  # noqa: F401  (the extra's presence, told before anything is loaded)

        from ..http import create_app
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
        sock = listen(args.host, args.port)
    except (OSError, UnicodeError) as error:
        _error(f"cannot listen on {args.host} port {args.port}: {error}")
        return 1
    url = url_of(sock)
    app = create_app(registry)
    names = ", ".join(registry.names())
    print(url, flush=True)
    print(
        f"toolresponse serve: {args.registry} ({names or 'no tools'}) at {url}; Ctrl+C stops", file=sys.stderr
    )
    serve(app, sock, log_level=args.log_level, access_log=not args.no_access_log)
    return 0
