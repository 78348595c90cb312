"""The HTTP server against hostile clients, on a real uvicorn on loopback, over raw sockets.

Tools that raise what no tool may (``SystemExit``, ``KeyboardInterrupt``, ``CancelledError``,
another ``BaseException``) get a ToolResponse and the server goes on serving; a head that never
completes and an idle connection are closed; a body trickled past its deadline gets 408 TIMEOUT;
a client that half-closes after a complete request gets its answer; and every request of the
hostile corpus (``tests/hostile/http/*.http``, the table ``expected.json``; the directory can be
replaced by ``TOOLRESPONSE_HOSTILE_DIR``, which holds ``http/``) gets the answer the table says.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from toolresponse import ErrorCode, ToolRegistry, validate
from toolresponse.http import ConnectionLimits, create_app, serve_in_background
from toolresponse.http._fixtures import status_problem, transport_refusal

HOSTILE = Path(os.environ.get("TOOLRESPONSE_HOSTILE_DIR", Path(__file__).parent / "hostile")) / "http"
EXPECTED: dict[str, Any] = json.loads((HOSTILE / "expected.json").read_text(encoding="utf-8"))
SOCKET_TIMEOUT_S = 20.0
"""How long a test waits on a socket before it calls the server hung."""


@dataclass(frozen=True)
class RawAnswer:
    status: int
    headers: dict[str, str]
    body: bytes


def connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    assert parts.hostname is not None
    assert parts.port is not None
    return socket.create_connection((parts.hostname, parts.port), timeout=SOCKET_TIMEOUT_S)


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a reset counts as a close)."""
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return received
        if not chunk:
            return received
        received += chunk


def parse_answers(data: bytes, *, closed: bool = True) -> list[RawAnswer]:
    """The complete HTTP/1.1 answers in ``data``, one after the other (Content-Length or chunked
    bodies; without either, the body runs to the close, so it is complete only once ``closed``)."""
    answers: list[RawAnswer] = []
    while data:
        head, separator, rest = data.partition(b"\r\n\r\n")
        if not separator:
            assert not closed, f"an incomplete answer head: {data[:200]!r}"
            return answers
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                size_line, found, rest = rest.partition(b"\r\n")
                if not found:
                    return answers
                size = int(size_line, 16)
                body, rest = body + rest[:size], rest[size + 2 :]
                if size == 0:
                    break
        elif "content-length" in headers:
            length = int(headers["content-length"])
            if len(rest) < length:
                return answers
            body, rest = rest[:length], rest[length:]
        elif closed:  # the body runs to the close
            body, rest = rest, b""
        else:
            return answers
        answers.append(RawAnswer(int(status_line.split()[1]), headers, body))
        data = rest
    return answers


def exchange(
    url: str, request: bytes, *, half_close: bool = False, count: int | None = None
) -> list[RawAnswer]:
    """Send ``request`` on a new connection and read the answers until the server closes it (or,
    given ``count``, until that many answers are complete)."""
    with connect(url) as sock:
        try:
            sock.sendall(request)
            if half_close:
                sock.shutdown(socket.SHUT_WR)
        except OSError:  # the server may refuse before it has read everything
            pass
        received = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                return parse_answers(received)
            received += chunk
            if count is not None and len(parse_answers(received, closed=False)) >= count:
                return parse_answers(received, closed=False)


def assert_tool_response(answer: RawAnswer) -> dict[str, Any]:
    """The answer is a valid ToolResponse whose HTTP status follows its code; its body."""
    assert "application/json" == answer.headers.get("content-type"), answer
    body: dict[str, Any] = json.loads(answer.body)
    assert () == validate(body).errors
    code = body.get("error_info", {}).get("code")
    assert status_problem(body["status"], ErrorCode(code) if code else None, answer.status) is None
    return body


class Escape(BaseException):
    """A BaseException of a tool's own."""


def hostile_registry() -> ToolRegistry:
    """Tools that raise what no tool may, and one well-behaved tool."""
    registry = ToolRegistry()

    @registry.tool
    def exits() -> dict[str, Any]:
        """Raises SystemExit."""
        raise SystemExit(3)

    @registry.tool
    def interrupts() -> dict[str, Any]:
        """Raises KeyboardInterrupt."""
        raise KeyboardInterrupt

    @registry.tool
    async def cancels() -> dict[str, Any]:
        """Raises CancelledError of its own."""
        raise asyncio.CancelledError

    @registry.tool
    async def exits_async() -> dict[str, Any]:
        """Raises SystemExit from a coroutine."""
        raise SystemExit(4)

    @registry.tool
    def escapes() -> dict[str, Any]:
        """Raises a BaseException of its own."""
        raise Escape

    @registry.tool
    def echo(text: str) -> dict[str, Any]:
        """Echoes the text."""
        return {"text": text}

    return registry


@pytest.fixture(scope="module")
def hostile_url() -> Iterator[str]:
    with serve_in_background(create_app(hostile_registry())) as url:
        yield url


