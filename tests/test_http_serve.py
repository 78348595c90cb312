"""``toolresponse serve MODULE:REGISTRY``: a real server in a subprocess, and every way to name a
registry badly."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from toolresponse import ToolResponse, validate
from toolresponse._errors import RegistryLoadError
from toolresponse.cli import main as cli_main
from toolresponse.tools import load_registry

DEMO = "toolresponse.demo.calculator:build_registry"


def start_server(*arguments: str) -> tuple[subprocess.Popen[str], str]:
    """``toolresponse serve`` in a subprocess on a free loopback port, and the URL it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "toolresponse", "serve", *arguments, "--port", "0", "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    return process, url


@pytest.fixture
def served() -> Iterator[tuple[subprocess.Popen[str], str]]:
    # The server must see Ctrl+C as a terminal sends it: a suite started in the background by a
    # shell inherits SIGINT ignored, and a child started from it would too (a handler set here is
    # reset to the default in the child, an ignored signal is not).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        process, url = start_server(DEMO)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def test_the_server_serves_the_registry_until_sigterm(served: tuple[subprocess.Popen[str], str]) -> None:
    """On port 0 the server prints its loopback URL on one line, lists the demo tools, runs one, and
    stops on SIGTERM with exit status 0."""
    process, url = served
    with httpx.Client(base_url=url, timeout=10) as http:
        listing = http.get("/tools")
        answer = http.post(
            "/tools/calculator/invoke", json={"expression": "2 + 3"}, headers={"X-Call-Id": "c-1"}
        )
    process.send_signal(signal.SIGTERM)
    assert 0 == process.wait(timeout=10)
    assert url.startswith("http://127.0.0.1:")
    assert 200 == listing.status_code
    assert () == validate(listing.json()).errors
    assert ["calculator"] == [tool["name"] for tool in listing.json()["data"]["tools"]]
    assert 200 == answer.status_code
    assert () == validate(answer.json()).errors
    response = ToolResponse.from_dict(answer.json())
    assert (5, "c-1") == (response.data["result"], (response.context or {})["call_id"])


def test_ctrl_c_stops_the_server_with_130(served: tuple[subprocess.Popen[str], str]) -> None:
    """SIGINT (Ctrl+C) stops the server gracefully, with exit status 130."""
    process, url = served
    with httpx.Client(base_url=url, timeout=10) as http:
        assert 200 == http.get("/tools").status_code
    process.send_signal(signal.SIGINT)
    assert 130 == process.wait(timeout=10)


def write_module(directory: Path, name: str, source: str) -> str:
    (directory / f"{name}.py").write_text(source, encoding="utf-8")
    return name


@pytest.fixture
def app_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory for registry modules; sys.path is restored and the modules imported from it are
    forgotten afterwards."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("serve_"):
            del sys.modules[name]


def test_a_registry_object_and_a_function_returning_one_both_load(app_dir: Path) -> None:
    """MODULE:REGISTRY may name a ToolRegistry or a function of no arguments returning one, by a
    dotted path if need be."""
    from toolresponse.demo.calculator import build_registry

    source = (
        "from toolresponse.demo.calculator import build_registry\n"
        "registry = build_registry()\n"
        "class Holder:\n"
        "    registry = registry\n"
    )
    module = write_module(app_dir, "serve_registry_ok", source)
    registry_type = type(build_registry())
    assert isinstance(load_registry(f"{module}:registry", app_dir=str(app_dir)), registry_type)
    assert isinstance(load_registry(f"{module}:Holder.registry", app_dir=str(app_dir)), registry_type)
    assert isinstance(load_registry(DEMO), registry_type)


