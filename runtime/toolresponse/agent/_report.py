"""What the agent's tool calls did, per tool, from its traces (``toolresponse report``).

For each tool: calls, success/partial/error counts, errors by code, p50/p95/max
``time_ms``, circuit-breaker trips (transitions to open) and denials (calls
refused ACCESS_DENIED or PERMISSION_DENIED, by an access policy, a person or
the tool itself, and calls of a tool an access policy hid from the caller,
which the caller reads as NOT_FOUND and the registry's trace names the rule
of; those an access policy refused by rule); for the whole
trace: runs and how they ended, model calls, tokens and duration. ``--html``
writes the same as one self-contained HTML page (inline CSS and SVG, no
script, nothing fetched) with a latency chart per tool.

Percentiles use the nearest-rank method: p95 of 20 calls is the 19th fastest.

Every line the agent writes is read, however odd its members: a tool name
that is null, empty or not text is counted under ``(unnamed)`` or its JSON
text; a ``time_ms`` or ``duration_ms`` that is not a number >= 0 leaves the
call untimed; a usage count is read as a number, a string of digits too, and
clamped to 2**53 - 1 (``MAX_TOKEN_COUNT``), anything else counts 0. A line
that still cannot be read (not JSON, not an object, no ``event``, a status
or error code the protocol does not have) is kept in ``TraceSummary.skipped``
as a ``TraceFormatError`` with its file and line, and the rest is summarised.
A file of which no line could be read (empty, or every line unreadable) is no
trace: ``TraceSummary.unread()`` names it, and the command refuses it.

Text taken from a trace (tool names, outcomes, codes) is shown with C0 and C1
control characters, bidirectional controls, lone surrogates and backslashes
escaped (``\x1b``, ``\u202e``, ``\\``), so that a tool name cannot retitle,
recolour or reorder the terminal the report is printed on; the HTML page is
escaped as HTML besides.
"""

from __future__ import annotations

import html
import json
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolresponse_generated import ErrorCode, ToolStatus

from .._errors import TraceFormatError
from .._terminal import printable
from ..tools import DENIAL_CODES
from ._models import MAX_TOKEN_COUNT
from ._trace import read_trace

_STATUSES = tuple(status.value for status in ToolStatus)
_CODES = frozenset(code.value for code in ErrorCode)
_DENIAL_CODES = frozenset(code.value for code in DENIAL_CODES)


@dataclass
class ToolCall:
    """One recorded execution of a tool (an attempt: a retried call counts each time)."""

    status: str
    code: str | None
    time_ms: float | None
    denied_by: str | None = None
    """The access rule that refused the call, when the trace names one."""

    @property
    def refused(self) -> bool:
        """Whether an access rule or the tool refused the call."""
        return self.status == "error" and (self.denied_by is not None or self.code in _DENIAL_CODES)


@dataclass
class ToolSummary:
    """The calls of one tool across every trace read."""

    name: str
    calls: list[ToolCall] = field(default_factory=list)
    breaker_trips: int = 0
    retries: int = 0
    blocked: int = 0

    def count(self, status: str) -> int:
        return sum(1 for call in self.calls if call.status == status)

    @property
    def errors_by_code(self) -> dict[str, int]:
        codes = Counter(call.code or "?" for call in self.calls if call.status == "error")
        return dict(sorted(codes.items(), key=lambda item: (-item[1], item[0])))

    @property
    def denied(self) -> int:
        """The calls refused: ACCESS_DENIED or PERMISSION_DENIED, or an access rule named (the call
        of a tool hidden from its caller is answered NOT_FOUND, and the registry's trace names the
        rule that hid it)."""
        return sum(1 for call in self.calls if call.refused)

    @property
    def denied_by_rule(self) -> dict[str, int]:
        """The refused calls by the access rule that refused them (``(tool)`` when none is named)."""
        rules = Counter(call.denied_by or "(tool)" for call in self.calls if call.refused)
        return dict(sorted(rules.items(), key=lambda item: (-item[1], item[0])))

    @property
    def times_ms(self) -> list[float]:
        return [call.time_ms for call in self.calls if call.time_ms is not None]

    def percentile(self, q: float) -> float | None:
        return percentile(self.times_ms, q)


