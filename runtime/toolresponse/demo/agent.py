"""The agent demo: a calculator task that meets success, partial and error, status by status.

With nothing configured, the model is a scripted one served over real HTTP on
loopback (``ScriptedChatServer``) and reached through the official ``openai``
client, exactly as a real model would be: it asks for four calculations at
once, reads the statuses, fixes the one whose arguments were wrong, accepts
the one that cannot be computed and answers. When ``OPENAI_BASE_URL`` and
``TOOLRESPONSE_MODEL`` are set (``OPENAI_API_KEY`` too, if the server needs
one), the same agent runs on that model instead, with the same calculator.

The run's trace is written to ``TOOLRESPONSE_DEMO_TRACE`` if set, else to a
new temporary directory, and ``toolresponse report`` is shown on it (text,
plus the HTML page beside the trace).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from ..agent import (
    DEFAULT_MODEL_RETRY,
    Agent,
    AgentResult,
    ChatModel,
    ModelConfigError,
    OpenAIChatModel,
    RetryPolicy,
    RunOutcome,
    render_html,
    render_text,
    summarise,
)
from ..tools import CircuitBreaker
from ._chat_server import ScriptedChatServer, ScriptedReply, ScriptedToolCall
from .calculator import build_registry

TASK = (
    "Answer four questions with the calculator. "
    "1) How many different 128-bit keys are there (2 ** 128)? "
    "2) What is the area of a circle of radius 3? "
    "3) 12 baskets hold 4 apples each: how many apples? "
    "4) What is the average of zero measurements that sum to 0 (0 / 0)?"
)

DEMO_MODEL_RETRY: RetryPolicy = DEFAULT_MODEL_RETRY
"""How the demo retries a failing model (a configured one may be slow to start)."""

_TIMES = "\N{MULTIPLICATION SIGN}"
FIRST_CALLS = ("2 ** 128", "pi * 3 ** 2", f"12 {_TIMES} 4", "0 / 0")
"""What the scripted model asks first; the multiplication sign is the mistake it then fixes."""

_FIXES = {f"12 {_TIMES} 4": "12 * 4"}


def _tool_results(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(expression, tool message) for every calculator call in the conversation, in order."""
    expressions: dict[str, str] = {}
    results: list[tuple[str, str]] = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            arguments = json.loads(call["function"]["arguments"] or "{}")
            expressions[call["id"]] = str(arguments.get("expression", ""))
        if message.get("role") == "tool":
            results.append((expressions.get(str(message.get("tool_call_id")), "?"), str(message["content"])))
    return results


def _calls(*expressions: str) -> ScriptedReply:
    return ScriptedReply(
        tool_calls=tuple(
            ScriptedToolCall(name="calculator", arguments={"expression": expression})
            for expression in expressions
        )
    )


def scripted_model(messages: list[dict[str, Any]]) -> ScriptedReply:
    """The built-in model: it reacts to each status it reads, as a careful model would."""
    turns = sum(1 for message in messages if message.get("role") == "assistant")
    if turns == 0:
        return _calls(*FIRST_CALLS)
    results = _tool_results(messages)
    if turns == 1:
        fixes = [
            _FIXES[expr] for expr, text in results if text.startswith("ERROR INVALID_") and expr in _FIXES
        ]
        if fixes:
            return _calls(*fixes)
    lines = []
    for expression, text in results:
        first = text.splitlines()[0]
        if text.startswith("PARTIAL RESULT"):
            lines.append(first.removeprefix("PARTIAL RESULT (incomplete): "))
        elif text.startswith("ERROR INVALID_"):
            continue  # fixed and asked again
        elif text.startswith("ERROR"):
            lines.append(f"{expression} has no value ({first.split(': ', 1)[1].rstrip('.')})")
        else:
            lines.append(first)
    return ScriptedReply(content="; ".join(lines) + ".")