@pytest.mark.parametrize(
    ("tool", "code", "exception"),
    [
        ("exits", "INTERNAL_ERROR", "SystemExit"),
        ("interrupts", "INTERNAL_ERROR", "KeyboardInterrupt"),
        ("cancels", "EXECUTION_ERROR", "CancelledError"),
        ("exits_async", "INTERNAL_ERROR", "SystemExit"),
        ("escapes", "EXECUTION_ERROR", "Escape"),
    ],
)
def test_a_tool_raising_a_base_exception_gets_a_tool_response(
    hostile_url: str, tool: str, code: str, exception: str
) -> None:
    """A tool raising SystemExit or KeyboardInterrupt (which the registry lets propagate) is
    answered 500 INTERNAL_ERROR by the server; one raising its own CancelledError or another
    BaseException gets the registry's EXECUTION_ERROR; each a ToolResponse naming the
    exception, and the server goes on serving."""
    with httpx.Client(base_url=hostile_url, timeout=SOCKET_TIMEOUT_S) as client:
        answer = client.post(f"/tools/{tool}/invoke", json={}, headers={"X-Call-Id": "c-9"})
        after = client.post("/tools/echo/invoke", json={"text": "still here"})
    assert (500, "application/json") == (answer.status_code, answer.headers["content-type"])
    body = answer.json()
    assert () == validate(body).errors
    assert (code, exception) == (
        body["error_info"]["code"],
        body["error_info"]["details"]["exception"].rpartition(".")[2],
    )
    assert {"tool_name": tool, "call_id": "c-9"} == {
        key: body["context"][key] for key in ("tool_name", "call_id")
    }
    assert (200, "still here") == (after.status_code, after.json()["data"]["text"])


# -- connection limits ---------------------------------------------------------------------

SHORT = ConnectionLimits(head_timeout_s=0.5, keep_alive_s=1)
"""Limits short enough for a test to pass them (the defaults: 10 s head, 5 s keep-alive)."""
BODY_TIMEOUT_S = 0.5


@pytest.fixture(scope="module")
def limited_url() -> Iterator[str]:
    from toolresponse.demo.calculator import build_registry

    app = create_app(build_registry(), body_timeout_s=BODY_TIMEOUT_S)
    with serve_in_background(app, limits=SHORT) as url:
        yield url


CALCULATE = b'{"expression": "2 + 3"}'
INVOKE_HEAD = b"POST /tools/calculator/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n"