def percentile(values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass
class TraceSummary:
    """Everything a report shows, from one or more trace files."""

    tools: dict[str, ToolSummary] = field(default_factory=dict)
    outcomes: Counter[str] = field(default_factory=Counter)
    model_calls: int = 0
    model_errors: Counter[str] = field(default_factory=Counter)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    duration_ms: float = 0.0
    files: list[str] = field(default_factory=list)
    skipped: list[TraceFormatError] = field(default_factory=list)
    """The lines that could not be read, each with its file and line number."""
    read: Counter[str] = field(default_factory=Counter)
    """How many lines of each file were read, by file name."""

    @property
    def runs(self) -> int:
        return sum(self.outcomes.values())

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def unread(self) -> list[str]:
        """One line for each file of which no line could be read: it is empty, or (with how many
        and the first reason) none of its lines is a trace event."""
        lines = []
        for name in self.files:
            if self.read[name]:
                continue
            skipped = [error for error in self.skipped if error.path == name]
            if not skipped:
                lines.append(f"{name}: no trace event in it (it has no line that is not blank)")
                continue
            count, first = len(skipped), skipped[0]
            lines.append(
                f"{name}: no trace event in it ({count} line{'' if count == 1 else 's'}, none readable; "
                f"line {first.line}: {first.reason})"
            )
        return lines

    def tool(self, name: str) -> ToolSummary:
        summary = self.tools.get(name)
        if summary is None:
            summary = self.tools[name] = ToolSummary(name)
        return summary


UNNAMED = "(unnamed)"
"""What a tool is called in the report when its trace gives it no name (null, missing, empty)."""


def _tool_name(value: Any) -> str:
    if isinstance(value, str):
        return value or UNNAMED
    if value is None:
        return UNNAMED
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _count(value: Any) -> int:
    """A usage count as the report adds it: a number or a string of digits, clamped; else 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, str):
        digits = value.strip()
        if not digits.isdigit() or not digits.isascii():
            return 0
        return MAX_TOKEN_COUNT if len(digits) > 16 else min(int(digits), MAX_TOKEN_COUNT)
    if isinstance(value, int):
        return min(max(value, 0), MAX_TOKEN_COUNT)
    if isinstance(value, float) and value >= 0:
        return MAX_TOKEN_COUNT if value >= MAX_TOKEN_COUNT else int(value)
    return 0


class _Line:
    """Typed access to one record's members, failing with the file and line."""

    def __init__(self, path: str, number: int, record: Mapping[str, Any]) -> None:
        self.path = path
        self.number = number
        self.record = record
        self.event = str(record["event"])

    def fail(self, reason: str) -> TraceFormatError:
        return TraceFormatError(self.path, self.number, f"{self.event}: {reason}")

    def text(self, name: str) -> str:
        value = self.record.get(name)
        if not isinstance(value, str) or not value:
            raise self.fail(f"{name!r} must be a non-empty string, not {_shown(value)}")
        return value

    def label(self, name: str) -> str:
        """A member shown as a label (an outcome, a code): its text, else ``?``."""
        value = self.record.get(name)
        return value if isinstance(value, str) and value else "?"

    def optional_text(self, name: str) -> str | None:
        return None if self.record.get(name) is None else self.text(name)

    def tool(self) -> str:
        return _tool_name(self.record.get("tool"))

    def amount(self, name: str) -> float | None:
        """A time in ms: a finite number >= 0, else None (the call is counted untimed)."""
        value = self.record.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None
        number = float(value)
        return number if math.isfinite(number) and number >= 0 else None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def summarise(paths: Iterable[str | os.PathLike[str]]) -> TraceSummary:
    """Read every trace file and add up what the report shows.

    Lines that cannot be read are skipped and kept in ``skipped``; a file
    that cannot be opened raises ``TraceFormatError``.
    """
    summary = TraceSummary()
    for path in paths:
        name = os.fspath(path)
        summary.files.append(name)
        registry_calls: list[tuple[str, ToolCall, str | None]] = []
        agent_results = False
        for number, record in read_trace(name, on_error=summary.skipped.append):
            line = _Line(name, number, record)
            try:
                if line.event == "tool_call":
                    registry_calls.append(_registry_call(line))
                else:
                    agent_results |= line.event == "tool_result"
                    _add(summary, line)
            except TraceFormatError as exc:
                summary.skipped.append(exc)
            else:
                summary.read[name] += 1
        if not agent_results:
            _add_registry_calls(summary, registry_calls)
    return summary


def _call(line: _Line) -> tuple[str, ToolCall]:
    tool = line.tool()
    status = line.text("status")
    if status not in _STATUSES:
        raise line.fail(f"'status' must be one of {', '.join(_STATUSES)}, not {_shown(status)}")
    code = line.record.get("code")
    if status == "error" and code not in _CODES:
        raise line.fail(f"'code' must be a ToolResponse v1 error code, not {_shown(code)}")
    denied_by = line.record.get("denied_by")
    return tool, ToolCall(
        status=status,
        code=code if isinstance(code, str) else None,
        time_ms=line.amount("time_ms"),
        denied_by=denied_by if isinstance(denied_by, str) and denied_by else None,
    )


def _registry_call(line: _Line) -> tuple[str, ToolCall, str | None]:
    """A ``tool_call`` event of the registry's own trace, with the breaker state after the call."""
    tool, call = _call(line)
    state = line.record.get("breaker_state")
    return tool, call, state if isinstance(state, str) else None


def _add_registry_calls(summary: TraceSummary, calls: list[tuple[str, ToolCall, str | None]]) -> None:
    last_state: dict[str, str | None] = {}
    for tool, call, state in calls:
        summary.tool(tool).calls.append(call)
        if state == "open" and last_state.get(tool) != "open":
            summary.tool(tool).breaker_trips += 1
        last_state[tool] = state


def _add(summary: TraceSummary, line: _Line) -> None:
    event = line.event
    if event == "tool_result":
        tool, call = _call(line)
        summary.tool(tool).calls.append(call)
    elif event == "breaker":
        if line.record.get("to") == "open":
            summary.tool(line.tool()).breaker_trips += 1
    elif event == "tool_retry":
        summary.tool(line.tool()).retries += 1
    elif event == "tool_blocked":
        summary.tool(line.tool()).blocked += 1
    elif event == "model_output":
        summary.model_calls += 1
        usage = line.record.get("usage")
        if isinstance(usage, Mapping):
            summary.prompt_tokens += _count(usage.get("prompt_tokens"))
            summary.completion_tokens += _count(usage.get("completion_tokens"))
    elif event == "model_error":
        # "code" (an ErrorCode) since the agent said model errors in the protocol's codes;
        # traces written before name the failure under "kind".
        summary.model_errors[line.label("code" if "code" in line.record else "kind")] += 1
    elif event == "run_end":
        summary.outcomes[line.label("outcome")] += 1
        summary.duration_ms += line.amount("duration_ms") or 0.0
    # Other events (run_start, tool_request, and any a later version adds) carry nothing to count.


# -- text --------------------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _duration(ms: float) -> str:
    return f"{ms:.0f} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def _counts(counter: Mapping[str, int]) -> str:
    return ", ".join(f"{printable(name)} {count}" for name, count in counter.items())


def overview(summary: TraceSummary) -> list[str]:
    runs = summary.runs
    outcomes = f" ({_counts(dict(sorted(summary.outcomes.items())))})" if runs else ""
    lines = [
        f"{runs} run{'' if runs == 1 else 's'}{outcomes}, {summary.model_calls} model "
        f"call{'' if summary.model_calls == 1 else 's'}, duration {_duration(summary.duration_ms)}",
        f"tokens {summary.total_tokens} "
        f"(prompt {summary.prompt_tokens}, completion {summary.completion_tokens})",
    ]
    if summary.model_errors:
        lines.append(f"model errors: {_counts(dict(sorted(summary.model_errors.items())))}")
    if summary.skipped:
        count = len(summary.skipped)
        lines.append(f"{count} unreadable line{'' if count == 1 else 's'} skipped")
    return lines


_COLUMNS = (
    "tool",
    "calls",
    "success",
    "partial",
    "error",
    "p50 ms",
    "p95 ms",
    "max ms",
    "trips",
    "errors by code",
)


def tool_rows(summary: TraceSummary) -> list[list[str]]:
    rows = []
    for name in sorted(summary.tools):
        tool = summary.tools[name]
        times = tool.times_ms
        rows.append(
            [
                printable(name),
                str(len(tool.calls)),
                str(tool.count("success")),
                str(tool.count("partial")),
                str(tool.count("error")),
                _ms(tool.percentile(50)),
                _ms(tool.percentile(95)),
                _ms(max(times) if times else None),
                str(tool.breaker_trips),
                _counts(tool.errors_by_code) or "-",
            ]
        )
    return rows


def render_text(summary: TraceSummary) -> str:
    lines = overview(summary)
    rows = tool_rows(summary)
    if not rows:
        lines.append("no tool calls")
        return "\n".join(lines) + "\n"
    table = [list(_COLUMNS), *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(_COLUMNS) - 1)]
    for number, row in enumerate(table):
        cells = [row[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(row[1:-1], widths[1:], strict=True)
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
        if number == 0:
            lines.append("  ".join("-" * width for width in widths) + "  " + "-" * len(_COLUMNS[-1]))
    extra = [
        f"{printable(name)}: {tool.retries} retried by the loop, "
        f"{tool.blocked} refused by the repeated-failure guard"
        for name, tool in sorted(summary.tools.items())
        if tool.retries or tool.blocked
    ]
    lines.extend(extra)
    lines.extend(denial_lines(summary))
    return "\n".join(lines) + "\n"


def denial_lines(summary: TraceSummary) -> list[str]:
    """One line per tool with refused calls: how many, by rule."""
    return [
        f"{printable(name)}: {tool.denied} denied ({_counts(tool.denied_by_rule)})"
        for name, tool in sorted(summary.tools.items())
        if tool.denied
    ]


# -- HTML --------------------------------------------------------------------------------------

_STATUS_COLOURS = {"success": "#2e7d32", "partial": "#ef8f00", "error": "#c62828"}

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;max-width:60rem;
color:#1b1b1b;padding:0 1rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;margin:1rem 0}th,td{padding:.3rem .6rem;border-bottom:1px solid #ddd;
text-align:right}th:first-child,td:first-child,td.codes{text-align:left}
.legend span{display:inline-block;margin-right:1rem}.legend i{display:inline-block;width:.8rem;height:.8rem;
margin-right:.3rem;vertical-align:-1px}svg{display:block;margin:.5rem 0}figure{margin:1rem 0 2rem}
figcaption{color:#555}
""".strip()


def _svg_chart(tool: ToolSummary, *, width: int = 640, height: int = 180) -> str:
    """A bar per call in order (height: time_ms, colour: status) with the p50 and p95 lines."""
    calls = [call for call in tool.calls if call.time_ms is not None]
    left, right, top, bottom = 56, 12, 12, 28
    plot_w, plot_h = width - left - right, height - top - bottom
    title = f"Latency of each call of {printable(tool.name)}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{html.escape(title)}">',
        f"<title>{html.escape(title)}</title>",
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#ccc"/>',
    ]
    if not calls:
        parts.append(f'<text x="{left + 8}" y="{top + 20}" fill="#555">no timed calls</text></svg>')
        return "".join(parts)
    peak = max(call.time_ms or 0.0 for call in calls) or 1.0
    scale = plot_h / peak
    slot = plot_w / len(calls)
    bar = max(1.0, slot * 0.8)
    for index, call in enumerate(calls):
        value = call.time_ms or 0.0
        bar_h = max(1.0, value * scale)
        x = left + index * slot + (slot - bar) / 2
        y = top + plot_h - bar_h
        label = f"call {index + 1}: {call.status}{' ' + call.code if call.code else ''}, {_ms(value)} ms"
        parts.append(
            f'<rect x="{x:.2f}" y="{y:.2f}" width="{bar:.2f}" height="{bar_h:.2f}" '
            f'fill="{_STATUS_COLOURS.get(call.status, "#777")}"><title>{html.escape(label)}</title></rect>'
        )
    # p50 labelled at the left end of its line, p95 at the right, so that equal values stay readable.
    for name, q, colour, label_x, anchor in (
        ("p50", 50, "#1565c0", left + 4, "start"),
        ("p95", 95, "#6a1b9a", left + plot_w - 4, "end"),
    ):
        line_at = tool.percentile(q)
        if line_at is None:
            continue
        y = top + plot_h - line_at * scale
        parts.append(
            f'<line x1="{left}" x2="{left + plot_w}" y1="{y:.2f}" y2="{y:.2f}" stroke="{colour}" '
            f'stroke-dasharray="4 3"/><text x="{label_x}" y="{y - 3:.2f}" text-anchor="{anchor}" '
            f'font-size="11" fill="{colour}">{name} {_ms(line_at)} ms</text>'
        )
    parts.append(
        f'<text x="{left - 6}" y="{top + 10}" text-anchor="end" font-size="11" fill="#555">'
        f"{_ms(peak)} ms</text>"
        f'<text x="{left - 6}" y="{top + plot_h}" text-anchor="end" font-size="11" fill="#555">0</text>'
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 8}" text-anchor="middle" font-size="11" fill="#555">'
        f"calls in order (1 to {len(calls)})</text></svg>"
    )
    return "".join(parts)


def render_html(summary: TraceSummary) -> str:
    """The report as one self-contained HTML page."""
    escape = html.escape
    head = "".join(f"<th>{escape(name)}</th>" for name in _COLUMNS)
    body = []
    for row in tool_rows(summary):
        cells = "".join(f"<td>{escape(cell)}</td>" for cell in row[:-1])
        body.append(f'<tr>{cells}<td class="codes">{escape(row[-1])}</td></tr>')
    legend = "".join(
        f'<span><i style="background:{colour}"></i>{status}</span>'
        for status, colour in _STATUS_COLOURS.items()
    )
    charts = "".join(
        f"<figure><h2>{escape(printable(name))}</h2>{_svg_chart(summary.tools[name])}"
        f"<figcaption>{len(summary.tools[name].calls)} calls; each bar is one call's time_ms."
        "</figcaption></figure>"
        for name in sorted(summary.tools)
    )
    sources = ", ".join(escape(printable(Path(name).name)) for name in summary.files)
    overview_html = "".join(f"<p>{escape(line)}</p>" for line in (*overview(summary), *denial_lines(summary)))
    table = (
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        if body
        else "<p>No tool calls.</p>"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>toolresponse report</title><style>{_CSS}</style></head><body>"
        f"<h1>Tool calls by tool</h1><p>From {sources}.</p>{overview_html}{table}"
        f'<p class="legend">{legend}</p>{charts}</body></html>\n'
    )
