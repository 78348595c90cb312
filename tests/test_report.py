"""``toolresponse report``: per-tool figures from JSONL traces, as text and as self-contained HTML."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from toolresponse import CircuitBreaker, JsonlTraceWriter, ToolRegistry
from toolresponse.agent import Agent, ModelReply, ToolCall, render_html, render_text, summarise
from toolresponse.agent._report import percentile
from toolresponse.cli import main
from toolresponse.testing import FakeClock


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def _result(tool: str, status: str, time_ms: float, code: str | None = None) -> dict[str, Any]:
    return {
        "event": "tool_result",
        "run_id": "r1",
        "tool": tool,
        "status": status,
        "code": code,
        "time_ms": time_ms,
    }


TRACE: list[dict[str, Any]] = [
    {"event": "run_start", "run_id": "r1", "t_ms": 0, "task": "t", "tools": ["add", "div"]},
    {
        "event": "model_output",
        "run_id": "r1",
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    },
    *[_result("add", "success", float(ms)) for ms in range(1, 21)],
    _result("div", "partial", 5.0),
    _result("div", "error", 7.0, "EXECUTION_ERROR"),
    _result("div", "error", 9.0, "EXECUTION_ERROR"),
    _result("div", "error", 0.5, "CIRCUIT_OPEN"),
    {"event": "breaker", "run_id": "r1", "tool": "div", "from": "closed", "to": "open"},
    {"event": "breaker", "run_id": "r1", "tool": "div", "from": "open", "to": "half_open"},
    {"event": "model_error", "run_id": "r1", "kind": "rate_limit", "status_code": 429},
    {
        "event": "model_output",
        "run_id": "r1",
        "usage": {"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55},
    },
    {"event": "run_end", "run_id": "r1", "outcome": "answered", "duration_ms": 1500.0},
    {"event": "a_later_event", "run_id": "r1"},
]


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([], 50, None),
        ([3.0], 95, 3.0),
        ([float(v) for v in range(1, 21)], 50, 10.0),
        ([float(v) for v in range(1, 21)], 95, 19.0),
        ([float(v) for v in range(1, 21)], 100, 20.0),
        ([5.0, 1.0, 3.0], 50, 3.0),
    ],
)
def test_percentile_is_nearest_rank(values: list[float], q: float, expected: float | None) -> None:
    """The q-th percentile is the ceil(q/100 * n)-th smallest value."""
    assert expected == percentile(values, q)


def test_summary_counts_calls_statuses_codes_times_trips_tokens_and_duration(tmp_path: Path) -> None:
    """Every figure of the report is added up from the trace's events."""
    summary = summarise([_write(tmp_path / "t.jsonl", TRACE)])
    add, div = summary.tools["add"], summary.tools["div"]
    assert (20, 20, 0, 0) == (len(add.calls), add.count("success"), add.count("partial"), add.count("error"))
    assert (10.0, 19.0, 20.0) == (
        percentile(add.times_ms, 50),
        percentile(add.times_ms, 95),
        max(add.times_ms),
    )
    assert (4, 1, 3) == (len(div.calls), div.count("partial"), div.count("error"))
    assert {"EXECUTION_ERROR": 2, "CIRCUIT_OPEN": 1} == div.errors_by_code
    assert (0, 1) == (add.breaker_trips, div.breaker_trips)
    assert (150, 25, 175) == (summary.prompt_tokens, summary.completion_tokens, summary.total_tokens)
    assert (1, 2, 1500.0) == (summary.runs, summary.model_calls, summary.duration_ms)
    assert {"rate_limit": 1} == dict(summary.model_errors)


def test_text_report_has_a_row_per_tool_with_every_column(tmp_path: Path) -> None:
    """The text report shows runs, tokens and duration, then one aligned row per tool."""
    text = render_text(summarise([_write(tmp_path / "t.jsonl", TRACE)]))
    lines = text.splitlines()
    assert "1 run (answered 1), 2 model calls, duration 1.50 s" == lines[0]
    assert "tokens 175 (prompt 150, completion 25)" == lines[1]
    assert "model errors: rate_limit 1" == lines[2]
    rows = {line.split()[0]: line.split() for line in lines[5:7]}
    assert ["add", "20", "20", "0", "0", "10.00", "19.00", "20.00", "0", "-"] == rows["add"]
    assert ["div", "4", "0", "1", "3", "5.00", "9.00", "9.00", "1"] == rows["div"][:9]
    assert "EXECUTION_ERROR 2, CIRCUIT_OPEN 1" == " ".join(rows["div"][9:])


