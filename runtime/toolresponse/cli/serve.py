"""``toolresponse serve MODULE:FACTORY``: serve a ToolRegistry over the HTTP binding with uvicorn.

``MODULE:FACTORY`` names a ToolRegistry, or a function of no arguments that
returns one (``toolresponse.tools.load_registry``). The server listens on
``127.0.0.1`` unless ``--host`` says otherwise; with ``--port 0`` (the default
is 8000) the system picks a free port. Once the socket listens, the server's
base URL is printed on stdout, alone on one line, so that a parent process can
read it and connect at once; the logs go to stderr. SIGINT or SIGTERM stops it
gracefully (exit status 0 for SIGTERM, 130 for Ctrl+C).

Access: requests must name a loopback host in ``Host`` (and the listening address, when it
is a specific one; ``--allow-host`` adds names, ``*`` any), and a browser's ``Origin`` must be
a loopback origin (``--allow-origin`` adds one). With a token (``--token-file FILE``, its first
line, or the environment variable ``TOOLRESPONSE_TOKEN``) every request must carry
``Authorization: Bearer <token>``. Listening on an address other than loopback without a
token is refused, unless ``--insecure-no-token`` says it is meant. ``add_access_arguments``
and ``access_rules`` are these options and that rule, for every verb that serves over HTTP
(``toolresponse mcp serve --http`` too).

Exit status 2: a bad ``MODULE:FACTORY``, a missing extra (``toolresponse[http]``), a bad
token or a non-loopback address without one; 1: the address cannot be listened on.
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
import sys

from .._errors import RegistryLoadError
from ..http import AccessRules, ConnectionLimits, serve
from ..http._access import ANY, TOKEN_ENV, TokenError, is_loopback, load_token
from ..http._serve import DEFAULT_BODY_TIMEOUT_S, DEFAULT_HOST, DEFAULT_PORT, listen, url_of
from ..tools import load_registry
from ..tools._load import REGISTRY_EXAMPLE

__all__ = [
    "access_rules",
    "add_access_arguments",
    "add_arguments",
    "add_limit_arguments",
    "add_server_arguments",
    "connection_limits",
    "run",
]

_EXAMPLE = REGISTRY_EXAMPLE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_server_arguments(parser)
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="the server's log level, on stderr (default info)",
    )
    parser.add_argument("--no-access-log", action="store_true", help="do not log each request")
    add_access_arguments(parser)
    bounds = add_limit_arguments(parser)
    bounds.add_argument(
        "--body-timeout",
        type=float,
        default=DEFAULT_BODY_TIMEOUT_S,
        metavar="SECONDS",
        help=f"answer 408 TIMEOUT to a body not in after SECONDS (default {DEFAULT_BODY_TIMEOUT_S:g})",
    )


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """What every serving verb takes: ``MODULE:FACTORY``, ``--host``, ``--port``, ``--app-dir``."""
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


def add_access_arguments(parser: argparse.ArgumentParser) -> None:
    """The access options of a server (``access_rules`` reads them): ``--allow-host``,
    ``--allow-origin``, ``--token-file``, ``--insecure-no-token``."""
    access = parser.add_argument_group("access")
    access.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests whose Host is NAME (repeatable; '*' for any); loopback names always",
    )
    access.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also answer browsers' requests from ORIGIN, e.g. https://app.example (repeatable; '*' for any);"
        " loopback origins always",
    )
    access.add_argument(
        "--token-file",
        metavar="FILE",
        help="require Authorization: Bearer <token>, the token being FILE's first line"
        f" (default: ${TOKEN_ENV}, if set)",
    )
    access.add_argument(
        "--insecure-no-token",
        action="store_true",
        help="listen on an address other than loopback without a token: anyone who reaches it runs the tools",
    )


def add_limit_arguments(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """The connection limits of a server (``connection_limits`` reads them); returns their group."""
    limits = ConnectionLimits()
    bounds = parser.add_argument_group("connection limits")
    # fmt: off
    options: tuple[tuple[str, type[float] | type[int], float, str, str], ...] = (
        ("--head-timeout", float, limits.head_timeout_s, "SECONDS",
         "close a connection whose request head is not in after SECONDS"),
        ("--keep-alive", int, limits.keep_alive_s, "SECONDS", "close an idle connection after SECONDS"),
        ("--max-connections", int, limits.max_connections, "N", "serve at most N connections at once"),
    )
    # fmt: on
    for flag, kind, default, metavar, text in options:
        shown = f"{default:g}" if kind is float else default
        bounds.add_argument(
            flag, type=kind, default=default, metavar=metavar, help=f"{text} (default {shown})"
        )
    return bounds


def _error(message: str) -> None:
    print(f"toolresponse serve: {message}", file=sys.stderr)


def access_rules(args: argparse.Namespace) -> AccessRules:
    """The access rules the options of ``add_access_arguments`` give for listening on ``args.host``;
    raises ``TokenError`` or ``ValueError`` with the message to show. An address other than
    loopback without a token is refused here, unless ``--insecure-no-token`` says it is meant."""
    token = load_token(args.token_file, os.environ)
    if token is None and not is_loopback(args.host) and not args.insecure_no_token:
        raise ValueError(
            f"--host {args.host} serves every tool to whoever reaches that address, and there is no token:"
            f" give one (--token-file FILE, or ${TOKEN_ENV}), or pass --insecure-no-token if that is meant"
        )
    hosts = list(args.allow_host)
    try:
        if not ipaddress.ip_address(args.host.strip("[]")).is_unspecified:
            hosts.append(args.host)
    except ValueError:
        hosts.append(args.host)  # a name: requests for it are meant
    for origin in args.allow_origin:
        if origin != ANY and "://" not in origin:
            raise ValueError(f"--allow-origin {origin!r} is not an origin such as https://app.example")
    return AccessRules.of(hosts=hosts, origins=args.allow_origin, token=token)


def connection_limits(args: argparse.Namespace) -> ConnectionLimits:
    """The connection limits the options of ``add_limit_arguments`` give (and ``--body-timeout``,
    when the verb has it); raises ``ValueError`` naming a bad option."""
    for option, value in (
        ("--head-timeout", args.head_timeout),
        ("--body-timeout", getattr(args, "body_timeout", 1.0)),
        ("--keep-alive", args.keep_alive),
        ("--max-connections", args.max_connections),
    ):
        if not (math.isfinite(value) and value > 0):
            raise ValueError(f"{option} must be a number > 0, not {value:g}")
    return ConnectionLimits(
        head_timeout_s=args.head_timeout, keep_alive_s=args.keep_alive, max_connections=args.max_connections
    )


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        _error(f"--port must be from 0 to 65535, not {args.port}")
        return 2
    try:
        access = access_rules(args)
        limits = connection_limits(args)
    except (TokenError, ValueError) as error:
        _error(str(error))
        return 2
    try:
        import uvicorn  # noqa: F401  (the extra's presence, told before anything is loaded)

        from ..http import create_app
    except ImportError as missing:
        _error(
            f"serving needs the optional extra 'http' ({getattr(missing, 'name', None) or missing} is not"
            " installed): pip install 'toolresponse[http]'"
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
    app = create_app(registry, body_timeout_s=args.body_timeout, access=access)
    names = ", ".join(registry.names())
    print(url, flush=True)
    guard = "a bearer token required" if access.token is not None else "no token"
    if access.token is None and not is_loopback(args.host):
        guard = "NO TOKEN (--insecure-no-token): anyone who reaches it runs the tools"
    print(
        f"toolresponse serve: {args.registry} ({names or 'no tools'}) at {url};"
        f" Host {', '.join(sorted(access.hosts))}; {guard}; Ctrl+C stops",
        file=sys.stderr,
    )
    serve(app, sock, log_level=args.log_level, access_log=not args.no_access_log, limits=limits)
    return 0
