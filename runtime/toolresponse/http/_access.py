"""Who may reach the HTTP binding (and the MCP face): the Host and Origin allow-lists and the
bearer token (``docs/security.md``). A token is compared with ``hmac.compare_digest`` and never
logged, echoed or put in a response.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from toolresponse_generated import ErrorCode
from toolresponse_generated.http_binding import (
    AUTHENTICATE_HEADER,
    BEARER_SCHEME,
    HTTP_STATUS,
    MEDIA_TYPE,
    UNAUTHORIZED_CODE,
    UNAUTHORIZED_STATUS,
)

from .._response import ToolResponse

if TYPE_CHECKING:  # Starlette (the extra) is imported by the guard only: a CLI reads tokens here
    from starlette.responses import Response
    from starlette.types import ASGIApp, Receive, Scope, Send

ANY = "*"  # in an allow-list: any value
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
TOKEN_ENV = "TOOLRESPONSE_TOKEN"  # noqa: S105 - the variable's name, not a token
MIN_TOKEN_LENGTH = 16  # secrets.token_urlsafe(32) gives 43
BEARER_CALLER = "bearer"
"""The caller of a request that carried the server's bearer token (one token, so one subject)."""
ANONYMOUS_CALLER = "anonymous"
"""The caller of a request to a server that requires no token."""

_TOKEN = re.compile(r"[A-Za-z0-9\-._~+/]+=*")  # RFC 6750's b64token
_CHALLENGE = f'{BEARER_SCHEME} realm="toolresponse"'


class TokenError(ValueError):
    """A bearer token that cannot be used (unreadable, empty, too short, a character it cannot have)."""


