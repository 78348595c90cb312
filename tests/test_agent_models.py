"""The chat models: OpenAIChatModel over real HTTP against the scripted loopback server, its
configuration, its normalised replies and errors, and the lazy import of ``openai``."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
from typing import Any

import pytest
from scripted_chat import (
    ScriptedChatServer,
    ScriptedDisconnect,
    ScriptedHTTPError,
    ScriptedReply,
    ScriptedToolCall,
)

from toolresponse import ErrorCode, ModelError
from toolresponse._errors import ModelConfigError
from toolresponse.agent import ChatModel, ModelReply, OpenAIChatModel, TokenUsage, ToolCall
from toolresponse.agent._models import retry_after_seconds

HELLO = [{"role": "user", "content": "hello"}]
TOOLS = [
    {"type": "function", "function": {"name": "add", "parameters": {"type": "object", "properties": {}}}}
]


def _model(server: ScriptedChatServer, **options: Any) -> OpenAIChatModel:
    return OpenAIChatModel("scripted-model", base_url=server.base_url, timeout_s=5, env={}, **options)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_reply_is_normalised_with_tool_calls_in_order_and_usage() -> None:
    """Content, each tool call (id, name, raw argument text) in order and token usage come through."""
    reply = ScriptedReply(
        content="thinking",
        tool_calls=(
            ScriptedToolCall(name="add", arguments={"a": 1, "b": 2}, id="c1"),
            ScriptedToolCall(name="add", arguments="{not json", id="c2"),
        ),
        prompt_tokens=11,
        completion_tokens=7,
    )
    with ScriptedChatServer([reply]) as server:
        got = _model(server).complete(HELLO, TOOLS)
    expected = ModelReply(
        content="thinking",
        tool_calls=(
            ToolCall(id="c1", name="add", arguments='{"a":1,"b":2}'),
            ToolCall(id="c2", name="add", arguments="{not json"),
        ),
        usage=TokenUsage(prompt_tokens=11, completion_tokens=7),
        finish_reason="tool_calls",
        model="scripted-model",
    )
    assert expected == got


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [('{"b": [1], "a": 2}', {"b": [1], "a": 2}), ("", {}), (" \n", {}), ("[1]", [1]), ("not json", None)],
)
def test_a_tool_calls_arguments_are_parsed_once_blank_as_the_empty_object(
    arguments: str, expected: Any
) -> None:
    """``parsed_arguments`` is the JSON value of the text (blank: ``{}``), None when it is not JSON,
    and the same object each time it is read."""
    call = ToolCall(id="c", name="add", arguments=arguments)
    assert expected == call.parsed_arguments
    assert call.parsed_arguments is call.parsed_arguments


def test_request_carries_model_messages_and_tools() -> None:
    """The server records what the client sent: the model name, the messages and the tools."""
    with ScriptedChatServer([ScriptedReply(content="hi")]) as server:
        _model(server).complete(HELLO, TOOLS)
        (request,) = server.requests
    assert ("scripted-model", HELLO, TOOLS) == (request["model"], request["messages"], request["tools"])


def test_no_tools_means_no_tools_member() -> None:
    """An empty tool list is left out of the request (some servers reject ``tools: []``)."""
    with ScriptedChatServer([ScriptedReply(content="hi")]) as server:
        _model(server).complete(HELLO, [])
    assert "tools" not in server.requests[0]


async def test_async_completion_over_http() -> None:
    """``acomplete`` makes the same call with the async client."""
    with ScriptedChatServer([ScriptedReply(content="async hi")]) as server:
        reply = await _model(server).acomplete(HELLO, TOOLS)
    assert ("async hi", ()) == (reply.content, reply.tool_calls)


def test_a_callable_script_reads_the_messages() -> None:
    """A callable script gets the request's messages and decides the reply."""

    def echo(messages: list[dict[str, Any]]) -> ScriptedReply:
        return ScriptedReply(content=f"you said {messages[-1]['content']}")

    with ScriptedChatServer(echo) as server:
        assert "you said hello" == _model(server).complete(HELLO, []).content


ERRORS = [
    (
        ScriptedHTTPError(status=429, message="slow down", headers={"Retry-After": "2"}),
        ("RATE_LIMIT", 429, True, 2.0, "slow down"),
    ),
    (
        ScriptedHTTPError(status=429, headers={"retry-after-ms": "250"}),
        ("RATE_LIMIT", 429, True, 0.25, "Too Many Requests"),
    ),
    (ScriptedHTTPError(status=500, message="boom"), ("API_ERROR", 500, True, None, "boom")),
    (ScriptedHTTPError(status=503), ("API_ERROR", 503, True, None, "Service Unavailable")),
    (ScriptedHTTPError(status=401, message="bad key"), ("API_ERROR", 401, False, None, "bad key")),
    (
        ScriptedHTTPError(status=404, message="no such model"),
        ("API_ERROR", 404, False, None, "no such model"),
    ),
    (ScriptedDisconnect(), ("NETWORK_ERROR", None, True, None, None)),
]


@pytest.mark.parametrize(("step", "expected"), ERRORS, ids=[e[0] + str(e[1]) for _, e in ERRORS])
def test_http_failures_become_model_errors_with_code_status_and_retry_hint(
    step: ScriptedHTTPError | ScriptedDisconnect, expected: tuple[Any, ...]
) -> None:
    """Each failure is a ModelError with the protocol's code; retryable as the schema says, but for 5xx."""
    with ScriptedChatServer([step]) as server, pytest.raises(ModelError) as caught:
        _model(server).complete(HELLO, [])
    error = caught.value
    code, status, retryable, retry_after, message = expected
    assert (code, status, retryable, retry_after) == (
        error.code.value,
        error.status_code,
        error.retryable,
        error.retry_after_s,
    )
    if message is not None:
        assert message == error.message