def _first_line(text: str, limit: int = 150) -> str:
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def print_transcript(result: AgentResult, out: TextIO) -> None:
    """Each step: the model's calls with each status, and what the model was told."""
    for step in result.steps:
        if not step.tool_calls:
            print(f"  step {step.index + 1}: the model answers:", file=out)
            print(f"    {step.reply.content}", file=out)
            continue
        count = len(step.tool_calls)
        together = " (run concurrently)" if count > 1 else ""
        plural = "s" if count > 1 else ""
        print(f"  step {step.index + 1}: the model asks for {count} tool call{plural}{together}", file=out)
        for record in step.tool_calls:
            response = record.response
            head = response.status.value + (f" {response.code.value}" if response.code else "")
            print(f"    {record.tool}({record.call.arguments}) -> {head}", file=out)
            print(f"      tool text:  {_first_line(response.text)}", file=out)
            if not response.is_success:
                told = [line for line in record.feedback.splitlines() if line][-1]
                print(f"      model told: {_first_line(told, 200)}", file=out)
            if response.data:
                print(f"      data:       {json.dumps(response.data, ensure_ascii=False)}", file=out)
    statuses = Counter(response.status.value for response in result.responses)
    shown = ", ".join(f"{status} {statuses[status]}" for status in ("success", "partial", "error"))
    print(
        f"  outcome: {result.outcome.value} after {len(result.steps)} steps; "
        f"{len(result.responses)} tool calls ({shown}); {result.usage.total_tokens} tokens",
        file=out,
    )


def _trace_path(env: Mapping[str, str]) -> Path:
    chosen = env.get("TOOLRESPONSE_DEMO_TRACE", "").strip()
    if chosen:
        return Path(chosen)
    return Path(tempfile.mkdtemp(prefix="toolresponse-demo-")) / "agent-trace.jsonl"


def _show_report(trace: Path, out: TextIO) -> None:
    page = trace.with_suffix(".html")
    print(f"  $ toolresponse report {trace} --html {page}", file=out)
    summary = summarise([trace])
    for line in render_text(summary).splitlines():
        print(f"  {line}", file=out)
    page.write_text(render_html(summary), encoding="utf-8")
    print(f"  wrote {page}", file=out)


def _run(model: ChatModel, description: str, out: TextIO, trace: Path) -> AgentResult:
    registry = build_registry(CircuitBreaker())
    agent = Agent(registry, model, max_steps=8, trace=trace, model_retry=DEMO_MODEL_RETRY)
    print(f"  task:  {TASK}", file=out)
    print(f"  model: {description}", file=out)
    result = agent.run(TASK)
    print_transcript(result, out)
    return result


def main(out: TextIO) -> int:
    """Run the agent demo on the scripted model, or on the configured one; show the trace's report."""
    try:
        return _main(out, os.environ)
    except ModelConfigError as exc:
        print(f"  cannot build the model: {exc}", file=out)
        return 1
    except OSError as exc:
        print(f"  cannot write the trace or its report: {exc}", file=out)
        return 1


def _main(out: TextIO, env: Mapping[str, str]) -> int:
    trace = _trace_path(env)
    trace.parent.mkdir(parents=True, exist_ok=True)
    if env.get("OPENAI_BASE_URL", "").strip() and env.get("TOOLRESPONSE_MODEL", "").strip():
        model = OpenAIChatModel(timeout_s=120, env=env)
        result = _run(
            model, f"{model.model} at {model.base_url} (from OPENAI_BASE_URL, TOOLRESPONSE_MODEL)", out, trace
        )
        ok = result.outcome is RunOutcome.ANSWERED
        if not ok:
            print(f"  the run ended {result.outcome.value}: {result.reason}", file=out)
    else:
        with ScriptedChatServer(scripted_model) as server:
            model = OpenAIChatModel("scripted-model", base_url=server.base_url, timeout_s=30, env={})
            result = _run(
                model,
                f"a scripted model served on {server.base_url} (set OPENAI_BASE_URL and "
                "TOOLRESPONSE_MODEL to use a real one)",
                out,
                trace,
            )
        statuses = {response.status.value for response in result.responses}
        ok = result.outcome is RunOutcome.ANSWERED and statuses == {"success", "partial", "error"}
        if not ok:
            print(
                f"  UNEXPECTED: the scripted run ended {result.outcome.value} with {sorted(statuses)}",
                file=out,
            )
    _show_report(trace, out)
    return 0 if ok else 1
