// The official TypeScript SDK's client against a ToolResponse MCP server.
// Usage: node tests/mcp/ts_client.mjs stdio COMMAND [ARGS...] | node tests/mcp/ts_client.mjs http URL
// Lists the tools, makes a success, a partial and an error call (or the calls of the environment
// variable TS_CLIENT_CALLS, a JSON object {label: [tool, arguments]}), and prints one JSON object:
// {"tools": [...names], "results": {label: CallToolResult}}; exit 1 on any failure (the SDK's own
// check of structured content against a tool's output schema included).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);
const transport =
  mode === "http"
    ? new StreamableHTTPClientTransport(new URL(target))
    : new StdioClientTransport({ command: target, args: rest, stderr: "inherit" });
const client = new Client({ name: "toolresponse-ts-test", version: "1.0.0" });
const timer = setTimeout(() => {
  console.error("ts_client: no answer within 60 s");
  process.exit(1);
}, 60_000);

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const calls = process.env.TS_CLIENT_CALLS
    ? JSON.parse(process.env.TS_CLIENT_CALLS)
    : {
        success: ["calculator", { expression: "6 * 7" }],
        partial: ["truncated", {}],
        error: ["calculator", { expression: "1/0" }],
        invalid: ["calculator", { expr: "1" }],
        structured: ["lookup", { key: "abc" }],
      };
  const results = {};
  for (const [label, [name, args]] of Object.entries(calls)) {
    results[label] = await client.callTool({ name, arguments: args });
  }
  process.stdout.write(JSON.stringify({ tools: tools.map((tool) => tool.name), results }) + "\n");
  await client.close();
  clearTimeout(timer);
} catch (error) {
  console.error(`ts_client: ${error?.stack ?? error}`);
  process.exit(1);
}
