"""Chat models: the ``ChatModel`` protocol, the normalised ``ModelReply``, and ``OpenAIChatModel``.

Messages and tools are in OpenAI's format (the lingua franca of tool calling). A failed call
raises ``ModelError``, which says whether it may be retried; the agent loop does the retrying.
``openai`` (the extra ``toolresponse[agent]``) is imported only when a model is built.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from toolresponse_generated import ErrorCode

from .._errors import ModelConfigError, ModelError
from .._suggest import shortened

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletion

Message = Mapping[str, Any]
"""One chat message in OpenAI format."""

ToolSchema = Mapping[str, Any]
"""One tool in OpenAI function-calling format (``{"type": "function", "function": {...}}``)."""


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """One tool call the model asked for; ``arguments`` is the raw JSON text the model wrote.

    A call with a ``problem`` (arguments not JSON text, no function name) is answered
    INVALID_FORMAT without running a tool."""

    id: str
    name: str
    arguments: str
    problem: str | None = None

    @property
    def argument_text(self) -> str:
        """The arguments as the tool receives them: blank text is ``{}`` (some servers send "" for a
        call without arguments)."""
        return self.arguments if self.arguments.strip() else "{}"

    @cached_property
    def parsed_arguments(self) -> Any:
        """The JSON value of ``argument_text``, or None when it is not JSON."""
        try:
            return json.loads(self.argument_text)
        except (ValueError, RecursionError):
            return None


@dataclass(frozen=True, kw_only=True)
class TokenUsage:
    """Tokens a model call (or a whole run) consumed."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
        )

    def to_dict(self) -> dict[str, int]:
        return {**asdict(self), "total_tokens": self.total_tokens}