def test_several_trace_files_add_up(tmp_path: Path) -> None:
    """Traces given together are summed."""
    first = _write(tmp_path / "a.jsonl", TRACE)
    second = _write(tmp_path / "b.jsonl", TRACE)
    summary = summarise([first, second])
    assert (40, 2, 350) == (len(summary.tools["add"].calls), summary.runs, summary.total_tokens)


def test_html_report_is_self_contained_with_an_inline_svg_chart_per_tool(tmp_path: Path) -> None:
    """The HTML has no script and fetches nothing; each tool gets an SVG with one bar per timed call."""
    page = render_html(summarise([_write(tmp_path / "t.jsonl", TRACE)]))
    assert page.startswith("<!DOCTYPE html>")
    assert [] == re.findall(r"<script|<link|https?://(?!www\.w3\.org/2000/svg)", page)
    charts = re.findall(r"<svg.*?</svg>", page, flags=re.DOTALL)
    assert 2 == len(charts)
    bars = [len(re.findall(r"<rect [^>]*><title>", chart)) for chart in charts]
    assert [20, 4] == bars
    assert "p95 19.00 ms" in charts[0]


def test_html_escapes_tool_names(tmp_path: Path) -> None:
    """A tool name is text in the page, never markup."""
    trace = _write(tmp_path / "t.jsonl", [_result("<b>x</b>", "success", 1.0)])
    page = render_html(summarise([trace]))
    assert "<b>x</b>" not in page
    assert "&lt;b&gt;x&lt;/b&gt;" in page