def test_connection_refused_is_a_retryable_connection_error() -> None:
    """Nothing listening on the port: a connection error naming the address."""
    port = _closed_port()
    model = OpenAIChatModel("m", base_url=f"http://127.0.0.1:{port}/v1", timeout_s=5, env={})
    with pytest.raises(ModelError) as caught:
        model.complete(HELLO, [])
    assert (ErrorCode.NETWORK_ERROR, True) == (caught.value.code, caught.value.retryable)
    assert f"cannot reach http://127.0.0.1:{port}/v1" in str(caught.value)


def test_no_answer_within_the_timeout_is_a_timeout_error() -> None:
    """A server that does not answer in time gives a retryable timeout error (the client's own timeout)."""
    release = threading.Event()

    def stall(messages: list[dict[str, Any]]) -> ScriptedReply:
        release.wait(5)
        return ScriptedReply(content="late")

    with ScriptedChatServer(stall) as server:
        model = OpenAIChatModel("m", base_url=server.base_url, timeout_s=0.1, env={})
        try:
            with pytest.raises(ModelError) as caught:
                model.complete(HELLO, [])
        finally:
            release.set()
    assert (ErrorCode.TIMEOUT, "no answer within 0.1 s") == (caught.value.code, caught.value.message)


def test_an_exhausted_script_answers_a_clear_client_error() -> None:
    """More requests than steps: HTTP 400 saying so, not a hang."""
    with ScriptedChatServer([ScriptedReply(content="one")]) as server:
        model = _model(server)
        model.complete(HELLO, [])
        with pytest.raises(ModelError) as caught:
            model.complete(HELLO, [])
    assert "the script is exhausted: it has 1 steps, this is request 2" == caught.value.message


def test_a_failing_script_callable_answers_a_clear_client_error() -> None:
    """An exception in the script is reported to the client as a 400 naming it."""

    def broken(messages: list[dict[str, Any]]) -> ScriptedReply:
        raise LookupError("no line for this")

    with ScriptedChatServer(broken) as server, pytest.raises(ModelError) as caught:
        _model(server).complete(HELLO, [])
    assert "the scripted model failed: LookupError: no line for this" == caught.value.message


CONFIG = [
    (
        {},
        {"TOOLRESPONSE_MODEL": "m1", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"},
        ("m1", "http://127.0.0.1:9/v1"),
    ),
    (
        {"model": "m2", "base_url": "http://127.0.0.1:8/v1"},
        {"TOOLRESPONSE_MODEL": "m1"},
        ("m2", "http://127.0.0.1:8/v1"),
    ),
    ({"model": "m3"}, {"OPENAI_API_KEY": "sk-test"}, ("m3", None)),
]


@pytest.mark.parametrize(("arguments", "env", "expected"), CONFIG)
def test_configuration_comes_from_arguments_then_environment(
    arguments: dict[str, Any], env: dict[str, str], expected: tuple[str, str | None]
) -> None:
    """An argument wins over its environment variable; a local base URL needs no key."""
    model = OpenAIChatModel(**arguments, env=env)
    assert expected == (model.model, model.base_url)
    assert isinstance(model, ChatModel)


BAD_CONFIG: list[tuple[dict[str, Any], dict[str, str], str]] = [
    ({}, {}, "no model name: pass model=... or set TOOLRESPONSE_MODEL"),
    ({"model": "m"}, {}, "no API key: pass api_key=... or set OPENAI_API_KEY"),
    ({"model": "m", "base_url": "http://x/v1", "timeout_s": 0}, {}, "timeout_s must be > 0, got 0"),
]


@pytest.mark.parametrize(("arguments", "env", "message"), BAD_CONFIG)
def test_missing_configuration_is_a_clear_error(
    arguments: dict[str, Any], env: dict[str, str], message: str
) -> None:
    """Without a model name, or a key for the default endpoint, building the model says what to set."""
    with pytest.raises(ModelConfigError) as caught:
        OpenAIChatModel(**arguments, env=env)
    assert str(caught.value).startswith(message)


def test_missing_openai_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without ``openai`` installed, building the model says which extra to install."""
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(ModelConfigError) as caught:
        OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1", env={})
    assert "pip install 'toolresponse[agent]'" in str(caught.value)


def test_importing_toolresponse_and_its_agent_does_not_import_openai() -> None:
    """``openai`` is an optional extra: importing the package and the agent leaves it unloaded."""
    code = "import sys, toolresponse, toolresponse.agent; print(json.dumps('openai' in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", "import json; " + code], check=True, capture_output=True, text=True
    )
    assert json.loads(result.stdout) is False


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),
        ({"retry-after": "-1"}, None),
        ({}, None),
    ],
)
def test_retry_after_header_is_read_in_seconds(headers: dict[str, str], expected: float | None) -> None:
    """``retry-after-ms`` wins over ``retry-after``; a date or a negative value is no hint."""
    assert expected == retry_after_seconds(headers)


def test_async_client_follows_the_event_loop() -> None:
    """The same model works from two successive event loops (a new async client per loop)."""
    with ScriptedChatServer([ScriptedReply(content="a"), ScriptedReply(content="b")]) as server:
        model = _model(server)
        first = asyncio.run(model.acomplete(HELLO, []))
        second = asyncio.run(model.acomplete(HELLO, []))
    assert ["a", "b"] == [first.content, second.content]
