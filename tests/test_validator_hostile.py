"""The validator's hostile corpus (``tests/hostile/validator``), through the CLI and the API.

``expected.json`` names each file with the exit status of ``toolresponse validate
--first FILE`` and the keyword of each invalid response, in order; ``more`` is
the count past the report's cap. Every file gets its verdict with a clear
message: no traceback, no raw control character on the text output, no hang;
the JSON report parses; the API (``validate_json`` for a document,
``check_lines`` for JSON lines) gives the same keywords.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolresponse.cli import main
from toolresponse.validation import Options, check_lines, validate_json

HOSTILE_DIR = (
    Path(os.environ.get("TOOLRESPONSE_HOSTILE_DIR") or Path(__file__).parent / "hostile") / "validator"
)
EXPECTED: dict[str, dict[str, Any]] = json.loads((HOSTILE_DIR / "expected.json").read_text(encoding="utf-8"))
RAW_CONTROLS = [chr(code) for code in (*range(0x20), *range(0x7F, 0xA0)) if chr(code) != "\n"] + [
    "\u202e",
    "\u2066",
]


def test_every_file_of_the_corpus_is_in_the_table() -> None:
    """The table and the directory name the same files."""
    files = sorted(path.name for path in HOSTILE_DIR.iterdir() if path.name != "expected.json")
    assert files == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_cli_gives_each_file_its_verdict(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The text report: the exit status, each response's keyword, escaped output, no traceback."""
    expected = EXPECTED[name]
    status = main(["validate", "--first", str(HOSTILE_DIR / name)])
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    keywords = [line.rsplit(" [", 1)[1].rstrip("]") for line in lines[:-1]]
    assert (expected["status"], expected["keywords"]) == (status, keywords)
    assert "Traceback" not in captured.out + captured.err
    assert [] == [char for char in RAW_CONTROLS if char in captured.out + captured.err]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_json_report_of_each_file_parses(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The JSON report is one document, with the keywords and the count past the cap."""
    expected = EXPECTED[name]
    main(["validate", "--format", "json", str(HOSTILE_DIR / name)])
    report = json.loads(capsys.readouterr().out)
    responses = report["responses"]
    assert expected["keywords"] == [response["errors"][0]["keyword"] for response in responses]
    assert expected.get("more", 0) == sum(response.get("more_errors", 0) for response in responses)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_api_gives_each_file_its_verdict(name: str) -> None:
    """validate_json (a document) and check_lines (JSON lines) give the same keywords."""
    data = (HOSTILE_DIR / name).read_bytes()
    if name.endswith(".json"):
        result = validate_json(data)
        keywords = [] if result.valid else [result.errors[0].keyword]
    else:
        lines = [line + b"\n" for line in data.split(b"\n")[:-1]]  # every file ends its last line
        batch = check_lines(name, lines, 1, Options(first=True))
        keywords = [record.errors[0].keyword for record in batch.records]
    assert EXPECTED[name]["keywords"] == keywords


def test_a_real_process_reads_the_whole_corpus_without_a_traceback() -> None:
    """One `toolresponse validate DIR` process over the corpus: exit 1, every response counted."""
    finished = subprocess.run(
        [str(Path(sys.executable).with_name("toolresponse")), "validate", str(HOSTILE_DIR)],
        capture_output=True,
        timeout=120,
    )
    # expected.json is a .json file of the directory too: one more invalid response.
    invalid = sum(len(case["keywords"]) for case in EXPECTED.values()) + 1
    assert (1, b"") == (finished.returncode, finished.stderr)
    assert f" {invalid} invalid".encode() in finished.stdout.splitlines()[-1]
    assert b"Traceback" not in finished.stdout
