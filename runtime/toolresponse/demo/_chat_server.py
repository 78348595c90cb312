"""A scripted OpenAI-compatible chat server on loopback: the agent demo's model, and the tests'.

Not API. ``ScriptedChatServer(script)`` answers ``POST /v1/chat/completions`` on 127.0.0.1 (a free
port, a background thread), so that the official ``openai`` client talks to it as to any server.
Each request gets the next step of a list, or what a callable returns for the request's messages:
a ``ScriptedReply``, a ``ScriptedCompletion`` (a body sent as given, however odd), a
``ScriptedHTTPError`` (OpenAI's error body) or a ``ScriptedDisconnect``. Every request body is
kept in ``requests``.
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

    def __init__(self, script: Script, *, model: str = "scripted-model") -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def start(self) -> ScriptedChatServer:
        self._thread = threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self.shutdown()
            self._thread = None
        self.server_close()

    def __enter__(self) -> ScriptedChatServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # a client that gave up is no error
            super().handle_error(request, client_address)

    def tool_messages(self, request_index: int = -1) -> list[dict[str, Any]]:
        """The ``tool`` messages of one recorded request (the last by default): what the model read."""
        return [m for m in self.requests[request_index]["messages"] if m.get("role") == "tool"]

    def answer(self, body: dict[str, Any]) -> ScriptStep:
        """The step for one request, a reply made a completion; a 400 when the script has none."""
        with self._lock:
            self.requests.append(body)
            index = len(self.requests) - 1
        if not callable(self.script) and index >= len(self.script):
            message = f"the script is exhausted: it has {len(self.script)} steps, this is request {index + 1}"
            return ScriptedHTTPError(status=400, message=message)
        try:
            step = self.script(body["messages"]) if callable(self.script) else self.script[index]
        except Exception as exc:
            return ScriptedHTTPError(
                status=400, message=f"the scripted model failed: {type(exc).__name__}: {exc}"
            )
        if isinstance(step, ScriptedReply):
            return ScriptedCompletion(body=self._completion(index, step, body))
        if isinstance(step, ScriptedCompletion | ScriptedHTTPError | ScriptedDisconnect):
            return step
        return ScriptedHTTPError(status=400, message=f"the script gave {type(step).__name__}, not a step")

    def _completion(self, index: int, reply: ScriptedReply, body: Mapping[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        calls: list[dict[str, Any]] = [
            {"id": call.id or f"call_{index + 1}_{number + 1}", "type": "function",
             "function": {"name": call.name, "arguments": _json(call.arguments)}}
            for number, call in enumerate(reply.tool_calls)
        ]  # fmt: skip
        if calls:
            message["tool_calls"] = calls
        written = (reply.content or "") + "".join(call["function"]["arguments"] for call in calls)
        prompt, completion = reply.prompt_tokens, reply.completion_tokens
        usage = {  # about four characters a token: a deterministic stand-in for a tokenizer
            "prompt_tokens": (len(json.dumps(body["messages"])) + 3) // 4 if prompt is None else prompt,
            "completion_tokens": (len(written) + 3) // 4 if completion is None else completion,
        }
        choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
        return {
            "id": f"chatcmpl-scripted-{index + 1}",
            "object": "chat.completion",
            "created": 0,
            "model": str(body.get("model") or self.model),
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
        """Quiet: the tests and the demo read the recorded requests."""

    def do_POST(self) -> None:
        try:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        except ValueError:
            body = None
        if self.path.rstrip("/") != "/v1/chat/completions":
            step: ScriptStep = ScriptedHTTPError(status=404, message=f"no route {self.path}")
        elif not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            step = ScriptedHTTPError(status=400, message="the request body needs a 'messages' list")
        else:
            step = self.server.answer(body)
        if isinstance(step, ScriptedDisconnect):
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        status, payload = 200, step.body if isinstance(step, ScriptedCompletion) else {}
        headers: Mapping[str, str] = {}
        if isinstance(step, ScriptedHTTPError):
            kind = (
                "rate_limit" if step.status == 429 else "server" if step.status >= 500 else "invalid_request"
            )
            status, headers = step.status, step.headers
            error = {"message": step.message or HTTPStatus(step.status).phrase, "type": f"{kind}_error"}
            payload = {"error": {**error, "code": None, "param": None}}
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        sent = {"Content-Type": "application/json", "Content-Length": str(len(data)), **headers}
        for name, value in sent.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
