"""What the agent's tool calls did, per tool, from its traces (``toolresponse report``).

Per tool: calls, statuses, errors by code, p50/p95/max ``time_ms`` (nearest rank), breaker trips
and denials; for the whole trace: runs, model calls, tokens and duration; as text, or as one
self-contained HTML page (inline CSS and SVG, no script). How odd lines are read and shown:
docs/observability.md, "Reading traces".
"""

from __future__ import annotations

import html
import math
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from toolresponse_generated import ErrorCode, ToolStatus

from .._errors import TraceFormatError
from .._suggest import is_finite_number, printable, shortened
from ..tools._policy import DENIAL_CODES
from ._models import MAX_TOKEN_COUNT, json_text, token_count
from ._trace import read_trace

_STATUSES = tuple(status.value for status in ToolStatus)
_CODES = frozenset(code.value for code in ErrorCode)
_DENIAL_CODES = frozenset(code.value for code in DENIAL_CODES)

UNNAMED = "(unnamed)"
"""What a tool is called in the report when its trace gives it no name (null, missing, empty)."""


class ToolCall(NamedTuple):
    """One recorded execution of a tool (an attempt: a retried call counts each time)."""

    status: str
    code: str | None
    time_ms: float | None
    denied_by: str | None = None  # the access rule that refused the call, when the trace names one

    @property
    def refused(self) -> bool:
        """Whether an access rule or the tool refused the call."""
        return self.status == "error" and (self.denied_by is not None or self.code in _DENIAL_CODES)


def _by_count(counter: Counter[str]) -> dict[str, int]:
    return dict(sorted(counter.items(), key=lambda item: (-item[1], item[0])))


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
        return _by_count(Counter(call.code or "?" for call in self.calls if call.status == "error"))

    @property
    def denied_by_rule(self) -> dict[str, int]:
        """The refused calls by the access rule that refused them (``(tool)`` when none is named)."""
        return _by_count(Counter(call.denied_by or "(tool)" for call in self.calls if call.refused))

    @property
    def times_ms(self) -> list[float]:
        return [call.time_ms for call in self.calls if call.time_ms is not None]


def percentile(values: Sequence[float], q: float) -> float | None:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of ``values``; None when empty."""
    if not values:
        return None
    return sorted(values)[max(1, math.ceil(q / 100 * len(values))) - 1]


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
        for name in (name for name in self.files if not self.read[name]):
            skipped = [error for error in self.skipped if error.path == name]
            why = "it has no line that is not blank"
            if skipped:
                first = skipped[0]
                why = f"{_plural(len(skipped), 'line')}, none readable; line {first.line}: {first.reason}"
            lines.append(f"{name}: no trace event in it ({why})")
        return lines

    def tool(self, name: str) -> ToolSummary:
        return self.tools.setdefault(name, ToolSummary(name))


# -- reading -----------------------------------------------------------------------------------


class _Unreadable(Exception):
    """A trace line's member the report cannot read: the message says which and why."""


def _label(record: Mapping[str, Any], name: str) -> str:
    """A member shown as a label (an outcome, a code): its text, else ``?``."""
    value = record.get(name)
    return value if isinstance(value, str) and value else "?"


def _tool(record: Mapping[str, Any]) -> str:
    value = record.get("tool")
    return (value or UNNAMED) if isinstance(value, str) or value is None else json_text(value)


def _amount(record: Mapping[str, Any], name: str) -> float | None:
    """A time in ms: a finite number >= 0, else None (the call is counted untimed)."""
    value = record.get(name)
    return float(value) if is_finite_number(value) and value >= 0 else None


def _call_id(record: Mapping[str, Any]) -> Any:
    """A record's call id as a key: its text, else None (no id, or one that is not text)."""
    value = record.get("call_id")
    return value if isinstance(value, str) else None


def _tool_call(record: Mapping[str, Any]) -> tuple[str, ToolCall]:
    """The tool and its call, of a ``tool_result`` (the agent's) or ``tool_call`` (the registry's)."""
    status, code, denied_by = (record.get(name) for name in ("status", "code", "denied_by"))
    if status not in _STATUSES:
        raise _Unreadable(
            f"'status' must be one of {', '.join(_STATUSES)}, not {shortened(repr(status), 60)}"
        )
    if status == "error" and code not in _CODES:
        raise _Unreadable(f"'code' must be a ToolResponse v1 error code, not {shortened(repr(code), 60)}")
    return _tool(record), ToolCall(
        status=str(status),
        code=code if isinstance(code, str) else None,
        time_ms=_amount(record, "time_ms"),
        denied_by=denied_by if isinstance(denied_by, str) and denied_by else None,
    )


def _count(value: Any) -> int:
    """A usage count as the report adds it: ``token_count`` of a number or a string of digits; else 0."""
    if isinstance(value, str) and value.strip().isdigit() and value.strip().isascii():
        digits = value.strip()
        value = MAX_TOKEN_COUNT if len(digits) > 16 else int(digits)
    return token_count(value) or 0


