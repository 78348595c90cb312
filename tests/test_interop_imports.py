"""The converters import no framework library: a fresh interpreter converts through every dialect but
LangChain's message class and tools, and validates and converts logs, with none of them loaded."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

from toolresponse import ToolRegistry, ToolResponse
from toolresponse.interop import (
    as_langchain_tools,
    as_openai_agents_tools,
    as_pydantic_ai_tools,
    to_langchain_message,
)

FRAMEWORKS = (
    "openai",
    "anthropic",
    "langchain_core",
    "langgraph",
    "mcp",
    "mcp_types",
    "pydantic",
    "botocore",
    "google.genai",
)

SCRIPT = f"""
import io, sys
from toolresponse import ToolResponse
from toolresponse.cli import main
from toolresponse.interop import DIALECTS

response = ToolResponse.error("NOT_FOUND", "gone", context={{"call_id": "c1", "tool_name": "t"}})
for name, row in DIALECTS.items():
    if name == "mcp":
        continue  # interop/_mcp.py is another module's; it is checked where it lives
    assert row.from_(row.to(response)).code == response.code
sys.stdin = io.TextIOWrapper(io.BytesIO(b'{{"role": "tool", "tool_call_id": "c", "content": "x"}}\\n'))
assert main(["validate", "--from", "openai-chat", "-q", "-"]) == 0
loaded = [name for name in {FRAMEWORKS!r} if name in sys.modules]
assert not loaded, loaded
"""


def test_no_framework_library_is_imported() -> None:
    """Converting, validating --from and the CLI load none of openai, anthropic, langchain, mcp,
    botocore or google-genai."""
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False)
    assert (0, "") == (done.returncode, done.stderr)


@pytest.mark.parametrize(
    ("adapter", "module", "install"),
    [
        (lambda: as_langchain_tools(ToolRegistry()), "langchain_core", "'toolresponse[langchain]'"),
        (
            lambda: to_langchain_message(ToolResponse.success("x")),
            "langchain_core",
            "'toolresponse[langchain]'",
        ),
        (lambda: as_pydantic_ai_tools(ToolRegistry()), "pydantic_ai", "pydantic-ai-slim"),
        (lambda: as_openai_agents_tools(ToolRegistry()), "agents", "openai-agents"),
    ],
    ids=["as_langchain_tools", "to_langchain_message", "as_pydantic_ai_tools", "as_openai_agents_tools"],
)
def test_an_adapter_without_its_library_says_what_to_install(
    adapter: Callable[[], object], module: str, install: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An adapter whose library is not installed raises ImportError naming the module and the install."""
    monkeypatch.setitem(sys.modules, module, None)  # as the import system reads a package not installed
    with pytest.raises(ImportError) as caught:
        adapter()
    assert f"needs the {module!r} module: pip install {install}" in str(caught.value)
