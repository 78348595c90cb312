"""``toolresponse validate`` on ``samples/``, third-party tool output, and its report.

The samples are what a consumer receives from tools it did not write (HelloAgents 1.0 output, a
trace with a broken line, NaN, an MCP ``CallToolResult``, a duplicated ``status`` ...). The section
exits 0: showing the report is its purpose (the command itself would exit 1).
"""

from __future__ import annotations

import io
import os
from importlib import resources
from typing import TextIO

from ..validation import Record, Source, expand, report
from ..validation._report import EXIT_INVALID


def _shown_as(source: Source | Record, base: str) -> Source | Record:
    if isinstance(source, Source):
        return source._replace(name=os.path.relpath(source.path, base))
    return source._replace(source=os.path.relpath(source.source, base))


def main(out: TextIO) -> int:
    samples = resources.files(__package__ or "toolresponse.demo").joinpath("samples")
    with resources.as_file(samples) as directory:
        base = str(directory.parent)
        sources = [_shown_as(source, base) for source in expand([str(directory)])]
        files = sum(isinstance(source, Source) for source in sources)
        print(f"  $ toolresponse validate samples/   ({files} files of third-party tool output)", file=out)
        buffer = io.StringIO()
        status = report(sources, out=buffer, err=buffer, stdin=io.BytesIO(), progress=False)
    for line in buffer.getvalue().splitlines():
        print(f"  {line}", file=out)
    verdict = "some responses are invalid" if status == EXIT_INVALID else "see above"
    print(f"  (the command exits {status}: {verdict}; this demo shows the report and exits 0)", file=out)
    return 0