def _add(summary: TraceSummary, event: str, record: Mapping[str, Any]) -> None:
    """What an event adds; others (run_start, tool_request, any a later version adds) add nothing."""
    match event:
        case "tool_result":
            tool, call = _tool_call(record)
            summary.tool(tool).calls.append(call)
        case "breaker" if record.get("to") == "open":
            summary.tool(_tool(record)).breaker_trips += 1
        case "tool_retry":
            summary.tool(_tool(record)).retries += 1
        case "tool_blocked":
            summary.tool(_tool(record)).blocked += 1
        case "model_output":
            summary.model_calls += 1
            usage = record.get("usage")
            if isinstance(usage, Mapping):
                summary.prompt_tokens += _count(usage.get("prompt_tokens"))
                summary.completion_tokens += _count(usage.get("completion_tokens"))
        case "model_error":  # "code" since model errors are said in the protocol's codes; before, "kind"
            summary.model_errors[_label(record, "code" if "code" in record else "kind")] += 1
        case "run_end":
            summary.outcomes[_label(record, "outcome")] += 1
            summary.duration_ms += _amount(record, "duration_ms") or 0.0


def summarise(paths: Iterable[str | os.PathLike[str]]) -> TraceSummary:
    """Read every trace file and add up what the report shows; lines that cannot be read are kept
    in ``skipped``, a file that cannot be opened raises ``TraceFormatError``."""
    summary = TraceSummary()
    for path in paths:
        name = os.fspath(path)
        summary.files.append(name)
        registry_calls: list[tuple[str, ToolCall, Any, Any]] = []
        agent_results: Counter[tuple[str, Any]] = Counter()  # by tool and call id
        for number, record in read_trace(name, summary.skipped.append):
            event = record["event"]
            try:
                if event == "tool_call":  # the registry's own trace, with the state after the call
                    tool, call = _tool_call(record)
                    registry_calls.append((tool, call, _call_id(record), record.get("breaker_state")))
                else:
                    _add(summary, event, record)
                    if event == "tool_result":
                        agent_results[_tool(record), _call_id(record)] += 1
            except _Unreadable as exc:
                summary.skipped.append(TraceFormatError(name, number, f"{event}: {exc}"))
            else:
                summary.read[name] += 1
        last_state: dict[str, Any] = {}
        for tool, call, call_id, state in registry_calls:
            # The agent's tool_result of the same tool and call id is this call: never counted twice,
            # and a trip while a run lasts is the agent's breaker event.
            if agent_results[tool, call_id]:
                agent_results[tool, call_id] -= 1
            else:
                summary.tool(tool).calls.append(call)
                summary.tool(tool).breaker_trips += state == "open" and last_state.get(tool) != "open"
            last_state[tool] = state
    return summary


# -- text --------------------------------------------------------------------------------------


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}" if value < 100 else f"{value:.0f}"


def _counts(counter: Mapping[str, int]) -> str:
    return ", ".join(f"{printable(name)} {count}" for name, count in counter.items())


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def overview(summary: TraceSummary) -> list[str]:
    outcomes = f" ({_counts(dict(sorted(summary.outcomes.items())))})" if summary.runs else ""
    ms = summary.duration_ms
    lines = [
        f"{_plural(summary.runs, 'run')}{outcomes}, {_plural(summary.model_calls, 'model call')}, "
        f"duration {f'{ms:.0f} ms' if ms < 1000 else f'{ms / 1000:.2f} s'}",
        f"tokens {summary.total_tokens} "
        f"(prompt {summary.prompt_tokens}, completion {summary.completion_tokens})",
    ]
    if summary.model_errors:
        lines.append(f"model errors: {_counts(dict(sorted(summary.model_errors.items())))}")
    if summary.skipped:
        lines.append(f"{_plural(len(summary.skipped), 'unreadable line')} skipped")
    return lines


_COLUMNS = (
    "tool", "calls", "success", "partial", "error", "p50 ms", "p95 ms", "max ms", "trips", "errors by code",
)  # fmt: skip


def tool_rows(summary: TraceSummary) -> list[list[str]]:
    rows = []
    for name, tool in sorted(summary.tools.items()):
        counts = [len(tool.calls), tool.count("success"), tool.count("partial"), tool.count("error")]
        times = [percentile(tool.times_ms, q) for q in (50, 95, 100)]  # p100: the maximum
        codes = _counts(tool.errors_by_code) or "-"
        rows.append([printable(name), *map(str, counts), *map(_ms, times), str(tool.breaker_trips), codes])
    return rows