def check_token(token: str, where: str) -> str:
    """``token`` without surrounding white space, or ``TokenError`` naming ``where`` it came from."""
    token = token.strip()
    if not token:
        raise TokenError(f"{where} is empty")
    if _TOKEN.fullmatch(token) is None:
        raise TokenError(
            f"{where} has a character a bearer token cannot have (letters, digits and -._~+/ only,"
            " then = padding)"
        )
    if len(token) < MIN_TOKEN_LENGTH:
        raise TokenError(
            f"{where} is {len(token)} characters long, under {MIN_TOKEN_LENGTH}; make one with"
            " python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    return token


def load_token(token_file: str | os.PathLike[str] | None, environ: Mapping[str, str]) -> str | None:
    """The bearer token: ``token_file``'s first line when given, else ``TOOLRESPONSE_TOKEN`` in
    ``environ``, else None; ``TokenError`` for a file that cannot be read or a bad token."""
    if token_file is None:
        value = environ.get(TOKEN_ENV)
        return None if value is None else check_token(value, f"the environment variable {TOKEN_ENV}")
    path = Path(token_file)
    try:
        lines = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise TokenError(f"cannot read the token file {path}: {error}") from None
    return check_token(lines[0] if lines else "", f"the token file {path}")


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` serves this machine only (a loopback address or ``localhost``)."""
    name = host.strip().strip("[]").lower().rstrip(".")
    try:
        return name == "localhost" or ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _normal_host(value: str) -> str:
    """A host name as compared: lower case, no port, brackets or trailing dot; a value that is no
    host with an optional port (``[::1]evil``, ``localhost:x``) is kept whole, matching nothing."""
    value = value.strip().lower()
    if value.startswith("["):
        name, bracket, port = value[1:].partition("]")
        if not bracket or not _is_port_suffix(port):
            return value
    else:
        name, colon, port = value.partition(":") if value.count(":") == 1 else (value, "", "")
        if colon and not _is_port_suffix(colon + port):
            return value
    return name.rstrip(".")


def _is_port_suffix(text: str) -> bool:
    """Whether ``text`` is what may follow a host: nothing, or a colon and a port number."""
    return not text or (text[0] == ":" and text[1:].isascii() and text[1:].isdigit())


def _normal_origin(value: str) -> str:
    return value.strip().lower().rstrip("/")


@dataclass(frozen=True, kw_only=True)
class AccessRules:
    """Which requests a server accepts: the ``hosts`` a ``Host`` may name (port ignored), the
    ``origins`` besides loopback ones (a request without ``Origin`` passes, ``Origin: null`` does
    not), ``"*"`` for any, and the bearer ``token`` every request must carry, or None."""

    hosts: frozenset[str] = LOOPBACK_HOSTS
    origins: frozenset[str] = frozenset()
    token: str | None = field(default=None, repr=False)

    @property
    def caller(self) -> str:
        """Who a request let through is: ``BEARER_CALLER`` with a token, else ``ANONYMOUS_CALLER``."""
        return ANONYMOUS_CALLER if self.token is None else BEARER_CALLER

    @classmethod
    def of(
        cls, *, hosts: Iterable[str] = (), origins: Iterable[str] = (), token: str | None = None
    ) -> AccessRules:
        """The loopback defaults plus ``hosts`` and ``origins``, normalised, with ``token`` checked."""
        return cls(
            hosts=LOOPBACK_HOSTS | {_normal_host(host) if host != ANY else ANY for host in hosts},
            origins=frozenset(_normal_origin(origin) for origin in origins),
            token=None if token is None else check_token(token, "the token"),
        )

    def host_allowed(self, host: str | None) -> bool:
        return ANY in self.hosts or (host is not None and _normal_host(host) in self.hosts)

    def origin_allowed(self, origin: str | None) -> bool:
        if origin is None or ANY in self.origins or _normal_origin(origin) in self.origins:
            return True
        scheme, _, rest = _normal_origin(origin).partition("://")
        return scheme in ("http", "https") and "/" not in rest and _normal_host(rest) in LOOPBACK_HOSTS


def _refusal(status: int, response: ToolResponse, headers: Mapping[str, str] | None = None) -> Response:
    from starlette.responses import Response

    return Response(response.to_json_bytes(), status, headers, MEDIA_TYPE)


def _denied(reason: str, message: str, **details: str | None) -> Response:
    kept = {key: value for key, value in details.items() if value is not None}
    code = ErrorCode.ACCESS_DENIED
    return _refusal(HTTP_STATUS[code], ToolResponse.error(code, message, details={"reason": reason, **kept}))


def _host_refusal(rules: AccessRules, hosts: list[str]) -> Response | None:
    host = hosts[0] if len(hosts) == 1 else None
    if rules.host_allowed(host):
        return None
    shown = (
        f"Host {host!r}" if host is not None else "more than one Host header" if hosts else "no Host header"
    )
    message = (
        f"This server does not answer requests for {shown}: it serves {', '.join(sorted(rules.hosts))}"
        " (the server's --allow-host option adds a name)."
    )
    return _denied("host", message, host=host)


def _origin_refusal(rules: AccessRules, origins: list[str]) -> Response | None:
    origin = origins[0] if len(origins) == 1 else None
    if len(origins) <= 1 and rules.origin_allowed(origin):
        return None
    shown = "more than one Origin" if len(origins) > 1 else f"the origin {origin!r}"
    message = (
        f"This server does not answer requests from {shown}: only loopback origins"
        " (the server's --allow-origin option adds one)."
    )
    return _denied("origin", message, origin=origin)


def _token_refusal(rules: AccessRules, authorizations: list[str]) -> Response | None:
    if rules.token is None:
        return None
    scheme, _, presented = authorizations[0].strip().partition(" ") if len(authorizations) == 1 else ("",) * 3
    if scheme.lower() != BEARER_SCHEME.lower() or not presented.strip():
        message = f"This server needs a bearer token: send the header Authorization: {BEARER_SCHEME} <token>."
        reason, challenge = "missing_token", _CHALLENGE
    elif not hmac.compare_digest(presented.strip().encode("latin-1"), rules.token.encode("ascii")):
        message = "The bearer token is not this server's."
        reason, challenge = "invalid_token", f'{_CHALLENGE}, error="invalid_token"'
    else:
        return None
    response = ToolResponse.error(UNAUTHORIZED_CODE, message, details={"reason": reason})
    return _refusal(UNAUTHORIZED_STATUS, response, {AUTHENTICATE_HEADER: challenge})


class AccessGuard:
    """ASGI middleware: an HTTP request the ``rules`` refuse is answered here, its body unread:
    ``Host`` (403), ``Origin`` (403), then the bearer token (401), each ACCESS_DENIED with the rule
    in ``details.reason``."""

    def __init__(self, app: ASGIApp, rules: AccessRules) -> None:
        if not isinstance(rules, AccessRules):
            raise TypeError(f"rules must be AccessRules, not {type(rules).__name__}")
        self.app = app
        self.rules = rules

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from starlette.datastructures import Headers

        refused = None
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            refused = (
                _host_refusal(self.rules, headers.getlist("host"))
                or _origin_refusal(self.rules, headers.getlist("origin"))
                or _token_refusal(self.rules, headers.getlist("authorization"))
            )
        answer = self.app if refused is None else refused
        await answer(scope, receive, send)
