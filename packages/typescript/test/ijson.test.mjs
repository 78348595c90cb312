// Strict I-JSON reading: every hostile text gets its rule, line, column and pointer; valid text
// its value; schema violations of a text get the line and column of their place.

import assert from "node:assert/strict";
import { test } from "node:test";

import { IJsonError, MAX_NESTING, parseIJson, validateJson } from "toolresponse";

const bytes = (...parts) =>
  Uint8Array.from(
    parts.flatMap((part) => (typeof part === "string" ? [...new TextEncoder().encode(part)] : part)),
  );

const REJECTED = [
  // [text, rule, line, column, pointer]
  ['{"status": "success", "text": "ok"', "syntax", 1, 35, "/text"],
  ['{"status": "success",\n "text" "ok"}', "syntax", 2, 9, "/text"],
  ['{"a": 1,}', "syntax", 1, 8, "/a"],
  ["[1, 2,]", "syntax", 1, 6, "/1"],
  ["", "syntax", 1, 1, ""],
  [" \n\t", "syntax", 2, 2, ""],
  ['{"a": 1} {"a": 2}', "syntax", 1, 10, ""],
  ['{"a": 01}', "syntax", 1, 8, "/a"],
  ['{"a": "tab\there"}', "syntax", 1, 11, "/a"],
  ['{"a": "\\x"}', "syntax", 1, 8, "/a"],
  ["{'a': 1}", "syntax", 1, 2, ""],
  ['{"stats": {"time_ms": NaN}}', "non-finite-number", 1, 23, "/stats/time_ms"],
  ["[Infinity]", "non-finite-number", 1, 2, "/0"],
  ['{"x": [1, -Infinity]}', "non-finite-number", 1, 11, "/x/1"],
  ['{"big": 1e400}', "non-finite-number", 1, 9, "/big"],
  ['{"a": 1, "a": 2}', "duplicate-name", 1, 10, "/a"],
  ['{"a": {"b": [0, {"c": 1, "c": 2}]}}', "duplicate-name", 1, 26, "/a/b/1/c"],
  ['{"\\u0061": 1, "a": 2}', "duplicate-name", 1, 15, "/a"],
  ['{"a:": 1, "a\\u003a": 2}', "duplicate-name", 1, 11, "/a:"],
  ['{"a/b": 1, "a\\/b": 2}', "duplicate-name", 1, 12, "/a~1b"],
  ['{"status": "success",\n "text": "x",\n "status": "error"}', "duplicate-name", 3, 2, "/status"],
  [bytes('{"text": "caf', [0xe9], '"}'), "encoding", 1, 14, null],
  [bytes([0xef, 0xbb, 0xbf], '{"status": "success"}'), "encoding", 1, 1, null],
  ['\ufeff{"status": "success"}', "encoding", 1, 1, ""],
  [bytes('{"a": "', [0xed, 0xa0, 0x80], '"}'), "encoding", 1, 8, null],
  [bytes('{"a": "', [0xc0, 0xaf], '"}'), "encoding", 1, 8, null],
  ['{"text": "\\ud800"}', "encoding", 1, 11, "/text"],
  ['{"text": "\\udc00\\ud800"}', "encoding", 1, 11, "/text"],
  ['{"a": "\ud800"}', "encoding", 1, 8, "/a"],
  ['{"a": "x\udc00"}', "encoding", 1, 9, "/a"],
  ['{"status": "success", "text": "a\ufffe"}', "encoding", 1, 33, "/text"],
  ['{"data": {"k\\uFDD0": 1}}', "encoding", 1, 13, "/data"],
  ['{"text": "\ud83d\ude00 \\uD83F\\uDFFE"}', "encoding", 1, 13, "/text"],
  [bytes([0x89], "PNG\r\n", [0x1a], "\n", [0, 0, 0], "\rIHDR", [0xff]), "binary", 3, 1, null],
  [bytes([0, 0, 0]), "binary", 1, 1, null],
  ["[".repeat(100_000), "depth", 1, MAX_NESTING + 1, null],
  ['{"a": '.repeat(100_000), "depth", 1, 6 * MAX_NESTING + 1, null],
];

