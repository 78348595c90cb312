"""A scripted OpenAI-compatible chat server on loopback, for tests and the demo.

``ScriptedChatServer`` is a real HTTP server (the standard library's
``ThreadingHTTPServer``, so it needs no extra dependency) that answers
``POST /v1/chat/completions`` as an OpenAI-compatible server does, tool calls
included. What it answers is scripted: either a list of steps, served one per
request in order, or a callable that receives the request's messages and
returns the step, so that the script can react to the tool results it reads.

A step is a :class:`ScriptedReply` (a completion: text and/or tool calls),
a :class:`ScriptedCompletion` (a completion body sent exactly as given, for
replies no well-behaved server sends), a :class:`ScriptedHTTPError` (a status
such as 429 or 500, with headers such as ``Retry-After``) or a
:class:`ScriptedDisconnect` (the connection closes with no answer). Every request
body is recorded in ``requests``.

::

    with ScriptedChatServer([ScriptedReply(content="4")]) as server:
        model = OpenAIChatModel("scripted", base_url=server.base_url)

The server listens on 127.0.0.1 on a free port, in a background thread, and
stops when the ``with`` block ends.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "ScriptStep",
    "ScriptedChatServer",
    "ScriptedCompletion",
    "ScriptedDisconnect",
    "ScriptedHTTPError",
    "ScriptedReply",
    "ScriptedToolCall",
]


@dataclass(frozen=True, kw_only=True)
class ScriptedToolCall:
    """A tool call in a scripted reply; ``arguments`` is sent as is when a string, else as JSON."""

    name: str
    arguments: str | Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(dict(self.arguments), separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, kw_only=True)
class ScriptedReply:
    """A chat completion: ``content`` and/or ``tool_calls``; token counts are estimated unless given."""

    content: str | None = None
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True, kw_only=True)
class ScriptedCompletion:
    """A chat completion body sent as it is (status 200), however odd: arguments as an object, usage
    counts that are not numbers, content as a list of parts ..."""

    body: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class ScriptedHTTPError:
    """An HTTP error answer in OpenAI's error format, e.g. 429 with ``{"Retry-After": "2"}``."""

    status: int
    message: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ScriptedDisconnect:
    """The server closes the connection without answering (the client sees a connection error)."""


ScriptStep = ScriptedReply | ScriptedCompletion | ScriptedHTTPError | ScriptedDisconnect
Script = Sequence[ScriptStep] | Callable[[list[dict[str, Any]]], ScriptStep]


_STEPS = (ScriptedReply, ScriptedCompletion, ScriptedHTTPError, ScriptedDisconnect)


def _estimate_tokens(text: str) -> int:
    # A deterministic stand-in for a tokenizer: about four characters a token.
    return (len(text) + 3) // 4


class ScriptedChatServer:
    """An OpenAI-compatible chat server on 127.0.0.1 whose answers are scripted; see the module doc."""

    def __init__(self, script: Script, *, model: str = "scripted-model") -> None:
        if not callable(script):
            steps = list(script)
            for index, step in enumerate(steps):
                if not isinstance(step, _STEPS):
                    raise TypeError(f"script step {index} is {type(step).__name__}, not a scripted step")
        self._script = script
        self.model = model
        self.requests: list[dict[str, Any]] = []
        """Every request body received on ``/v1/chat/completions``, in arrival order."""
        self._lock = threading.Lock()
        self._served = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(
                "the scripted server is not running: use it as a context manager or call start()"
            )
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """The ``base_url`` to give an OpenAI client: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedChatServer:
        if self._server is not None:
            return self
        server = _LoopbackServer(("127.0.0.1", 0), _handler_for(self))
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="scripted-chat-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = None
        self._thread = None

    def __enter__(self) -> ScriptedChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def tool_messages(self, request_index: int = -1) -> list[dict[str, Any]]:
        """The ``tool`` messages of one recorded request (the last by default): what the model read."""
        return [m for m in self.requests[request_index]["messages"] if m.get("role") == "tool"]

    def _next_step(self, body: dict[str, Any]) -> tuple[int, ScriptStep]:
        with self._lock:
            self.requests.append(body)
            index = self._served
            self._served += 1
        if callable(self._script):
            try:
                step = self._script([dict(message) for message in body.get("messages", [])])
            except Exception as exc:
                return index, ScriptedHTTPError(
                    status=400, message=f"the scripted model failed: {type(exc).__name__}: {exc}"
                )
            if not isinstance(step, _STEPS):
                return index, ScriptedHTTPError(
                    status=400,
                    message=f"the scripted model returned {type(step).__name__}, not a scripted step",
                )
            return index, step
        steps = self._script
        if index >= len(steps):
            return index, ScriptedHTTPError(
                status=400,
                message=f"the script is exhausted: it has {len(steps)} steps, this is request {index + 1}",
            )
        return index, steps[index]

    def completion(self, index: int, reply: ScriptedReply, body: Mapping[str, Any]) -> dict[str, Any]:
        """The chat completion JSON for one scripted reply."""
        tool_calls: list[dict[str, Any]] = [
            {
                "id": call.id or f"call_{index + 1}_{number + 1}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_text()},
            }
            for number, call in enumerate(reply.tool_calls)
        ]
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        prompt = (
            reply.prompt_tokens
            if reply.prompt_tokens is not None
            else _estimate_tokens(json.dumps(body.get("messages", [])))
        )
        written = (reply.content or "") + "".join(call["function"]["arguments"] for call in tool_calls)
        completion = (
            reply.completion_tokens if reply.completion_tokens is not None else _estimate_tokens(written)
        )
        return {
            "id": f"chatcmpl-scripted-{index + 1}",
            "object": "chat.completion",
            "created": 0,
            "model": str(body.get("model") or self.model),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }


class _LoopbackServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (a timeout test, a closed connection) is not an error of the script.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind = (
        "rate_limit_error" if status == 429 else "server_error" if status >= 500 else "invalid_request_error"
    )
    return {
        "error": {"message": message or HTTPStatus(status).phrase, "type": kind, "code": None, "param": None}
    }


def _handler_for(owner: ScriptedChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "ScriptedChatServer/1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests and the demo read the recorded requests, not a log."""

        def _send_json(
            self, status: int, payload: Mapping[str, Any], headers: Mapping[str, str] = {}
        ) -> None:
            body = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send_json(200, {"object": "list", "data": [{"id": owner.model, "object": "model"}]})
            else:
                self._send_json(404, _error_body(404, f"no route {self.path}"))

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send_json(404, _error_body(404, f"no route {self.path}"))
                return
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"null")
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                self._send_json(400, _error_body(400, f"the request body is not JSON: {exc}"))
                return
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                self._send_json(400, _error_body(400, "the request body needs a 'messages' list"))
                return
            if body.get("stream"):
                self._send_json(400, _error_body(400, "the scripted server does not stream"))
                return
            index, step = owner._next_step(body)
            if isinstance(step, ScriptedDisconnect):
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if isinstance(step, ScriptedHTTPError):
                self._send_json(step.status, _error_body(step.status, step.message), step.headers)
                return
            if isinstance(step, ScriptedCompletion):
                self._send_json(200, step.body)
                return
            self._send_json(200, owner.completion(index, step, body))

    return Handler
