// The conformance runner can fail: a wrong verdict, a wrong location, a broken or misplaced
// fixture file and an empty directory each fail it, and TOOLRESPONSE_CONFORMANCE_DIR points it
// at another copy of the fixtures.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

import { validate, validateJson } from "toolresponse";

import { ENV_FIXTURE_DIR, SuiteError, fixtureDir, judgeText, judgeValue, loadSuite } from "./fixtures.mjs";

const CONFORMANCE_TEST = path.join(path.dirname(fileURLToPath(import.meta.url)), "conformance.test.mjs");
const scratch = await mkdtemp(path.join(tmpdir(), "toolresponse-fixtures-"));
after(() => rm(scratch, { recursive: true, force: true }));

let directories = 0;
/** A fixture directory holding `files` (name: content; an object or array is written as JSON). */
async function fixtures(files) {
  directories += 1;
  const directory = path.join(scratch, String(directories));
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(directory, name)), { recursive: true });
    await writeFile(
      path.join(directory, name),
      typeof content === "string" ? content : JSON.stringify(content),
    );
  }
  await mkdir(directory, { recursive: true });
  return directory;
}

const group = (...tests) => [{ description: "a group", tests }];
const ERROR_WITHOUT_INFO = { status: "error", text: "Failed." };

test("a wrong verdict fails the schema test", () => {
  const fixture = { description: "labelled valid", data: ERROR_WITHOUT_INFO, valid: true };
  assert.match(judgeValue(validate, fixture), /^expected valid, got invalid: "" \[required\]/);
});

test("a verdict found at another location fails the schema test", () => {
  const fixture = {
    description: "located",
    data: ERROR_WITHOUT_INFO,
    valid: false,
    error: { pointer: "/text", keyword: "type" },
  };
  assert.match(judgeValue(validate, fixture), /^no violation at "\/text" with keyword type/);
});

test("a wrong verdict or a wrong first violation fails the text test", () => {
  const duplicate = '{"status": "success", "text": "a", "text": "b"}';
  assert.match(
    judgeText(validateJson, { json: duplicate, valid: true }),
    /^as string: expected valid, got invalid/,
  );
  const elsewhere = {
    json: duplicate,
    valid: false,
    error: { pointer: "/status", keyword: "duplicate-name" },
  };
  assert.match(
    judgeText(validateJson, elsewhere),
    /^as string: the first violation is not at "\/status" \[duplicate-name\]/,
  );
  const right = { json: duplicate, valid: false, error: { pointer: "/text", keyword: "duplicate-name" } };
  assert.equal(judgeText(validateJson, right), null);
});

test("a fixture file that is not JSON, or off the fixture schema, is a problem", async () => {
  const directory = await fixtures({
    "broken.json": "[{",
    "shapeless.json": [{ description: "no tests member" }],
  });
  const { problems } = await loadSuite(directory);
  assert.deepEqual(
    problems.map(({ file, problem }) => [file, problem.split(" (")[0].split(":")[0]]),
    [
      ["broken.json", "not valid JSON"],
      ["shapeless.json", "does not match fixture.schema.json"],
    ],
  );
});

test("a test in the wrong directory, a repeated description and a 'should' are problems", async () => {
  const text = {
    description: "a text test",
    json: "{}",
    valid: false,
    error: { pointer: "", keyword: "required" },
  };
  const value = {
    description: "a value test",
    data: {},
    valid: false,
    error: { pointer: "", keyword: "required" },
  };
  const directory = await fixtures({
    "a.json": group(text, value),
    "ijson/b.json": group({ ...value, description: "a value test in ijson" }),
    "c.json": group({ ...value, description: "it should be refused" }, { ...value }),
  });
  const { problems, value: tests } = await loadSuite(directory);
  assert.deepEqual(
    problems.map(({ file, problem }) => `${file}: ${problem}`),
    [
      'a.json: "a text test" is an I-JSON text test, not a schema test (the top directory)',
      'c.json: "it should be refused" is not declarative ("should", "test that")',
      'c.json: "a value test" is also a description in a.json',
      'ijson/b.json: "a value test in ijson" is a schema test, not an I-JSON text test (ijson directory)',
    ],
  );
  assert.equal(tests.length, 3);
});

test("an empty or missing fixture directory cannot pass", async () => {
  const empty = await fixtures({});
  await assert.rejects(loadSuite(empty), new SuiteError(`fixture directory ${empty} holds no .json file`));
  const missing = path.join(scratch, "missing");
  await assert.rejects(loadSuite(missing), new SuiteError(`fixture directory ${missing} does not exist`));
});

test("TOOLRESPONSE_CONFORMANCE_DIR names the fixture directory", () => {
  assert.equal(fixtureDir({ [ENV_FIXTURE_DIR]: "/elsewhere/v1" }), path.resolve("/elsewhere/v1"));
  assert.match(fixtureDir({}), /tests[/\\]conformance[/\\]v1$/);
});

test("the conformance run over a copy with one wrong verdict fails, counting it", async () => {
  const directory = await fixtures({
    "wrong.json": group(
      { description: "error without error_info labelled valid", data: ERROR_WITHOUT_INFO, valid: true },
      {
        description: "plain success labelled valid",
        data: { status: "success", text: "Done." },
        valid: true,
      },
    ),
  });
  // NODE_TEST_CONTEXT marks a process that node --test started: without it the child runs its own tests.
  const { NODE_TEST_CONTEXT, ...environment } = process.env;
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", CONFORMANCE_TEST], {
    env: { ...environment, [ENV_FIXTURE_DIR]: directory },
    encoding: "utf8",
  });
  assert.equal(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stdout, /^# pass 2$/m);
  assert.match(run.stdout, /^# fail 1$/m);
  assert.match(run.stdout, /not ok \d+ - wrong\.json::error without error_info labelled valid/);
});
