"""Reports of a schema comparison, as text or JSON, and the exit status they end with."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Any

from ._classify import Change, SchemaDiff
from ._rules import ChangeClass
from ._setcheck import SetCheck

__all__ = ["FailOn", "failing", "render_json", "render_text"]

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
    classes = [ChangeClass.BREAKING_PRODUCERS, ChangeClass.BREAKING_CONSUMERS]
    if fail_on is FailOn.BEHAVIOUR:
        classes.append(ChangeClass.BEHAVIOUR)
    return diff.of_class(*classes)


def _line(change: Change, fails: bool, needs: str) -> str:
    line = f"{change.pointer}: {_LABELS[change.change_class]} [{change.rule}]: {change.message}"
    return f"{line}; this needs {needs}" if fails else line


def render_text(diff: SchemaDiff, fail_on: FailOn, check: SetCheck | None = None) -> str:
    """One line per change, then the set check's disagreements and a summary."""
    failed = set(failing(diff, fail_on))
    lines = [_line(change, change in failed, diff.needs) for change in diff.changes]
    if check is not None:
        lines.extend(f"json-schema-diff: {text}" for text in check.disagreements)
    counts = diff.counts()
    summary = ", ".join(f"{counts[cls]} {_LABELS[cls]}" for cls in ChangeClass)
    lines.append(f"{len(diff.changes)} changes from {diff.old} to {diff.new}: {summary}")
    if check is not None and not check.disagreements:
        lines.append(f"json-schema-diff agrees on {len(check.verdicts)} documents")
    if failed:
        version = f"v{diff.major}" if diff.major is not None else "this major version"
        lines.append(f"FAIL: {len(failed)} changes are not allowed within {version}: this needs {diff.needs}")
    elif check is not None and check.disagreements:
        lines.append("FAIL: json-schema-diff and the classifier disagree")
    return "\n".join(lines) + "\n"


def render_json(diff: SchemaDiff, fail_on: FailOn, check: SetCheck | None = None) -> str:
    """The whole comparison as one JSON object."""
    failed = failing(diff, fail_on)
    report: dict[str, Any] = {
        "old": diff.old,
        "new": diff.new,
        "fail_on": str(fail_on),
        "changes": [change.to_json() for change in diff.changes],
        "counts": {str(cls): count for cls, count in diff.counts().items()},
        "failed": bool(failed) or bool(check is not None and check.disagreements),
        "needs": diff.needs if failed else None,
    }
    if check is not None:
        report["set_check"] = check.to_json()
    return json.dumps(report, indent=2, ensure_ascii=False) + "\n"
