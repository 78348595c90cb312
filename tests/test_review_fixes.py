"""Regression tests for the defects the adversarial review of every face found (one test per finding)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolresponse import JsonValueError, ToolRegistry, ToolResponse, validate_json

PROGRAM = [sys.executable, "-m", "toolresponse"]


@pytest.mark.parametrize("text", ["ok\ufffe", "a\U0010ffff", "b\ufdd0"])
def test_a_response_never_holds_a_noncharacter(text: str) -> None:
    """The runtime refuses to build what its own text validator rejects (noncharacters, as lone surrogates)."""
    with pytest.raises(JsonValueError, match="noncharacter"):
        ToolResponse.success(text)
    with pytest.raises(JsonValueError, match="noncharacter"):
        ToolResponse.success("ok", {f"k{text}": 1})


def test_a_tool_returning_a_noncharacter_gets_an_error_response_that_is_valid_text() -> None:
    registry = ToolRegistry()
    registry.register(lambda: {"value": "\ufffe"}, name="odd")
    response = registry.execute("odd")
    assert response.is_error
    assert validate_json(response.to_json()).valid


def _run(arguments: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*PROGRAM, *arguments], input=stdin, capture_output=True, timeout=60, check=False)


def test_validate_from_a_dialect_rejects_noncharacters_and_vertical_tabs() -> None:
    lines = b'{"content":[{"type":"text","text":"a\\uFFFE"}],"isError":false}\n\x0b\n'
    result = _run(["validate", "--from", "mcp", "-"], lines)
    assert 1 == result.returncode
    assert b"0 valid, 2 invalid" in result.stderr + result.stdout
    assert b"[encoding]" in result.stdout


def test_convert_never_writes_a_noncharacter(tmp_path: Path) -> None:
    result = _run(["convert", "--from", "toolresponse", "--to", "mcp", "-"], b'{"status":"success","text":"a\\uFFFE"}\n')
    assert b"\xef\xbf\xbe" not in result.stdout
    assert b"noncharacter" in result.stderr
