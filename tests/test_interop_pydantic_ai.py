"""pydantic-ai, for real: the parts its own agent writes (every outcome, the stored retry-prompt) are
read by ``from_pydantic_ai``; the parts ``to_pydantic_ai`` writes load into its message history and
come back exactly; and registry tools run by a pydantic-ai agent (a ``FunctionModel``, offline) show
the model our codes and leave parts that read back to the registry's responses."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from interop_cases import FIXTURE_IDS, VALID_FIXTURES, adapted_registry, carried_back, responses
from pydantic import TypeAdapter
from pydantic_ai import Agent, ModelRetry, Tool, ToolDenied, ToolFailed
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
    repair_messages,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults

from toolresponse import DialectError, ToolResponse
from toolresponse.interop import DENIED, INTERRUPTED, as_pydantic_ai_tools, from_pydantic_ai, to_pydantic_ai


def _returns(messages: list[ModelMessage]) -> dict[str, dict[str, Any]]:
    """Every tool-return part of a history as pydantic-ai writes it (JSON), by tool call id."""
    dumped = ModelMessagesTypeAdapter.dump_python(messages, mode="json")
    parts = [part for message in dumped for part in message["parts"] if part["part_kind"] == "tool-return"]
    return {part["tool_call_id"]: part for part in parts}


def _calling(*calls: tuple[str, dict[str, Any], str]) -> FunctionModel:
    """A model that makes ``calls`` (name, arguments, id) at once, then answers "done"."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(name, args, id_) for name, args, id_ in calls])
        return ModelResponse(parts=[TextPart("done")])

    return FunctionModel(respond)


# -- what pydantic-ai writes, read -----------------------------------------------------------


def _weather(city: str) -> dict[str, Any]:
    """The weather of a city."""
    if city == "Atlantis":
        raise ModelRetry("unknown city; use a real city name")
    if city == "Nowhere":
        raise ToolFailed("city not found: Nowhere")
    return {"temp_c": 21.5, "city": city}


def _library_parts() -> dict[str, dict[str, Any]]:
    """The tool-return parts of a real run: a success, a ModelRetry, a ToolFailed, arguments that fail
    validation, a ToolDenied answer, an approval a person denied, and a call left interrupted."""

    def refuse() -> ToolDenied:
        """Refuses by itself."""
        return ToolDenied("Operator refused: destructive")

    agent = Agent(
        _calling(
            ("weather", {"city": "Paris"}, "c_ok"),
            ("weather", {"city": "Atlantis"}, "c_retry"),
            ("weather", {"city": "Nowhere"}, "c_fail"),
            ("weather", {"town": 1}, "c_invalid"),
            ("refuse", {}, "c_refuse"),
            ("drop_db", {}, "c_approval"),
        ),
        tools=[Tool(_weather, name="weather", max_retries=3), refuse],
        output_type=[str, DeferredToolRequests],
    )

    @agent.tool_plain(requires_approval=True)
    def drop_db() -> str:
        """Drops the database."""
        return "dropped"

    first = agent.run_sync("go")
    assert isinstance(first.output, DeferredToolRequests)
    denied = DeferredToolResults(approvals={"c_approval": ToolDenied("a person said no")})
    second = agent.run_sync(message_history=first.all_messages(), deferred_tool_results=denied)
    cut = ModelResponse([ToolCallPart("slow", {}, "c_cut")])
    dangling: list[ModelMessage] = [ModelRequest([UserPromptPart("go")]), cut]
    return {**_returns(second.all_messages()), **_returns(repair_messages(dangling))}


# id -> (outcome pydantic-ai wrote, the response's status, code, details.outcome)
LIBRARY_EXPECTED = {
    "c_ok": ("success", "success", None, None),
    "c_retry": ("retried", "error", "EXECUTION_ERROR", "retried"),
    "c_fail": ("failed", "error", "NOT_FOUND", None),
    "c_invalid": ("retried", "error", "INVALID_PARAM", "retried"),
    "c_refuse": ("denied", "error", "PERMISSION_DENIED", "denied"),
    "c_approval": ("denied", "error", "PERMISSION_DENIED", "denied"),
    "c_cut": ("interrupted", "error", "EXECUTION_ERROR", "interrupted"),
}


