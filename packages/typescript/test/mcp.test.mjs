// The MCP mapping of the package (toolresponse/mcp) beyond the shared cases of
// tests/conformance/v1/mcp (conformance.test.mjs runs those): every valid schema fixture crosses
// MCP unchanged, and a record that is not a CallToolResult, or carries a bad response, is refused
// with the violation at its pointer into the record, as the Python binding refuses it.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { error, success } from "toolresponse";
import {
  CONTENT_MEMBER,
  DialectError,
  MCP_META_KEY,
  STRUCTURED_MEMBER,
  TOOL_FAILURE_KEY,
  fromCallToolResult,
  toCallToolResult,
} from "toolresponse/mcp";

import { fixtureDir, loadSuite } from "./fixtures.mjs";

const suite = await loadSuite(fixtureDir());
const valid = suite.value.filter((fixture) => fixture.valid);

/** The violations (pointer, keyword) a DialectError thrown by `run` has. */
function refused(run) {
  try {
    run();
  } catch (caught) {
    assert.ok(caught instanceof DialectError, String(caught));
    assert.equal(caught.dialect, "mcp");
    return caught.errors.map(({ pointer, keyword }) => [pointer, keyword]);
  }
  assert.fail("no DialectError");
}

describe("every valid schema fixture crosses MCP unchanged", () => {
  test("there are valid fixtures", () => assert.ok(valid.length > 50));
  for (const fixture of valid) {
    test(fixture.id, () => {
      const sent = toCallToolResult(fixture.data, { clock: () => 1_798_761_600_000 });
      const received = CallToolResultSchema.parse(JSON.parse(JSON.stringify(sent)));
      const back = fromCallToolResult(received, { clock: () => 1_798_761_600_000 });
      assert.deepEqual(back, fromCallToolResult(sent));
      const expected = JSON.parse(JSON.stringify(fixture.data));
      for (const member of ["data", "stats", "context", "error_info"]) {
        if (expected[member] === null || (member === "data" && Object.keys(expected.data ?? {}).length === 0))
          delete expected[member];
      }
      for (const member of ["details", "retryable", "retry_after_ms"]) {
        if (expected.error_info?.[member] === null) delete expected.error_info[member];
      }
      assert.deepEqual(back, expected);
      assert.equal(TOOL_FAILURE_KEY in sent._meta, fixture.data.status === "error");
    });
  }
});

test("an invalid response is not written", () => {
  assert.throws(() => toCallToolResult({ status: "error", text: "Failed." }), {
    name: "ResponseValidationError",
  });
});

test("a record that is not an object is refused with a message that names it", () => {
  assert.throws(() => fromCallToolResult("ERROR NOT_FOUND: x"), {
    name: "DialectError",
    message:
      'not a valid mcp record: at "" [type]: the CallToolResult must be an object, not "ERROR NOT_FOUND: x"',
  });
});

test("a record that is not a CallToolResult is refused at its pointer", () => {
  assert.deepEqual(
    refused(() => fromCallToolResult({ content: "text" })),
    [["/content", "type"]],
  );
  assert.deepEqual(
    refused(() => fromCallToolResult({ content: [{ type: "image", data: "" }] })),
    [["/content/0", "required"]],
  );
});

test("a carried response that is not valid is refused at its pointer into the record", () => {
  const record = toCallToolResult(error("NOT_FOUND", "No such file."));
  record._meta[MCP_META_KEY].error_info.code = "MISSING";
  assert.deepEqual(
    refused(() => fromCallToolResult(record)),
    [[`/_meta/dev.toolresponse~1response/error_info/code`, "enum"]],
  );
});

test("a carried status that contradicts isError is refused at isError: the flag is not overruled", () => {
  const record = { ...toCallToolResult(success("Done.")), isError: true };
  assert.deepEqual(
    refused(() => fromCallToolResult(record)),
    [["/isError", "const"]],
  );
});

test("a third-party result keeps its blocks that are not text, and structured content that is not an object", () => {
  const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
  const read = fromCallToolResult({
    content: [{ type: "text", text: "A chart." }, image],
    structuredContent: [1, 2],
  });
  assert.deepEqual(read, {
    status: "success",
    text: "A chart.",
    data: { [STRUCTURED_MEMBER]: [1, 2], [CONTENT_MEMBER]: [image] },
  });
});

test("a third-party error's code is the one its text states, the header taken out", () => {
  const read = fromCallToolResult({
    content: [{ type: "text", text: "ERROR CONFLICT: The file changed.\nReload it first." }],
    isError: true,
  });
  assert.deepEqual(read.error_info, {
    code: "CONFLICT",
    message: "The file changed.",
    details: { source: "mcp", code_from: "prefix" },
  });
  assert.equal(read.text, "The file changed.\nReload it first.");
});
