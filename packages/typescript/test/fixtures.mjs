// The shared conformance fixtures, read as the Python tests read them: the files of
// tests/conformance/v1 (or of the directory in TOOLRESPONSE_CONFORMANCE_DIR), checked against
// tests/conformance/fixture.schema.json, and a judge of each kind of test.
//
// * <dir>/*.json: schema tests (`data`, `valid`, `error`), run through validate();
// * <dir>/ijson/*.json: I-JSON text tests (`json`, `valid`, `error`), run through validateJson();
// * <dir>/http/*.json: HTTP-binding tests (`request`, `response`), checked and counted: they need
//   a server of the HTTP binding (`toolresponse conformance URL`), which this package is not;
// * <dir>/mcp/*.json: MCP mapping tests (`direction`, `input`, `expected`), run through
//   toCallToolResult() (write) and fromCallToolResult() (read).
//
// A fixture file that is not JSON, does not match the fixture schema, holds a test of the wrong
// kind for its directory, or repeats a description is a problem, and a problem fails the run.

import assert from "node:assert/strict";
import { readFile, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { Ajv2020 } from "ajv/dist/2020.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const ENV_FIXTURE_DIR = "TOOLRESPONSE_CONFORMANCE_DIR";
const FIXTURE_SCHEMA = path.join(ROOT, "tests", "conformance", "fixture.schema.json");
const TEXT_SUBDIR = "ijson";
const HTTP_SUBDIR = "http";
const MCP_SUBDIR = "mcp";
const KINDS = [
  // [directory, the member that marks its tests, what its tests are]
  ["", "data", "a schema test"],
  [TEXT_SUBDIR, "json", "an I-JSON text test"],
  [HTTP_SUBDIR, "request", "an HTTP test"],
  [MCP_SUBDIR, "direction", "an MCP mapping test"],
];

/** The fixture directory cannot be read at all: the run must not pass on nothing. */
export class SuiteError extends Error {}

/** The fixture directory: TOOLRESPONSE_CONFORMANCE_DIR when set, else the repository's. */
export function fixtureDir(environment = process.env) {
  return path.resolve(environment[ENV_FIXTURE_DIR] || path.join(ROOT, "tests", "conformance", "v1"));
}

async function jsonFiles(directory) {
  try {
    return (await readdir(directory)).filter((name) => name.endsWith(".json")).sort();
  } catch (error) {
    if (error?.code === "ENOENT") return [];
    throw error;
  }
}

function describeAjvError(error) {
  return `${error.instancePath || "(root)"}: ${error.keyword} ${error.message ?? ""}`.trim();
}

/**
 * Every test of the fixture directory, by kind, and the problems of its files. Throws SuiteError
 * when the directory does not exist or holds no schema fixture file.
 */
export async function loadSuite(directory) {
  const exists = await stat(directory).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!exists) throw new SuiteError(`fixture directory ${directory} does not exist`);
  if ((await jsonFiles(directory)).length === 0)
    throw new SuiteError(`fixture directory ${directory} holds no .json file`);
  const validFixtureFile = new Ajv2020({
    strict: true,
    strictTypes: false,
    strictRequired: false,
    allErrors: true,
  }).compile(JSON.parse(await readFile(FIXTURE_SCHEMA, "utf8")));
  const suite = { value: [], text: [], http: [], mcp: [], problems: [] };
  const lists = {
    "": suite.value,
    [TEXT_SUBDIR]: suite.text,
    [HTTP_SUBDIR]: suite.http,
    [MCP_SUBDIR]: suite.mcp,
  };
  const seen = new Map();
  for (const [subdir, marker, kind] of KINDS) {
    for (const name of await jsonFiles(path.join(directory, subdir))) {
      const file = subdir ? `${subdir}/${name}` : name;
      const problem = (text) => suite.problems.push({ file, problem: text });
      let groups;
      try {
        groups = JSON.parse(await readFile(path.join(directory, subdir, name), "utf8"));
      } catch (error) {
        problem(`not valid JSON (${error.message})`);
        continue;
      }
      if (!validFixtureFile(groups)) {
        problem(
          `does not match fixture.schema.json: ${validFixtureFile.errors.map(describeAjvError).join("; ")}`,
        );
        continue;
      }
      for (const group of groups) {
        for (const test of group.tests) {
          const quoted = JSON.stringify(test.description);
          if (!(marker in test)) {
            const other = KINDS.find(([, otherMarker]) => otherMarker in test);
            problem(
              `${quoted} is ${other?.[2] ?? "a test of no kind"}, not ${kind} (${subdir || "the top"} directory)`,
            );
            continue;
          }
          if (/should|test that/i.test(test.description))
            problem(`${quoted} is not declarative ("should", "test that")`);
          if (seen.has(test.description))
            problem(`${quoted} is also a description in ${seen.get(test.description)}`);
          seen.set(test.description, file);
          lists[subdir].push({ ...test, id: `${file}::${test.description}`, group: group.description });
        }
      }
    }
  }
  return suite;
}

