"""A scripted OpenAI-compatible chat server on loopback, so that the official ``openai`` client
talks to it as to any server.

``ScriptedChatServer(script)`` answers ``POST /v1/chat/completions`` on 127.0.0.1 (a free port, a
background thread; ``with``, or ``start()`` and ``close()``). A script is a list of steps (the n-th
request gets the n-th; one past the end is a 400) or a callable of the request's messages. A step
is a ``ScriptedReply`` (its token counts given, else about four characters a token), a
``ScriptedCompletion`` (a body sent as given, however odd), a ``ScriptedHTTPError`` (OpenAI's error
body) or a ``ScriptedDisconnect``; a script that raises is a 400 naming the error. Every request
body is kept in ``requests``.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass(frozen=True, kw_only=True)
class ScriptedToolCall:
    """A tool call of a scripted reply; ``arguments`` is sent as is when a string, else as JSON."""

    name: str
    arguments: str | Mapping[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass(frozen=True, kw_only=True)
class ScriptedReply:
    """A completion: ``content`` and/or ``tool_calls``; token counts are estimated unless given."""

    content: str | None = None
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True, kw_only=True)
class ScriptedCompletion:
    """A completion body sent as it is, with status 200."""

    body: Mapping[str, Any]


@dataclass(frozen=True, kw_only=True)
class ScriptedHTTPError:
    """An error answer in OpenAI's format, e.g. 429 with ``{"Retry-After": "2"}``."""

    status: int
    message: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)


class ScriptedDisconnect:
    """The server closes the connection without answering."""


ScriptStep = ScriptedReply | ScriptedCompletion | ScriptedHTTPError | ScriptedDisconnect
Script = Sequence[ScriptStep] | Callable[[list[dict[str, Any]]], ScriptStep]


class ScriptedChatServer(ThreadingHTTPServer):
    """An OpenAI-compatible chat server on 127.0.0.1 whose answers are scripted; see the module doc."""

    daemon_threads = True

    def __init__(self, script: Script) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.steps = script
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Self:
        threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()
        self.server_close()

    def start(self) -> Self:
        return self.__enter__()

    def close(self) -> None:
        self.__exit__()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that gave up is no error
            super().handle_error(request, client_address)

    def tool_messages(self, request_index: int = -1) -> list[dict[str, Any]]:
        """The ``tool`` messages of one recorded request (the last by default): what the model read."""
        return [m for m in self.requests[request_index]["messages"] if m.get("role") == "tool"]

    def answer(self, handler: _Handler, body: dict[str, Any]) -> None:
        step = self.step(body)
        if isinstance(step, ScriptedDisconnect):
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
        elif isinstance(step, ScriptedHTTPError):
            kind = (
                "rate_limit" if step.status == 429 else "server" if step.status >= 500 else "invalid_request"
            )
            message = step.message or HTTPStatus(step.status).phrase
            error = {"message": message, "type": f"{kind}_error", "code": None, "param": None}
            handler.send(step.status, {"error": error}, step.headers.items())
        else:
            handler.send(200, step.body)

    def step(self, body: dict[str, Any]) -> ScriptedCompletion | ScriptedHTTPError | ScriptedDisconnect:
        """The step for one request, a reply made a completion; a 400 when the script has none."""
        with self._lock:
            self.requests.append(body)
            index = len(self.requests) - 1
        steps = self.steps
        if not callable(steps) and index >= len(steps):
            message = f"the script is exhausted: it has {len(steps)} steps, this is request {index + 1}"
            return ScriptedHTTPError(status=400, message=message)
        try:
            step = steps(body["messages"]) if callable(steps) else steps[index]
        except Exception as exc:
            message = f"the scripted model failed: {type(exc).__name__}: {exc}"
            return ScriptedHTTPError(status=400, message=message)
        if isinstance(step, ScriptedReply):
            return ScriptedCompletion(body=_completion(index, step, body))
        if isinstance(step, ScriptedCompletion | ScriptedHTTPError | ScriptedDisconnect):
            return step
        return ScriptedHTTPError(status=400, message=f"the script gave {type(step).__name__}, not a step")


def _completion(index: int, reply: ScriptedReply, body: Mapping[str, Any]) -> dict[str, Any]:
    """The completion body of ``reply`` to the request numbered ``index`` (from 0)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    calls: list[dict[str, Any]] = [
        {"id": call.id or f"call_{index + 1}_{number + 1}", "type": "function",
         "function": {"name": call.name, "arguments": _json(call.arguments)}}
        for number, call in enumerate(reply.tool_calls)
    ]  # fmt: skip
    if calls:
        message["tool_calls"] = calls
    written = (reply.content or "") + "".join(call["function"]["arguments"] for call in calls)
    estimated = {  # about four characters a token: a deterministic stand-in for a tokenizer
        "prompt_tokens": (len(json.dumps(body["messages"])) + 3) // 4,
        "completion_tokens": (len(written) + 3) // 4,
    }
    given = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens}
    usage = {name: estimated[name] if given[name] is None else given[name] for name in estimated}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    return {
        "id": f"chatcmpl-scripted-{index + 1}",
        "object": "chat.completion",
        "created": 0,
        "model": str(body.get("model") or "scripted-model"),
        "choices": [{**choice, "logprobs": None}],
        "usage": {**usage, "total_tokens": sum(usage.values())},
    }


def _json(arguments: str | Mapping[str, Any]) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps(dict(arguments), separators=(",", ":"), ensure_ascii=False)


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedChatServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        except ValueError:
            body = None
        if self.path.rstrip("/") != "/v1/chat/completions":
            self.send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
        elif not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self.send(400, {"error": {"message": "no 'messages' list", "type": "invalid_request_error"}})
        else:
            self.server.answer(self, body)

    def send(self, status: int, payload: Any, headers: Iterable[tuple[str, str]] = ()) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        sent = (("Content-Type", "application/json"), ("Content-Length", str(len(data))), *headers)
        for name, value in sent:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
