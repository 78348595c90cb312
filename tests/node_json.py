"""Running a Node script of the tests with a JSON value on its standard input, for the JSON value
it writes on its standard output."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def node_json(command: list[str], value: Any) -> Any:
    """What ``command`` (``node`` and its arguments, run from the repository root) writes as JSON
    when given ``value`` as JSON; a failed run fails the test with the script's stderr."""
    done = subprocess.run(
        command,
        input=json.dumps(value),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert 0 == done.returncode, done.stderr
    return json.loads(done.stdout)
