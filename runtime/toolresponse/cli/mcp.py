"""``toolresponse mcp serve|list|call``: MCP both ways from the command line.

- ``mcp serve MODULE:FACTORY`` serves a ToolRegistry over stdio (default) or
  streamable HTTP (``--http``: 127.0.0.1 unless ``--host`` says otherwise,
  ``--port``, 0 picks a free one; the endpoint URL is printed alone on one line
  of stdout once the socket listens). Over HTTP the access options and the
  connection limits are ``toolresponse serve``'s own (``--allow-host``,
  ``--allow-origin``, ``--token-file`` or ``TOOLRESPONSE_TOKEN``,
  ``--insecure-no-token``; ``--head-timeout``, ``--keep-alive``,
  ``--max-connections``), with the same rule: a host that is not loopback
  needs a token.
- ``mcp list (--stdio "CMD ARGS" | --url URL)`` prints the server's tools as
  they are registered here (JSON lines: name, description, parameters).
- ``mcp call (--stdio ... | --url ...) TOOL 'JSON-ARGS'`` prints the call's
  ToolResponse as JSON.

``--timeout`` bounds the answer: starting or reaching the server, listing its
tools and, for ``call``, the call (past it: TIMEOUT, and a ``--stdio`` server is
stopped; stopping it follows the SDK's grace, up to about 4 s for a server that
does not exit when its stdin closes). A ``--stdio`` server runs with the caller's
environment, as a command started from this shell would, and ``--env
KEY=VALUE`` over it (``--no-inherit-env``: only the MCP SDK's minimal one,
``HOME``, ``LOGNAME``, ``PATH``, ``SHELL``, ``TERM``, ``USER``, and the ``--env``
variables). Its stderr (servers on older SDKs write many warnings there) is
discarded unless ``--verbose`` shows it; so are the MCP SDK's tracebacks (a server that prints
other lines on stdout makes the SDK log one a line): each warning is one line.

Exit status: 0 for a success or partial response (and a listing), 1 for an
error response (a server that cannot be reached is NETWORK_ERROR, one that
wants a token ACCESS_DENIED, a command that does not exist NOT_FOUND, no
answer in time TIMEOUT), 2 for usage errors and a missing extra
(``toolresponse[mcp]``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

import orjson

from .. import mask_secrets
from .._errors import MalformedJsonError, McpConnectError, RegistryLoadError, ToolDefinitionError
from .._response import ToolResponse, loads_strict
from ..http._access import TOKEN_ENV, TokenError, load_token
from ..http._serve import listen, url_of
from ..tools import load_registry
from ..tools._registry import ToolRegistry
from .serve import (
    access_rules,
    add_access_arguments,
    add_limit_arguments,
    add_server_arguments,
    connection_limits,
)

if TYPE_CHECKING:
    from ..mcp import McpConnection

__all__ = ["add_arguments", "run"]


def _peer_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--stdio", metavar="COMMAND", help='the server\'s command line, e.g. "mcp-server-time"'
    )
    where.add_argument("--url", help="the server's streamable-HTTP endpoint, e.g. http://127.0.0.1:8000/mcp")
    parser.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="the longest the answer may take, starting or reaching the server included (default 30);"
        " stopping a --stdio server may add up to 4 s",
    )
    parser.add_argument(
        "--token-file", metavar="FILE", help=f"a bearer token for --url (default: ${TOKEN_ENV} if set)"
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a variable in the --stdio server's environment (repeatable); the server gets this"
        " command's own environment too, unless --no-inherit-env",
    )
    parser.add_argument(
        "--no-inherit-env",
        action="store_true",
        help="start the --stdio server with only the MCP SDK's minimal environment (HOME, LOGNAME, PATH,"
        " SHELL, TERM, USER) and the --env variables",
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="show the --stdio server's stderr (discarded otherwise: servers on older SDKs write"
        " many warnings there)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    serve = verbs.add_parser("serve", help="serve a ToolRegistry to MCP clients (stdio or streamable HTTP)")
    add_server_arguments(serve)
    serve.add_argument(
        "--http", action="store_true", help="serve streamable HTTP (on --host and --port) instead of stdio"
    )
    add_access_arguments(serve)
    add_limit_arguments(serve)
    listing = verbs.add_parser("list", help="list an MCP server's tools")
    _peer_options(listing)
    call = verbs.add_parser("call", help="call one tool of an MCP server; print its ToolResponse")
    _peer_options(call)
    call.add_argument("tool", help="the tool's name, as the server lists it")
    call.add_argument("arguments", nargs="?", default="{}", metavar="JSON-ARGS", help="a JSON object")


def _error(message: str) -> int:
    print(f"toolresponse mcp: {message}", file=sys.stderr)
    return 2


def _print(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value).decode("utf-8") + "\n")
    sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    from ..mcp._client import require_sdk

    try:
        require_sdk()  # the extra's presence, told before anything else is loaded
    except ImportError as missing:
        return _error(str(missing))
    if args.verb == "serve":
        return _serve(args)
    try:
        token = load_token(args.token_file, os.environ)
    except TokenError as error:
        return _error(str(error))
    if not (math.isfinite(args.timeout) and args.timeout > 0):
        return _error(f"--timeout must be a positive number of seconds, not {args.timeout}")
    env = _environment(args)
    if env is None:
        return 2
    arguments: dict[str, Any] | None = None
    if args.verb == "call":
        try:
            parsed = loads_strict(args.arguments)
        except MalformedJsonError as error:
            return _error(f"JSON-ARGS is not JSON: {error.reason}")
        if not isinstance(parsed, dict):
            return _error(f"JSON-ARGS must be a JSON object, not {type(parsed).__name__}")
        arguments = parsed
    if not args.verbose:
        _quiet_sdk_log()
    with _server_stderr(args.verbose) as stderr:
        return _attached(args, token, env, stderr, arguments)


class _OneLine(logging.Handler):
    """The SDK's warnings as one masked line each (a traceback may quote what a server printed,
    its secrets too), each message once."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self._said: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        message = mask_secrets(record.getMessage())
        if message not in self._said:
            self._said.add(message)
            print(f"toolresponse mcp: the MCP SDK says: {message} (--verbose shows more)", file=sys.stderr)