@pytest.mark.parametrize(
    ("spec", "source", "message"),
    [
        ("no_colon", None, "is not MODULE:REGISTRY"),
        ("a:b:c", None, "is not MODULE:REGISTRY"),
        (":registry", None, "is not MODULE:REGISTRY"),
        ("module:", None, "is not MODULE:REGISTRY"),
        ("os.path:join()", None, "is not MODULE:REGISTRY"),
        ("serve_no_such_module_xyz:registry", None, "there is no module 'serve_no_such_module_xyz'"),
        (
            "serve_broken_import:registry",
            "import serve_missing_dependency_xyz\n",
            "importing 'serve_broken_import'",
        ),
        ("serve_raises:registry", "raise RuntimeError('no luck')\n", "RuntimeError: no luck"),
        ("serve_empty:registry", "", "has no attribute 'registry'"),
        ("serve_number:registry", "registry = 42\n", "is a int, not a ToolRegistry"),
        ("serve_needs_args:make", "def make(tools):\n    return tools\n", "needs arguments"),
        ("serve_fails:make", "def make():\n    raise ValueError('bad config')\n", "ValueError: bad config"),
        ("serve_wrong_type:make", "def make():\n    return {}\n", "returned a dict, not a ToolRegistry"),
    ],
)
def test_a_bad_registry_spec_gets_a_one_line_reason(
    app_dir: Path, spec: str, source: str | None, message: str
) -> None:
    """Every way MODULE:REGISTRY can fail to name a registry raises RegistryLoadError saying which."""
    if source is not None:
        write_module(app_dir, spec.split(":")[0], source)
    with pytest.raises(RegistryLoadError, match=message) as raised:
        load_registry(spec, app_dir=str(app_dir))
    assert 1 == len(str(raised.value).splitlines())


def test_the_command_exits_2_with_one_line_for_a_bad_spec(
    app_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``toolresponse serve`` with a bad MODULE:REGISTRY exits 2 with one line on stderr, no traceback."""
    assert 2 == cli_main(
        ["serve", "serve_no_such_module_xyz:registry", "--app-dir", str(app_dir), "--port", "0"]
    )
    assert ["toolresponse serve: there is no module 'serve_no_such_module_xyz' to import"] == (
        capsys.readouterr().err.strip().splitlines()
    )


def test_a_port_in_use_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """A port that is already taken exits 1, naming the address."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert 1 == cli_main(["serve", DEMO, "--port", str(port)])
    assert f"cannot listen on 127.0.0.1 port {port}" in capsys.readouterr().err


@pytest.mark.parametrize("port", ["-1", "65536"])
def test_a_port_out_of_range_exits_2(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A port outside 0 to 65535 exits 2."""
    assert 2 == cli_main(["serve", DEMO, "--port", port])
    assert "--port must be from 0 to 65535" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        (
            ["serve", DEMO, "--head-timeout", "0"],
            "--head-timeout: must be a positive number of seconds, not 0",
        ),
        (
            ["serve", DEMO, "--body-timeout", "-1"],
            "--body-timeout: must be a positive number of seconds, not -1",
        ),
        (["serve", DEMO, "--keep-alive", "0"], "--keep-alive: must be at least 1, not 0"),
        (["serve", DEMO, "--max-connections", "0"], "--max-connections: must be at least 1, not 0"),
        (
            ["mcp", "list", "--url", "http://h/mcp", "--timeout", "nan"],
            "--timeout: must be a positive number of seconds, not nan",
        ),
        (["conformance", "http://h", "--max-examples", "0"], "--max-examples: must be at least 1, not 0"),
        (
            ["conformance", "http://h", "--timeout", "inf"],
            "--timeout: must be a positive number of seconds, not inf",
        ),
    ],
)
def test_a_number_out_of_its_range_is_a_usage_error(
    arguments: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A time limit, count or budget out of its range: exit 2, the option and its rule."""
    with pytest.raises(SystemExit) as usage:
        cli_main(arguments)
    assert 2 == usage.value.code
    assert f"argument {reason}" in capsys.readouterr().err


def test_a_missing_extra_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without uvicorn installed, the command names the optional extra to install and exits 2."""
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert 2 == cli_main(["serve", DEMO, "--port", "0"])
    assert "pip install 'toolresponse[http]'" in capsys.readouterr().err