def test_command_prints_the_report_and_writes_html(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``toolresponse report TRACE --html OUT`` prints the table and writes the page."""
    trace = _write(tmp_path / "t.jsonl", TRACE)
    out = tmp_path / "report.html"
    assert 0 == main(["report", str(trace), "--html", str(out)])
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].startswith("1 run (answered 1)")
    assert f"wrote {out}" == printed.splitlines()[-1]
    assert "<svg" in out.read_text(encoding="utf-8")


BAD_LINES = [
    ("{not json", "t.jsonl:2: not JSON: Expecting property name enclosed in double quotes at column 2"),
    ("[1, 2]", "t.jsonl:2: a trace line must be a JSON object, not a JSON array"),
    ('{"run_id": "r"}', "t.jsonl:2: a trace line needs a string member 'event'"),
    (
        '{"event": "tool_result", "tool": "add", "status": "fine"}',
        "t.jsonl:2: tool_result: 'status' must be one of success, partial, error, not 'fine'",
    ),
    (
        '{"event": "tool_result", "tool": "add", "status": "error", "code": "OOPS"}',
        "t.jsonl:2: tool_result: 'code' must be a ToolResponse v1 error code, not 'OOPS'",
    ),
    ("[" * 5000 + "]" * 5000, "t.jsonl:2: nested too deeply to read"),
]


@pytest.mark.parametrize(
    ("line", "message"), BAD_LINES, ids=[message.split(": ", 1)[1][:60] for _, message in BAD_LINES]
)
def test_a_bad_trace_line_is_reported_with_file_and_line_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    """A line the report cannot read is named on stderr with FILE:LINE and its reason; the rest is
    summarised and the command succeeds."""
    trace = tmp_path / "t.jsonl"
    good = json.dumps(_result("add", "success", 1.0))
    trace.write_text(good + "\n" + line + "\n" + good + "\n", encoding="utf-8")
    assert 0 == main(["report", str(trace)])
    captured = capsys.readouterr()
    assert f"toolresponse report: {trace.parent}/{message} (line skipped)\n" == captured.err
    assert "1 unreadable line skipped" in captured.out
    assert ["add", "2"] == captured.out.splitlines()[-1].split()[:2]


def test_a_missing_trace_file_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A trace that cannot be opened is named, with the system's reason."""
    missing = tmp_path / "none.jsonl"
    assert 1 == main(["report", str(missing)])
    assert f"toolresponse report: {missing}: cannot read the trace: No such file or directory\n" == (
        capsys.readouterr().err
    )


def test_a_line_that_is_not_utf8_is_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bytes that are not UTF-8 are reported at their line, and the line is skipped."""
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(b'{"event": "run_start"}\n{"event": "\xff"}\n')
    assert 0 == main(["report", str(trace)])
    assert capsys.readouterr().err.startswith(f"toolresponse report: {trace}:2: not UTF-8 text")


def test_a_trace_without_tool_results_reports_no_tool_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A trace with a run but no tool results still reports, saying so."""
    trace = _write(
        tmp_path / "t.jsonl",
        [{"event": "run_start", "run_id": "r1"}, {"event": "run_end", "run_id": "r1", "outcome": "answered"}],
    )
    assert 0 == main(["report", str(trace)])
    assert "no tool calls" == capsys.readouterr().out.splitlines()[-1]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "it has no line that is not blank"),
        (b"\n  \n\n", "it has no line that is not blank"),
        (
            b'plain text\n[1, 2]\n{"no_event": true}\n',
            "3 lines, none readable; line 1: not JSON: Expecting value at column 1",
        ),
        (
            b'\xff\xfe{"event"\n',
            "1 line, none readable; line 1: not UTF-8 text (invalid start byte)",
        ),
    ],
    ids=["empty", "blank lines", "no line an event", "not UTF-8"],
)
def test_a_trace_with_no_readable_line_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, reason: str
) -> None:
    """A file of which no line can be read is no trace: exit 2, one line naming it and why, no
    report (not an empty summary with exit 0), even beside a good trace."""
    good = _write(tmp_path / "good.jsonl", [_result("add", "success", 1.0)])
    unread = tmp_path / "unread.jsonl"
    unread.write_bytes(content)
    assert 2 == main(["report", str(good), str(unread)])
    captured = capsys.readouterr()
    assert ("", [f"toolresponse report: {unread}: no trace event in it ({reason})"]) == (
        captured.out,
        captured.err.splitlines(),
    )


def test_the_registry_own_trace_is_reported_with_its_breaker_trips(tmp_path: Path) -> None:
    """A JsonlTraceWriter trace of a registry is read too; trips come from its breaker_state."""
    clock = FakeClock()
    registry = ToolRegistry(breaker=CircuitBreaker(failure_threshold=2, recovery_timeout_s=10, clock=clock))

    @registry.tool
    def divide(a: float, b: float) -> float:
        """Divide."""
        return a / b

    path = tmp_path / "registry.jsonl"
    with JsonlTraceWriter(path) as writer:
        registry.add_listener(writer)
        for b in (1, 0, 0, 1):
            registry.execute("divide", {"a": 1, "b": b})
    tool = summarise([path]).tools["divide"]
    assert (4, 1, 3, 1) == (len(tool.calls), tool.count("success"), tool.count("error"), tool.breaker_trips)
    assert {"EXECUTION_ERROR": 2, "CIRCUIT_OPEN": 1} == tool.errors_by_code


def test_registry_events_beside_agent_results_are_not_counted_twice(tmp_path: Path) -> None:
    """A registry tool_call beside the agent's tool_result of the same call (tool and call id) is
    that call, counted once."""
    registry_event = {"event": "tool_call", "tool": "add", "status": "success", "code": None, "time_ms": 1.0}
    trace = _write(tmp_path / "t.jsonl", [_result("add", "success", 1.0), registry_event])
    assert 1 == len(summarise([trace]).tools["add"].calls)


class _TwoAdds:
    """A ChatModel that asks for two calls of ``add`` (one failing), then answers."""

    def __init__(self) -> None:
        calls = (
            ToolCall(id="k1", name="add", arguments='{"a": 1, "b": 2}'),
            ToolCall(id="k2", name="add", arguments='{"a": "x", "b": 2}'),
        )
        answer = ModelReply(content="3", finish_reason="stop")
        self._replies = iter([ModelReply(tool_calls=calls, finish_reason="tool_calls"), answer])

    def complete(self, messages: Sequence[Any], tools: Sequence[Any]) -> ModelReply:
        return next(self._replies)

    async def acomplete(self, messages: Sequence[Any], tools: Sequence[Any]) -> ModelReply:
        return self.complete(messages, tools)