def test_a_head_that_never_completes_is_closed(limited_url: str) -> None:
    """A request head that stops half-way is not held open: the server closes the connection, unanswered."""
    with connect(limited_url) as sock:
        sock.sendall(b"GET /tools HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        assert b"" == read_until_closed(sock)


def test_a_connection_that_sends_nothing_is_closed(limited_url: str) -> None:
    """A connection that never sends a byte is closed after the head deadline."""
    with connect(limited_url) as sock:
        assert b"" == read_until_closed(sock)


def test_a_head_trickled_after_a_first_answer_is_closed(limited_url: str) -> None:
    """On a kept-alive connection the next head has its deadline too: bytes trickled in (each one
    resetting the keep-alive timer) do not keep the connection open."""
    with connect(limited_url) as sock:
        sock.sendall(b"GET /tools HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        first = sock.recv(65536)
        sock.sendall(b"GET /tools HTTP/1.1\r\n")
        for _ in range(40):  # far longer than the deadline, if the server held on
            try:
                sock.sendall(b"X")
            except OSError:
                break
            sock.settimeout(0.2)
            try:
                if sock.recv(65536) == b"":
                    break
            except TimeoutError:
                continue
        else:
            pytest.fail("the server held a trickled head open")
    assert first.startswith(b"HTTP/1.1 200")


def test_a_head_after_a_body_sent_past_its_answer_has_its_deadline(limited_url: str) -> None:
    """An answer given before its body arrived (a path outside the binding) starts the next head's
    deadline too: the body sent after it, then half a head, does not keep the connection open."""
    with connect(limited_url) as sock:
        sock.sendall(b"POST /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n")
        received = b""
        while not parse_answers(received, closed=False):
            received += sock.recv(65536)
        sock.sendall(b"{}GET /tools HTTP/1.1\r\n")
        received += read_until_closed(sock)
    assert [404] == [answer.status for answer in parse_answers(received)]


def test_the_rest_of_an_answered_body_has_the_head_deadline(limited_url: str) -> None:
    """A body still arriving after its request was answered (a path outside the binding) is held
    to the next head's deadline: trickled past it, the connection is closed."""
    with connect(limited_url) as sock:
        sock.sendall(b"POST /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n")
        received = b""
        while not parse_answers(received, closed=False):
            received += sock.recv(65536)
        sock.settimeout(SHORT.head_timeout_s / 5)
        deadline = time.monotonic() + 10 * SHORT.head_timeout_s
        while time.monotonic() < deadline:
            try:
                sock.sendall(b"x")
                if sock.recv(65536) == b"":
                    break
            except TimeoutError:
                continue
            except OSError:  # a reset: closed too
                break
        else:
            pytest.fail("the server held open a connection trickling the rest of an answered body")


def test_a_trickled_body_gets_408_timeout(limited_url: str) -> None:
    """A body that has not all arrived by the body deadline is answered 408 TIMEOUT (a ToolResponse,
    details.timeout_s) and the connection is closed."""
    with connect(limited_url) as sock:
        sock.sendall(INVOKE_HEAD % len(CALCULATE) + CALCULATE[:3])
        answers = parse_answers(read_until_closed(sock))
    assert [408] == [answer.status for answer in answers]
    body = assert_tool_response(answers[0])
    assert ("TIMEOUT", {"timeout_s": BODY_TIMEOUT_S}) == (
        body["error_info"]["code"],
        body["error_info"]["details"],
    )
    assert "close" == answers[0].headers.get("connection")


def test_a_half_close_after_a_complete_request_gets_its_answer(limited_url: str) -> None:
    """A client that sends a whole request and then shuts down its sending side gets the answer."""
    answers = exchange(limited_url, INVOKE_HEAD % len(CALCULATE) + CALCULATE, half_close=True)
    assert [200] == [answer.status for answer in answers]
    assert 5 == assert_tool_response(answers[0])["data"]["result"]


def test_a_half_close_in_the_middle_of_a_body_is_closed(limited_url: str) -> None:
    """A client that shuts down its side before its body is complete gets no answer, and no hang."""
    answers = exchange(limited_url, INVOKE_HEAD % len(CALCULATE) + CALCULATE[:3], half_close=True)
    assert [] == answers


def test_an_idle_keep_alive_connection_is_closed(limited_url: str) -> None:
    """After an answer, a connection that sends nothing more is closed (the keep-alive timeout)."""
    with connect(limited_url) as sock:
        sock.sendall(b"GET /tools HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answers = parse_answers(read_until_closed(sock))
    assert [200] == [answer.status for answer in answers]


def test_connections_over_the_cap_are_refused_by_the_transport() -> None:
    """Over ``max_connections`` a request gets the framework's 503, which the runner calls a transport
    error; once connections close, requests are served again."""
    from toolresponse.demo.calculator import build_registry

    limits = ConnectionLimits(max_connections=2)
    with serve_in_background(create_app(build_registry()), limits=limits) as url:
        held = [connect(url), connect(url)]
        try:
            for sock in held:
                sock.sendall(b"GET /tools HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                sock.recv(65536)
            refused = exchange(url, b"GET /tools HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        finally:
            for sock in held:
                sock.close()
        with httpx.Client(base_url=url, timeout=SOCKET_TIMEOUT_S) as client:
            for _ in range(100):
                if client.get("/tools").status_code == 200:
                    break
            else:
                pytest.fail("the server did not serve again once the connections closed")
    assert [503] == [answer.status for answer in refused]
    assert transport_refusal(503, refused[0].headers.get("content-type", "")) is not None


@pytest.mark.parametrize(
    "limits",
    [
        {"head_timeout_s": 0},
        {"head_timeout_s": float("inf")},
        {"keep_alive_s": 1.5},
        {"max_connections": -1},
        {"max_head_bytes": True},
    ],
)
def test_a_bad_limit_is_refused(limits: dict[str, Any]) -> None:
    """Connection limits are finite positive numbers (whole ones where uvicorn counts)."""
    with pytest.raises(ValueError, match=next(iter(limits))):
        ConnectionLimits(**limits)


# -- the hostile corpus --------------------------------------------------------------------

CASES = sorted(HOSTILE.glob("*.http"))


def test_the_table_names_every_request_file_once() -> None:
    """expected.json has one row for each request file, and no other."""
    assert sorted(path.name for path in CASES) == sorted(EXPECTED["cases"])


@pytest.fixture(scope="module")
def corpus_url() -> Iterator[str]:
    from toolresponse.demo.calculator import build_registry

    with serve_in_background(create_app(build_registry())) as url:
        yield url


@pytest.mark.parametrize("path", CASES, ids=lambda path: path.stem)
def test_a_hostile_request_gets_the_documented_answer(corpus_url: str, path: Path) -> None:
    """Each raw request gets the answer of its row: ToolResponses with that status and code, or the
    transport's own refusal (that status, a body that is not JSON); the server then still serves."""
    expected = EXPECTED["cases"][path.name]["answers"]
    answers = exchange(corpus_url, path.read_bytes(), count=len(expected))
    assert [row["status"] for row in expected] == [answer.status for answer in answers]
    for row, answer in zip(expected, answers, strict=True):
        refused = transport_refusal(answer.status, answer.headers.get("content-type", ""))
        if row["answer"] == "transport":
            assert refused is not None, answer
            continue
        assert refused is None
        body = assert_tool_response(answer)
        assert row.get("code") == body.get("error_info", {}).get("code")
    assert httpx.get(f"{corpus_url}/tools", timeout=SOCKET_TIMEOUT_S).status_code == 200
