// The factories: what they build, each code's default retryability from the schema, and the
// violations of what cannot be a response.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";

import {
  ERROR_CODES,
  ERROR_CODE_INFO,
  MAX_VALUE_DEPTH,
  ResponseValidationError,
  TOOL_FAILURE_CODES,
  error,
  isRetryable,
  partial,
  success,
  validate,
} from "toolresponse";

import { ROOT } from "./fixtures.mjs";

const errorCodeSchema = JSON.parse(
  await readFile(path.join(ROOT, "schema", "v1", "error-code.schema.json"), "utf8"),
);

test("success and partial carry the text, and data only when it has members", () => {
  assert.deepEqual(success("Done."), { status: "success", text: "Done." });
  assert.deepEqual(success("Done.", {}), { status: "success", text: "Done." });
  assert.deepEqual(partial("First 10 of 12 rows.", { rows: [1, 2] }), {
    status: "partial",
    text: "First 10 of 12 rows.",
    data: { rows: [1, 2] },
  });
  assert.deepEqual(success("Done.", null, { stats: { time_ms: 3 }, context: { tool_name: "add" } }), {
    status: "success",
    text: "Done.",
    stats: { time_ms: 3 },
    context: { tool_name: "add" },
  });
});

test("error's text is its message, and retryable is left out unless given", () => {
  assert.deepEqual(error("NOT_FOUND", "No file config.py."), {
    status: "error",
    text: "No file config.py.",
    error_info: { code: "NOT_FOUND", message: "No file config.py." },
  });
  assert.deepEqual(error("NOT_FOUND", "Gone for now.", { retryable: true }).error_info, {
    code: "NOT_FOUND",
    message: "Gone for now.",
    retryable: true,
  });
});

test("each code's default retryability is the schema's x-error-codes", () => {
  const fromSchema = Object.fromEntries(
    errorCodeSchema.enum.map((code) => [code, errorCodeSchema["x-error-codes"][code].retryable]),
  );
  const fromFactory = Object.fromEntries(
    ERROR_CODES.map((code) => [code, isRetryable(error(code, "Failed."))]),
  );
  assert.deepEqual(fromFactory, fromSchema);
  assert.ok(Object.values(fromSchema).includes(true) && Object.values(fromSchema).includes(false));
  assert.deepEqual(ERROR_CODES, errorCodeSchema.enum);
  assert.equal(ERROR_CODE_INFO.RATE_LIMIT.retryable, true);
});

test("each code's MCP ToolFailure class and code are the schema's x-mcp-tool-failure, both ways", () => {
  const fromSchema = Object.fromEntries(
    errorCodeSchema.enum.map((code) => [code, errorCodeSchema["x-error-codes"][code]["x-mcp-tool-failure"]]),
  );
  const generated = Object.fromEntries(
    ERROR_CODES.map((code) => [code, ERROR_CODE_INFO[code].mcpToolFailure]),
  );
  assert.deepEqual(generated, fromSchema);
  const backwards = Object.fromEntries(ERROR_CODES.map((code) => [fromSchema[code].code, code]));
  assert.deepEqual({ ...TOOL_FAILURE_CODES }, backwards);
  assert.equal(Object.keys(TOOL_FAILURE_CODES).length, ERROR_CODES.length);
});

test("an explicit retryable wins over the code's default; a success is never retryable", () => {
  assert.equal(isRetryable(error("TIMEOUT", "Slow.", { retryable: false })), false);
  assert.equal(isRetryable(error("NOT_FOUND", "Not yet.", { retryable: true })), true);
  assert.equal(isRetryable(success("Done.")), false);
});

test("members come in the schema's order, error_info's too", () => {
  const response = error("RATE_LIMIT", "Too many requests.", {
    context: { call_id: "c1" },
    stats: { time_ms: 1 },
    data: { partial: true },
    retry_after_ms: 1500,
    retryable: true,
    details: { limit: 10 },
  });
  assert.deepEqual(Object.keys(response), ["status", "text", "data", "error_info", "stats", "context"]);
  assert.deepEqual(Object.keys(response.error_info), [
    "code",
    "message",
    "details",
    "retryable",
    "retry_after_ms",
  ]);
  assert.equal(validate(response).valid, true);
});

test("a response owns its values: changing the data passed in changes nothing", () => {
  const data = { rows: [{ id: 1 }] };
  const response = success("One row.", data);
  data.rows[0].id = 2;
  data.rows.push({ id: 3 });
  assert.deepEqual(response.data, { rows: [{ id: 1 }] });
});

test("undefined members are left out, a Date becomes its ISO string, __proto__ stays a member", () => {
  const data = JSON.parse('{"__proto__": {"x": 1}}');
  Object.assign(data, { at: new Date(Date.UTC(2026, 0, 2)), gone: undefined });
  const response = success("Done.", data);
  assert.deepEqual(Object.keys(response.data), ["__proto__", "at"]);
  assert.equal(response.data.at, "2026-01-02T00:00:00.000Z");
  assert.equal(
    JSON.stringify(response),
    '{"status":"success","text":"Done.","data":{"__proto__":{"x":1},"at":"2026-01-02T00:00:00.000Z"}}',
  );
});

const cycle = {};
cycle.self = cycle;
let deep = {};
for (let level = 0; level < MAX_VALUE_DEPTH; level += 1) deep = { deep };

const REFUSED = [
  // [what, build, [pointer, keyword]]
  ["an empty message", () => error("NOT_FOUND", ""), ["/error_info/message", "minLength"]],
  ["an unknown code", () => error("NOT_FOUD", "Failed."), ["/error_info/code", "enum"]],
  [
    "a fractional retry_after_ms",
    () => error("TIMEOUT", "Slow.", { retry_after_ms: 1.5 }),
    ["/error_info/retry_after_ms", "type"],
  ],
  [
    "a negative time_ms",
    () => success("Done.", null, { stats: { time_ms: -1 } }),
    ["/stats/time_ms", "minimum"],
  ],
  ["a text that is not a string", () => success(5), ["/text", "type"]],
  ["NaN in data", () => success("Done.", { a: [1, Number.NaN] }), ["/data/a/1", "type"]],
  ["a bigint", () => success("Done.", { n: 10n }), ["/data/n", "type"]],
  ["a function", () => success("Done.", { f() {} }), ["/data/f", "type"]],
  ["a Map", () => success("Done.", { m: new Map() }), ["/data/m", "type"]],
  ["undefined in an array", () => success("Done.", { a: [undefined] }), ["/data/a/0", "type"]],
  ["a lone surrogate in the text", () => success("a\ud800"), ["/text", "type"]],
  ["a noncharacter in a member name", () => success("Done.", { "k\ufdd0": 1 }), ["/data/k\ufdd0", "type"]],
  ["a cycle", () => success("Done.", cycle), ["/data/self", "cycle"]],
  ["nesting too deep", () => success("Done.", deep), [`/data${"/deep".repeat(MAX_VALUE_DEPTH)}`, "maxDepth"]],
  ["data that is an array", () => success("Done.", [1]), ["/data", "type"]],
];

for (const [what, build, [pointer, keyword]] of REFUSED) {
  test(`${what} is refused at ${pointer.slice(0, 40)} [${keyword}]`, () => {
    assert.throws(build, (thrown) => {
      assert.ok(thrown instanceof ResponseValidationError, String(thrown));
      assert.ok(
        thrown.errors.some((violation) => violation.pointer === pointer && violation.keyword === keyword),
        JSON.stringify(thrown.errors),
      );
      assert.match(thrown.message, /^(invalid ToolResponse|not JSON) \(\d+ violations?\): at /);
      return true;
    });
  });
}