function listed(errors) {
  return errors.length
    ? errors.map((e) => `${e.pointer || '""'} [${e.keyword}] ${e.message}`).join("; ")
    : "no violation";
}

const verdict = (valid) => (valid ? "valid" : "invalid");

/**
 * Why `validate` fails the schema test, or null when it passes: its verdict is the fixture's,
 * and for an invalid instance some violation has the expected pointer and keyword (as the
 * Python loader asserts).
 */
export function judgeValue(validate, test) {
  const result = validate(test.data);
  if (result.valid !== test.valid)
    return `expected ${verdict(test.valid)}, got ${verdict(result.valid)}: ${listed(result.errors)}`;
  if (test.valid) return null;
  const { pointer, keyword } = test.error;
  if (result.errors.some((e) => e.pointer === pointer && e.keyword === keyword)) return null;
  return `no violation at ${JSON.stringify(pointer)} with keyword ${keyword}: ${listed(result.errors)}`;
}

/**
 * Why `validateJson` fails the text test, or null when it passes: its verdict is the fixture's,
 * and for an invalid text the first violation has the expected pointer and keyword (as the
 * Python test asserts), for the text as a string and as its UTF-8 bytes.
 */
export function judgeText(validateJson, test) {
  for (const [form, input] of [
    ["string", test.json],
    ["UTF-8 bytes", new TextEncoder().encode(test.json)],
  ]) {
    const result = validateJson(input);
    if (result.valid !== test.valid) {
      return `as ${form}: expected ${verdict(test.valid)}, got ${verdict(result.valid)}: ${listed(result.errors)}`;
    }
    if (test.valid) continue;
    const [first] = result.errors;
    if (first.pointer !== test.error.pointer || first.keyword !== test.error.keyword) {
      const expected = `${JSON.stringify(test.error.pointer)} [${test.error.keyword}]`;
      return `as ${form}: the first violation is not at ${expected}: ${listed(result.errors)}`;
    }
  }
  return null;
}

/** The value at `pointer` in `value`, removed from it. */
function taken(value, pointer) {
  const tokens = pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
  const last = tokens.pop();
  const parent = tokens.reduce((node, token) => node?.[token], value);
  const found = parent?.[last];
  if (parent !== undefined && parent !== null) delete parent[last];
  return found;
}

/** What differs between two JSON values, or null when they are equal (member order aside). */
function difference(actual, expected) {
  try {
    assert.deepStrictEqual(actual, expected);
    return null;
  } catch (error) {
    return error.message;
  }
}

/**
 * Why the MCP mapping (`toCallToolResult`, `fromCallToolResult`, `DialectError` of
 * toolresponse/mcp) fails the MCP mapping test, or null when it passes, as the Python runner
 * judges: the outcome equals `expected` as JSON, but for the made-up values at the `generated`
 * pointers (each a non-empty string) and the `tool_failure_ignored` violations (one with the
 * `ignored` pointer and keyword); for `error`, a DialectError with a violation at that pointer
 * and keyword. The clock is `now_ms`; a case without one fails when the mapping reads it.
 */
export function judgeMcp(mapping, test) {
  const clock =
    test.now_ms === undefined
      ? () => {
          throw new Error("the mapping read the clock, and the case gives no now_ms");
        }
      : () => test.now_ms;
  let actual;
  try {
    actual =
      test.direction === "write"
        ? mapping.toCallToolResult(test.input, { clock })
        : mapping.fromCallToolResult(test.input, { clock });
  } catch (error) {
    if (test.error === undefined || !(error instanceof mapping.DialectError)) return `threw ${error.stack}`;
    const { pointer, keyword } = test.error;
    if (error.errors.some((e) => e.pointer === pointer && e.keyword === keyword)) return null;
    return `no violation at ${JSON.stringify(pointer)} with keyword ${keyword}: ${listed(error.errors)}`;
  }
  if (test.error !== undefined)
    return `expected a DialectError at ${JSON.stringify(test.error.pointer)}, got ${JSON.stringify(actual)}`;
  actual = structuredClone(actual);
  for (const pointer of test.generated ?? []) {
    const made = taken(actual, pointer);
    if (typeof made !== "string" || made === "")
      return `${pointer} is not a made-up string: ${JSON.stringify(made)}`;
  }
  if (test.ignored !== undefined) {
    const violations = taken(actual, "/error_info/details/tool_failure_ignored");
    if (!Array.isArray(violations) || !violations.every((v) => typeof v?.message === "string"))
      return `error_info.details.tool_failure_ignored is not a list of violations: ${JSON.stringify(violations)}`;
    const located = violations.map(({ message, ...rest }) => rest);
    if (located.every((v) => difference(v, test.ignored) !== null))
      return `no ignored violation ${JSON.stringify(test.ignored)}: ${JSON.stringify(violations)}`;
  }
  return difference(actual, test.expected);
}
