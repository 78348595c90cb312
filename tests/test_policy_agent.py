"""Access policies through the agent, over real HTTP (the official ``openai`` client and the
scripted loopback server): a refused call never runs, the model is told it was refused and why,
the loop does not retry it nor run it again, and the trace and the report see the denial."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from scripted_chat import ScriptedChatServer, ScriptedReply, ScriptedToolCall

from toolresponse import (
    AccessControl,
    CircuitBreaker,
    Decision,
    DenyList,
    ErrorCode,
    PathsWithin,
    RequireApproval,
    ToolRegistry,
    ToolResponse,
)
from toolresponse.agent import (
    Agent,
    AgentResult,
    OpenAIChatModel,
    RetryPolicy,
    RunOutcome,
    render_text,
    summarise,
)
from toolresponse.testing import FakeClock
from toolresponse.tools._policy import AccessRequest, ApprovalRequest

AdvanceWhenWaiting = Callable[[FakeClock, float], threading.Thread]
"""The ``advance_when_waiting`` fixture of conftest."""

TOOL_RETRY = RetryPolicy(max_retries=2, initial_delay_s=0.1, max_delay_s=5.0, max_total_wait_s=10.0)


@pytest.fixture(params=["sync", "async"])
def mode(request: pytest.FixtureRequest) -> str:
    """Each test runs once through ``Agent.run`` and once through ``Agent.arun``."""
    value: str = request.param
    return value


@pytest.fixture
def serve() -> Iterator[Callable[[Any], ScriptedChatServer]]:
    servers: list[ScriptedChatServer] = []

    def start(script: Any) -> ScriptedChatServer:
        server = ScriptedChatServer(script).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


Serve = Callable[[Any], ScriptedChatServer]


def _call(name: str, arguments: dict[str, Any], call_id: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=(ScriptedToolCall(name=name, arguments=arguments, id=call_id),))


def _run(agent: Agent, task: str, mode: str) -> AgentResult:
    if mode == "sync":
        return agent.run(task)
    return asyncio.run(agent.arun(task))


def _agent(base_url: str, registry: ToolRegistry, clock: FakeClock, **options: Any) -> Agent:
    model = OpenAIChatModel("scripted-model", base_url=base_url, timeout_s=5, max_retries=0, env={})
    return Agent(
        registry, model, clock=clock, sleep=clock.sleep, asleep=clock.asleep, tool_retry=TOOL_RETRY, **options
    )


class Ran:
    def __init__(self) -> None:
        self.names: list[str] = []
        self._lock = threading.Lock()

    def hit(self, name: str) -> None:
        with self._lock:
            self.names.append(name)


def _registry(ran: Ran, access: AccessControl, clock: FakeClock, **options: Any) -> ToolRegistry:
    registry = ToolRegistry(
        access=access, clock=clock, wait=clock.wait, async_wait=clock.async_wait, **options
    )

    @registry.tool
    def read_file(path: str) -> str:
        """Read a file."""
        ran.hit("read_file")
        return f"contents of {path}"

    @registry.tool(writes=True)
    def delete_file(path: str) -> str:
        """Delete a file."""
        ran.hit("delete_file")
        return f"deleted {path}"

    @registry.tool
    def vault(key: str) -> ToolResponse:
        """A tool that refuses by itself, and (wrongly) says it may be retried."""
        ran.hit("vault")
        return ToolResponse.error(ErrorCode.PERMISSION_DENIED, f"key {key!r} is sealed", retryable=True)

    return registry


def _no_deletes_today(request: AccessRequest) -> Decision | None:
    """A policy that refuses by who calls and when, so it hides nothing from a listing."""
    if not request.tool.startswith("delete_"):
        return None
    reason = f"caller {request.caller!r} may not delete today"
    return Decision.deny(reason, code=ErrorCode.ACCESS_DENIED, rule="schedule")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_a_denied_call_is_told_to_the_model_as_refused_and_not_run(
    mode: str, clock: FakeClock, serve: Serve, tmp_path: Path
) -> None:
    """ACCESS_DENIED from a policy: the tool never runs, the breaker stays clean, the model reads
    that the call was refused, why, and not to call the tool again; trace and report see it."""
    ran = Ran()
    breaker = CircuitBreaker(failure_threshold=1, clock=clock)
    registry = _registry(ran, AccessControl(_no_deletes_today), clock, breaker=breaker)
    server = serve([_call("delete_file", {"path": "/etc/hosts"}, "c1"), ScriptedReply(content="I may not.")])
    trace = tmp_path / "run.jsonl"
    result = _run(_agent(server.base_url, registry, clock, trace=trace), "Delete /etc/hosts.", mode)
    assert (RunOutcome.ANSWERED, []) == (result.outcome, ran.names)
    (record,) = result.tool_calls
    assert (1, ErrorCode.ACCESS_DENIED) == (len(record.attempts), record.response.code)
    (message,) = server.tool_messages()
    content = message["content"]
    assert content.startswith("ERROR ACCESS_DENIED: Call of tool 'delete_file' refused: ")
    assert "caller 'local' may not delete today" in content
    assert "The call was refused and did not run. An access policy refused it." in content
    assert "You may not use 'delete_file': do not call it again." in content
    assert {} == breaker.statuses()
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    (result_event,) = [event for event in events if event["event"] == "tool_result"]
    assert ("ACCESS_DENIED", "schedule") == (result_event["code"], result_event["denied_by"])
    assert [] == [event for event in events if event["event"] == "tool_retry"]
    summary = summarise([trace])
    assert {"schedule": 1} == summary.tools["delete_file"].denied_by_rule
    assert "delete_file: 1 denied (schedule 1)" in render_text(summary).splitlines()


def test_a_tool_hidden_from_the_loop_is_not_offered_to_the_model(
    mode: str, clock: FakeClock, serve: Serve
) -> None:
    """The model is offered the tools the loop's caller ("local") may see: a deny-list hides
    ``delete_file``; a call of it anyway is answered as an unknown tool's, naming only the others."""
    ran = Ran()
    registry = _registry(ran, AccessControl(DenyList("delete_*")), clock)
    server = serve([_call("delete_file", {"path": "/etc/hosts"}, "c1"), ScriptedReply(content="gone?")])
    result = _run(_agent(server.base_url, registry, clock), "Delete /etc/hosts.", mode)
    offered = [tool["function"]["name"] for tool in server.requests[0]["tools"]]
    assert ["read_file", "vault"] == offered
    assert (ErrorCode.NOT_FOUND, []) == (result.tool_calls[0].response.code, ran.names)
    (message,) = server.tool_messages()
    assert message["content"].endswith("Call one of the available tools by its exact name: read_file, vault.")