for (const [text, rule, line, column, pointer] of REJECTED) {
  const shown =
    typeof text === "string"
      ? JSON.stringify(text.slice(0, 40))
      : `bytes ${JSON.stringify([...text.slice(0, 12)])}`;
  test(`${shown} breaks ${rule} at ${line}:${column} (${pointer})`, () => {
    assert.throws(
      () => parseIJson(text),
      (error) => {
        assert.ok(error instanceof IJsonError);
        assert.deepEqual(
          [error.rule, error.line, error.column, error.pointer],
          [rule, line, column, pointer],
        );
        assert.equal(error.message, `malformed JSON: line ${line}, column ${column}: ${error.detail}`);
        return true;
      },
    );
    const [violation] = validateJson(text).errors;
    assert.deepEqual(violation, {
      pointer: pointer ?? "",
      keyword: rule,
      message: violation.message,
      line,
      column,
    });
  });
}

test("a noncharacter is reported before an earlier repeated name, and a syntax error before both", () => {
  const both = '{"a": 1, "a": "\ufffe"}';
  assert.equal(validateJson(both).errors[0].keyword, "encoding");
  assert.equal(validateJson(`${both} x`).errors[0].keyword, "syntax");
});

const ACCEPTED = [
  ['{"status": "success", "text": "ok"}', { status: "success", text: "ok" }],
  ['{"text": "caf\u00e9 \\ud83d\\ude00"}', { text: "caf\u00e9 \u{1f600}" }],
  [
    bytes('{"text": "caf', [0xc3, 0xa9], " ", [0xf0, 0x9f, 0x98, 0x80], '"}'),
    { text: "caf\u00e9 \u{1f600}" },
  ],
  ['{"a": {"b": 1}, "c": {"b": 2}}', { a: { b: 1 }, c: { b: 2 } }],
  ['[{"a": 1}, {"a": 2}]', [{ a: 1 }, { a: 2 }]],
  ['{"a\\u003a": 1, "a": 2}', { "a:": 1, a: 2 }],
  ['{"a": "\\u0000", "b": "\\"\\\\\\/\\b\\f\\n\\r\\t"}', { a: "\u0000", b: '"\\/\b\f\n\r\t' }],
  ['{"t": "\\uFDF0 \ufdcf \\\\uFFFE \\uD83F\\uDFFD"}', { t: "\ufdf0 \ufdcf \\uFFFE \u{1fffd}" }],
  ["  {}  \r\n", {}],
  ["[-0, 1.5e3, 2E-2, 0.5, 100000000000000000000]", [-0, 1500, 0.02, 0.5, 1e20]],
  ["[true, false, null]", [true, false, null]],
];

for (const [text, expected] of ACCEPTED) {
  test(`${typeof text === "string" ? JSON.stringify(text) : "bytes"} is I-JSON`, () => {
    assert.deepEqual(parseIJson(text), expected);
  });
}

test("arrays nest up to MAX_NESTING levels; one more is a depth error", () => {
  let value = parseIJson("[".repeat(MAX_NESTING) + "]".repeat(MAX_NESTING));
  let depth = 0;
  while (value.length) {
    value = value[0];
    depth += 1;
  }
  assert.equal(depth, MAX_NESTING - 1);
  assert.throws(
    () => parseIJson("[".repeat(MAX_NESTING + 1) + "]".repeat(MAX_NESTING + 1)),
    /nested deeper than 1024 levels/,
  );
});

test("input that is not text is a TypeError", () => {
  assert.throws(() => parseIJson(5), new TypeError("JSON text must be a string or a Uint8Array, not number"));
  assert.throws(
    () => validateJson(null),
    new TypeError("JSON text must be a string or a Uint8Array, not null"),
  );
});

test("each schema violation of a text has the line and column of its value, or of an unknown member's name", () => {
  const text =
    '{\n  "status": "x",\n  "error_info": {"code": "NOT_FOUD", "message": "m", "hint": 1},\n  "text": "\u00e9\u00e9"\n}';
  const located = validateJson(text).errors.map(({ pointer, keyword, line, column }) => [
    pointer,
    keyword,
    line,
    column,
  ]);
  assert.deepEqual(located.sort(), [
    ["/error_info", "additionalProperties", 3, 54],
    ["/error_info", "type", 3, 17],
    ["/error_info/code", "enum", 3, 26],
    ["/status", "enum", 2, 13],
  ]);
});

test("a valid text is valid, as a string and as bytes", () => {
  const text = '{"status": "partial", "text": "First 10 rows", "data": {"rows": []}, "x-trace": {"id": "1"}}';
  assert.deepEqual(validateJson(text), { valid: true, errors: [] });
  assert.deepEqual(validateJson(new TextEncoder().encode(text)), { valid: true, errors: [] });
});
