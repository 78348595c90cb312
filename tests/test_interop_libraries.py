"""The records ``to_`` writes are accepted by the frameworks' own types, and what those types dump
is read back: openai (Chat Completions and Responses), anthropic, langchain-core (the message, its
fields and its saved form)."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import MessageParam, ToolResultBlockParam
from hypothesis import given, settings
from interop_cases import FIXTURE_IDS, VALID_FIXTURES, carried_back, inferred_error, responses
from langchain_core.messages import ToolMessage, messages_from_dict, messages_to_dict
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolMessageParam
from openai.types.responses import ResponseInputItemParam
from openai.types.responses.response_input_item import FunctionCallOutput
from pydantic import TypeAdapter

from toolresponse import DialectError, ToolResponse
from toolresponse.interop import (
    from_anthropic,
    from_langchain,
    from_langchain_dict,
    from_openai_chat,
    from_openai_responses,
    to_anthropic,
    to_langchain,
    to_langchain_dict,
    to_langchain_message,
    to_openai_chat,
    to_openai_responses,
)

CHAT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ChatCompletionToolMessageParam)
ANY_CHAT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ChatCompletionMessageParam)
RESPONSES_ITEM: TypeAdapter[Any] = TypeAdapter(ResponseInputItemParam)
TOOL_RESULT: TypeAdapter[Any] = TypeAdapter(ToolResultBlockParam)
USER_MESSAGE: TypeAdapter[Any] = TypeAdapter(MessageParam)


def _check_all(response: ToolResponse) -> None:
    chat = to_openai_chat(response, tool_call_id="call_1")
    CHAT_MESSAGE.validate_python(chat)
    ANY_CHAT_MESSAGE.validate_python(chat)

    item = to_openai_responses(response, call_id="call_1")
    RESPONSES_ITEM.validate_python(item)
    model = FunctionCallOutput.model_validate(item)
    back = from_openai_responses(model.model_dump(exclude_none=True))
    assert carried_back("openai-responses", response, call_id="call_1") == back.to_dict()

    block = to_anthropic(response, tool_use_id="toolu_1")
    TOOL_RESULT.validate_python(block)
    USER_MESSAGE.validate_python({"role": "user", "content": [block]})

    message = to_langchain_message(response, tool_call_id="call_1")
    assert ("error" if response.is_error else "success") == message.status
    given = carried_back("langchain", response, call_id="call_1")
    assert given == from_langchain(message).to_dict()
    assert given == from_langchain(message.model_dump()).to_dict()
    assert response.to_dict() == from_langchain(ToolMessage(**to_langchain(response))).to_dict()
    [saved] = messages_to_dict([message])
    assert given == from_langchain_dict(saved).to_dict()
    [loaded] = messages_from_dict([to_langchain_dict(response, tool_call_id="call_1")])
    assert isinstance(loaded, ToolMessage)
    assert (message.status, given) == (loaded.status, from_langchain(loaded).to_dict())


@pytest.mark.parametrize(("fixture", "data"), VALID_FIXTURES, ids=FIXTURE_IDS)
def test_the_libraries_accept_every_fixture_as_converted(fixture: str, data: Any) -> None:
    """Each valid fixture, converted, is a valid object of each library and reads back unchanged."""
    _check_all(ToolResponse.from_dict(data))


@settings(max_examples=60, deadline=None)
@given(response=responses())
def test_the_libraries_accept_generated_responses_as_converted(response: ToolResponse) -> None:
    """Generated responses, converted, are valid objects of each library and read back unchanged."""
    _check_all(response)


def test_an_openai_message_without_trailer_is_read_by_its_prefix() -> None:
    """A tool message written elsewhere is read as its text, its status and code from the prefix."""
    message: ChatCompletionToolMessageParam = {
        "role": "tool",
        "tool_call_id": "c9",
        "content": [{"type": "text", "text": "ERROR TIMEOUT: too slow"}],
    }
    CHAT_MESSAGE.validate_python(message)
    expected = {
        "status": "error",
        "text": "too slow",
        "error_info": {"code": "TIMEOUT", "message": "too slow"},
        "context": {"call_id": "c9"},
    }
    assert expected == from_openai_chat(message).to_dict()


def test_an_anthropic_error_without_code_is_an_execution_error() -> None:
    """``is_error`` without a known code prefix is EXECUTION_ERROR; images are kept in data.blocks."""
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    block: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "is_error": True,
        "content": [{"type": "text", "text": "boom"}, image],
    }
    TOOL_RESULT.validate_python(block)
    expected = {
        "status": "error",
        "text": "boom",
        "data": {"blocks": [image]},
        "error_info": {"code": "EXECUTION_ERROR", "message": "boom"},
        "context": {"call_id": "t1"},
    }
    assert expected == from_anthropic(block).to_dict()


def test_a_langchain_error_message_of_another_tool_keeps_its_artifact() -> None:
    """A ToolMessage not written by us: status error is an error; a foreign artifact goes to data."""
    message = ToolMessage(
        content="Error: no rows", tool_call_id="c1", status="error", artifact=[1, 2], name="sql"
    )
    expected = {
        "status": "error",
        "text": "Error: no rows",
        "data": {"artifact": [1, 2]},
        "error_info": {"code": "EXECUTION_ERROR", "message": "Error: no rows"},
        "context": {"call_id": "c1", "tool_name": "sql"},
    }
    assert expected == from_langchain(message).to_dict()


def test_a_tool_message_whose_response_artifact_contradicts_its_status_is_refused() -> None:
    """A real ToolMessage with status "error" and a success ToolResponse as artifact is refused."""
    message = ToolMessage(
        content="boom", tool_call_id="c1", status="error", artifact=ToolResponse.success("paid")
    )
    with pytest.raises(DialectError) as caught:
        from_langchain(message)
    assert ("langchain", "/status") == (caught.value.dialect, caught.value.best.pointer)


def test_a_saved_tool_message_of_another_tool_is_read() -> None:
    """messages_to_dict of a ToolMessage not written by us: read as the message's fields are."""
    message = ToolMessage(content="Error: city not found", tool_call_id="call_2", status="error")
    [saved] = messages_to_dict([message])
    assert (
        inferred_error("Error: city not found", "NOT_FOUND", "not found", call_id="call_2")
        == from_langchain_dict(saved).to_dict()
    )
    forged = {**saved, "data": {**saved["data"], "artifact": ToolResponse.success("paid").to_dict()}}
    with pytest.raises(DialectError) as caught:
        from_langchain_dict(forged)
    assert ("langchain-dict", "/data/status") == (caught.value.dialect, caught.value.best.pointer)