def test_a_path_outside_the_root_is_refused_with_the_reason(
    mode: str, clock: FakeClock, serve: Serve, tmp_path: Path
) -> None:
    """PERMISSION_DENIED from a path rule (a symlink escaping the root): the model reads the reason
    and is told to change what it asks."""
    root = tmp_path / "root"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("s")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    ran = Ran()
    registry = _registry(ran, AccessControl(PathsWithin(root)), clock)
    server = serve([_call("read_file", {"path": str(root / "link.txt")}, "c1"), ScriptedReply(content="no")])
    _run(_agent(server.base_url, registry, clock), "Read the link.", mode)
    (message,) = server.tool_messages()
    assert message["content"].startswith("ERROR PERMISSION_DENIED: ")
    assert f"resolves to {str(tmp_path / 'secret.txt')!r}, outside {str(root)!r}" in message["content"]
    assert "Do not make this call to 'read_file' again: it will be refused again." in message["content"]
    assert [] == ran.names


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        pytest.param(True, "deleted /tmp/x", id="approved"),
        pytest.param(False, "It needed a person's approval and was not approved.", id="refused"),
    ],
)
def test_ask_goes_to_the_approval_hook(
    mode: str, clock: FakeClock, serve: Serve, answer: bool, expected: str
) -> None:
    """A writing tool asks a person: approved, it runs; refused, the model is told so."""
    ran = Ran()
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request)
        return answer

    access = AccessControl(RequireApproval(writes_only=True), approver=approve)
    registry = _registry(ran, access, clock)
    server = serve([_call("delete_file", {"path": "/tmp/x"}, "c1"), ScriptedReply(content="ok")])
    _run(_agent(server.base_url, registry, clock), "Delete /tmp/x.", mode)
    (message,) = server.tool_messages()
    assert expected in message["content"]
    assert [("delete_file", {"path": "/tmp/x"})] == [(r.request.tool, r.request.params) for r in asked]
    assert (["delete_file"] if answer else []) == ran.names


