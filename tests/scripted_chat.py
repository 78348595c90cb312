"""The agent demo's scripted chat server, extended for the tests.

A script is a list of steps (the n-th request gets the n-th; one past the end is a 400) or a
callable of the request's messages. A step is a ``ScriptedReply`` (its token counts given or
estimated), a ``ScriptedCompletion`` (a body sent as given, however odd), a ``ScriptedHTTPError``
(OpenAI's error body) or a ``ScriptedDisconnect``. Every request body is kept in ``requests``.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Self

from toolresponse.demo import _chat_server
from toolresponse.demo._chat_server import ScriptedToolCall

__all__ = [
    "ScriptedChatServer",
    "ScriptedCompletion",
    "ScriptedDisconnect",
    "ScriptedHTTPError",
    "ScriptedReply",
    "ScriptedToolCall",
]


@dataclass(frozen=True, kw_only=True)
class ScriptedReply(_chat_server.ScriptedReply):
    """A completion: ``content`` and/or ``tool_calls``; token counts are estimated unless given."""

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


ScriptStep = _chat_server.ScriptedReply | ScriptedCompletion | ScriptedHTTPError | ScriptedDisconnect
Script = Sequence[ScriptStep] | Callable[[list[dict[str, Any]]], ScriptStep]


class ScriptedChatServer(_chat_server.ScriptedChatServer):
    """The demo's server with the steps above, the requests kept."""

    def __init__(self, script: Script) -> None:
        super().__init__(lambda messages: ScriptedReply())  # answer() below follows the steps instead
        self.steps = script
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

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

    def answer(self, handler: Any, body: dict[str, Any]) -> None:
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
        if isinstance(step, _chat_server.ScriptedReply):
            return ScriptedCompletion(body=self.completion(index, step, body))
        if isinstance(step, ScriptedCompletion | ScriptedHTTPError | ScriptedDisconnect):
            return step
        return ScriptedHTTPError(status=400, message=f"the script gave {type(step).__name__}, not a step")

    def completion(self, index: int, reply: Any, body: Mapping[str, Any]) -> dict[str, Any]:
        completion = super().completion(index, reply, body)
        usage = completion["usage"]
        for name in ("prompt_tokens", "completion_tokens"):
            given = getattr(reply, name, None)
            usage[name] = usage[name] if given is None else given
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return completion