def _quiet_sdk_log() -> None:
    sdk = logging.getLogger("mcp")
    sdk.addHandler(_OneLine())
    sdk.propagate = False


def _environment(args: argparse.Namespace) -> dict[str, str] | None:
    """The --stdio server's environment (None after telling a bad --env, whose value is not shown:
    it may be a secret)."""
    env = {} if args.no_inherit_env else dict(os.environ)
    for position, pair in enumerate(args.env, 1):
        key, equals, value = pair.partition("=")
        if not equals or not key:
            lacks = "'='" if not equals else "KEY before its '='"
            _error(f"--env takes KEY=VALUE: --env number {position} has no {lacks}")
            return None
        env[key] = value
    return env


@contextlib.contextmanager
def _server_stderr(verbose: bool) -> Iterator[TextIO | None]:
    """Where a --stdio server's stderr goes: this command's own with --verbose, else nowhere."""
    if verbose:
        yield None
        return
    with open(os.devnull, "w", encoding="utf-8") as discarded:
        yield discarded


def _attached(
    args: argparse.Namespace,
    token: str | None,
    env: dict[str, str],
    stderr: TextIO | None,
    arguments: dict[str, Any] | None,
) -> int:
    """Attach the server and list its tools or call one (``arguments`` given), all within --timeout."""
    from ..mcp import connect

    target = str(args.url if args.url is not None else args.stdio)
    try:
        connection = connect(target, token=token, env=env, timeout_s=args.timeout, stderr=stderr)
    except ValueError as error:  # an empty command, an unclosed quote
        return _error(f"--stdio: {error}")
    registry = ToolRegistry()
    with connection:  # the answer is printed before the server is stopped (which takes seconds)
        try:
            response = connection.wait_on_loop(_listed_or_called(connection, registry, args, arguments))
        except McpConnectError as error:
            response = error.response
            _hint_stderr(args)
        except TimeoutError:
            doing = "the listing of its tools" if arguments is None else f"the call of tool {args.tool!r}"
            response = connection.timeout_error(args.timeout, f"{doing} (connecting included)")
            _hint_stderr(args)
        except ToolDefinitionError as error:  # a tool that cannot be registered
            return _error(str(error))
        return _printed(response, registry)


def _printed(response: ToolResponse | None, registry: ToolRegistry) -> int:
    """Print the call's ``response``, or the tools of ``registry`` (None: the listing); the exit status."""
    if response is None:
        for spec in registry.list_tools():
            entry = spec.to_dict()
            entry.pop("timeout_s", None)
            _print(entry)
        return 0
    _print(response.to_dict())
    return 1 if response.is_error else 0


async def _listed_or_called(
    connection: McpConnection,
    registry: ToolRegistry,
    args: argparse.Namespace,
    arguments: dict[str, Any] | None,
) -> ToolResponse | None:
    """Within --timeout, register the server's tools in ``registry``, then call the tool when
    ``arguments`` are given (None for a listing: the tools are in ``registry``)."""
    from ..mcp import aattach
    from ..mcp._attach import local_name

    async with asyncio.timeout(args.timeout):
        await aattach(registry, connection, timeout_s=args.timeout)
        if arguments is None:
            return None
        return await registry.aexecute(local_name(args.tool), arguments)


def _hint_stderr(args: argparse.Namespace) -> None:
    if args.stdio is not None and not args.verbose:
        print("toolresponse mcp: the server's stderr was discarded; --verbose shows it", file=sys.stderr)


def _serve(args: argparse.Namespace) -> int:
    from ..mcp import http_app, serve_http, serve_stdio
    from ..mcp._server import endpoint_url

    if args.http:
        if not 0 <= args.port <= 65535:
            return _error(f"--port must be from 0 to 65535, not {args.port}")
        try:
            access = access_rules(args)
            limits = connection_limits(args)
        except (TokenError, ValueError) as error:
            return _error(str(error))
    try:
        registry = load_registry(args.registry, app_dir=args.app_dir)
    except RegistryLoadError as error:
        return _error(str(error))
    if not args.http:
        serve_stdio(registry)
        return 0
    app = http_app(registry, access=access)
    try:
        sock = listen(args.host, args.port)
    except (OSError, UnicodeError) as error:
        print(f"toolresponse mcp: cannot listen on {args.host} port {args.port}: {error}", file=sys.stderr)
        return 1
    print(endpoint_url(url_of(sock)), flush=True)
    serve_http(app, sock, limits=limits)
    return 0
