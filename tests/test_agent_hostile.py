"""The agent against the hostile corpus: replies no well-behaved server sends, as data.

Each ``tests/hostile/agent/*.json`` file (the directory can be replaced by
``TOOLRESPONSE_HOSTILE_DIR``, which holds ``agent/`` and ``report/``) is one case::

    {"description": "...",
     "completion": {... a chat completion body, sent exactly as it is ...},
     "expect": {"outcome": "answered" | "max_steps" | "model_error",
                "codes": [error code or null, one per tool response of the run],
                "answer": "..."?, "executed": number of tools run?,
                "usage": [prompt, completion]?, "notes": number of notes in model_output?,
                "absent": [strings that must appear nowhere in the trace or the result's reason]?}}

The scripted server sends the completion, then answers "done". Whatever a
case holds, the run returns (it never raises), its trace ends with
``run_end``, and ``toolresponse report`` reads the trace.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scripted_chat import ScriptedChatServer, ScriptedCompletion, ScriptedReply

from toolresponse import ToolRegistry, ToolResponse
from toolresponse.agent import Agent, AgentResult, OpenAIChatModel
from toolresponse.cli import main as cli
from toolresponse.testing import FakeClock

HOSTILE = Path(os.environ.get("TOOLRESPONSE_HOSTILE_DIR", Path(__file__).parent / "hostile"))
CASES = sorted((HOSTILE / "agent").glob("*.json"))


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    value: str = request.param
    return value


@pytest.fixture(params=CASES, ids=[path.stem for path in CASES])
def case(request: pytest.FixtureRequest) -> dict[str, Any]:
    path: Path = request.param
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return loaded


class Executions:
    def __init__(self) -> None:
        self.count = 0


@pytest.fixture
def executions() -> Executions:
    return Executions()


def _registry(executions: Executions) -> ToolRegistry:
    registry = ToolRegistry()

    @registry.tool
    def add(a: int, b: int) -> ToolResponse:
        """Add two integers."""
        executions.count += 1
        return ToolResponse.success(f"{a + b}")

    @registry.tool
    def search(query: str) -> str:
        """Search the notes."""
        executions.count += 1
        return "no notes"

    return registry


@pytest.fixture
def server_for() -> Iterator[Any]:
    servers: list[ScriptedChatServer] = []

    def start(body: dict[str, Any]) -> ScriptedChatServer:
        server = ScriptedChatServer([ScriptedCompletion(body=body), ScriptedReply(content="done")]).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def test_the_corpus_is_there() -> None:
    """The corpus has cases, each with a unique description."""
    descriptions = [json.loads(path.read_text("utf-8"))["description"] for path in CASES]
    assert len(CASES) >= 20
    assert len(set(descriptions)) == len(descriptions)


def test_a_hostile_reply_never_breaks_the_run(
    case: dict[str, Any],
    mode: str,
    executions: Executions,
    server_for: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The run returns the expected outcome, the trace is whole and masked, and the report reads it."""
    expect = case["expect"]
    server = server_for(case["completion"])
    clock = FakeClock()
    trace = tmp_path / "trace.jsonl"
    model = OpenAIChatModel("hostile-model", base_url=server.base_url, timeout_s=5, env={})
    agent = Agent(
        _registry(executions),
        model,
        trace=trace,
        clock=clock,
        sleep=clock.sleep,
        asleep=clock.asleep,
    )
    result: AgentResult = agent.run("Go.") if mode == "sync" else asyncio.run(agent.arun("Go."))
    assert expect["outcome"] == result.outcome.value
    assert expect["codes"] == [None if r.code is None else r.code.value for r in result.responses]
    if "answer" in expect:
        assert expect["answer"] == result.answer
    if "executed" in expect:
        assert expect["executed"] == executions.count
    text = trace.read_text("utf-8")
    events = [json.loads(line) for line in text.splitlines()]
    assert "run_end" == events[-1]["event"]
    first_output = next((e for e in events if e["event"] == "model_output"), None)
    if "usage" in expect:
        assert first_output is not None
        assert expect["usage"] == [
            first_output["usage"]["prompt_tokens"],
            first_output["usage"]["completion_tokens"],
        ]
    if "notes" in expect:
        assert first_output is not None
        assert expect["notes"] == len(first_output.get("notes", []))
    for secret in expect.get("absent", []):
        assert secret not in text
        assert secret not in result.reason
    assert 0 == cli(["report", str(trace)])
    capsys.readouterr()
