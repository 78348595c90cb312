"""From a tool that returns a string to one that returns a ToolResponse, in three steps.

Run it: ``python examples/migrating_from_strings.py`` (docs/migrating.md walks through it).
"""

from __future__ import annotations

from pathlib import Path

from toolresponse import ToolRegistry, ToolResponse


# Before: the caller must guess from the words whether it worked.
def read_file_before(path: str) -> str:
    try:
        return Path(path).read_text("utf-8")
    except FileNotFoundError:
        return f"error: file {path} not found"


# Step 1: return a ToolResponse: a status, text for the model, data for code, a code on error.
def read_file(path: str) -> ToolResponse:
    """Read a UTF-8 text file."""
    try:
        content = Path(path).read_text("utf-8")
    except FileNotFoundError:
        return ToolResponse.error("NOT_FOUND", f"File {path} does not exist.", details={"path": path})
    except IsADirectoryError:
        return ToolResponse.error("IS_DIRECTORY", f"{path} is a directory.", details={"path": path})
    return ToolResponse.success(f"Read {path} ({len(content)} characters).", data={"content": content})


def main() -> None:
    # Step 2: register it; the registry checks arguments, times calls and never raises.
    registry = ToolRegistry()
    registry.register(read_file)

    # Step 3: branch on the status and code, never on the words.
    response = registry.execute("read_file", {"path": "no-such-file.txt"})
    assert response.is_error
    assert response.code is not None
    print(f"{response.code.value}: {response.text}")
    assert "NOT_FOUND" == response.code.value
    print(response.to_json())
    assert "error: file no-such-file.txt not found" == read_file_before("no-such-file.txt")


if __name__ == "__main__":
    main()
