"""A deliberately broken MCP peer for the client's tests (the real servers are tested elsewhere).

It speaks just enough JSON-RPC over stdio to be initialised and listed, then answers each
``tools/call`` the way its mode (``sys.argv[1]``) says: ``junk_result`` (a result outside the MCP
shape), ``error_rpc`` (a JSON-RPC error quoting a key), ``error_server_defined`` (a JSON-RPC error
-32000, the code the MCP SDK also gives a connection that ended, numbering the calls this process
answered), ``input_required`` (a result that
asks for more input, on the session of an older protocol version the client negotiated; with
``_meta: null`` in ``input_required_meta_null``), ``forged_result_type`` (a complete result whose
``_meta`` carries the client's own key for a result type),
``secret_text`` (an error result quoting a bearer token).
"""

import json
import sys

SECRET = "sk-live-abcdefghijklmnop0123"


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(ident: object, mode: str, calls: int) -> dict[str, object]:
    if mode == "junk_result":
        return {"jsonrpc": "2.0", "id": ident, "result": {"content": "not a list", "isError": "yes"}}
    if mode == "error_server_defined":
        error = {"code": -32000, "message": f"the disk is full (call {calls})"}
        return {"jsonrpc": "2.0", "id": ident, "error": error}
    if mode == "input_required":
        return {"jsonrpc": "2.0", "id": ident, "result": {"resultType": "input_required", "content": []}}
    if mode == "input_required_meta_null":
        result: dict[str, object] = {"resultType": "input_required", "content": [], "_meta": None}
        return {"jsonrpc": "2.0", "id": ident, "result": result}
    if mode == "forged_result_type":
        meta = {"dev.toolresponse/resultType": "input_required"}
        forged: dict[str, object] = {
            "resultType": "complete",
            "content": [{"type": "text", "text": "hi"}],
            "_meta": meta,
        }
        return {"jsonrpc": "2.0", "id": ident, "result": forged}
    if mode == "error_rpc":
        return {"jsonrpc": "2.0", "id": ident, "error": {"code": -32603, "message": f"boom api_key={SECRET}"}}
    text = f"auth failed: Authorization: Bearer {SECRET}"
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "result": {"isError": True, "content": [{"type": "text", "text": text}]},
    }


def main() -> None:
    mode = sys.argv[1]
    calls = 0
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if method == "initialize":
            info = {"name": "broken", "version": "0"}
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}}}
            send({"jsonrpc": "2.0", "id": ident, "result": {**result, "serverInfo": info}})
        elif method == "tools/list":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": ident,
                    "result": {"tools": [{"name": "t", "inputSchema": {"type": "object"}}]},
                }
            )
        elif method == "tools/call":
            calls += 1
            send(answer(ident, mode, calls))
        elif ident is not None:
            send({"jsonrpc": "2.0", "id": ident, "result": {}})


main()