def render_text(summary: TraceSummary) -> str:
    lines = overview(summary)
    rows = tool_rows(summary)
    if not rows:
        return "\n".join([*lines, "no tool calls"]) + "\n"
    table = [list(_COLUMNS), *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(_COLUMNS) - 1)]
    table.insert(1, ["-" * width for width in [*widths, len(_COLUMNS[-1])]])
    for row in table:
        cells = [row[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(row[1:-1], widths[1:], strict=True)
        ]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    lines += [
        f"{printable(name)}: {tool.retries} retried by the loop, "
        f"{tool.blocked} refused by the repeated-failure guard"
        for name, tool in sorted(summary.tools.items())
        if tool.retries or tool.blocked
    ]
    return "\n".join(lines + denial_lines(summary)) + "\n"


def denial_lines(summary: TraceSummary) -> list[str]:
    """One line per tool with refused calls (ACCESS_DENIED or PERMISSION_DENIED, or an access rule
    named): how many, by rule."""
    return [
        f"{printable(name)}: {sum(rules.values())} denied ({_counts(rules)})"
        for name, tool in sorted(summary.tools.items())
        if (rules := tool.denied_by_rule)
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

_LEFT, _TOP, _WIDTH, _HEIGHT = 56, 12, 572, 140  # the plot's corner and size in a 640 x 180 chart


def _text(x: float, y: float, text: str, anchor: str = "end", colour: str = "#555") -> str:
    return (
        f'<text x="{x:.2f}" y="{y:.2f}" text-anchor="{anchor}" font-size="11" fill="{colour}">{text}</text>'
    )


def _svg_chart(tool: ToolSummary) -> str:
    """A bar per timed call in order (height: time_ms, colour: status) with the p50 and p95 lines."""
    calls = [call for call in tool.calls if call.time_ms is not None]
    title = html.escape(f"Latency of each call of {printable(tool.name)}")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="640" height="180" viewBox="0 0 640 180" role="img" '
        f'aria-label="{title}"><title>{title}</title>'
        f'<rect x="{_LEFT}" y="{_TOP}" width="{_WIDTH}" height="{_HEIGHT}" fill="#fafafa" stroke="#ccc"/>'
    ]
    if not calls:
        return "".join([*parts, _text(_LEFT + 8, _TOP + 20, "no timed calls", "start"), "</svg>"])
    peak = max(call.time_ms or 0.0 for call in calls) or 1.0
    slot = _WIDTH / len(calls)
    bar = max(1.0, slot * 0.8)
    for index, call in enumerate(calls):
        value = call.time_ms or 0.0
        height = max(1.0, value * _HEIGHT / peak)
        label = html.escape(
            f"call {index + 1}: {call.status}{' ' + call.code if call.code else ''}, {_ms(value)} ms"
        )
        parts.append(
            f'<rect x="{_LEFT + index * slot + (slot - bar) / 2:.2f}" y="{_TOP + _HEIGHT - height:.2f}" '
            f'width="{bar:.2f}" height="{height:.2f}" fill="{_STATUS_COLOURS.get(call.status, "#777")}">'
            f"<title>{label}</title></rect>"
        )
    # p50 labelled at the left end of its line, p95 at the right, so that equal values stay readable.
    for name, colour, x, anchor in (
        ("p50", "#1565c0", _LEFT + 4, "start"),
        ("p95", "#6a1b9a", _LEFT + _WIDTH - 4, "end"),
    ):
        at = percentile(tool.times_ms, float(name[1:]))
        y = _TOP + _HEIGHT - (at or 0.0) * _HEIGHT / peak
        parts.append(
            f'<line x1="{_LEFT}" x2="{_LEFT + _WIDTH}" y1="{y:.2f}" y2="{y:.2f}" stroke="{colour}" '
            f'stroke-dasharray="4 3"/>' + _text(x, y - 3, f"{name} {_ms(at)} ms", anchor, colour)
        )
    parts += [
        _text(_LEFT - 6, _TOP + 10, f"{_ms(peak)} ms"),
        _text(_LEFT - 6, _TOP + _HEIGHT, "0"),
        _text(_LEFT + _WIDTH / 2, 172, f"calls in order (1 to {len(calls)})", "middle"),
        "</svg>",
    ]
    return "".join(parts)


def render_html(summary: TraceSummary) -> str:
    """The report as one self-contained HTML page."""
    escape = html.escape
    head = "".join(f"<th>{escape(name)}</th>" for name in _COLUMNS)
    body = "".join(
        "<tr>"
        + "".join(f"<td>{escape(cell)}</td>" for cell in row[:-1])
        + f'<td class="codes">{escape(row[-1])}</td></tr>'
        for row in tool_rows(summary)
    )
    legend = "".join(
        f'<span><i style="background:{c}"></i>{status}</span>' for status, c in _STATUS_COLOURS.items()
    )
    charts = "".join(
        f"<figure><h2>{escape(printable(name))}</h2>{_svg_chart(tool)}"
        f"<figcaption>{len(tool.calls)} calls; each bar is one call's time_ms.</figcaption></figure>"
        for name, tool in sorted(summary.tools.items())
    )
    sources = ", ".join(escape(printable(Path(name).name)) for name in summary.files)
    overview_html = "".join(f"<p>{escape(line)}</p>" for line in (*overview(summary), *denial_lines(summary)))
    table = (
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
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