def test_a_file_of_registry_calls_and_agent_runs_counts_every_call_once(tmp_path: Path) -> None:
    """One writer on the registry and the agent's trace in the same file, then that file after a
    registry-only trace: every call is counted, the agent's calls once, the direct ones too."""
    clock = FakeClock()
    registry = ToolRegistry(clock=clock)

    @registry.tool
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    alone, both = tmp_path / "alone.jsonl", tmp_path / "both.jsonl"
    with JsonlTraceWriter(alone) as writer:
        registry.add_listener(writer)
        for b in (1, 2, 3):
            registry.execute("add", {"a": 1, "b": b})
        registry.execute("add", {"a": 1, "b": 4}, call_id="k1")  # an id the agent's model uses too
        registry.remove_listener(writer)
    with JsonlTraceWriter(both) as writer:
        registry.add_listener(writer)
        agent = Agent(registry, _TwoAdds(), trace=writer, clock=clock, sleep=clock.sleep)
        assert "answered" == agent.run("Add.").outcome.value
        registry.execute("add", {"a": 2, "b": 2})
        registry.remove_listener(writer)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(alone.read_bytes() + both.read_bytes())
    tool = summarise([mixed]).tools["add"]
    assert (7, 6, 1) == (len(tool.calls), tool.count("success"), tool.count("error"))
    assert (4, 3) == tuple(len(summarise([path]).tools["add"].calls) for path in (alone, both))


# -- the hostile corpus ------------------------------------------------------------------------

HOSTILE = Path(os.environ.get("TOOLRESPONSE_HOSTILE_DIR", Path(__file__).parent / "hostile")) / "report"
HOSTILE_CASES: list[dict[str, Any]] = json.loads((HOSTILE / "expected.json").read_text("utf-8"))
_UNSAFE_OUTPUT = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def test_every_hostile_trace_has_a_case() -> None:
    """Each trace of the corpus is in the table, once, with a unique description."""
    assert sorted(path.name for path in HOSTILE.glob("*.jsonl")) == sorted(c["file"] for c in HOSTILE_CASES)
    assert len({c["description"] for c in HOSTILE_CASES}) == len(HOSTILE_CASES)


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=[c["file"].removesuffix(".jsonl") for c in HOSTILE_CASES])
def test_a_hostile_trace_is_summarised_with_its_bad_lines_skipped(
    case: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    """The report reads what it can, names each skipped line, and prints no control character."""
    path = HOSTILE / case["file"]
    summary = summarise([path])
    assert case["skipped"] == [error.line for error in summary.skipped]
    assert case["tools"] == {name: len(tool.calls) for name, tool in summary.tools.items()}
    for member in ("prompt_tokens", "completion_tokens", "runs"):
        if member in case:
            assert case[member] == getattr(summary, member)
    if "timed" in case:
        assert case["timed"] == sum(len(tool.times_ms) for tool in summary.tools.values())
    assert 0 == main(["report", str(path)])
    captured = capsys.readouterr()
    assert [] == _UNSAFE_OUTPUT.findall(captured.out + captured.err)
    captured.out.encode("utf-8")  # no lone surrogate reaches the terminal
    assert [f"{path}:{line}:" for line in case["skipped"]] == [
        message.removeprefix("toolresponse report: ").split(" ", 1)[0]
        for message in captured.err.splitlines()
    ]
    for shown in case.get("shown", []):
        assert shown in captured.out
    render_html(summary).encode("utf-8")


def test_a_tool_name_cannot_retitle_the_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An OSC title sequence in a tool name is printed as escapes, never as the bytes themselves."""
    trace = _write(tmp_path / "t.jsonl", [_result("\x1b]0;pwned\x07", "success", 1.0)])
    assert 0 == main(["report", str(trace)])
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert "\\x1b]0;pwned\\x07" in out