def test_ask_timed_out_is_refused_and_the_model_told_why(
    mode: str,
    clock: FakeClock,
    serve: Serve,
    release: threading.Event,
    advance_when_waiting: AdvanceWhenWaiting,
) -> None:
    """No answer within the approval timeout (on the fake clock): refused, and the model reads that
    no one approved it in time."""
    ran = Ran()

    def nobody(request: ApprovalRequest) -> bool:
        release.wait()
        return True

    access = AccessControl(RequireApproval("delete_*"), approver=nobody, approval_timeout_s=120)
    registry = _registry(ran, access, clock)
    server = serve([_call("delete_file", {"path": "/tmp/x"}, "c1"), ScriptedReply(content="ok")])
    advancer = advance_when_waiting(clock, 120)
    result = _run(_agent(server.base_url, registry, clock), "Delete /tmp/x.", mode)
    advancer.join()
    (message,) = server.tool_messages()
    assert "No one approved it in time, so it was refused." in message["content"]
    assert "within 120 s" in message["content"]
    assert ErrorCode.PERMISSION_DENIED == result.tool_calls[0].response.code
    assert [] == ran.names


def test_a_refusal_is_never_retried_even_when_marked_retryable(
    mode: str, clock: FakeClock, serve: Serve
) -> None:
    """A PERMISSION_DENIED the tool answered with retryable true is given to the model at once."""
    ran = Ran()
    registry = _registry(ran, AccessControl(), clock)
    server = serve([_call("vault", {"key": "k"}, "c1"), ScriptedReply(content="sealed")])
    result = _run(_agent(server.base_url, registry, clock), "Open the vault.", mode)
    assert (["vault"], (), 1) == (ran.names, clock.sleeps, len(result.tool_calls[0].attempts))
    (message,) = server.tool_messages()
    assert "The call was refused and did not run. The tool refused it." in message["content"]


def test_the_same_refused_call_is_not_run_again(mode: str, clock: FakeClock, serve: Serve) -> None:
    """When the model repeats a refused call unchanged, the loop does not ask the policy or the person
    again: the guard answers that it was already refused."""
    ran = Ran()
    asked: list[ApprovalRequest] = []

    def refuse(request: ApprovalRequest) -> bool:
        asked.append(request)
        return False

    registry = _registry(ran, AccessControl(RequireApproval("delete_*"), approver=refuse), clock)
    again = _call("delete_file", {"path": "/tmp/x"}, "c2")
    server = serve([_call("delete_file", {"path": "/tmp/x"}, "c1"), again, ScriptedReply(content="ok")])
    result = _run(_agent(server.base_url, registry, clock), "Delete /tmp/x.", mode)
    first, second = result.tool_calls
    assert (True, False) == (first.executed, second.executed)
    assert 1 == len(asked)
    assert second.feedback.startswith(
        "NOT EXECUTED: this exact call ('delete_file' with these same arguments) was already refused"
    )
    assert [] == ran.names