def test_every_outcome_pydantic_ai_writes_is_read() -> None:
    """Each part pydantic-ai's agent wrote maps to the status, code and outcome of the table; its text,
    tool and call id carried over."""
    parts = _library_parts()
    assert set(LIBRARY_EXPECTED) == set(parts)
    for call_id, (outcome, status, code, named) in LIBRARY_EXPECTED.items():
        part = parts[call_id]
        assert outcome == part["outcome"]
        response = from_pydantic_ai(part)
        assert status == response.status.value
        assert code == (response.code.value if response.code else None)
        details = response.error_info.details or {} if response.error_info else {}
        assert named == details.get("outcome")
        assert {"call_id": call_id, "tool_name": part["tool_name"]} == response.context
    ok = from_pydantic_ai(parts["c_ok"])
    assert {"content": {"temp_c": 21.5, "city": "Paris"}} == ok.data
    assert '{"temp_c":21.5,"city":"Paris"}' == ok.text
    retried = from_pydantic_ai(parts["c_retry"]).error_info
    assert retried is not None
    assert retried.details is not None
    assert "model_retry" == retried.details["retry"]["cause"]
    cut = from_pydantic_ai(parts["c_cut"])
    assert {"metadata": parts["c_cut"]["metadata"]} == cut.data


def test_a_stored_retry_prompt_reads_as_pydantic_ai_loads_it() -> None:
    """A RetryPromptPart (before pydantic-ai 2.60) reads as the retried return pydantic-ai loads it as."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pydantic_ai.messages import RetryPromptPart

        stored = [
            RetryPromptPart(content="ERROR TIMEOUT: too slow", tool_name="weather", tool_call_id="c1"),
            RetryPromptPart(
                content=[{"type": "missing", "loc": ("city",), "msg": "Field required", "input": {}}],
                tool_name="weather",
                tool_call_id="c2",
            ),
        ]
        records = [TypeAdapter(RetryPromptPart).dump_python(part, mode="json") for part in stored]
    loaded = _returns(ModelMessagesTypeAdapter.validate_python([{"kind": "request", "parts": records}]))
    for record, code in zip(records, ["TIMEOUT", "INVALID_PARAM"], strict=True):
        assert "retry-prompt" == record["part_kind"]
        response = from_pydantic_ai(record)
        assert code == response.code.value  # type: ignore[union-attr]
        assert from_pydantic_ai(loaded[record["tool_call_id"]]).to_dict() == response.to_dict()
    assert "too slow" == from_pydantic_ai(records[0]).text


def test_a_retry_prompt_that_answers_no_tool_is_refused() -> None:
    """A retry prompt without a tool (output feedback) is no tool's result: DialectError at /tool_name."""
    record = {"part_kind": "retry-prompt", "content": "try again", "tool_name": None, "tool_call_id": "c1"}
    with pytest.raises(DialectError) as caught:
        from_pydantic_ai(record)
    assert "/tool_name" == caught.value.errors[0].pointer


@pytest.mark.parametrize("outcome", ["denied", "interrupted"])
def test_an_outcome_without_words_has_the_outcome_s_message(outcome: str) -> None:
    """A denied or interrupted part with no content has the message every dialect gives the outcome."""
    part = ToolReturnPart("drop_db", "", "c1", outcome=outcome)  # type: ignore[arg-type]
    named = {"denied": DENIED, "interrupted": INTERRUPTED}[outcome]
    response = from_pydantic_ai(part)
    assert (named.code, named.message) == (response.code, response.text)


def test_a_part_object_is_read_as_its_json() -> None:
    """A ToolReturnPart object reads as the JSON pydantic-ai writes of it."""
    part = ToolReturnPart("weather", "ERROR RATE_LIMIT: slow down", "c1", outcome="failed")
    assert "RATE_LIMIT" == from_pydantic_ai(part).code.value  # type: ignore[union-attr]


def test_metadata_that_contradicts_the_outcome_is_refused() -> None:
    """A response in metadata whose status contradicts the outcome is refused at /outcome."""
    record = to_pydantic_ai(ToolResponse.success("fine"), tool_call_id="c1", tool_name="weather")
    record["outcome"] = "failed"
    with pytest.raises(DialectError) as caught:
        from_pydantic_ai(record)
    assert "/outcome" == caught.value.errors[0].pointer


# -- what to_pydantic_ai writes, loaded by pydantic-ai -----------------------------------------


