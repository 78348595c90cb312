// An MCP server written with the official TypeScript SDK (@modelcontextprotocol/sdk) and the
// TypeScript package of this repository (toolresponse, built: `make ts-build`): each tool answers a
// ToolResponse made by the package's factories, sent with toCallToolResult.
// Usage: node tests/mcp/ts_package_server.mjs [--tool-failure-only]   (serves over stdio)
//
// - read_file(path): NOT_FOUND, with details.path;
// - search(query): RATE_LIMIT, retryable after 30 s (retry_after_ms 30000);
// - delete_file(path): PERMISSION_DENIED;
// - fetch_page(url): TIMEOUT marked not retryable;
// - count(): a success with data; sample(): a partial result.
// Each response's context.call_id is the JSON-RPC id of the call. With --tool-failure-only, an
// error result keeps only the ToolFailure member in _meta and the error's own text (no
// "ERROR <CODE>:" header), as a server that knows MCP's ToolFailure and not this binding sends it.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { error, partial, success } from "toolresponse";
import { MCP_META_KEY, toCallToolResult } from "toolresponse/mcp";

const toolFailureOnly = process.argv.includes("--tool-failure-only");
const STRING = { type: "string" };
const tools = {
  read_file: {
    parameters: { path: STRING },
    answer: ({ path }, context) =>
      error("NOT_FOUND", `No such file: ${path}`, {
        details: { path },
        context,
      }),
  },
  search: {
    parameters: { query: STRING },
    answer: (_, context) =>
      error("RATE_LIMIT", "Too many searches.", {
        retry_after_ms: 30_000,
        context,
      }),
  },
  delete_file: {
    parameters: { path: STRING },
    answer: ({ path }, context) =>
      error("PERMISSION_DENIED", `${path} is read-only.`, { context }),
  },
  fetch_page: {
    parameters: { url: STRING },
    answer: (_, context) =>
      error("TIMEOUT", "The page did not load within 10 s.", {
        retryable: false,
        context,
      }),
  },
  count: {
    parameters: {},
    answer: (_, context) => success("3 rows.", { rows: 3 }, { context }),
  },
  sample: {
    parameters: {},
    answer: (_, context) =>
      partial("First 2 of 5 rows.", { rows: [1, 2] }, { context }),
  },
};

const server = new Server(
  { name: "toolresponse-ts-package-server", version: "1.0.0" },
  { capabilities: { tools: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: Object.entries(tools).map(([name, { parameters }]) => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: {
      type: "object",
      properties: parameters,
      required: Object.keys(parameters),
    },
  })),
}));

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const tool = tools[request.params.name];
  const context = {
    tool_name: request.params.name,
    call_id: String(extra.requestId),
  };
  const response = tool
    ? tool.answer(request.params.arguments ?? {}, context)
    : error("NOT_FOUND", `Unknown tool: ${request.params.name}`, { context });
  const result = toCallToolResult(response);
  if (toolFailureOnly && result.isError) {
    delete result._meta[MCP_META_KEY];
    result.content = [{ type: "text", text: response.error_info.message }];
  }
  return result;
});

await server.connect(new StdioServerTransport());
