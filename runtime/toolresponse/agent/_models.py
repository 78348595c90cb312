"""Chat models: a small protocol, a normalised reply, and an OpenAI-compatible model.

A chat model takes OpenAI-format messages (the lingua franca of tool calling:
``{"role": ..., "content": ...}``, assistant ``tool_calls``, ``tool`` results
with ``tool_call_id``) and the tools in OpenAI function format, and returns a
:class:`ModelReply`. A failed call raises :class:`ModelError` with a kind that
says whether it may be retried; the agent loop owns the retrying.

``OpenAIChatModel`` talks to any OpenAI-compatible server (OpenAI, vLLM,
Ollama, llama.cpp) through the official ``openai`` client, which is the
optional extra ``toolresponse[agent]``: it is imported only when a model is
built, never when ``toolresponse`` is imported.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

from toolresponse_generated import ErrorCode

from .._errors import ModelConfigError, ModelError

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletion

Message = Mapping[str, Any]
"""One chat message in OpenAI format."""

ToolSchema = Mapping[str, Any]
"""One tool in OpenAI function-calling format (``{"type": "function", "function": {...}}``)."""

AGENT_EXTRA_HINT = "install the optional extra: pip install 'toolresponse[agent]'"


@dataclass(frozen=True, kw_only=True)
class ToolCall:
    """One tool call the model asked for; ``arguments`` is the raw JSON text the model wrote."""

    id: str
    name: str
    arguments: str


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
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass(frozen=True, kw_only=True)
class ModelReply:
    """A model's answer, normalised: text, tool calls in the model's order, token usage."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: str | None = None
    model: str | None = None

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
    """What the agent needs of a chat model: one call, sync and async.

    Both raise :class:`ModelError` when the call fails; anything else they
    raise ends the run as a non-retryable model error.
    """

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> ModelReply: ...

    async def acomplete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> ModelReply: ...


class OpenAIChatModel:
    """A chat model on an OpenAI-compatible ``/v1/chat/completions`` endpoint, with native tool calling.

    Each setting comes from its argument, else from the environment:
    ``base_url`` from ``OPENAI_BASE_URL`` (default: OpenAI itself),
    ``api_key`` from ``OPENAI_API_KEY`` (a local server given by ``base_url``
    needs none), ``model`` from ``TOOLRESPONSE_MODEL``.

    ``max_retries`` is the client's own retrying and defaults to 0: the agent
    loop retries model errors itself, with its injected sleep, so that there
    is one retry policy, not two multiplied together.
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
            raise ModelConfigError(f"OpenAIChatModel needs the openai package; {AGENT_EXTRA_HINT}") from exc
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
        self._api_key = key
        self._timeout_s = timeout_s
        self._max_retries = max_retries
        self._temperature = temperature
        self._extra_body = dict(extra_body) if extra_body else None
        self._client: openai.OpenAI | None = None
        self._async_client: tuple[asyncio.AbstractEventLoop, openai.AsyncOpenAI] | None = None

    @property
    def name(self) -> str:
        return self.model

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.model!r}, base_url={self.base_url!r})"

    def _sync_client(self) -> openai.OpenAI:
        import openai

        if self._client is None:
            self._client = openai.OpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                timeout=self._timeout_s,
                max_retries=self._max_retries,
            )
        return self._client

    def _loop_client(self) -> openai.AsyncOpenAI:
        # An async client's connections belong to one event loop: a new loop gets a new client.
        import openai

        loop = asyncio.get_running_loop()
        if self._async_client is None or self._async_client[0] is not loop:
            client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                timeout=self._timeout_s,
                max_retries=self._max_retries,
            )
            self._async_client = (loop, client)
        return self._async_client[1]

    def _request(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": [dict(message) for message in messages]}
        if tools:
            request["tools"] = [dict(tool) for tool in tools]
        if self._temperature is not None:
            request["temperature"] = self._temperature
        if self._extra_body:
            request["extra_body"] = self._extra_body
        return request

    def complete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> ModelReply:
        import openai

        client = self._sync_client()
        try:
            completion = client.chat.completions.create(**self._request(messages, tools))
        except openai.OpenAIError as exc:
            raise self._model_error(exc) from exc
        return self._reply(cast("ChatCompletion", completion))

    async def acomplete(self, messages: Sequence[Message], tools: Sequence[ToolSchema]) -> ModelReply:
        import openai

        client = self._loop_client()
        try:
            completion = await client.chat.completions.create(**self._request(messages, tools))
        except openai.OpenAIError as exc:
            raise self._model_error(exc) from exc
        return self._reply(cast("ChatCompletion", completion))

    def close(self) -> None:
        """Close the synchronous client's connections (the async one closes with its loop)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def _model_error(self, exc: Exception) -> ModelError:
        import openai

        if isinstance(exc, openai.APITimeoutError):
            return ModelError(f"no answer within {self._timeout_s:g} s", code=ErrorCode.TIMEOUT)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
            return ModelError(
                f"cannot reach {self.base_url or 'the OpenAI API'}{detail}", code=ErrorCode.NETWORK_ERROR
            )
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            # A provider means 5xx, 408 and 409 as "try again": API_ERROR, retryable this time.
            again = status >= 500 or status in (408, 409)
            return ModelError(
                _status_message(exc),
                code=ErrorCode.RATE_LIMIT if status == 429 else ErrorCode.API_ERROR,
                retryable=True if again else None,
                status_code=status,
                retry_after_s=retry_after_seconds(exc.response.headers),
            )
        return ModelError(f"{type(exc).__name__}: {exc}", code=ErrorCode.API_ERROR)

    def _reply(self, completion: ChatCompletion) -> ModelReply:
        if not getattr(completion, "choices", None):
            raise ModelError("the reply has no choices", code=ErrorCode.API_ERROR)
        choice = completion.choices[0]
        message = choice.message
        calls: list[ToolCall] = []
        for index, call in enumerate(message.tool_calls or ()):
            call_id = call.id or f"call_{index}"
            if call.type == "function":
                calls.append(ToolCall(id=call_id, name=call.function.name, arguments=call.function.arguments))
            else:  # a custom (free-text) tool call: its input is the raw argument text
                calls.append(ToolCall(id=call_id, name=call.custom.name, arguments=call.custom.input))
        usage = completion.usage
        return ModelReply(
            content=message.content,
            tool_calls=tuple(calls),
            usage=TokenUsage(
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
            ),
            finish_reason=choice.finish_reason,
            model=completion.model,
        )


def _status_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return str(error["message"])
    return exc.message


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The provider's retry hint in seconds, from ``retry-after-ms`` or ``retry-after``.

    An HTTP date in ``retry-after`` is ignored: it would need the wall clock."""
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            continue
        if seconds >= 0 and seconds != float("inf"):
            return seconds
    return None
