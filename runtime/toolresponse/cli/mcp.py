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

Exit status: 0 for a success or partial response (and a listing), 1 for an
error response (a server that cannot be reached is NETWORK_ERROR), 2 for
usage errors.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import orjson

from .._errors import MalformedJsonError, McpConnectError, RegistryLoadError, ToolDefinitionError
from .._response import loads_strict
from ..http import TOKEN_ENV, TokenError, listen, load_token, url_of
from ..tools import ToolRegistry, load_registry
from .serve import (
    access_rules,
    add_access_arguments,
    add_limit_arguments,
    add_server_arguments,
    connection_limits,
)

__all__ = ["add_arguments", "run"]


def _peer_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--stdio", metavar="COMMAND", help='the server\'s command line, e.g. "mcp-server-time"'
    )
    where.add_argument("--url", help="the server's streamable-HTTP endpoint, e.g. http://127.0.0.1:8000/mcp")
    parser.add_argument(
        "--timeout", type=float, default=30.0, metavar="SECONDS", help="one call's timeout (default 30)"
    )
    parser.add_argument(
        "--token-file", metavar="FILE", help=f"a bearer token for --url (default: ${TOKEN_ENV} if set)"
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


def _missing_extra(error: ImportError) -> int:
    name = getattr(error, "name", None) or error
    return _error(f"MCP needs the optional extra 'mcp' ({name}): pip install 'toolresponse[mcp]'")


def _print(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value).decode("utf-8") + "\n")
    sys.stdout.flush()


def run(args: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401  (the extra's presence, told before anything else is loaded)
    except ImportError as missing:
        return _missing_extra(missing)
    if args.verb == "serve":
        return _serve(args)
    try:
        token = load_token(args.token_file, os.environ)
    except TokenError as error:
        return _error(str(error))
    if not args.timeout > 0:
        return _error(f"--timeout must be a positive number of seconds, not {args.timeout}")
    if args.verb == "call":
        try:
            arguments = loads_strict(args.arguments)
        except MalformedJsonError as error:
            return _error(f"JSON-ARGS is not JSON: {error.reason}")
        if not isinstance(arguments, dict):
            return _error(f"JSON-ARGS must be a JSON object, not {type(arguments).__name__}")
        return _call(args, token, arguments)
    return _list(args, token)


def _peer(args: argparse.Namespace) -> str:
    return str(args.url if args.url is not None else args.stdio)


def _list(args: argparse.Namespace, token: str | None) -> int:
    from ..mcp import attach

    registry = ToolRegistry()
    try:
        with attach(registry, _peer(args), timeout_s=args.timeout, token=token):
            for spec in registry.list_tools():
                entry = spec.to_dict()
                entry.pop("timeout_s", None)
                _print(entry)
    except McpConnectError as error:
        _print(error.response.to_dict())
        return 1
    except (ValueError, ToolDefinitionError) as error:  # a bad timeout; a tool that cannot be registered
        return _error(str(error))
    return 0


def _call(args: argparse.Namespace, token: str | None, arguments: dict[str, Any]) -> int:
    from ..mcp import attach, local_name

    registry = ToolRegistry()
    try:
        with attach(registry, _peer(args), timeout_s=args.timeout, token=token):
            response = registry.execute(local_name(args.tool), arguments)
    except McpConnectError as error:
        response = error.response
    except (ValueError, ToolDefinitionError) as error:  # a bad timeout; a tool that cannot be registered
        return _error(str(error))
    _print(response.to_dict())
    return 1 if response.is_error else 0


def _serve(args: argparse.Namespace) -> int:
    from ..mcp import endpoint_url, http_app, serve_http, serve_stdio

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
