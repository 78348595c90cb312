"""MCP server commands the client tests start, how they tell that a server process ended, and an
MCP app served in a thread."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from toolresponse.http import serve_in_background

TIME_SERVER = Path(sys.executable).parent / "mcp-server-time"
"""The third-party ``mcp-server-time`` (PyPI), installed beside this Python."""

HANG_AT_START = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(600)"
"""Python code for a server that never speaks MCP: it writes its process id to the file named by
its first argument, and sleeps."""

NOISY_START = (
    "import os, sys\n"
    "for n in range(120):\n"
    "    print(f'DeprecationWarning: old SDK warning {n}', file=sys.stderr)\n"
    "sys.stderr.flush()\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n"
)
"""Python code that writes 120 lines of warnings on stderr, as servers on older SDKs do, then
becomes the server command given as its arguments."""

HANG_ON_RESTART = (
    "import os, sys, time\n"
    "if os.path.exists(sys.argv[1]):\n"
    "    time.sleep(600)\n"
    "open(sys.argv[1], 'w').close()\n"
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n"
)
"""Python code that runs the Python server script given as its second argument the first time,
and never speaks MCP once the file named by its first argument (made then) exists."""


def process_gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (no such process, or a zombie waiting to be reaped)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return True
    state = next(line for line in status.splitlines() if line.startswith("State:"))
    return state.split()[1] in {"Z", "X"}


@contextlib.contextmanager
def serve_http_in_background(app: Any) -> Iterator[str]:
    """Serve the MCP ``app`` in a background thread; yields its endpoint URL (``.../mcp``)."""
    from toolresponse.mcp._server import endpoint_url

    with serve_in_background(app) as url:
        yield endpoint_url(url)
