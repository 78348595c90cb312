"""The agent demo's model: a scripted OpenAI-compatible chat server on loopback. Not API.

``ScriptedChatServer(script)`` answers ``POST /v1/chat/completions`` on 127.0.0.1 (a free port, a
background thread) with the completion of ``script(messages)``, a ``ScriptedReply``, so that the
official ``openai`` client talks to it as to any server (``with`` starts and stops it). The tests
extend it (lists of steps, error answers, dropped connections): ``tests/scripted_chat.py``.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
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
    """A completion: ``content`` and/or ``tool_calls``."""

    content: str | None = None
    tool_calls: tuple[ScriptedToolCall, ...] = ()


class ScriptedChatServer(ThreadingHTTPServer):
    """An OpenAI-compatible chat server on 127.0.0.1 whose answers are scripted; see the module doc."""

    daemon_threads = True

    def __init__(self, script: Callable[[list[dict[str, Any]]], ScriptedReply]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self._count = itertools.count()

    def __enter__(self) -> Self:
        threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True).start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.shutdown()
        self.server_close()

    def answer(self, handler: _Handler, body: dict[str, Any]) -> None:
        """Answer one request whose body holds a ``messages`` list."""
        try:
            reply = self.script(body["messages"])
        except Exception as error:  # said to the client, not a dropped connection
            message = f"the scripted model failed: {type(error).__name__}: {error}"
            handler.send(400, {"error": {"message": message, "type": "invalid_request_error"}})
            return
        handler.send(200, self.completion(next(self._count), reply, body))

    def completion(self, index: int, reply: ScriptedReply, body: Mapping[str, Any]) -> dict[str, Any]:
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
        usage = {  # about four characters a token: a deterministic stand-in for a tokenizer
            "prompt_tokens": (len(json.dumps(body["messages"])) + 3) // 4,
            "completion_tokens": (len(written) + 3) // 4,
        }
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
