// The shared conformance suite, run by this package: every schema test of tests/conformance/v1
// through validate(), every I-JSON text test of tests/conformance/v1/ijson through
// validateJson(), every MCP mapping test of tests/conformance/v1/mcp through toCallToolResult()
// and fromCallToolResult(), from the very files the Python tests read
// (TOOLRESPONSE_CONFORMANCE_DIR points both at another copy). A case added there runs here too.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { validate, validateJson } from "toolresponse";
import * as mapping from "toolresponse/mcp";

import { fixtureDir, judgeMcp, judgeText, judgeValue, loadSuite } from "./fixtures.mjs";

const directory = fixtureDir();
const suite = await loadSuite(directory);

test(`the fixture files of ${directory} are well-formed`, () => {
  assert.deepEqual(suite.problems, []);
});

describe("schema fixtures (validate)", () => {
  for (const fixture of suite.value) {
    test(fixture.id, () => assert.equal(judgeValue(validate, fixture), null));
  }
});

describe("I-JSON text fixtures (validateJson)", () => {
  for (const fixture of suite.text) {
    test(fixture.id, () => assert.equal(judgeText(validateJson, fixture), null));
  }
});

describe("MCP mapping fixtures (toCallToolResult, fromCallToolResult)", () => {
  for (const fixture of suite.mcp) {
    test(fixture.id, () => {
      assert.equal(judgeMcp(mapping, fixture), null);
      if (fixture.direction === "write") {
        // What a server sends, the SDK's own schema of a CallToolResult takes as it is.
        const sent = mapping.toCallToolResult(fixture.input, { clock: () => fixture.now_ms ?? 0 });
        assert.deepEqual(CallToolResultSchema.parse(sent), sent);
      }
    });
  }
});

test(`${suite.http.length} HTTP-binding fixtures (http/)`, {
  skip: "they need a server of the HTTP binding (toolresponse conformance URL); this package has none",
});
