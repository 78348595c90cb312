"""Every dialect of the table converts ToolResponses out and back: exactly where the dialect has room
(or the trailer carries the response), with HelloAgents' documented losses; every record written
has its dialect's shape."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from interop_cases import (
    FIXTURE_IDS,
    LOSSLESS,
    VALID_FIXTURES,
    dialect_params,
    helloagents_view,
    responses,
    to_record,
)

from toolresponse import ToolResponse
from toolresponse.interop import DIALECTS, dialect


def _trip(name: str, response: ToolResponse) -> tuple[Any, ToolResponse]:
    record = to_record(name, response)
    return record, dialect(name).from_(record)


@pytest.mark.parametrize("name", LOSSLESS)
@pytest.mark.parametrize(("fixture", "data"), VALID_FIXTURES, ids=FIXTURE_IDS)
def test_every_valid_fixture_comes_back_unchanged(name: str, fixture: str, data: Any) -> None:
    """from_(to_(r)) is r for every valid conformance fixture, in every lossless dialect."""
    response = ToolResponse.from_dict(data)
    record, back = _trip(name, response)
    assert response.to_dict() == back.to_dict()
    assert () == dialect(name).shape.violations(record)


@pytest.mark.parametrize(("fixture", "data"), VALID_FIXTURES, ids=FIXTURE_IDS)
def test_helloagents_keeps_what_it_has_room_for(fixture: str, data: Any) -> None:
    """Through HelloAgents 1.0 a response loses exactly the members its table names."""
    response = ToolResponse.from_dict(data)
    record, back = _trip("helloagents", response)
    assert helloagents_view(response) == back.to_dict()
    assert () == dialect("helloagents").shape.violations(record)


@pytest.mark.parametrize("name", dialect_params())
@settings(max_examples=150, deadline=None)
@given(response=responses())
def test_generated_responses_make_the_round_trip(name: str, response: ToolResponse) -> None:
    """Generated responses of every status come back from every dialect (HelloAgents: its view)."""
    record, back = _trip(name, response)
    expected = helloagents_view(response) if name == "helloagents" else response.to_dict()
    assert expected == back.to_dict()
    assert () == dialect(name).shape.violations(record)


def test_the_table_names_every_dialect_of_the_cli() -> None:
    """The dialect names are the ones the issue fixes, in that order."""
    expected = [
        "toolresponse",
        "mcp",
        "openai-chat",
        "openai-responses",
        "anthropic",
        "langchain",
        "langchain-dict",
        "bedrock",
        "gemini",
        "gemini-interactions",
        "vercel",
        "helloagents",
        "pydantic-ai",
        "llamaindex",
        "autogen",
    ]
    assert expected == list(DIALECTS)


def test_an_unknown_dialect_is_refused_with_the_names() -> None:
    """Asking for a dialect that is not in the table names the ones that are."""
    with pytest.raises(ValueError, match="openai-chat"):
        dialect("cohere")
