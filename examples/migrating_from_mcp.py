"""From MCP servers: their CallToolResults read as ToolResponses, and ToolResponses written as results.

Run it: ``python examples/migrating_from_mcp.py`` (docs/migrating.md walks through it).
"""

from __future__ import annotations

from toolresponse import ToolResponse
from toolresponse.interop import from_mcp, to_mcp

# What the filesystem server answers for a file that is not there: text only, isError true.
SERVER_ANSWER = {
    "content": [{"type": "text", "text": "ENOENT: no such file or directory, open 'notes.txt'"}],
    "isError": True,
}


def main() -> None:
    response = from_mcp(SERVER_ANSWER)
    print(response.to_json())
    assert response.is_error

    # A ToolResponse as an MCP result, and back unchanged.
    mine = ToolResponse.partial("First 2 of 9 notes.", data={"returned": 2, "total": 9})
    result = to_mcp(mine)
    print(result)
    assert mine.to_dict() == from_mcp(result).to_dict()


if __name__ == "__main__":
    main()
