"""The agent demo runs with nothing configured, meets every status, and reports on its own trace;
with OPENAI_BASE_URL and TOOLRESPONSE_MODEL set it uses that model instead."""

from __future__ import annotations

import asyncio
import functools
import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from scripted_chat import ScriptedChatServer, ScriptedReply

from toolresponse.agent import Agent, RetryPolicy, RunOutcome
from toolresponse.demo import agent as demo
from toolresponse.demo.calculator import build_registry


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No model configured; the trace goes under the test's directory."""
    for name in ("OPENAI_BASE_URL", "TOOLRESPONSE_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    trace = tmp_path / "demo" / "agent-trace.jsonl"
    monkeypatch.setenv("TOOLRESPONSE_DEMO_TRACE", str(trace))
    return trace


def test_demo_with_nothing_configured_meets_success_partial_and_error(env: Path) -> None:
    """The scripted run answers after fixing its bad call; the transcript shows each status."""
    out = io.StringIO()
    assert 0 == demo.main(out)
    text = out.getvalue()
    for expected in (
        'calculator({"expression":"2 ** 128"}) -> partial',
        'calculator({"expression":"pi * 3 ** 2"}) -> success',
        "-> error INVALID_FORMAT",
        'calculator({"expression":"0 / 0"}) -> error EXECUTION_ERROR',
        'calculator({"expression":"12 * 4"}) -> success',
        "outcome: answered after 3 steps; 5 tool calls (success 2, partial 1, error 2)",
    ):
        assert expected in text
    assert "12 * 4 = 48" in text.split("the model answers:")[1]


def test_the_scripted_model_drives_an_async_run_alike() -> None:
    """The in-process model answers ``arun`` as it answers ``run``: the same calls, the same answer."""
    agent = Agent(build_registry(), demo.ScriptedModel(), max_steps=8)
    ran = agent.run(demo.TASK)
    awaited = asyncio.run(agent.arun(demo.TASK))
    assert RunOutcome.ANSWERED is awaited.outcome
    assert (ran.answer, ran.usage) == (awaited.answer, awaited.usage)


def test_demo_shows_the_report_of_its_trace_and_writes_the_html(env: Path) -> None:
    """The report of the demo's own trace is printed, and its HTML page written beside it."""
    out = io.StringIO()
    demo.main(out)
    row = next(
        line.split() for line in out.getvalue().splitlines() if line.strip().startswith("calculator  ")
    )
    assert ["calculator", "5", "2", "1", "2"] == row[:5]
    events = [json.loads(line)["event"] for line in env.read_text("utf-8").splitlines()]
    assert ("run_start", "run_end") == (events[0], events[-1])
    assert "<svg" in env.with_suffix(".html").read_text("utf-8")


def test_demo_uses_the_configured_model_when_the_environment_names_one(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OPENAI_BASE_URL and TOOLRESPONSE_MODEL switch the demo to that model, with the same calculator."""
    seen: list[list[dict[str, Any]]] = []

    def configured(messages: list[dict[str, Any]]) -> ScriptedReply:
        seen.append(messages)
        return ScriptedReply(content="I would rather not calculate today.")

    with ScriptedChatServer(configured) as server:
        url = server.base_url
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("TOOLRESPONSE_MODEL", "my-local-model")
        out = io.StringIO()
        assert 0 == demo.main(out)
        assert ["calculator"] == [tool["function"]["name"] for tool in server.requests[0]["tools"]]
    assert f"model: my-local-model at {url}" in out.getvalue()
    assert demo.TASK == seen[0][-1]["content"]


def test_demo_with_an_unreachable_configured_model_fails_with_the_reason(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A configured model that cannot be reached ends the demo non-zero, saying why."""
    with ScriptedChatServer([]) as server:
        url = server.base_url
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("TOOLRESPONSE_MODEL", "gone")
    monkeypatch.setattr(demo, "Agent", functools.partial(Agent, model_retry=RetryPolicy(max_retries=0)))
    out = io.StringIO()
    assert 1 == demo.main(out)
    assert f"the run ended model_error: the model failed: NETWORK_ERROR: cannot reach {url}" in out.getvalue()


def test_demo_with_an_unwritable_trace_path_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A trace path that cannot be created is reported in a line, not a traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("TOOLRESPONSE_DEMO_TRACE", str(blocker / "trace.jsonl"))
    out = io.StringIO()
    assert 1 == demo.main(out)
    assert out.getvalue().startswith("  cannot write the trace or its report: ")


def test_demo_without_the_openai_client_names_the_extra(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the ``agent`` extra a configured model cannot be built: the demo says which extra to
    install, and fails."""
    monkeypatch.setitem(sys.modules, "openai", None)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("TOOLRESPONSE_MODEL", "any")
    out = io.StringIO()
    assert 1 == demo.main(out)
    assert "cannot build the model: OpenAIChatModel needs the openai package" in out.getvalue()
    assert "pip install 'toolresponse[agent]'" in out.getvalue()
