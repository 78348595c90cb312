"""The command on a base install (``pip install toolresponse``, no extra): every help works, a verb
that needs a missing extra says so in one line naming the extra to install, and the demo skips
the sections whose extra is missing, saying so. Never a traceback.

A base install is made by making the extras' packages unimportable in the command's process
(``sys.modules[name] = None``, as the import system reads a package that is not installed),
before the command is imported; the command runs as its entry point does."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from toolresponse.cli import COMMANDS

EXTRAS_PACKAGES = (
    "anyio",
    "dask",
    "distributed",
    "fsspec",
    "httpx",
    "httpx2",
    "langchain_core",
    "mcp",
    "mcp_types",
    "openai",
    "opentelemetry",
    "pydantic",
    "schemathesis",
    "sse_starlette",
    "starlette",
    "uvicorn",
    "zstandard",
)
"""What the optional extras bring (and the base install does not): their packages and the packages
those need."""

WITHOUT = """
import sys
for name in {missing!r}:
    sys.modules[name] = None
from toolresponse.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _base(*arguments: str, missing: tuple[str, ...] = EXTRAS_PACKAGES) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", WITHOUT.format(missing=missing), *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize(
    "verb",
    [(name,) for name in COMMANDS] + [("mcp", "serve"), ("mcp", "list"), ("mcp", "call")],
    ids=" ".join,
)
def test_every_help_works_without_the_extras(verb: tuple[str, ...]) -> None:
    done = _base(*verb, "--help")
    assert (0, "") == (done.returncode, done.stderr)
    assert "usage: toolresponse" in done.stdout


@pytest.mark.parametrize(
    ("arguments", "extra"),
    [
        (("serve", "toolresponse.demo.calculator:build_registry"), "http"),
        (("mcp", "serve", "toolresponse.demo.calculator:build_registry"), "mcp"),
        (("mcp", "list", "--stdio", "mcp-server-time"), "mcp"),
        (("mcp", "call", "--url", "http://127.0.0.1:9/mcp", "tool"), "mcp"),
    ],
    ids=["serve", "mcp serve", "mcp list", "mcp call"],
)
def test_a_missing_extra_is_one_line_naming_it(arguments: tuple[str, ...], extra: str) -> None:
    done = _base(*arguments)
    assert 2 == done.returncode
    assert "" == done.stdout
    (line,) = done.stderr.splitlines()
    assert line.endswith(f"pip install 'toolresponse[{extra}]'")


@pytest.mark.parametrize("package", ["uvicorn", "starlette"])
def test_serve_names_the_one_package_of_the_extra_it_lacks(package: str) -> None:
    """Without Starlette (the application) or uvicorn (the server), one line names the package missing."""
    done = _base("serve", "toolresponse.demo.calculator:build_registry", missing=(package,))
    assert 2 == done.returncode
    (line,) = done.stderr.splitlines()
    expected = (
        rf"toolresponse serve: serving needs the optional extra 'http' \({package}[.\w]* is not installed\): "
    )
    assert re.fullmatch(expected + re.escape("pip install 'toolresponse[http]'"), line), line


def test_the_demo_skips_the_sections_whose_extra_is_missing() -> None:
    done = _base("demo")
    assert 0 == done.returncode, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    for section, extra in (("agent", "agent"), ("mcp", "mcp")):
        skipped = (
            f"  skipped: this section needs the optional extra '{extra}': pip install 'toolresponse[{extra}]'"
        )
        assert skipped in done.stdout.split(f"== {section}:")[1].splitlines()