def _through_pydantic_ai(response: ToolResponse) -> None:
    record = to_pydantic_ai(response, tool_call_id="call_1", tool_name="weather")
    history = ModelMessagesTypeAdapter.validate_python([{"kind": "request", "parts": [record]}])
    part = history[0].parts[0]
    assert isinstance(part, ToolReturnPart)
    assert record["outcome"] == part.outcome
    assert record["content"] == part.content
    back = from_pydantic_ai(_returns(history)["call_1"]).to_dict()
    assert carried_back("pydantic-ai", response, call_id="call_1", tool="weather") == back


@pytest.mark.parametrize(("fixture", "data"), VALID_FIXTURES, ids=FIXTURE_IDS)
def test_pydantic_ai_loads_every_fixture_as_converted(fixture: str, data: Any) -> None:
    """Each valid fixture, as a ToolReturnPart, loads into a pydantic-ai history and reads back unchanged."""
    _through_pydantic_ai(ToolResponse.from_dict(data))


@settings(max_examples=60, deadline=None)
@given(response=responses())
def test_pydantic_ai_loads_generated_responses_as_converted(response: ToolResponse) -> None:
    """Generated responses, as ToolReturnParts, load into a pydantic-ai history and read back unchanged."""
    _through_pydantic_ai(response)


@pytest.mark.parametrize(
    ("response", "outcome"),
    [
        pytest.param(ToolResponse.partial("2 of 9"), "success", id="partial"),
        pytest.param(ToolResponse.error("NOT_FOUND", "gone"), "failed", id="failed"),
        pytest.param(ToolResponse.error("INVALID_PARAM", "bad"), "retried", id="invalid-param"),
        pytest.param(
            ToolResponse.error("ACCESS_DENIED", "no", details={"policy": "deny_list"}), "denied", id="policy"
        ),
        pytest.param(ToolResponse.error("PERMISSION_DENIED", "EACCES"), "failed", id="permission-not-policy"),
        pytest.param(
            ToolResponse.error("EXECUTION_ERROR", "cut", details={"outcome": "interrupted"}),
            "interrupted",
            id="interrupted",
        ),
    ],
)
def test_the_outcome_written(response: ToolResponse, outcome: str) -> None:
    """to_pydantic_ai picks the outcome of the module's rule."""
    assert outcome == to_pydantic_ai(response, tool_call_id="c1", tool_name="t")["outcome"]


# -- registry tools run by a pydantic-ai agent --------------------------------------------------


# call id -> (tool, arguments, outcome in the history, code, what the model reads)
AGENT_CALLS: dict[str, tuple[str, dict[str, Any], str, str | None, str]] = {
    "c1": ("add", {"a": 2, "b": 3}, "success", None, "5"),
    "c2": ("read_file", {"path": "x.py"}, "failed", "NOT_FOUND", "ERROR NOT_FOUND: x.py does not exist"),
    "c3": ("add", {"a": "two"}, "retried", "INVALID_PARAM", "ERROR INVALID_PARAM: "),
    "c4": ("drop_table", {"name": "t"}, "denied", "PERMISSION_DENIED", "ERROR PERMISSION_DENIED: "),
}


def test_a_pydantic_ai_agent_runs_registry_tools() -> None:
    """An agent over as_pydantic_ai_tools: the model reads each code, the history records each outcome,
    a success keeps the whole response as metadata, and every part reads back to its code."""
    seen: dict[str, str] = {}

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            calls = [ToolCallPart(name, args, id_) for id_, (name, args, *_) in AGENT_CALLS.items()]
            return ModelResponse(parts=calls)
        for part in messages[-1].parts:
            if isinstance(part, ToolReturnPart):
                seen[part.tool_call_id] = part.model_response_str()
        return ModelResponse(parts=[TextPart("done")])

    registry = adapted_registry()
    result = Agent(FunctionModel(respond), tools=as_pydantic_ai_tools(registry), retries=2).run_sync("go")
    parts = _returns(result.all_messages())
    assert set(AGENT_CALLS) == set(parts) == set(seen)
    for call_id, (name, _, outcome, code, shown) in AGENT_CALLS.items():
        assert outcome == parts[call_id]["outcome"]
        assert shown in seen[call_id]
        response = from_pydantic_ai(parts[call_id])
        assert code == (response.code.value if response.code else None)
        assert {"call_id": call_id, "tool_name": name} == {
            key: value for key, value in (response.context or {}).items() if key in ("call_id", "tool_name")
        }
    assert "5" == parts["c1"]["content"]
    assert parts["c1"]["metadata"] == from_pydantic_ai(parts["c1"]).to_dict()
    assert {"output": 5} == parts["c1"]["metadata"]["data"]