@dataclass(frozen=True, kw_only=True)
class ModelReply:
    """A model's answer, normalised: text, tool calls in the model's order, token usage."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: str | None = None
    model: str | None = None
    notes: tuple[str, ...] = ()
    """What was repaired in the server's reply (a usage count that is not a count, content parts
    joined ...); the agent writes them in the trace's ``model_output`` event."""

    def to_message(self) -> dict[str, Any]:
        """The assistant message that records this reply in the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for call in self.tool_calls
            ]
        return message


@runtime_checkable
class ChatModel(Protocol):
    """What the agent needs of a chat model: one call, sync and async. Both raise
    :class:`ModelError` when the call fails; anything else ends the run as a non-retryable one."""

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> ModelReply: ...

    async def acomplete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> ModelReply: ...


class OpenAIChatModel:
    """A chat model on an OpenAI-compatible ``/v1/chat/completions`` endpoint, with native tool calling.

    Unset settings come from ``OPENAI_BASE_URL`` (default: OpenAI), ``OPENAI_API_KEY`` (a local
    server needs none) and ``TOOLRESPONSE_MODEL``. ``max_retries`` (the client's own) defaults to
    0: the agent loop retries model errors itself, so that there is one retry policy, not two.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 0,
        temperature: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        environ = os.environ if env is None else env
        try:
            import openai
        except ImportError as exc:
            hint = "install the optional extra: pip install 'toolresponse[agent]'"
            raise ModelConfigError(f"OpenAIChatModel needs the openai package; {hint}") from exc
        del openai  # imported here only to fail early with a clear message; methods import it again
        name = model or environ.get("TOOLRESPONSE_MODEL", "").strip()
        if not name:
            raise ModelConfigError("no model name: pass model=... or set TOOLRESPONSE_MODEL")
        self.model = name
        self.base_url = base_url or environ.get("OPENAI_BASE_URL", "").strip() or None
        key = api_key or environ.get("OPENAI_API_KEY", "").strip()
        if not key:
            if self.base_url is None:
                raise ModelConfigError(
                    "no API key: pass api_key=... or set OPENAI_API_KEY "
                    "(or point OPENAI_BASE_URL at a local server)"
                )
            key = "unused"  # local servers (vLLM, Ollama, llama.cpp) ignore the key, the client demands one
        if timeout_s <= 0:
            raise ModelConfigError(f"timeout_s must be > 0, got {timeout_s!r}")
        if max_retries < 0:
            raise ModelConfigError(f"max_retries must be >= 0, got {max_retries!r}")
        self._options: dict[str, Any] = {
            "api_key": key,
            "base_url": self.base_url,
            "timeout": timeout_s,
            "max_retries": max_retries,
        }
        settings = {"temperature": temperature, "extra_body": dict(extra_body) if extra_body else None}
        self._settings = {name: value for name, value in settings.items() if value is not None}
        self._client: openai.OpenAI | None = None
        self._async_client: tuple[asyncio.AbstractEventLoop, openai.AsyncOpenAI] | None = None

    @property
    def name(self) -> str:
        return self.model

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.model!r}, base_url={self.base_url!r})"

    def _request(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> dict[str, Any]:
        request = {"model": self.model, "messages": [dict(message) for message in messages], **self._settings}
        return request | {"tools": [dict(tool) for tool in tools]} if tools else request

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> ModelReply:
        import openai

        self._client = self._client or openai.OpenAI(**self._options)
        with self._model_errors():
            completion = self._client.chat.completions.create(**self._request(messages, tools))
        return self._reply(cast("ChatCompletion", completion))

    async def acomplete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> ModelReply:
        import openai

        # An async client's connections belong to one event loop: a new loop gets a new client.
        loop = asyncio.get_running_loop()
        if self._async_client is None or self._async_client[0] is not loop:
            self._async_client = (loop, openai.AsyncOpenAI(**self._options))
        with self._model_errors():
            completion = await self._async_client[1].chat.completions.create(**self._request(messages, tools))
        return self._reply(cast("ChatCompletion", completion))

    def close(self) -> None:
        """Close the synchronous client's connections (the async one closes with its loop)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    @contextlib.contextmanager
    def _model_errors(self) -> Iterator[None]:
        """An ``openai`` error raised inside as the ModelError that says it."""
        import openai

        try:
            yield
        except openai.APITimeoutError as exc:
            raise ModelError(
                f"no answer within {self._options['timeout']:g} s", code=ErrorCode.TIMEOUT
            ) from exc
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc.__context__
            detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
            where = self.base_url or "the OpenAI API"
            raise ModelError(f"cannot reach {where}{detail}", code=ErrorCode.NETWORK_ERROR) from exc
        except openai.APIStatusError as exc:
            status = exc.status_code
            # A provider means 5xx, 408 and 409 as "try again": API_ERROR, retryable this time.
            again = status >= 500 or status in (408, 409)
            raise ModelError(
                _status_message(exc),
                code=ErrorCode.RATE_LIMIT if status == 429 else ErrorCode.API_ERROR,
                retryable=True if again else None,
                status_code=status,
                retry_after_s=retry_after_seconds(exc.response.headers),
            ) from exc
        except openai.OpenAIError as exc:
            raise ModelError(f"{type(exc).__name__}: {exc}", code=ErrorCode.API_ERROR) from exc

    def _reply(self, completion: ChatCompletion) -> ModelReply:
        # The client builds its response objects without validating them, so every member is read
        # as whatever the server sent: a reply no well-behaved server sends is repaired or refused
        # here, never allowed to raise later in the loop.
        choices = getattr(completion, "choices", None)
        if not choices or not isinstance(choices, Sequence):
            raise ModelError("the reply has no choices", code=ErrorCode.API_ERROR)
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise ModelError("the reply's first choice has no message", code=ErrorCode.API_ERROR)
        calls = getattr(message, "tool_calls", None)
        usage = getattr(completion, "usage", None)  # None: getattr below answers 0
        reply = ModelReply(
            content=getattr(message, "content", None),
            tool_calls=tuple(
                _tool_call(index, call)
                for index, call in enumerate(calls if isinstance(calls, Sequence) else ())
            ),
            usage=TokenUsage(
                prompt_tokens=getattr(usage, "prompt_tokens", 0),
                completion_tokens=getattr(usage, "completion_tokens", 0),
            ),
            finish_reason=getattr(choice, "finish_reason", None),
            model=getattr(completion, "model", None),
        )
        return checked_reply(reply)


MAX_TOKEN_COUNT = 2**53 - 1
"""The largest usage count kept (the largest integer every JSON reader holds exactly); above, clamped."""


def _tool_call(index: int, call: Any) -> ToolCall:
    """One tool call of a completion as the client built it, whatever its members hold."""
    call_id = getattr(call, "id", None)
    call_id = call_id if isinstance(call_id, str) and call_id else f"call_{index}"
    function = getattr(call, "function", None)
    if getattr(call, "type", None) == "custom" or (function is None and getattr(call, "custom", None)):
        custom = getattr(call, "custom", None)  # a custom (free-text) tool call: its input is the text
        return _call_from(call_id, getattr(custom, "name", None), getattr(custom, "input", None))
    return _call_from(call_id, getattr(function, "name", None), getattr(function, "arguments", None))


def checked_reply(reply: ModelReply) -> ModelReply:
    """``reply`` with every member of the type it is declared with, what had to change in ``notes``,
    so that no model or server can make the loop raise (docs/observability.md, "Replies the agent
    repairs")."""
    notes = list(reply.notes)
    content = reply.content
    if isinstance(content, Sequence) and not isinstance(content, str | bytes | bytearray):
        texts = [text for part in content if isinstance(text := _text_of(part), str)]
        skipped = f", {len(content) - len(texts)} without text left out" if len(texts) < len(content) else ""
        notes.append(f"content was a list of {len(content)} parts: their text joined{skipped}")
        content = "".join(texts)
    elif content is not None and not isinstance(content, str):
        notes.append(f"content was {kind_of(content)}, not text: ignored")
        content = None
    usage = TokenUsage(
        prompt_tokens=_count(reply.usage.prompt_tokens, "prompt_tokens", notes),
        completion_tokens=_count(reply.usage.completion_tokens, "completion_tokens", notes),
    )
    calls = tuple(
        _call_from(str(call.id), call.name, call.arguments, call.problem) for call in reply.tool_calls
    )
    finish_reason, model = (
        text if isinstance(text, str) else None for text in (reply.finish_reason, reply.model)
    )
    return replace(
        reply,
        content=content,
        tool_calls=calls,
        usage=usage,
        finish_reason=finish_reason,
        model=model,
        notes=tuple(notes),
    )


def _text_of(part: Any) -> Any:
    if isinstance(part, str):
        return part
    return part.get("text") if isinstance(part, Mapping) else getattr(part, "text", None)


def _call_from(call_id: str, name: Any, arguments: Any, problem: str | None = None) -> ToolCall:
    problems = [problem] if problem else []
    if not isinstance(name, str) or not (name or problem):  # a call read once already says what is wrong
        problems.append("it has no function name" if name in (None, "") else f"its name is {kind_of(name)}")
        name = "" if name is None else name if isinstance(name, str) else json_text(name)
    if not isinstance(arguments, str):
        problems.append(
            "its arguments are missing (null)"
            if arguments is None
            else f"its arguments are {kind_of(arguments)}, not a string of JSON text"
        )
        arguments = "" if arguments is None else json_text(arguments)
    return ToolCall(id=call_id, name=name, arguments=arguments, problem="; ".join(problems) or None)


def json_text(value: Any) -> str:
    """``value`` as compact JSON text, else its repr."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def kind_of(value: Any) -> str:
    """What kind of JSON value ``value`` is, in words ("a JSON array"); else its Python type's name."""
    for kind, words in _KINDS:
        if isinstance(value, kind):
            return words
    return type(value).__name__


_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "a boolean"),
    ((int, float), "a number"),
    (str, "a string"),
    (type(None), "null"),
    (Mapping, "a JSON object"),
    ((list, tuple), "a JSON array"),
)


def token_count(value: Any) -> int | None:
    """``value`` as a usage count: a whole number >= 0 (int or integral float), clamped to
    ``MAX_TOKEN_COUNT``; None when it is not one."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        return None
    if value > MAX_TOKEN_COUNT:
        return MAX_TOKEN_COUNT
    return int(value) if isinstance(value, int) or value.is_integer() else None


def _count(value: Any, name: str, notes: list[str]) -> int:
    count, shown = token_count(value), shortened(repr(value), 40)
    if count is None:
        notes.append(f"usage.{name} {shown} is not a count: counted as 0")
    elif count == MAX_TOKEN_COUNT and value != MAX_TOKEN_COUNT:
        notes.append(f"usage.{name} {shown} is beyond any real count: clamped to {MAX_TOKEN_COUNT}")
    return count or 0


def _status_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return str(error["message"])
    return exc.message


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The provider's retry hint in seconds, from ``retry-after-ms`` or ``retry-after`` (an HTTP
    date is ignored: it would need the wall clock)."""
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            seconds = float(headers.get(header, "")) / divisor  # absent: "", not a number
        except ValueError:
            continue
        if seconds >= 0 and seconds != float("inf"):
            return seconds
    return None
