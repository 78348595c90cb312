"""From HelloAgents 1.0: read its dicts, write them for code that still needs them, and the codes.

Run it: ``python examples/migrating_from_helloagents.py`` (docs/migrating.md explains each line).
"""

from __future__ import annotations

from toolresponse import ResponseValidationError, ToolResponse
from toolresponse.interop import from_helloagents, to_helloagents

# What HelloAgents 1.0 / 1.0.1 writes (`ToolResponse.to_dict()` there): "error", not "error_info";
# an integer time_ms; a plain function's context has "input".
HELLOAGENTS_LOG = [
    {
        "status": "success",
        "text": "4",
        "data": {"output": 4},
        "stats": {"time_ms": 1},
        "context": {"input": "2+2"},
    },
    {
        "status": "error",
        "text": "File config.py does not exist.",
        "data": {},
        "error": {"code": "NOT_FOUND", "message": "File config.py does not exist."},
        "context": {"tool_name": "read_file", "params_input": {"path": "config.py"}},
    },
    # A code HelloAgents let through (its codes are free strings): not guessed here.
    {"status": "error", "text": "x", "data": {}, "error": {"code": "FILE_NOT_FOUND", "message": "x"}},
]


def main() -> None:
    for record in HELLOAGENTS_LOG:
        try:
            response = from_helloagents(record)
        except ResponseValidationError as error:
            best = error.best
            print(f"not convertible: {best.pointer}: {best.message}")
            assert "NOT_FOUND" == best.suggestion
            continue
        print(response.to_json())

    # Code that still consumes HelloAgents dicts gets them (details, retryability, extensions dropped).
    response = ToolResponse.error("RATE_LIMIT", "Slow down.", retry_after_ms=1500, stats={"time_ms": 2.7})
    old = to_helloagents(response)
    print(old)
    assert {"code": "RATE_LIMIT", "message": "Slow down."} == old["error"]
    assert 3 == old["stats"]["time_ms"]


if __name__ == "__main__":
    main()
