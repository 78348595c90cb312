"""``toolresponse serve MODULE:FACTORY``: serve a ToolRegistry over the HTTP binding with uvicorn.

Once the socket listens, the base URL is printed alone on one line of stdout (``--port 0``: a free
port) for a parent process to read; logs go to stderr. SIGINT or SIGTERM stops it (exit status 130
or 0). Exit status 2: a bad ``MODULE:FACTORY``, the ``http`` extra missing, a bad option or token,
a non-loopback address without a token; 1: the address cannot be listened on. The access and limit
options (``access_rules``, ``connection_limits``) are those of every verb serving over HTTP.
"""

from __future__ import annotations

import argparse
import functools
import ipaddress
import os
import sys

from .._errors import RegistryLoadError
from ..http import AccessRules, ConnectionLimits, serve
from ..http._access import ANY, TOKEN_ENV, is_loopback, load_token
from ..http._serve import DEFAULT_BODY_TIMEOUT_S, DEFAULT_HOST, DEFAULT_PORT, listen, url_of
from ..tools import load_registry
from ..tools._load import REGISTRY_EXAMPLE
from ._input import count, fail, seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_server_arguments(parser)
    parser.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="the server's log level, on stderr (default info)",
    )
    parser.add_argument("--no-access-log", action="store_true", help="do not log each request")
    add_http_arguments(parser).add_argument(
        "--body-timeout",
        type=seconds,
        default=DEFAULT_BODY_TIMEOUT_S,
        metavar="SECONDS",
        help=f"answer 408 TIMEOUT to a body not in after SECONDS (default {DEFAULT_BODY_TIMEOUT_S:g})",
    )


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """What every serving verb takes: ``MODULE:FACTORY``, ``--host``, ``--port``, ``--app-dir``."""
    parser.add_argument(
        "registry",
        metavar="MODULE:FACTORY",
        help=f"a ToolRegistry, or a function of no arguments returning one, to serve ({REGISTRY_EXAMPLE})",
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


_LIMITS = {  # option: (the ConnectionLimits field, its type, metavar, what it bounds)
    "--head-timeout": (
        "head_timeout_s",
        seconds,
        "SECONDS",
        "close a connection whose request head is not in after SECONDS",
    ),
    "--keep-alive": ("keep_alive_s", count, "SECONDS", "close an idle connection after SECONDS"),
    "--max-connections": ("max_connections", count, "N", "serve at most N connections at once"),
}


def add_http_arguments(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """The access options and the connection limits (``http_settings``); returns the limits' group."""
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
    bounds = parser.add_argument_group("connection limits")
    for option, (name, kind, metavar, text) in _LIMITS.items():
        default = getattr(ConnectionLimits(), name)
        bounds.add_argument(
            option,
            dest=name,
            type=kind,
            default=default,
            metavar=metavar,
            help=f"{text} (default {default:g})",
        )
    return bounds


def http_settings(args: argparse.Namespace) -> tuple[AccessRules, ConnectionLimits]:
    """The access rules and connection limits for listening on ``args.host``; raises ``ValueError``
    (``TokenError`` among them) naming the bad option: a port out of range, an address other than
    loopback without a token (unless ``--insecure-no-token``), an origin that is none."""
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be from 0 to 65535, not {args.port}")
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
    access = AccessRules.of(hosts=hosts, origins=args.allow_origin, token=token)
    return access, ConnectionLimits(**{name: getattr(args, name) for name, *_ in _LIMITS.values()})


def run(args: argparse.Namespace) -> int:
    error = functools.partial(fail, "toolresponse serve")
    try:
        access, limits = http_settings(args)
        import uvicorn  # noqa: F401  (the extra's presence, told before the registry is loaded)

        from ..http import create_app

        registry = load_registry(args.registry, app_dir=args.app_dir)  # raises RegistryLoadError only
    except ImportError as missing:
        extra = "pip install 'toolresponse[http]'"
        return error(
            f"serving needs the optional extra 'http' ({missing.name or missing} is not installed): {extra}"
        )
    except (ValueError, RegistryLoadError) as problem:
        return error(str(problem))
    try:
        sock = listen(args.host, args.port)
    except (OSError, UnicodeError) as problem:
        return error(f"cannot listen on {args.host} port {args.port}: {problem}", 1)
    url = url_of(sock)
    app = create_app(registry, body_timeout_s=args.body_timeout, access=access)
    print(url, flush=True)
    guard = "a bearer token required" if access.token is not None else "no token"
    if access.token is None and not is_loopback(args.host):
        guard = "NO TOKEN (--insecure-no-token): anyone who reaches it runs the tools"
    print(
        f"toolresponse serve: {args.registry} ({', '.join(registry.names()) or 'no tools'}) at {url};"
        f" Host {', '.join(sorted(access.hosts))}; {guard}; Ctrl+C stops",
        file=sys.stderr,
    )
    serve(app, sock, log_level=args.log_level, access_log=not args.no_access_log, limits=limits)
    return 0
