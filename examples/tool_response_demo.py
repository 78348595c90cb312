"""The calculator demo: SUCCESS, PARTIAL and each relevant ERROR through a ToolRegistry, then a
circuit breaker tripping and recovering on a fake clock.

    python examples/tool_response_demo.py

The same walk-through is the ``calculator`` section of ``toolresponse demo``.
"""

from __future__ import annotations

import sys

from toolresponse.demo.calculator import main

if __name__ == "__main__":
    sys.exit(main(sys.stdout))
