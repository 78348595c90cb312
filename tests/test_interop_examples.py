"""The migration guide's examples (examples/migrating_from_*.py) run and exit without error."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize(
    "name",
    [
        "migrating_from_strings",
        "migrating_from_helloagents",
        "migrating_from_langchain",
        "migrating_from_mcp",
        "migrating_from_pydantic_ai",
        "migrating_from_openai_agents",
    ],
)
def test_the_migration_example_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Each example runs its walk-through (its own asserts hold) and prints what it shows."""
    runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="__main__")
    assert capsys.readouterr().out
