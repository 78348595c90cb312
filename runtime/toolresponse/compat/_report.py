"""Reports of a schema comparison, as text or JSON, and which changes make it fail."""

from __future__ import annotations

import json
from enum import StrEnum

from ._classify import Change, SchemaDiff
from ._rules import ChangeClass

_LABELS = {
    ChangeClass.BREAKING_PRODUCERS: "breaking for producers",
    ChangeClass.BREAKING_CONSUMERS: "breaking for consumers",
    ChangeClass.BEHAVIOUR: "behaviour change",
    ChangeClass.COMPATIBLE: "compatible",
}


class FailOn(StrEnum):
    """Which changes make a comparison fail."""

    BREAKING = "breaking"
    """Changes that break producers or consumers (the default for third parties)."""
    BEHAVIOUR = "behaviour"
    """Anything that is not compatible: what a frozen major version allows."""


def failing(diff: SchemaDiff, fail_on: FailOn) -> tuple[Change, ...]:
    """The changes that make ``diff`` fail under ``fail_on``."""
    behaviour = (ChangeClass.BEHAVIOUR,) if fail_on is FailOn.BEHAVIOUR else ()
    return diff.of_class(ChangeClass.BREAKING_PRODUCERS, ChangeClass.BREAKING_CONSUMERS, *behaviour)


def render_text(diff: SchemaDiff, fail_on: FailOn) -> str:
    """One line per change (a failing one says what it needs), then a summary."""
    failed = failing(diff, fail_on)
    lines = []
    for change in diff.changes:
        line = f"{change.pointer}: {_LABELS[change.change_class]} [{change.rule}]: {change.message}"
        lines.append(f"{line}; this needs {diff.needs}" if change in failed else line)
    counts = diff.counts()
    summary = ", ".join(f"{counts[cls]} {_LABELS[cls]}" for cls in ChangeClass)
    lines.append(f"{len(diff.changes)} changes from {diff.old} to {diff.new}: {summary}")
    if failed:
        version = f"v{diff.major}" if diff.major is not None else "this major version"
        lines.append(f"FAIL: {len(failed)} changes are not allowed within {version}: this needs {diff.needs}")
    return "\n".join(lines) + "\n"


def render_json(diff: SchemaDiff, fail_on: FailOn) -> str:
    """The whole comparison as one JSON object."""
    failed = failing(diff, fail_on)
    report = {
        "old": diff.old,
        "new": diff.new,
        "fail_on": str(fail_on),
        "changes": [change.to_json() for change in diff.changes],
        "counts": {str(cls): count for cls, count in diff.counts().items()},
        "failed": bool(failed),
        "needs": diff.needs if failed else None,
    }
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
