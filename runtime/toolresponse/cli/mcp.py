"""``toolresponse mcp serve|list|call``: MCP both ways from the command line (docs/mcp-binding.md).

``serve`` serves a ToolRegistry over stdio or streamable HTTP (with ``toolresponse serve``'s access
options and limits); ``list`` prints a server's tools as registered here, ``call`` one call's
ToolResponse, both within ``--timeout``. Exit status: 0 for a success or partial response (and a
listing), 1 for an error response, 2 for usage errors and a missing extra (``toolresponse[mcp]``).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import logging
import os
import sys
from typing import Any, TextIO

import orjson

from .. import mask_secrets
from .._errors import MalformedJsonError, McpConnectError, RegistryLoadError, ToolDefinitionError
from .._response import ToolResponse, loads_strict
from ..http._access import TOKEN_ENV, load_token
from ..http._serve import listen, url_of
from ..tools import load_registry
from ..tools._registry import ToolRegistry
from ._input import fail, seconds
from .serve import add_http_arguments, add_server_arguments, http_settings


def _peer_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--stdio", metavar="COMMAND", help='the server\'s command line, e.g. "mcp-server-time"'
    )
    where.add_argument("--url", help="the server's streamable-HTTP endpoint, e.g. http://127.0.0.1:8000/mcp")
    parser.add_argument(
        "--timeout",
        type=seconds,
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
    add_http_arguments(serve)
    listing = verbs.add_parser("list", help="list an MCP server's tools")
    _peer_options(listing)
    call = verbs.add_parser("call", help="call one tool of an MCP server; print its ToolResponse")
    _peer_options(call)
    call.add_argument("tool", help="the tool's name, as the server lists it")
    call.add_argument("arguments", nargs="?", default="{}", metavar="JSON-ARGS", help="a JSON object")


_error = functools.partial(fail, "toolresponse mcp")


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
        env = _environment(args)
        arguments = None if args.verb == "list" else _json_arguments(args.arguments)
    except ValueError as error:  # a TokenError too
        return _error(str(error))
    if not args.verbose:
        logging.getLogger("mcp").addHandler(_OneLine())
        logging.getLogger("mcp").propagate = False
    with open(os.devnull, "w", encoding="utf-8") as discard:  # a --stdio server's stderr, unless --verbose
        return _attached(args, token, env, None if args.verbose else discard, arguments)


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


def _environment(args: argparse.Namespace) -> dict[str, str]:
    """The --stdio server's environment; a bad --env is a ``ValueError`` not showing its value
    (it may be a secret)."""
    env = {} if args.no_inherit_env else dict(os.environ)
    for position, pair in enumerate(args.env, 1):
        key, equals, value = pair.partition("=")
        if not equals or not key:
            lacks = "'='" if not equals else "KEY before its '='"
            raise ValueError(f"--env takes KEY=VALUE: --env number {position} has no {lacks}")
        env[key] = value
    return env


def _json_arguments(text: str) -> dict[str, Any]:
    try:
        parsed = loads_strict(text)
    except MalformedJsonError as error:
        raise ValueError(f"JSON-ARGS is not JSON: {error.reason}") from None
    if not isinstance(parsed, dict):
        raise ValueError(f"JSON-ARGS must be a JSON object, not {type(parsed).__name__}")
    return parsed


def _attached(
    args: argparse.Namespace,
    token: str | None,
    env: dict[str, str],
    stderr: TextIO | None,
    arguments: dict[str, Any] | None,
) -> int:
    """Attach the server and list its tools or call one (``arguments`` given), all within --timeout."""
    from ..mcp import aattach, connect
    from ..mcp._attach import local_name

    target = str(args.url if args.url is not None else args.stdio)
    try:
        connection = connect(target, token=token, env=env, timeout_s=args.timeout, stderr=stderr)
    except ValueError as error:  # an empty command, an unclosed quote
        return _error(f"--stdio: {error}")
    registry = ToolRegistry()

    async def listed_or_called() -> ToolResponse | None:
        async with asyncio.timeout(args.timeout):
            await aattach(registry, connection, timeout_s=args.timeout)
            return None if arguments is None else await registry.aexecute(local_name(args.tool), arguments)

    with connection:  # the answer is printed before the server is stopped (which takes seconds)
        try:
            response = connection.wait_on_loop(listed_or_called())
        except McpConnectError as error:
            response = error.response
            _hint_stderr(args)
        except TimeoutError:
            doing = "the listing of its tools" if arguments is None else f"the call of tool {args.tool!r}"
            response = connection.timeout_error(args.timeout, f"{doing} (connecting included)")
            _hint_stderr(args)
        except ToolDefinitionError as error:  # a tool that cannot be registered
            return _error(str(error))
        if response is not None:
            _print(response.to_dict())
            return 1 if response.is_error else 0
        for spec in registry.list_tools():
            _print({name: value for name, value in spec.to_dict().items() if name != "timeout_s"})
        return 0


def _hint_stderr(args: argparse.Namespace) -> None:
    if args.stdio is not None and not args.verbose:
        print("toolresponse mcp: the server's stderr was discarded; --verbose shows it", file=sys.stderr)


def _serve(args: argparse.Namespace) -> int:
    from ..mcp import http_app, serve_http, serve_stdio
    from ..mcp._server import endpoint_url

    try:
        access, limits = http_settings(args) if args.http else (None, None)
        registry = load_registry(args.registry, app_dir=args.app_dir)
    except (ValueError, RegistryLoadError) as error:
        return _error(str(error))
    if not args.http:
        serve_stdio(registry)
        return 0
    app = http_app(registry, access=access)
    try:
        sock = listen(args.host, args.port)
    except (OSError, UnicodeError) as error:
        return _error(f"cannot listen on {args.host} port {args.port}: {error}", 1)
    print(endpoint_url(url_of(sock)), flush=True)
    serve_http(app, sock, limits=limits)
    return 0
