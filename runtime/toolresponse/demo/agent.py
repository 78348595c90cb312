"""The agent demo: a calculator task that meets success, partial and error, status by status.

With nothing configured the model is a scripted one, in process; ``OPENAI_BASE_URL`` and
``TOOLRESPONSE_MODEL`` (and ``OPENAI_API_KEY`` if needed) name a real one, reached through the
official ``openai`` client. The trace goes to ``TOOLRESPONSE_DEMO_TRACE``, else to a new temporary
directory, and its report is shown (text, and HTML beside the trace).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from .._errors import ModelConfigError
from .._suggest import shortened
from ..agent import (
    Agent,
    AgentResult,
    ChatModel,
    ModelReply,
    OpenAIChatModel,
    RunOutcome,
    TokenUsage,
    ToolCall,
    render_html,
    render_text,
    summarise,
)
from ..tools._breaker import CircuitBreaker
from .calculator import build_registry

TASK = (
    "Answer four questions with the calculator. "
    "1) How many different 128-bit keys are there (2 ** 128)? "
    "2) What is the area of a circle of radius 3? "
    "3) 12 baskets hold 4 apples each: how many apples? "
    "4) What is the average of zero measurements that sum to 0 (0 / 0)?"
)

_FIRST_CALLS = ("2 ** 128", "pi * 3 ** 2", "12 \N{MULTIPLICATION SIGN} 4", "0 / 0")
_FIXES = {"12 \N{MULTIPLICATION SIGN} 4": "12 * 4"}
"""What the scripted model asks first, and how it fixes the one the calculator refuses."""
_Messages = Sequence[Mapping[str, Any]]


def _reply(messages: _Messages, turn: int, content: str = "", asks: Sequence[str] = ()) -> ModelReply:
    arguments = [json.dumps({"expression": e}, separators=(",", ":"), ensure_ascii=False) for e in asks]
    calls = tuple(
        ToolCall(id=f"call_{turn + 1}_{n}", name="calculator", arguments=text)
        for n, text in enumerate(arguments, 1)
    )
    usage = TokenUsage(  # about four characters a token: a deterministic stand-in for a tokenizer
        prompt_tokens=(len(json.dumps(list(messages))) + 3) // 4,
        completion_tokens=(len(content + "".join(arguments)) + 3) // 4,
    )
    finish = "tool_calls" if calls else "stop"
    return ModelReply(content=content or None, tool_calls=calls, usage=usage, finish_reason=finish)


class ScriptedModel:
    """The built-in model, in process: it reacts to each status it reads, as a careful model would."""

    name = "scripted-model"

    def complete(self, messages: _Messages, tools: _Messages) -> ModelReply:
        asked = {
            call["id"]: json.loads(call["function"]["arguments"])["expression"]
            for message in messages
            for call in message.get("tool_calls") or ()
        }
        results = [
            (asked.get(m["tool_call_id"], "?"), str(m["content"]))
            for m in messages
            if m.get("role") == "tool"
        ]
        turns = sum(1 for message in messages if message.get("role") == "assistant")
        if turns == 0:
            return _reply(messages, turns, asks=_FIRST_CALLS)
        fixes = [_FIXES[e] for e, text in results if text.startswith("ERROR INVALID_") and e in _FIXES]
        if turns == 1 and fixes:
            return _reply(messages, turns, asks=fixes)
        lines = []
        for expression, text in results:
            first = text.splitlines()[0]
            if text.startswith("PARTIAL RESULT"):
                lines.append(first.removeprefix("PARTIAL RESULT (incomplete): "))
            elif text.startswith("ERROR") and not text.startswith("ERROR INVALID_"):  # those were fixed
                lines.append(f"{expression} has no value ({first.split(': ', 1)[1].rstrip('.')})")
            elif not text.startswith("ERROR"):
                lines.append(first)
        return _reply(messages, turns, "; ".join(lines) + ".")

    async def acomplete(self, messages: _Messages, tools: _Messages) -> ModelReply:
        return self.complete(messages, tools)


def _first_line(text: str, limit: int) -> str:
    return shortened(text.splitlines()[0] if text else "", limit)


def print_transcript(result: AgentResult, out: TextIO) -> None:
    """Each step: the model's calls with each status, and what the model was told."""
    for step in result.steps:
        count = len(step.tool_calls)
        if not count:
            print(f"  step {step.index + 1}: the model answers:\n    {step.reply.content}", file=out)
        else:
            together = "s (run concurrently)" if count > 1 else ""
            print(f"  step {step.index + 1}: the model asks for {count} tool call{together}", file=out)
        for record in step.tool_calls:
            response = record.response
            head = response.status.value + (f" {response.code.value}" if response.code else "")
            print(f"    {record.tool}({record.call.arguments}) -> {head}", file=out)
            print(f"      tool text:  {_first_line(response.text, 150)}", file=out)
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


def main(out: TextIO) -> int:
    """Run the agent demo on the scripted model, or on the configured one; show the trace's report."""
    try:
        return _main(out, os.environ)
    except ModelConfigError as exc:
        print(f"  cannot build the model: {exc}", file=out)
    except OSError as exc:
        print(f"  cannot write the trace or its report: {exc}", file=out)
    return 1


def _main(out: TextIO, env: Mapping[str, str]) -> int:
    chosen = env.get("TOOLRESPONSE_DEMO_TRACE", "").strip()
    trace = Path(chosen or Path(tempfile.mkdtemp(prefix="toolresponse-demo-")) / "agent-trace.jsonl")
    trace.parent.mkdir(parents=True, exist_ok=True)
    configured = env.get("OPENAI_BASE_URL", "").strip() and env.get("TOOLRESPONSE_MODEL", "").strip()
    model: ChatModel
    if configured:
        model = OpenAIChatModel(timeout_s=120, env=env)
        where = f"at {model.base_url} (from OPENAI_BASE_URL, TOOLRESPONSE_MODEL)"
    else:
        model = ScriptedModel()
        where = "(a scripted model, in process; set OPENAI_BASE_URL and TOOLRESPONSE_MODEL to use a real one)"
    print(f"  task:  {TASK}\n  model: {model.name} {where}", file=out)
    agent = Agent(build_registry(CircuitBreaker()), model, max_steps=8, trace=trace)
    result = agent.run(TASK)
    print_transcript(result, out)
    statuses = {response.status.value for response in result.responses}
    ok = result.outcome is RunOutcome.ANSWERED and (configured or statuses == {"success", "partial", "error"})
    if not ok:
        met = ", ".join(sorted(statuses))
        print(f"  the run ended {result.outcome.value}: {result.reason} (statuses met: {met})", file=out)
    page = trace.with_suffix(".html")
    print(f"  $ toolresponse report {trace} --html {page}", file=out)
    summary = summarise([trace])
    print("".join(f"  {line}\n" for line in render_text(summary).splitlines()), end="", file=out)
    page.write_text(render_html(summary), encoding="utf-8")
    print(f"  wrote {page}", file=out)
    return 0 if ok else 1
